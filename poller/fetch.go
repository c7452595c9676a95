package poller

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/switchboard/switchboard/netguard"
	"github.com/switchboard/switchboard/poller/parse"
	"github.com/switchboard/switchboard/seeds"
	"github.com/switchboard/switchboard/store"
)

// Failure kinds recorded on a failed check. None of them is an outage.
const (
	FailTimeout    = store.FailureTimeout
	FailDNS        = store.FailureDNS
	FailTLS        = store.FailureTLS
	FailConnection = store.FailureConnection
	FailRedirects  = netguard.ClassTooManyRedirect
	// FailRedirectRefused is a redirect to plain http or to a host that is neither the page's nor listed.
	FailRedirectRefused = netguard.ClassRedirectRefused
	// FailRefusedAddress is a page (or a redirect) that resolves to a loopback, private, link-local or metadata
	// address: never fetched.
	FailRefusedAddress = netguard.ClassRefusedAddress
	FailHTTPStatus     = "http_status"
	FailBodyTooLarge   = "body_too_large"
	FailParse          = "parse"
	FailNoParser       = "no_parser"
)

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

// newFetcher fetches through the guarded client (package netguard): no internal addresses unless guard allows
// them, redirects only to https and to the page's own host, another provider's status host or a listed one.
func newFetcher(timeout time.Duration, maxBody int64, maxRedirects int, userAgent string, guard netguard.Options, providers []seeds.Provider) *fetcher {
	guard.Timeout = timeout
	guard.MaxRedirects = maxRedirects
	guard.RedirectHosts = append(slices.Clone(guard.RedirectHosts), statusHosts(providers)...)
	return &fetcher{
		client:  netguard.NewClient(guard),
		timeout: timeout, maxBody: maxBody, userAgent: userAgent, cache: map[string]conditional{},
	}
}

// statusHosts are the hosts of the providers' own status pages: public pages a redirect may lead to (a
// provider moving its page to a sibling's host).
func statusHosts(providers []seeds.Provider) []string {
	var out []string
	for _, p := range providers {
		if u, err := url.Parse(p.StatusAPIURL); err == nil && u.Hostname() != "" {
			out = append(out, u.Hostname())
		}
	}
	return out
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
		return fetchResult{failure: netguard.Class(err), detail: trim(err.Error(), 300)}
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, f.maxBody+1))
	elapsed := time.Since(start)
	r := fetchResult{httpStatus: res.StatusCode, elapsed: elapsed}
	switch {
	case err != nil:
		r.failure, r.detail, r.elapsed = netguard.Class(err), trim(err.Error(), 300), 0
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
	reading, err := parser(body, parse.Scope{Components: p.Scope.Components, Keywords: p.Scope.Keywords,
		DisruptionTop: p.Scope.DisruptionTop}, now)
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

func trim(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	return s[:n]
}
