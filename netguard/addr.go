// Package netguard is the one place that decides which addresses the service may connect to on its own
// initiative (status pages, catalog sources, the x402 facilitator, webhook callbacks), and the HTTP client that
// enforces it. The check runs when a connection is dialled, on the IP actually dialled, so a name that resolves
// to a public address at one moment and to 169.254.169.254 the next (DNS rebinding) is judged each time.
package netguard

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"syscall"
)

// BlockedAddressError is an address the service refuses to reach: loopback (unless allowed), private,
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

// CheckAddr reports why the service may not connect to addr, or nil when it may. allowLoopback lets
// 127.0.0.0/8 and ::1 through (local use and tests); nothing else depends on it.
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

// IsLoopbackHost reports whether a URL host names this machine: a loopback IP literal or the localhost names
// (RFC 6761 reserves localhost and *.localhost for it).
func IsLoopbackHost(host string) bool {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	if a, err := netip.ParseAddr(h); err == nil {
		return a.Unmap().IsLoopback()
	}
	return false
}

// CheckHostLiteral judges a URL host before any connection when it is an IP literal or a localhost name; other
// names are judged when dialled, on every connection. It is what keeps a request sent through a proxy (which
// dials in our place) from naming an internal address outright.
func CheckHostLiteral(host string, allowLoopback bool) error {
	h := strings.TrimSuffix(host, ".")
	if a, err := netip.ParseAddr(h); err == nil {
		return CheckAddr(a, allowLoopback)
	}
	if IsLoopbackHost(h) && !allowLoopback {
		return &BlockedAddressError{netip.IPv6Loopback(), "loopback name " + h}
	}
	return nil
}

// Control is a net.Dialer Control function that checks the address a connection is about to be made to, after
// name resolution: whatever a name resolved to before, the IP actually dialled is judged.
func Control(allowLoopback bool) func(network, address string, _ syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("dialling %s: unexpected address form: %w", network, err)
		}
		return CheckAddr(ap.Addr(), allowLoopback)
	}
}

// IsBlocked reports whether err (from a request or a dial) is a refused address.
func IsBlocked(err error) (*BlockedAddressError, bool) {
	var b *BlockedAddressError
	if errors.As(err, &b) {
		return b, true
	}
	return nil, false
}
