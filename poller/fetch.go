package poller

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/switchboard/switchboard/poller/parse"
	"github.com/switchboard/switchboard/seeds"
	"github.com/switchboard/switchboard/store"
)

// Failure kinds recorded on a failed check. None of them is an outage.
const (
	FailTimeout      = store.FailureTimeout
	FailDNS          = store.FailureDNS
	FailTLS          = store.FailureTLS
	FailConnection   = store.FailureConnection
	FailRedirects    = "redirects"
	FailHTTPStatus   = "http_status"
	FailBodyTooLarge = "body_too_large"
	FailParse        = "parse"
	FailNoParser     = "no_parser"
)

var errTooManyRedirects = errors.New("too many redirects")

// fetchResult is one fetch of one status page.
type fetchResult struct {
	reading    parse.Reading
	failure    string // empty on success
	detail     string
	httpStatus int
	elapsed    time.Duration // request start to last body byte; zero when no response arrived
}

// conditional remembers what a URL answered last, so the next fetch can ask "has it changed?". On 304 the
// remembered body is parsed again with the new time: feed parsers judge entries by age, so an unchanged feed
// can still read differently an hour later.
type conditional struct {
	etag, lastModified string
	body               []byte
}

// maxCachedBody bounds what is kept per URL for conditional requests; larger pages are fetched whole each time.
const maxCachedBody = 512 << 10

type fetcher struct {
	client    *http.Client
	timeout   time.Duration
	maxBody   int64
	userAgent string

	mu    sync.Mutex
	cache map[string]conditional // by URL; bounded by the number of providers
}

func newFetcher(timeout time.Duration, maxBody int64, maxRedirects int, userAgent string) *fetcher {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 4
	tr.TLSHandshakeTimeout = timeout
	tr.ResponseHeaderTimeout = timeout
	return &fetcher{
		client: &http.Client{
			Transport: tr,
			CheckRedirect: func(req *http.Request, via []*http.Request) error {
				if len(via) > maxRedirects {
					return errTooManyRedirects
				}
				return nil
			},
		},
		timeout: timeout, maxBody: maxBody, userAgent: userAgent, cache: map[string]conditional{},
	}
}

// fetch gets and parses one page. It never returns an error: every failure is a fetchResult with a kind.
func (f *fetcher) fetch(ctx context.Context, url string, p seeds.Provider, now time.Time) fetchResult {
	parser, ok := parse.Get(p.Format)
	if !ok {
		return fetchResult{failure: FailNoParser, detail: "no parser for format " + p.Format}
	}
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fetchResult{failure: FailConnection, detail: err.Error()}
	}
	req.Header.Set("User-Agent", f.userAgent)
	req.Header.Set("Accept", "application/json, application/xml;q=0.9, */*;q=0.8")
	f.mu.Lock()
	prev, cached := f.cache[url]
	f.mu.Unlock()
	if cached {
		if prev.etag != "" {
			req.Header.Set("If-None-Match", prev.etag)
		}
		if prev.lastModified != "" {
			req.Header.Set("If-Modified-Since", prev.lastModified)
		}
	}

	start := time.Now()
	res, err := f.client.Do(req)
	if err != nil {
		return fetchResult{failure: classify(err), detail: trim(err.Error(), 300)}
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, f.maxBody+1))
	elapsed := time.Since(start)
	r := fetchResult{httpStatus: res.StatusCode, elapsed: elapsed}
	switch {
	case err != nil:
		r.failure, r.detail, r.elapsed = classify(err), trim(err.Error(), 300), 0
		return r
	case res.StatusCode == http.StatusNotModified && cached:
		body = prev.body
	case res.StatusCode < 200 || res.StatusCode > 299:
		r.failure, r.detail = FailHTTPStatus, fmt.Sprintf("HTTP %d", res.StatusCode)
		return r
	case int64(len(body)) > f.maxBody:
		r.failure, r.detail = FailBodyTooLarge, fmt.Sprintf("body larger than %d bytes", f.maxBody)
		return r
	}
	reading, err := parser(body, parse.Scope{Components: p.Scope.Components, Keywords: p.Scope.Keywords}, now)
	if err != nil {
		r.failure, r.detail = FailParse, trim(err.Error(), 300)
		return r
	}
	r.reading = reading
	if res.StatusCode == http.StatusNotModified {
		return r
	}
	etag, lm := res.Header.Get("ETag"), res.Header.Get("Last-Modified")
	f.mu.Lock()
	if (etag != "" || lm != "") && len(body) <= maxCachedBody {
		f.cache[url] = conditional{etag: etag, lastModified: lm, body: body}
	} else {
		delete(f.cache, url)
	}
	f.mu.Unlock()
	return r
}

func classify(err error) string {
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var recErr tls.RecordHeaderError
	var unknownAuth x509.UnknownAuthorityError
	var netErr net.Error
	switch {
	case errors.Is(err, errTooManyRedirects):
		return FailRedirects
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return FailTimeout
	case errors.As(err, &dnsErr):
		return FailDNS
	case errors.As(err, &certErr), errors.As(err, &recErr), errors.As(err, &unknownAuth):
		return FailTLS
	case errors.As(err, &netErr) && netErr.Timeout():
		return FailTimeout
	}
	return FailConnection
}

func trim(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	return s[:n]
}
