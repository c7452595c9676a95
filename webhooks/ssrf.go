package webhooks

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"

	"github.com/switchboard/switchboard/netguard"
)

// BlockedAddressError is a callback address the service refuses to reach (netguard decides for every outbound
// call of the service).
type BlockedAddressError = netguard.BlockedAddressError

// CheckAddr reports why a callback may not reach addr, or nil when it may. allowLoopback lets 127.0.0.0/8 and
// ::1 through (local use and tests); nothing else depends on it.
func CheckAddr(addr netip.Addr, allowLoopback bool) error {
	return netguard.CheckAddr(addr, allowLoopback)
}

// isLoopbackHost reports whether a URL host names this machine.
func isLoopbackHost(host string) bool { return netguard.IsLoopbackHost(host) }

// dialControl checks the address a connection is about to be made to, after name resolution: whatever a
// name resolved to at subscribe time, or resolves to now (DNS rebinding), the IP actually dialled is judged.
func dialControl(allowLoopback bool) func(network, address string, _ syscall.RawConn) error {
	return netguard.Control(allowLoopback)
}

// ClientOptions tune NewClient.
type ClientOptions struct {
	// Timeout bounds a whole attempt: connecting, sending, the answer and reading its body. Default 5 s.
	Timeout time.Duration
	// ConnectTimeout bounds connecting and the TLS handshake. Default 3 s, at most Timeout.
	ConnectTimeout time.Duration
	// AllowLoopback lets callbacks reach 127.0.0.0/8 and ::1.
	AllowLoopback bool
	// RootCAs replaces the system's trusted certificates (receivers behind a private CA, tests).
	RootCAs *x509.CertPool
}

// NewClient returns the HTTP client deliveries go through. Every connection it makes is checked by
// CheckAddr on the dialled IP; it ignores proxy settings (a proxy would dial in our place, unchecked) and never
// follows a redirect (a 3xx is a failed attempt), so a receiver cannot bounce a delivery to an internal address.
func NewClient(o ClientOptions) *http.Client {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = DefaultConnectTimeout
	}
	o.ConnectTimeout = min(o.ConnectTimeout, o.Timeout)
	dialer := &net.Dialer{
		Timeout:   o.ConnectTimeout,
		KeepAlive: 30 * time.Second,
		Control:   dialControl(o.AllowLoopback),
	}
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		TLSHandshakeTimeout:   o.ConnectTimeout,
		ResponseHeaderTimeout: o.Timeout,
		ExpectContinueTimeout: time.Second,
		// Each receiver is its own host: a few idle connections per host, bounded overall.
		MaxIdleConns:        256,
		MaxIdleConnsPerHost: 4,
		IdleConnTimeout:     90 * time.Second,
	}
	if o.RootCAs != nil {
		tr.TLSClientConfig = &tls.Config{RootCAs: o.RootCAs, MinVersion: tls.VersionTLS12}
	}
	return &http.Client{
		Transport: tr,
		Timeout:   o.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// checkHostLiteral judges a URL host at subscribe time when it is an IP literal; names are judged when
// dialled, on every connection.
func checkHostLiteral(host string, allowLoopback bool) error {
	a, err := netip.ParseAddr(host)
	if err != nil {
		return nil // a name: judged on every dial
	}
	return CheckAddr(a, allowLoopback)
}

// isBlocked reports whether err (from a delivery attempt) is a refused address.
func isBlocked(err error) (*BlockedAddressError, bool) { return netguard.IsBlocked(err) }
