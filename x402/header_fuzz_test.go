package x402_test

import (
	"encoding/base64"
	"errors"
	"testing"
	"time"

	"github.com/switchboard/switchboard/x402"
	"github.com/switchboard/switchboard/x402/x402test"
)

// FuzzDecodeHeader feeds arbitrary X-PAYMENT headers to the decoder and the checks behind it: whatever arrives,
// the answer is a payment or a *PaymentError (which the route turns into 402), never a panic or another error
// kind, and a decoded payment is checked without panicking either.
func FuzzDecodeHeader(f *testing.F) {
	fx := newCheckFixture(&testing.T{})
	valid := x402test.Header(&testing.T{}, fx.signed(&testing.T{}, nil))
	for _, seed := range []string{
		valid, valid[:len(valid)/2], "", "not base64!", base64.StdEncoding.EncodeToString([]byte(`{}`)),
		base64.StdEncoding.EncodeToString([]byte(`{"x402Version":1,"scheme":"exact","network":"base-sepolia","payload":{}}`)),
		base64.StdEncoding.EncodeToString([]byte(`[1,2,3]`)), base64.RawURLEncoding.EncodeToString([]byte(`{"a":"\u0000"}`)),
	} {
		f.Add(seed)
	}
	cfg := x402test.Config(&testing.T{}, "http://127.0.0.1:9")
	now := time.Unix(1_900_000_000, 0)
	f.Fuzz(func(t *testing.T, header string) {
		p, err := x402.DecodeHeader(header)
		if err != nil {
			var pe *x402.PaymentError
			if !errors.As(err, &pe) {
				t.Fatalf("DecodeHeader: %T %v, want a *PaymentError", err, err)
			}
			return
		}
		if err := cfg.Check(p, now); err != nil {
			var pe *x402.PaymentError
			if !errors.As(err, &pe) {
				t.Fatalf("Check: %T %v, want a *PaymentError", err, err)
			}
		}
	})
}
