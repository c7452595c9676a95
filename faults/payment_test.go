package faults_test

import (
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/switchboard/switchboard/x402"
	"github.com/switchboard/switchboard/x402/x402test"
)

// TestKillDuringPayment kills the service while the facilitator is settling a payment for the premium route,
// restarts it and sends the same X-PAYMENT again: the nonce was claimed before the facilitator was called, so
// the retry is refused with 402 and the payment is settled once, never twice.
func TestKillDuringPayment(t *testing.T) {
	t.Parallel()
	fac := x402test.NewFacilitator(t)
	settling := make(chan struct{}, 4)
	release := make(chan struct{})
	fac.OnSettle(func(req x402.FacilitatorRequest) x402test.Answer {
		settling <- struct{}{}
		<-release // the service dies while it waits for this answer
		return x402test.Settled(req)
	})
	t.Cleanup(func() { close(release) })
	payee := x402test.NewPayer(t).Address.Hex()
	path := filepath.Join(t.TempDir(), "pay.db")
	env := map[string]string{"DATABASE_URL": "sqlite://" + path, "SWITCHBOARD_POLL": "false",
		"SWITCHBOARD_X402_PAY_TO": payee, "SWITCHBOARD_X402_NETWORK": "base-sepolia",
		"SWITCHBOARD_X402_FACILITATOR_URL": fac.URL, "SWITCHBOARD_OUTBOUND_ALLOW_LOOPBACK": "true"}
	svc := start(t, env)

	var required x402.PaymentRequired
	if code := getJSON(t, svc.URL+"/api/v1/health/premium", &required); code != http.StatusPaymentRequired || len(required.Accepts) == 0 {
		t.Fatalf("unpaid request: %d %+v", code, required)
	}
	header := x402test.Header(t, x402test.NewPayer(t).Payload(t, required.Accepts[0], time.Now()))
	paid := func(url string) (int, error) {
		req, _ := http.NewRequest(http.MethodGet, url+"/api/v1/health/premium", nil)
		req.Header.Set("X-PAYMENT", header)
		res, err := (&http.Client{Timeout: 20 * time.Second}).Do(req)
		if err != nil {
			return 0, err
		}
		res.Body.Close()
		return res.StatusCode, nil
	}
	go paid(svc.URL) // answered by nobody: the service is killed mid-settlement
	select {
	case <-settling:
	case <-time.After(15 * time.Second):
		t.Fatalf("the facilitator was never asked to settle:\n%s", svc.logs)
	}
	svc.kill()

	svc = start(t, env)
	code, err := paid(svc.URL)
	if err != nil {
		t.Fatal(err)
	}
	if code != http.StatusPaymentRequired {
		t.Errorf("the same payment after the restart: %d, want 402 (its nonce is spent)", code)
	}
	if n := fac.Count("settle"); n != 1 {
		t.Errorf("the facilitator was asked to settle %d times, want once", n)
	}
	db := openDB(t, path)
	integrityOK(t, db)
	if n := count(t, db, "SELECT count(*) FROM payments"); n != 1 {
		t.Errorf("payments: %d rows, want the one claimed", n)
	}
}
