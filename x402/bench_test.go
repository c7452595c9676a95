package x402_test

import (
	"context"
	"testing"
	"time"

	"github.com/switchboard/switchboard/dbtest"
	"github.com/switchboard/switchboard/x402"
	"github.com/switchboard/switchboard/x402/x402test"
)

// BenchmarkRememberedRefusal is what an attempt from a payer the facilitator refused a moment ago costs: the
// decoding and the signature check, no store write and no facilitator call.
func BenchmarkRememberedRefusal(b *testing.B) {
	t := b
	f := newLimited(b, dbtest.Engines(b)[0], func(c *x402.Config) { c.PayerLimit, c.ClientLimit = 1<<30, 1<<30 })
	f.fac.OnVerify(insufficientFunds)
	payer := x402test.NewPayer(t)
	now := time.Now()
	in := x402.XPayment(x402test.Header(t, payer.Payload(t, f.svc.Requirements(), now)))
	if _, err := f.svc.Serve(context.Background(), in, now, nil); status(err) != 402 {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := f.svc.Serve(context.Background(), in, now, nil); status(err) != 402 {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if n := f.fac.Count("verify"); n != 1 {
		b.Errorf("%d verify calls", n)
	}
}

// BenchmarkRefusedByFacilitator is the same attempt from a new key each time (up to the limits): a store claim
// and release and a facilitator call on loopback.
func BenchmarkRefusedByFacilitator(b *testing.B) {
	t := b
	f := newLimited(b, dbtest.Engines(b)[0], func(c *x402.Config) { c.PayerLimit, c.ClientLimit = 1<<30, 1<<30 })
	f.fac.OnVerify(insufficientFunds)
	now := time.Now()
	for b.Loop() {
		b.StopTimer()
		in := x402.XPayment(x402test.Header(t, x402test.NewPayer(t).Payload(t, f.svc.Requirements(), now)))
		b.StartTimer()
		if _, err := f.svc.Serve(context.Background(), in, now, nil); status(err) != 402 {
			b.Fatal(err)
		}
	}
}
