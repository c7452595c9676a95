package webhooks

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"syscall"
	"time"
)

// BlockedAddressError is a callback address the service refuses to reach: loopback (unless allowed), private,
// link-local (the cloud metadata service among them), CGNAT, multicast, unspecified and other special ranges.
type BlockedAddressError struct {
	Addr   netip.Addr
	Reason string
}

func (e *BlockedAddressError) Error() string {
	return fmt.Sprintf("address %s is not allowed (%s)", e.Addr, e.Reason)
}

// specialRanges are refused whatever the setting: they reach this machine's network, not the internet.
// Loopback is handled apart, because a setting allows it.
var specialRanges = []struct {
	prefix netip.Prefix
	reason string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "this network"},
	{netip.MustParsePrefix("10.0.0.0/8"), "private"},
	{netip.MustParsePrefix("100.64.0.0/10"), "carrier-grade NAT"},
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local (cloud metadata)"},
	{netip.MustParsePrefix("172.16.0.0/12"), "private"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol assignments"},
	{netip.MustParsePrefix("192.168.0.0/16"), "private"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("224.0.0.0/4"), "multicast"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"}, // includes 255.255.255.255
	{netip.MustParsePrefix("::/128"), "unspecified"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "local-use NAT64"},
	{netip.MustParsePrefix("100::/64"), "discard-only"},
	{netip.MustParsePrefix("2001::/32"), "Teredo"},
	{netip.MustParsePrefix("fc00::/7"), "unique local (private)"},
	{netip.MustParsePrefix("fe80::/10"), "link-local"},
	{netip.MustParsePrefix("fec0::/10"), "site-local"},
	{netip.MustParsePrefix("ff00::/8"), "multicast"},
}

// IPv6 ranges that carry an IPv4 address in their low or middle bits: that address is checked too, so
// 64:ff9b::a9fe:a9fe cannot reach 169.254.169.254 through a NAT64 gateway.
var (
	nat64     = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour = netip.MustParsePrefix("2002::/16")
	v4Compat  = netip.MustParsePrefix("::/96") // deprecated IPv4-compatible addresses, ::a.b.c.d
)

// CheckAddr reports why a callback may not reach addr, or nil when it may. allowLoopback lets 127.0.0.0/8 and
// ::1 through (local use and tests); nothing else depends on it.
func CheckAddr(addr netip.Addr, allowLoopback bool) error {
	if !addr.IsValid() {
		return &BlockedAddressError{addr, "invalid"}
	}
	addr = addr.WithZone("")
	// ::ffff:127.0.0.1 is 127.0.0.1 on the wire: judge the IPv4 address.
	addr = addr.Unmap()
	if addr.IsLoopback() {
		if allowLoopback {
			return nil
		}
		return &BlockedAddressError{addr, "loopback"}
	}
	if addr.IsUnspecified() {
		return &BlockedAddressError{addr, "unspecified"}
	}
	for _, r := range specialRanges {
		if r.prefix.Contains(addr) {
			return &BlockedAddressError{addr, r.reason}
		}
	}
	if addr.Is6() {
		b := addr.As16()
		var inner netip.Addr
		switch {
		case nat64.Contains(addr), v4Compat.Contains(addr):
			inner = netip.AddrFrom4([4]byte(b[12:16]))
		case sixToFour.Contains(addr):
			inner = netip.AddrFrom4([4]byte(b[2:6]))
		}
		if inner.IsValid() {
			var be *BlockedAddressError
			if errors.As(CheckAddr(inner, false), &be) {
				return &BlockedAddressError{addr, "embeds " + inner.String() + ", " + be.Reason}
			}
		}
	}
	return nil
}

// isLoopbackHost reports whether a URL host names this machine: a loopback IP literal or the localhost names
// (RFC 6761 reserves localhost and *.localhost for it).
func isLoopbackHost(host string) bool {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	if a, err := netip.ParseAddr(h); err == nil {
		return a.Unmap().IsLoopback()
	}
	return false
}

// dialControl checks the address a connection is about to be made to, after name resolution: whatever a
// name resolved to at subscribe time, or resolves to now (DNS rebinding), the IP actually dialled is judged.
func dialControl(allowLoopback bool) func(network, address string, _ syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("dialling %s: unexpected address form: %w", network, err)
		}
		return CheckAddr(ap.Addr(), allowLoopback)
	}
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
func isBlocked(err error) (*BlockedAddressError, bool) {
	var b *BlockedAddressError
	if errors.As(err, &b) {
		return b, true
	}
	return nil, false
}
