package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/switchboard/switchboard/dbtest"
	"github.com/switchboard/switchboard/store"
)

// TestPayments runs the payment-nonce suite on every engine.
func TestPayments(t *testing.T) {
	suite := map[string]func(t *testing.T, s store.Store){
		"ClaimOnce":       testPaymentClaimOnce,
		"Release":         testPaymentRelease,
		"Finish":          testPaymentFinish,
		"InvalidInput":    testPaymentInvalidInput,
		"ConcurrentClaim": testPaymentConcurrentClaim,
	}
	for _, e := range dbtest.Engines(t) {
		t.Run(e.Name, func(t *testing.T) {
			for name, fn := range suite {
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					s, _ := e.Open(t)
					fn(t, s)
				})
			}
		})
	}
}

func payment(i int) store.Payment {
	return store.Payment{
		Nonce:       fmt.Sprintf("0x%064x", 0xabc000+i),
		Payer:       "0x1111111111111111111111111111111111111111",
		Network:     "base-sepolia",
		Asset:       "0x036cbd53842c5426634e7929541ec2318f3dcf7e",
		Amount:      "1000",
		ValidBefore: t0.Add(time.Minute),
		ClaimedAt:   t0,
	}
}

func testPaymentClaimOnce(t *testing.T, s store.Store) {
	ctx := context.Background()
	p := payment(1)
	// Stored with a non-UTC zone: it must come back as the same instant, in UTC.
	p.ClaimedAt = t0.In(time.FixedZone("x", -7*3600))
	if err := s.ClaimPayment(ctx, p); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetPayment(ctx, p.Nonce)
	if err != nil {
		t.Fatal(err)
	}
	want := p
	want.State, want.ClaimedAt, want.ValidBefore = store.PaymentClaimed, t0.Truncate(time.Microsecond), p.ValidBefore.Truncate(time.Microsecond)
	if got.Nonce != want.Nonce || got.Payer != want.Payer || got.Network != want.Network || got.Asset != want.Asset ||
		got.Amount != want.Amount || got.State != want.State || got.FinishedAt != nil || got.Transaction != nil {
		t.Errorf("GetPayment = %+v, want %+v", got, want)
	}
	if !got.ClaimedAt.Equal(want.ClaimedAt) || got.ClaimedAt.Location() != time.UTC || !got.ValidBefore.Equal(want.ValidBefore) {
		t.Errorf("times = %v, %v; want %v, %v in UTC", got.ClaimedAt, got.ValidBefore, want.ClaimedAt, want.ValidBefore)
	}
	// Any second claim of the nonce fails, whatever the other fields say.
	again := payment(1)
	again.Payer, again.Amount = "0x2222222222222222222222222222222222222222", "5000"
	if err := s.ClaimPayment(ctx, again); !errors.Is(err, store.ErrNonceUsed) {
		t.Errorf("second claim: %v, want ErrNonceUsed", err)
	}
	if _, err := s.GetPayment(ctx, payment(2).Nonce); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("GetPayment(unknown) = %v, want ErrNotFound", err)
	}
	// Another nonce is independent.
	if err := s.ClaimPayment(ctx, payment(2)); err != nil {
		t.Errorf("claim of another nonce: %v", err)
	}
}

func testPaymentRelease(t *testing.T, s store.Store) {
	ctx := context.Background()
	p := payment(3)
	if err := s.ReleasePayment(ctx, p.Nonce); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("release of an unknown nonce: %v, want ErrNotFound", err)
	}
	if err := s.ClaimPayment(ctx, p); err != nil {
		t.Fatal(err)
	}
	if err := s.ReleasePayment(ctx, p.Nonce); err != nil {
		t.Fatalf("release: %v", err)
	}
	if _, err := s.GetPayment(ctx, p.Nonce); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("after release: %v, want ErrNotFound", err)
	}
	// A released authorization may be presented again.
	if err := s.ClaimPayment(ctx, p); err != nil {
		t.Errorf("claim after release: %v", err)
	}
}

func testPaymentFinish(t *testing.T, s store.Store) {
	ctx := context.Background()
	settled, failed := payment(4), payment(5)
	for _, p := range []store.Payment{settled, failed} {
		if err := s.ClaimPayment(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	tx := "0x" + fmt.Sprintf("%064x", 77)
	at := t0.Add(3 * time.Second)
	if err := s.FinishPayment(ctx, settled.Nonce, store.PaymentSettled, &tx, at); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishPayment(ctx, failed.Nonce, store.PaymentFailed, nil, at); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetPayment(ctx, settled.Nonce)
	if err != nil || got.State != store.PaymentSettled || got.Transaction == nil || *got.Transaction != tx ||
		got.FinishedAt == nil || !got.FinishedAt.Equal(at.Truncate(time.Microsecond)) {
		t.Errorf("settled payment = %+v, %v", got, err)
	}
	if got, _ := s.GetPayment(ctx, failed.Nonce); got.State != store.PaymentFailed || got.Transaction != nil || got.FinishedAt == nil {
		t.Errorf("failed payment = %+v", got)
	}
	for _, p := range []store.Payment{settled, failed} {
		// A finished payment is spent for good: it cannot be released, finished again or claimed again.
		if err := s.ReleasePayment(ctx, p.Nonce); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("release of a %s payment: %v, want ErrNotFound", p.Nonce, err)
		}
		if err := s.FinishPayment(ctx, p.Nonce, store.PaymentSettled, &tx, at); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("second finish: %v, want ErrNotFound", err)
		}
		if err := s.ClaimPayment(ctx, p); !errors.Is(err, store.ErrNonceUsed) {
			t.Errorf("claim of a finished payment: %v, want ErrNonceUsed", err)
		}
	}
	if got, _ := s.GetPayment(ctx, failed.Nonce); got.State != store.PaymentFailed {
		t.Errorf("failed payment changed by a later finish: %+v", got)
	}
	if err := s.FinishPayment(ctx, payment(6).Nonce, store.PaymentSettled, &tx, at); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("finish of an unknown nonce: %v, want ErrNotFound", err)
	}
}

func testPaymentInvalidInput(t *testing.T, s store.Store) {
	ctx := context.Background()
	bad := map[string]func(p *store.Payment){
		"upper-case nonce": func(p *store.Payment) { p.Nonce = fmt.Sprintf("0x%064X", 0xabcdef) },
		"short nonce":      func(p *store.Payment) { p.Nonce = "0x1234" },
		"bad payer":        func(p *store.Payment) { p.Payer = "0x12" },
		"bad asset":        func(p *store.Payment) { p.Asset = "USDC" },
		"no network":       func(p *store.Payment) { p.Network = "" },
		"negative amount":  func(p *store.Payment) { p.Amount = "-1" },
		"no time":          func(p *store.Payment) { p.ClaimedAt = time.Time{} },
	}
	for name, edit := range bad {
		p := payment(7)
		edit(&p)
		if err := s.ClaimPayment(ctx, p); err == nil || errors.Is(err, store.ErrNonceUsed) {
			t.Errorf("%s: ClaimPayment = %v, want an input error", name, err)
		}
	}
	p := payment(8)
	if err := s.ClaimPayment(ctx, p); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishPayment(ctx, p.Nonce, store.PaymentClaimed, nil, t0); err == nil || errors.Is(err, store.ErrNotFound) {
		t.Errorf("finish as claimed: %v, want an input error", err)
	}
	if got, _ := s.GetPayment(ctx, p.Nonce); got.State != store.PaymentClaimed {
		t.Errorf("state after a refused finish = %s", got.State)
	}
}

// testPaymentConcurrentClaim claims one nonce from many goroutines at once: exactly one wins.
func testPaymentConcurrentClaim(t *testing.T, s store.Store) {
	ctx := context.Background()
	const n = 16
	var wg sync.WaitGroup
	errs := make([]error, n)
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			errs[i] = s.ClaimPayment(ctx, payment(9))
		})
	}
	close(start)
	wg.Wait()
	won, used := 0, 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case errors.Is(err, store.ErrNonceUsed):
			used++
		default:
			t.Errorf("claim failed: %v", err)
		}
	}
	if won != 1 || used != n-1 {
		t.Errorf("%d claims won and %d refused, want 1 and %d", won, used, n-1)
	}
}
