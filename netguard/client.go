package netguard

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// DefaultTimeout bounds a whole call (connect, send, answer, body) when Options.Timeout is not set.
const DefaultTimeout = 30 * time.Second

// DefaultMaxRedirects is the number of redirects followed when Options.MaxRedirects is not set.
const DefaultMaxRedirects = 3

// Errors of the redirect policy, wrapped in the client's *url.Error.
var (
	// ErrRedirectRefused is a redirect to plain http, to a host that is neither the original one nor listed,
	// or when redirects are not followed at all.
	ErrRedirectRefused = errors.New("redirect refused")
	// ErrTooManyRedirects is a chain longer than MaxRedirects.
	ErrTooManyRedirects = errors.New("too many redirects")
)

// Options tune NewClient. The zero value is the safe one: internal addresses refused, no proxy, redirects to
// https on the same host only, DefaultTimeout.
type Options struct {
	// Timeout bounds a whole call: connecting, sending, the answer and reading its body.
	Timeout time.Duration
	// AllowLoopback lets the client reach 127.0.0.0/8 and ::1 (the simulator, test servers). Over loopback a
	// redirect may also stay on plain http, so a local stand-in needs no certificate.
	AllowLoopback bool
	// Proxy, when set, is the one HTTP proxy every request goes through (the operator's setting; the proxy
	// environment variables are never read). The proxy dials the upstream in our place, so the address check
	// then covers only what the URL names literally (CheckHostLiteral): the proxy must filter the rest.
	Proxy *url.URL
	// MaxRedirects is how many redirects one call follows (DefaultMaxRedirects when 0); negative: none, a 3xx
	// is then the answer (the caller treats it as a failure).
	MaxRedirects int
	// Allow are ranges the client may reach although CheckAddr refuses them (a mirror or a facilitator on the
	// operator's internal network). Loopback stays AllowLoopback's.
	Allow []netip.Prefix
	// RedirectHosts are the hosts a redirect may lead to besides the request's own host (names compared
	// without port and case).
	RedirectHosts []string
	// RootCAs replaces the system's trusted certificates (private CAs, tests).
	RootCAs *x509.CertPool
	// MaxIdleConnsPerHost bounds the idle connections kept per host (default 4).
	MaxIdleConnsPerHost int
}

// NewClient returns an HTTP client for calls the service makes on its own initiative. Every connection it
// dials is checked by CheckAddr on the IP dialled, except the connection to the configured proxy; every URL it
// requests, the first and each redirect, is checked by CheckHostLiteral; redirects follow the policy of o.
func NewClient(o Options) *http.Client {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxRedirects == 0 {
		o.MaxRedirects = DefaultMaxRedirects
	}
	step := min(o.Timeout, 10*time.Second)
	p := policy{allowLoopback: o.AllowLoopback, allow: o.Allow}
	guarded := &net.Dialer{Timeout: step, KeepAlive: 30 * time.Second, Control: func(network, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("dialling %s: unexpected address form: %w", network, err)
		}
		return p.check(ap.Addr())
	}}
	dial := guarded.DialContext
	tr := &http.Transport{
		Proxy:                 nil,
		ForceAttemptHTTP2:     true,
		TLSHandshakeTimeout:   step,
		ResponseHeaderTimeout: o.Timeout,
		ExpectContinueTimeout: time.Second,
		MaxIdleConns:          64,
		MaxIdleConnsPerHost:   max(o.MaxIdleConnsPerHost, 4),
		IdleConnTimeout:       90 * time.Second,
	}
	if o.Proxy != nil {
		// The proxy is the operator's own, often on the internal network: it alone is dialled unchecked.
		proxyAddr := canonicalAddr(o.Proxy)
		plain := &net.Dialer{Timeout: step, KeepAlive: 30 * time.Second}
		dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
			if addr == proxyAddr {
				return plain.DialContext(ctx, network, addr)
			}
			return guarded.DialContext(ctx, network, addr)
		}
		tr.Proxy = http.ProxyURL(o.Proxy)
	}
	tr.DialContext = dial
	if o.RootCAs != nil {
		tr.TLSClientConfig = &tls.Config{RootCAs: o.RootCAs, MinVersion: tls.VersionTLS12}
	}
	return &http.Client{
		Transport:     literalCheck{next: tr, p: p},
		Timeout:       o.Timeout,
		CheckRedirect: redirectPolicy(o),
	}
}

// literalCheck refuses a request whose URL names an internal address outright, before the transport runs:
// through a proxy no dial of ours would see it.
type literalCheck struct {
	next http.RoundTripper
	p    policy
}

func (l literalCheck) RoundTrip(r *http.Request) (*http.Response, error) {
	if err := l.p.checkHost(r.URL.Hostname()); err != nil {
		if r.Body != nil {
			r.Body.Close()
		}
		return nil, err
	}
	return l.next.RoundTrip(r)
}

// CloseIdleConnections lets http.Client.CloseIdleConnections reach the transport.
func (l literalCheck) CloseIdleConnections() {
	if c, ok := l.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// policy is CheckAddr with the client's allowances.
type policy struct {
	allowLoopback bool
	allow         []netip.Prefix
}

func (p policy) check(a netip.Addr) error {
	u := a.WithZone("").Unmap()
	for _, pr := range p.allow {
		if pr.Contains(u) {
			return nil
		}
	}
	return CheckAddr(a, p.allowLoopback)
}

func (p policy) checkHost(host string) error {
	if a, err := netip.ParseAddr(strings.TrimSuffix(host, ".")); err == nil {
		return p.check(a)
	}
	return CheckHostLiteral(host, p.allowLoopback)
}

// redirectPolicy follows a redirect only to https (or plain http on loopback when loopback is allowed), only
// to the original host or a listed one, and at most MaxRedirects times.
func redirectPolicy(o Options) func(*http.Request, []*http.Request) error {
	allowed := map[string]bool{}
	for _, h := range o.RedirectHosts {
		allowed[normHost(h)] = true
	}
	return func(req *http.Request, via []*http.Request) error {
		if o.MaxRedirects < 0 {
			return fmt.Errorf("%w: redirects are not followed", ErrRedirectRefused)
		}
		if len(via) > o.MaxRedirects {
			return ErrTooManyRedirects
		}
		host := normHost(req.URL.Hostname())
		switch req.URL.Scheme {
		case "https":
		case "http":
			if !(o.AllowLoopback && IsLoopbackHost(host)) {
				return fmt.Errorf("%w: to plain http", ErrRedirectRefused)
			}
		default:
			return fmt.Errorf("%w: scheme %q", ErrRedirectRefused, req.URL.Scheme)
		}
		if host != normHost(via[0].URL.Hostname()) && !allowed[host] {
			return fmt.Errorf("%w: to another host", ErrRedirectRefused)
		}
		return nil
	}
}

func normHost(h string) string {
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	}
	return strings.TrimSuffix(strings.ToLower(strings.Trim(h, "[]")), ".")
}

// canonicalAddr is host:port of a proxy URL, as the transport dials it.
func canonicalAddr(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443", "socks5": "1080"}[u.Scheme]
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// CheckHost judges a configured URL's host as the client made with o would before connecting: an IP literal
// or a localhost name that the client would refuse is an error, so a setting that cannot work fails at start.
// Other names are judged when dialled.
func (o Options) CheckHost(host string) error {
	return policy{allowLoopback: o.AllowLoopback, allow: o.Allow}.checkHost(host)
}
