package x402_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard/switchboard/netguard"
	"github.com/switchboard/switchboard/x402"
	"github.com/switchboard/switchboard/x402/x402test"
)

func facilitatorRequest(t *testing.T) x402.FacilitatorRequest {
	f := newCheckFixture(t)
	return x402.FacilitatorRequest{X402Version: 1, PaymentPayload: f.signed(t, nil), PaymentRequirements: f.req}
}

func TestFacilitatorVerdicts(t *testing.T) {
	ctx := context.Background()
	fac := x402test.NewFacilitator(t)
	c := x402.NewFacilitator(fac.URL+"/", time.Second, x402test.Loopback)
	req := facilitatorRequest(t)

	vr, err := c.Verify(ctx, req)
	if err != nil || vr.IsValid == nil || !*vr.IsValid {
		t.Fatalf("Verify = %+v, %v; want valid", vr, err)
	}
	sr, err := c.Settle(ctx, req)
	if err != nil || sr.Success == nil || !*sr.Success || !strings.HasPrefix(sr.Transaction, "0x") {
		t.Fatalf("Settle = %+v, %v; want success", sr, err)
	}
	calls := fac.Calls()
	if len(calls) != 2 || calls[0].Op != "verify" || calls[1].Op != "settle" {
		t.Fatalf("calls = %+v", calls)
	}
	// The facilitator receives exactly the payload and requirements, with the version.
	if got := calls[0].Req; got.X402Version != 1 || !reflect.DeepEqual(got.PaymentPayload, req.PaymentPayload) || got.PaymentRequirements != req.PaymentRequirements {
		t.Errorf("verify request = %+v\nwant %+v", got, req)
	}

	// A verdict in a 400 answer is a verdict.
	fac.OnVerify(func(x402.FacilitatorRequest) x402test.Answer {
		return x402test.Answer{Status: 400, Body: map[string]any{"isValid": false, "invalidReason": "insufficient_funds"}}
	})
	if vr, err := c.Verify(ctx, req); err != nil || *vr.IsValid || vr.InvalidReason != "insufficient_funds" {
		t.Errorf("400 verdict: %+v, %v", vr, err)
	}
	fac.OnSettle(func(x402.FacilitatorRequest) x402test.Answer {
		return x402test.Answer{Status: 200, Body: map[string]any{"success": false, "errorReason": "invalid_transaction_state", "transaction": "", "network": "base-sepolia"}}
	})
	if sr, err := c.Settle(ctx, req); err != nil || *sr.Success || sr.ErrorReason != "invalid_transaction_state" {
		t.Errorf("settle refusal: %+v, %v", sr, err)
	}
}

func TestFacilitatorFailures(t *testing.T) {
	ctx := context.Background()
	req := facilitatorRequest(t)
	answer := func(a x402test.Answer) *x402test.Facilitator {
		fac := x402test.NewFacilitator(t)
		h := func(x402.FacilitatorRequest) x402test.Answer { return a }
		fac.OnVerify(h)
		fac.OnSettle(h)
		return fac
	}
	for _, tc := range []struct {
		name    string
		fac     *x402test.Facilitator
		timeout bool
	}{
		{"server error", answer(x402test.Answer{Status: 500, Body: map[string]any{"isValid": true, "success": true}}), false},
		{"no verdict", answer(x402test.Answer{Status: 200, Body: map[string]any{"ok": true}}), false},
		{"not JSON", answer(x402test.Answer{Status: 200, Body: "<html>"}), false},
		{"valid with an error status", answer(x402test.Answer{Status: 400, Body: map[string]any{"isValid": true, "success": true, "transaction": "0x1"}}), false},
		{"settled without transaction", answer(x402test.Answer{Status: 200, Body: map[string]any{"isValid": false, "success": true}}), false},
		{"too slow", answer(x402test.Answer{Status: 200, Body: map[string]any{"isValid": true}, Delay: 2 * time.Second}), true},
	} {
		c := x402.NewFacilitator(tc.fac.URL, 300*time.Millisecond, x402test.Loopback)
		start := time.Now()
		_, verr := c.Verify(ctx, req)
		_, serr := c.Settle(ctx, req)
		for op, err := range map[string]error{"verify": verr, "settle": serr} {
			var fe *x402.FacilitatorError
			if op == "verify" && tc.name == "settled without transaction" {
				continue // isValid false is a verdict
			}
			if !errors.As(err, &fe) || fe.Timeout != tc.timeout || errors.Is(err, x402.ErrFacilitatorUnreachable) {
				t.Errorf("%s: %s error = %v, want a FacilitatorError (timeout %v)", tc.name, op, err, tc.timeout)
			}
		}
		if time.Since(start) > 2*time.Second {
			t.Errorf("%s: calls took %v, want each bounded by the timeout", tc.name, time.Since(start))
		}
	}

	// Nothing listens: unreachable, told apart from a failure after the request left.
	c := x402.NewFacilitator(x402test.DeadURL(t), time.Second, x402test.Loopback)
	if _, err := c.Verify(ctx, req); !errors.Is(err, x402.ErrFacilitatorUnreachable) {
		t.Errorf("dead facilitator: %v, want ErrFacilitatorUnreachable", err)
	}
	if _, err := c.Settle(ctx, req); !errors.Is(err, x402.ErrFacilitatorUnreachable) {
		t.Errorf("dead facilitator settle: %v, want ErrFacilitatorUnreachable", err)
	}

	// Redirects are not followed: the payment goes to the configured address only.
	var elsewhere atomic.Int32
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { elsewhere.Add(1) }))
	defer target.Close()
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer redirect.Close()
	if _, err := x402.NewFacilitator(redirect.URL, time.Second, x402test.Loopback).Verify(ctx, req); err == nil || elsewhere.Load() != 0 {
		t.Errorf("redirect: %v, %d calls to the target; want an error and none", err, elsewhere.Load())
	}

	// An endless answer is cut off.
	huge := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte(`{"isValid":true,"invalidReason":"`))
		w.Write([]byte(strings.Repeat("x", 1<<20)))
		w.Write([]byte(`"}`))
	}))
	defer huge.Close()
	if _, err := x402.NewFacilitator(huge.URL, time.Second, x402test.Loopback).Verify(ctx, req); err == nil {
		t.Error("a 1 MiB answer was accepted")
	}
}

// TestFacilitatorClientIsGuarded: the facilitator client refuses loopback, private and metadata addresses unless
// the operator allows them; such a call never leaves the server, so it reads as unreachable (nothing charged).
func TestFacilitatorClientIsGuarded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	req := facilitatorRequest(t)
	fac := x402test.NewFacilitator(t)
	for _, base := range []string{fac.URL, "http://169.254.169.254", "https://10.0.0.1:8443", "http://localhost:9"} {
		c := x402.NewFacilitator(base, time.Second, netguard.Options{})
		if _, err := c.Verify(ctx, req); !errors.Is(err, x402.ErrFacilitatorUnreachable) {
			t.Errorf("%s: %v, want ErrFacilitatorUnreachable", base, err)
		}
	}
	if n := len(fac.Calls()); n != 0 {
		t.Errorf("the loopback facilitator got %d calls without the setting", n)
	}
}
