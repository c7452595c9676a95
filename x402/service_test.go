package x402_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard/switchboard/dbtest"
	"github.com/switchboard/switchboard/store"
	"github.com/switchboard/switchboard/x402"
	"github.com/switchboard/switchboard/x402/x402test"
)

// serviceFixture is a Service over a fresh store, with a payer.
type serviceFixture struct {
	svc   *x402.Service
	st    store.Store
	payer *x402test.Payer
}

func newService(t *testing.T, facilitator string) serviceFixture {
	st, _ := dbtest.Engines(t)[0].Open(t)
	svc, err := x402.NewService(x402.Options{Config: x402test.Config(t, facilitator), Store: st,
		Resource: "http://sb.test/api/v1/health/premium", Description: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return serviceFixture{svc: svc, st: st, payer: x402test.NewPayer(t)}
}

// pay returns a fresh signed header and its nonce.
func (f serviceFixture) pay(t *testing.T) (string, string) {
	p := f.payer.Payload(t, f.svc.Requirements(), time.Now())
	return x402test.Header(t, p), strings.ToLower(p.Payload.Authorization.Nonce)
}

func (f serviceFixture) released(t *testing.T, nonce string) bool {
	_, err := f.st.GetPayment(context.Background(), nonce)
	return errors.Is(err, store.ErrNotFound)
}

func TestNewServiceNeedsAPayee(t *testing.T) {
	st, _ := dbtest.Engines(t)[0].Open(t)
	if _, err := x402.NewService(x402.Options{Config: x402.Config{}, Store: st, Resource: "http://x"}); err == nil {
		t.Error("a service without payee was built")
	}
	if _, err := x402.NewService(x402.Options{Config: x402test.Config(t, "http://127.0.0.1:9"), Resource: "http://x"}); err == nil {
		t.Error("a service without store was built")
	}
}

func TestServeReceipt(t *testing.T) {
	fac := x402test.NewFacilitator(t)
	f := newService(t, fac.URL)
	header, nonce := f.pay(t)
	produced := 0
	r, err := f.svc.Serve(context.Background(), x402.XPayment(header), time.Now(), func(context.Context) error { produced++; return nil })
	if err != nil || produced != 1 {
		t.Fatalf("Serve = %v, produced %d times", err, produced)
	}
	raw, err := base64.StdEncoding.DecodeString(r.Header())
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if got["success"] != true || got["network"] != "base-sepolia" || got["payer"] != f.payer.Address.Hex() ||
		!strings.HasPrefix(got["transaction"].(string), "0x") || len(got) != 4 {
		t.Errorf("receipt = %s", raw)
	}
	if p, err := f.st.GetPayment(context.Background(), nonce); err != nil || p.State != store.PaymentSettled {
		t.Errorf("stored = %+v, %v", p, err)
	}
}

// TestServeNothingChargedOnFailure: when the answer cannot be produced, or the caller is gone before
// settlement, nothing is settled and the claim is released.
func TestServeNothingChargedOnFailure(t *testing.T) {
	fac := x402test.NewFacilitator(t)
	f := newService(t, fac.URL)

	header, nonce := f.pay(t)
	boom := errors.New("view unavailable")
	_, err := f.svc.Serve(context.Background(), x402.XPayment(header), time.Now(), func(context.Context) error { return boom })
	var pe *x402.PaymentError
	if !errors.Is(err, boom) || errors.As(err, &pe) {
		t.Errorf("produce failure: %v, want the internal error", err)
	}
	if !f.released(t, nonce) {
		t.Error("claim kept after a produce failure")
	}

	header, nonce = f.pay(t)
	ctx, cancel := context.WithCancel(context.Background())
	_, err = f.svc.Serve(ctx, x402.XPayment(header), time.Now(), func(context.Context) error { cancel(); return nil })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("caller gone: %v, want context.Canceled", err)
	}
	if !f.released(t, nonce) {
		t.Error("claim kept after the caller left")
	}
	if n := fac.Count("settle"); n != 0 {
		t.Errorf("%d settlements, want none", n)
	}
}

// TestServeSettleUnreachable: the facilitator answers verify, then disappears. Settlement could not even be
// sent, so nothing was charged: 503 and the claim is released.
func TestServeSettleUnreachable(t *testing.T) {
	var settles atomic.Int32
	srv := httptest.NewUnstartedServer(nil)
	ln := srv.Listener
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/settle" {
			settles.Add(1)
		}
		// Close the listener and this connection: the next call has nowhere to connect to.
		ln.Close()
		w.Header().Set("Connection", "close")
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"isValid":true}`))
	})
	srv.Start()
	defer srv.Close()
	f := newService(t, "http://"+ln.Addr().(*net.TCPAddr).String())

	header, nonce := f.pay(t)
	_, err := f.svc.Serve(context.Background(), x402.XPayment(header), time.Now(), func(context.Context) error { return nil })
	var pe *x402.PaymentError
	if !errors.As(err, &pe) || pe.Status != x402.StatusUnavailable || !strings.Contains(pe.Reason, "not settled") {
		t.Fatalf("Serve = %v, want 503 not settled", err)
	}
	if settles.Load() != 0 || !f.released(t, nonce) {
		t.Errorf("settle calls %d, released %v; want 0 and true", settles.Load(), f.released(t, nonce))
	}
}
