package x402_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard/switchboard/dbtest"
	"github.com/switchboard/switchboard/store"
	"github.com/switchboard/switchboard/x402"
	"github.com/switchboard/switchboard/x402/x402test"
)

// countingStore is a real store that counts the claims written to it.
type countingStore struct {
	store.PaymentStore
	claims atomic.Int32
}

func (c *countingStore) ClaimPayment(ctx context.Context, p store.Payment) error {
	c.claims.Add(1)
	return c.PaymentStore.ClaimPayment(ctx, p)
}

type limitFixture struct {
	svc *x402.Service
	st  *countingStore
	fac *x402test.Facilitator
}

// newLimited is a Service over a fresh store (each engine in turn where the test asks) and a facilitator
// stand-in, with cfg adjusted by tune.
func newLimited(t testing.TB, e dbtest.Engine, tune func(*x402.Config)) limitFixture {
	t.Helper()
	fac := x402test.NewFacilitator(t)
	st, _ := e.Open(t)
	cfg := x402test.Config(t, fac.URL)
	if tune != nil {
		tune(&cfg)
	}
	cs := &countingStore{PaymentStore: st}
	svc, err := x402.NewService(x402.Options{Config: cfg, Store: cs, Resource: "http://sb.test/api/v1/health/premium", Description: "test",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	return limitFixture{svc: svc, st: cs, fac: fac}
}

func (f limitFixture) attempt(t *testing.T, payer *x402test.Payer, client string, now time.Time) error {
	t.Helper()
	in := x402.XPayment(x402test.Header(t, payer.Payload(t, f.svc.Requirements(), now)))
	in.Client = client
	_, err := f.svc.Serve(context.Background(), in, now, func(context.Context) error { return nil })
	return err
}

func status(err error) int {
	var pe *x402.PaymentError
	if errors.As(err, &pe) {
		return pe.Status
	}
	if err == nil {
		return 200
	}
	return 500
}

func insufficientFunds(x402.FacilitatorRequest) x402test.Answer {
	return x402test.Answer{Status: 400, Body: map[string]any{"isValid": false, "invalidReason": "insufficient_funds"}}
}

// TestThrowawayKeyRefusalIsRemembered reproduces the finding: a self-signed authorization from a key with no
// funds passes the local checks, and each one used to cost a store write and a facilitator /verify. Once the
// facilitator refused the payer, its next attempts within a minute are refused here, touching neither.
func TestThrowawayKeyRefusalIsRemembered(t *testing.T) {
	for _, e := range dbtest.Engines(t) {
		t.Run(e.Name, func(t *testing.T) {
			f := newLimited(t, e, nil)
			f.fac.OnVerify(insufficientFunds)
			throwaway := x402test.NewPayer(t)
			now := time.Now()
			if err := f.attempt(t, throwaway, "203.0.113.9", now); status(err) != 402 {
				t.Fatalf("first attempt: %v", err)
			}
			for i := range 5 {
				err := f.attempt(t, throwaway, "203.0.113.9", now.Add(time.Duration(i)*time.Second))
				if status(err) != 402 || !strings.Contains(err.Error(), "less than a minute ago") {
					t.Fatalf("attempt %d: %v", i+2, err)
				}
			}
			if v, c := f.fac.Count("verify"), f.st.claims.Load(); v != 1 || c != 1 {
				t.Errorf("%d verify calls and %d store claims for 6 attempts, want 1 and 1", v, c)
			}
			// A minute later the payer is asked about again (it may have been funded meanwhile).
			if err := f.attempt(t, throwaway, "203.0.113.9", now.Add(x402.RefusalMemory+time.Second)); status(err) != 402 || f.fac.Count("verify") != 2 {
				t.Errorf("after a minute: %v, %d verify calls", err, f.fac.Count("verify"))
			}
			// Another payer is not affected by the first one's refusal.
			f.fac.OnVerify(x402test.Valid)
			if err := f.attempt(t, x402test.NewPayer(t), "203.0.113.9", now.Add(2*time.Second)); err != nil {
				t.Errorf("an honest payer after the refusal: %v", err)
			}
		})
	}
}

// TestPaymentAttemptsLimitedPerClient: a new throwaway key per attempt escapes the refusal memory, so each
// client's attempts that reach the store and the facilitator are bounded per minute; other clients go on.
func TestPaymentAttemptsLimitedPerClient(t *testing.T) {
	t.Parallel()
	f := newLimited(t, dbtest.Engines(t)[0], func(c *x402.Config) { c.ClientLimit = 3 })
	f.fac.OnVerify(insufficientFunds)
	now := time.Now()
	for i := range 3 {
		if err := f.attempt(t, x402test.NewPayer(t), "203.0.113.9", now); status(err) != 402 {
			t.Fatalf("attempt %d: %v", i+1, err)
		}
	}
	err := f.attempt(t, x402test.NewPayer(t), "203.0.113.9", now.Add(time.Second))
	var pe *x402.PaymentError
	if !errors.As(err, &pe) || pe.Status != x402.StatusTooManyRequests || pe.RetryAfter < 50*time.Second {
		t.Fatalf("fourth attempt in the minute: %v, want 429 with about a minute to wait", err)
	}
	if v, c := f.fac.Count("verify"), f.st.claims.Load(); v != 3 || c != 3 {
		t.Errorf("%d verify calls, %d claims, want 3 and 3", v, c)
	}
	f.fac.OnVerify(x402test.Valid)
	if err := f.attempt(t, x402test.NewPayer(t), "198.51.100.7", now.Add(time.Second)); err != nil {
		t.Errorf("another client: %v", err)
	}
	if err := f.attempt(t, x402test.NewPayer(t), "203.0.113.9", now.Add(61*time.Second)); err != nil {
		t.Errorf("the first client a minute later: %v", err)
	}
}

// TestPaymentAttemptsLimitedPerPayer: one payer spread over many clients is bounded too.
func TestPaymentAttemptsLimitedPerPayer(t *testing.T) {
	t.Parallel()
	f := newLimited(t, dbtest.Engines(t)[0], func(c *x402.Config) { c.PayerLimit = 2 })
	payer := x402test.NewPayer(t)
	now := time.Now()
	for i, client := range []string{"203.0.113.1", "203.0.113.2"} {
		if err := f.attempt(t, payer, client, now); err != nil {
			t.Fatalf("attempt %d: %v", i+1, err)
		}
	}
	if err := f.attempt(t, payer, "203.0.113.3", now); status(err) != x402.StatusTooManyRequests {
		t.Fatalf("third attempt of the payer: %v, want 429", err)
	}
	if v := f.fac.Count("verify"); v != 2 {
		t.Errorf("%d verify calls, want 2", v)
	}
}

// TestFacilitatorCallsBounded: however many payments arrive at once, at most Concurrency are with the
// facilitator; the others are answered 503 at once, before any store write.
func TestFacilitatorCallsBounded(t *testing.T) {
	t.Parallel()
	f := newLimited(t, dbtest.Engines(t)[0], func(c *x402.Config) { c.Concurrency = 2 })
	release := make(chan struct{})
	var inVerify, most atomic.Int32
	f.fac.OnVerify(func(r x402.FacilitatorRequest) x402test.Answer {
		n := inVerify.Add(1)
		defer inVerify.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		<-release
		return x402test.Valid(r)
	})
	now := time.Now()
	var wg sync.WaitGroup
	results := make(chan int, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results <- status(f.attempt(t, x402test.NewPayer(t), "203.0.113."+string(rune('1'+i)), now))
		}()
	}
	for inVerify.Load() < 2 {
		time.Sleep(5 * time.Millisecond)
	}
	start := time.Now()
	err := f.attempt(t, x402test.NewPayer(t), "198.51.100.7", now)
	var pe *x402.PaymentError
	if !errors.As(err, &pe) || pe.Status != x402.StatusUnavailable || pe.RetryAfter <= 0 {
		t.Errorf("a third payment while two are with the facilitator: %v, want 503 with Retry-After", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the refusal took %v", d)
	}
	if c := f.st.claims.Load(); c != 2 {
		t.Errorf("%d claims written, want 2", c)
	}
	close(release)
	wg.Wait()
	close(results)
	for s := range results {
		if s != 200 {
			t.Errorf("a payment inside the bound answered %d", s)
		}
	}
	if m := most.Load(); m > 2 {
		t.Errorf("%d verify calls at once, want at most 2", m)
	}
}

// TestFacilitatorAnswerNamingAnotherPayerOrNetworkRefused: a verify or settle answer about another payer, or a
// settlement on another network, is refused, not only logged: nothing is served.
func TestFacilitatorAnswerNamingAnotherPayerOrNetworkRefused(t *testing.T) {
	t.Parallel()
	other := x402test.NewPayer(t).Address.Hex()
	cases := []struct {
		name              string
		verify, settle    func(x402.FacilitatorRequest) x402test.Answer
		produced, settled bool
		state             store.PaymentState // "" when the claim is released
	}{
		{"verify names another payer", func(x402.FacilitatorRequest) x402test.Answer {
			return x402test.Answer{Status: 200, Body: map[string]any{"isValid": true, "payer": other}}
		}, nil, false, false, ""},
		{"settle names another payer", nil, func(r x402.FacilitatorRequest) x402test.Answer {
			return x402test.Answer{Status: 200, Body: map[string]any{"success": true, "transaction": x402test.RandomNonce(),
				"network": r.PaymentRequirements.Network, "payer": other}}
		}, true, true, store.PaymentFailed},
		{"settle names another network", nil, func(r x402.FacilitatorRequest) x402test.Answer {
			return x402test.Answer{Status: 200, Body: map[string]any{"success": true, "transaction": x402test.RandomNonce(),
				"network": "eip155:8453", "payer": r.PaymentPayload.Payload.Authorization.From}}
		}, true, true, store.PaymentFailed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newLimited(t, dbtest.Engines(t)[0], nil)
			if tc.verify != nil {
				f.fac.OnVerify(tc.verify)
			}
			if tc.settle != nil {
				f.fac.OnSettle(tc.settle)
			}
			payer := x402test.NewPayer(t)
			p := payer.Payload(t, f.svc.Requirements(), time.Now())
			nonce := strings.ToLower(p.Payload.Authorization.Nonce)
			produced := false
			_, err := f.svc.Serve(context.Background(), x402.XPayment(x402test.Header(t, p)), time.Now(),
				func(context.Context) error { produced = true; return nil })
			if status(err) != 402 {
				t.Fatalf("Serve = %v, want 402", err)
			}
			if produced != tc.produced || (f.fac.Count("settle") > 0) != tc.settled {
				t.Errorf("produced %v, settle calls %d", produced, f.fac.Count("settle"))
			}
			got, gerr := f.st.GetPayment(context.Background(), nonce)
			switch {
			case tc.state == "" && !errors.Is(gerr, store.ErrNotFound):
				t.Errorf("claim kept: %+v %v", got, gerr)
			case tc.state != "" && (gerr != nil || got.State != tc.state):
				t.Errorf("stored %+v %v, want %s", got, gerr, tc.state)
			}
		})
	}
}
