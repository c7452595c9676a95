package netguard

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
)

// Classes of a failed call, as the service shows them in place of the error's text: an error's text may carry
// an internal URL or an upstream's words, which stay in the logs.
const (
	ClassRefusedAddress  = "refused_address"
	ClassRedirectRefused = "redirect_refused"
	ClassTooManyRedirect = "redirects"
	ClassTimeout         = "timeout"
	ClassDNS             = "dns"
	ClassTLS             = "tls"
	ClassConnection      = "connection"
)

// Class names the kind of a transport error from a client of this package (or any net/http client). It never
// returns the empty string: an error of no known kind is ClassConnection.
func Class(err error) string {
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var recErr tls.RecordHeaderError
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var netErr net.Error
	switch {
	case errors.Is(err, ErrRedirectRefused):
		return ClassRedirectRefused
	case errors.Is(err, ErrTooManyRedirects):
		return ClassTooManyRedirect
	case func() bool { _, ok := IsBlocked(err); return ok }():
		return ClassRefusedAddress
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return ClassTimeout
	case errors.As(err, &dnsErr):
		return ClassDNS
	case errors.As(err, &certErr), errors.As(err, &recErr), errors.As(err, &unknownAuth), errors.As(err, &hostErr):
		return ClassTLS
	case errors.As(err, &netErr) && netErr.Timeout():
		return ClassTimeout
	}
	return ClassConnection
}
