package x402

import (
	"net/http"
	"time"
)

// The two statuses a refused payment answers with.
const (
	// StatusPaymentRequired: the payment is missing or not acceptable; the answer lists the requirements again.
	StatusPaymentRequired = http.StatusPaymentRequired
	// StatusUnavailable: the payment could not be processed now (facilitator unreachable); retry later.
	StatusUnavailable = http.StatusServiceUnavailable
	// StatusTooManyRequests: the client or the payer made too many payment attempts this minute.
	StatusTooManyRequests = http.StatusTooManyRequests
)

// PaymentError is a payment refused or not processed, and why. Its Reason is safe to show the caller: it
// never contains internal error text or the caller's own data. Nothing was served and, unless the reason says
// so, nothing was settled.
type PaymentError struct {
	Status int    // StatusPaymentRequired, StatusUnavailable or StatusTooManyRequests
	Reason string // for the answer's error field
	// Missing is true when no payment was presented at all (each version then words its own reason: Missing).
	Missing bool
	// RetryAfter, when positive, is when to try again (StatusTooManyRequests, StatusUnavailable).
	RetryAfter time.Duration
}

func (e *PaymentError) Error() string { return "x402: " + e.Reason }
