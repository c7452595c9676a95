package x402_test

import (
	"encoding/base64"
	"errors"
	"testing"
	"time"

	"github.com/switchboard/switchboard/x402"
	"github.com/switchboard/switchboard/x402/x402test"
)

// FuzzDecodeHeader feeds arbitrary values to the decoder in each place a payment travels (X-PAYMENT,
// PAYMENT-SIGNATURE, an MCP _meta payment) and to the checks behind it: whatever arrives, the answer is a payment
// or a *PaymentError (which the route turns into 402), never a panic or another error kind, and a decoded payment
// is checked without panicking either.
func FuzzDecodeHeader(f *testing.F) {
	fx := newCheckFixture(&testing.T{})
	valid := x402test.Header(&testing.T{}, fx.signed(&testing.T{}, nil))
	for _, seed := range []string{
		valid, valid[:len(valid)/2], "", "not base64!", base64.StdEncoding.EncodeToString([]byte(`{}`)),
		base64.StdEncoding.EncodeToString([]byte(`{"x402Version":1,"scheme":"exact","network":"base-sepolia","payload":{}}`)),
		base64.StdEncoding.EncodeToString([]byte(`[1,2,3]`)), base64.RawURLEncoding.EncodeToString([]byte(`{"a":"\u0000"}`)),
		base64.StdEncoding.EncodeToString([]byte(`{"x402Version":2,"accepted":{"scheme":"exact","network":"eip155:84532","amount":"1000","payTo":"0x0","asset":"0x0"},"payload":{},"extensions":[]}`)),
		`{"x402Version":2,"accepted":{},"payload":{"signature":"0x"}}`,
	} {
		f.Add(seed)
	}
	cfg := x402test.Config(&testing.T{}, "http://127.0.0.1:9")
	now := time.Unix(1_900_000_000, 0)
	f.Fuzz(func(t *testing.T, header string) {
		for _, in := range []x402.Presented{x402.XPayment(header), x402.PaymentSignature(header), x402.MCPPayment([]byte(header))} {
			p, err := x402.Decode(in)
			if err != nil {
				var pe *x402.PaymentError
				if !errors.As(err, &pe) {
					t.Fatalf("Decode(%s): %T %v, want a *PaymentError", in.In, err, err)
				}
				continue
			}
			if err := cfg.Check(p, now); err != nil {
				var pe *x402.PaymentError
				if !errors.As(err, &pe) {
					t.Fatalf("Check(%s): %T %v, want a *PaymentError", in.In, err, err)
				}
			}
		}
	})
}
