package impl_test

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard/switchboard/apitest"
	"github.com/switchboard/switchboard/dbtest"
	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/health"
	"github.com/switchboard/switchboard/impl"
	"github.com/switchboard/switchboard/store"
	"github.com/switchboard/switchboard/x402"
	"github.com/switchboard/switchboard/x402/x402test"
)

// premiumEnv is a running server whose premium route takes payments through a facilitator on loopback.
type premiumEnv struct {
	t     *testing.T
	s     *apitest.Server
	st    store.Store
	fac   *x402test.Facilitator
	view  *health.View
	payer *x402test.Payer
	req   x402.Requirements // from the server's own 402 answer
}

// startPremium starts the server over st (which holds a poll history) with payments on base-sepolia; edit may
// change the payment setup.
func startPremium(t *testing.T, st store.Store, edit func(*x402.Config)) *premiumEnv {
	return startPremiumWith(t, st, edit, nil)
}

// startPremiumWith is startPremium with deps also changing the server's dependencies.
func startPremiumWith(t *testing.T, st store.Store, edit func(*x402.Config), deps func(*impl.Deps)) *premiumEnv {
	fac := x402test.NewFacilitator(t)
	cfg := x402test.Config(t, fac.URL)
	if edit != nil {
		edit(&cfg)
	}
	view := health.New(st, health.Options{})
	if err := view.Refresh(context.Background(), time.Now()); err != nil {
		t.Fatal(err)
	}
	s := apitest.Start(t, apitest.Options{Store: st, Deps: func(d *impl.Deps) {
		d.Health, d.Payments = view, cfg
		if deps != nil {
			deps(d)
		}
	}})
	e := &premiumEnv{t: t, s: s, st: st, fac: fac, view: view, payer: x402test.NewPayer(t)}
	res := s.Get(impl.PremiumPath)
	if res.Status != http.StatusPaymentRequired {
		t.Fatalf("without payment: %d %s", res.Status, res.Body)
	}
	var pr api.PaymentRequired
	res.Decode(t, &pr)
	if len(pr.Accepts) != 1 {
		t.Fatalf("accepts = %+v", pr.Accepts)
	}
	a := pr.Accepts[0]
	e.req = x402.Requirements{Scheme: string(a.Scheme), Network: a.Network, MaxAmountRequired: a.MaxAmountRequired,
		Resource: a.Resource, Description: a.Description, MimeType: a.MimeType, PayTo: a.PayTo,
		MaxTimeoutSeconds: a.MaxTimeoutSeconds, Asset: a.Asset, Extra: x402.Extra{Name: a.Extra.Name, Version: a.Extra.Version}}
	return e
}

// pay sends header as X-PAYMENT.
func (e *premiumEnv) pay(header string) *apitest.Response {
	return e.s.Do(http.MethodGet, impl.PremiumPath, nil, http.Header{"X-Payment": {header}})
}

// header is a fresh, correctly signed payment.
func (e *premiumEnv) header() (string, x402.PaymentPayload) {
	p := e.payer.Payload(e.t, e.req, time.Now())
	return x402test.Header(e.t, p), p
}

// refused expects a 402 whose error contains want, and returns the error.
func refused(t *testing.T, res *apitest.Response, want string) {
	t.Helper()
	if res.Status != http.StatusPaymentRequired {
		t.Fatalf("status %d, want 402: %s", res.Status, res.Body)
	}
	var pr api.PaymentRequired
	res.Decode(t, &pr)
	if !strings.Contains(pr.Error, want) || pr.X402Version != 1 || len(pr.Accepts) != 1 {
		t.Errorf("402 body = %s, want an error saying %q and the requirements", res.Body, want)
	}
}

// payment reads the stored state of a nonce; "" when there is no row.
func (e *premiumEnv) payment(nonce string) store.PaymentState {
	p, err := e.st.GetPayment(context.Background(), strings.ToLower(nonce))
	if errors.Is(err, store.ErrNotFound) {
		return ""
	}
	if err != nil {
		e.t.Fatal(err)
	}
	return p.State
}

func TestPremium(t *testing.T) {
	for _, eng := range dbtest.Engines(t) {
		t.Run(eng.Name, func(t *testing.T) {
			t.Run("NotConfigured", func(t *testing.T) { testPremiumNotConfigured(t, eng) })
			t.Run("Paid", func(t *testing.T) { testPremiumPaid(t, eng) })
			t.Run("LocalRefusals", func(t *testing.T) { testPremiumLocalRefusals(t, eng) })
			t.Run("ConcurrentDoubleUse", func(t *testing.T) { testPremiumConcurrent(t, eng) })
			t.Run("FacilitatorVerify", func(t *testing.T) { testPremiumVerifyFailures(t, eng) })
			t.Run("FacilitatorDown", func(t *testing.T) { testPremiumFacilitatorDown(t, eng) })
			t.Run("SettleFailure", func(t *testing.T) { testPremiumSettleFailures(t, eng) })
		})
	}
}

func testPremiumNotConfigured(t *testing.T, eng dbtest.Engine) {
	st, _ := eng.Open(t)
	s := apitest.Start(t, apitest.Options{Store: st})
	for _, h := range []http.Header{nil, {"X-Payment": {"eyJ4NDAyVmVyc2lvbiI6MX0="}}} {
		res := s.Do(http.MethodGet, impl.PremiumPath, nil, h)
		if res.Status != http.StatusServiceUnavailable || res.Error(t) != "premium payments are not configured on this server" {
			t.Errorf("without a payee: %d %s, want 503", res.Status, res.Body)
		}
	}
}

func testPremiumPaid(t *testing.T, eng dbtest.Engine) {
	st, _ := eng.Open(t)
	buildHistory(t, st, time.Now().UTC())
	e := startPremium(t, st, nil)

	// The 402 tells how to pay.
	res := e.s.Get(impl.PremiumPath)
	refused(t, res, "X-PAYMENT header is required")
	if res.Error(t) != "X-PAYMENT header is required" {
		t.Errorf("error = %q", res.Error(t))
	}
	want := x402.Requirements{Scheme: "exact", Network: "base-sepolia", MaxAmountRequired: "1000",
		Resource: e.s.URL + "/api/v1/health/premium", Description: e.req.Description, MimeType: "application/json",
		PayTo: e.req.PayTo, MaxTimeoutSeconds: 60, Asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
		Extra: x402.Extra{Name: "USDC", Version: "2"}}
	if e.req != want || e.req.Description == "" || len(e.req.PayTo) != 42 {
		t.Errorf("requirements\n got %+v\nwant %+v", e.req, want)
	}

	header, payload := e.header()
	res = e.pay(header)
	if res.Status != http.StatusOK {
		t.Fatalf("paid: %d %s", res.Status, res.Body)
	}
	if cc := res.Header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("Cache-Control = %q, want no-store", cc)
	}
	// The receipt names the settlement transaction the facilitator returned.
	raw, err := base64.StdEncoding.DecodeString(res.Header.Get("X-Payment-Response"))
	if err != nil {
		t.Fatalf("X-PAYMENT-RESPONSE: %v", err)
	}
	var receipt struct {
		Success     *bool   `json:"success"`
		Transaction *string `json:"transaction"`
		Network     *string `json:"network"`
		Payer       *string `json:"payer"`
	}
	if err := json.Unmarshal(raw, &receipt); err != nil || receipt.Success == nil || receipt.Transaction == nil ||
		receipt.Network == nil || receipt.Payer == nil {
		t.Fatalf("receipt %s: %v", raw, err)
	}
	if !*receipt.Success || *receipt.Network != "base-sepolia" || *receipt.Payer != e.payer.Address.Hex() {
		t.Errorf("receipt = %s", raw)
	}
	calls := e.fac.Calls()
	if len(calls) != 2 || calls[0].Op != "verify" || calls[1].Op != "settle" {
		t.Fatalf("facilitator calls = %+v, want verify then settle", calls)
	}
	for _, c := range calls {
		if c.Req.X402Version != 1 || !reflect.DeepEqual(c.Req.PaymentPayload, payload) || c.Req.PaymentRequirements != e.req {
			t.Errorf("%s request = %+v\nwant the payload and the advertised requirements", c.Op, c.Req)
		}
	}
	p, err := st.GetPayment(context.Background(), strings.ToLower(payload.Payload.Authorization.Nonce))
	if err != nil || p.State != store.PaymentSettled || p.Transaction == nil || *p.Transaction != *receipt.Transaction ||
		p.Payer != strings.ToLower(e.payer.Address.Hex()) || p.Amount != "1000" {
		t.Errorf("stored payment = %+v, %v", p, err)
	}

	// The body is the /health envelope with the premium figures of every provider.
	var body api.HealthPremiumResponse
	res.Decode(t, &body)
	if len(body.Providers) != 52 || time.Since(body.Timestamp) > time.Minute {
		t.Fatalf("%d providers, timestamp %v", len(body.Providers), body.Timestamp)
	}
	if sum := body.Summary; sum.Operational+sum.Degraded+sum.Outage+sum.Unknown != 52 || sum.Degraded != 1 {
		t.Errorf("summary = %+v", sum)
	}
	snap, err := e.view.Current(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	prem := snap.Premium(time.Now())
	for _, id := range []string{"openai", "mistral", "groq"} {
		got, exp := body.Providers[id], prem[id]
		if string(got.Status) != string(exp.Status) || got.RecentIncidents != exp.RecentIncidents ||
			!eqPtr(got.UptimePct, exp.UptimePct) || !eqPtr(got.AvgResponseMs, exp.AvgResponseMs) ||
			!eqPtr(got.P95ResponseMs, exp.P95ResponseMs) || !eqPtr(got.ResponseTimeMs, exp.ResponseTimeMs) ||
			string(got.Trend) != string(exp.Trend) || string(got.RateLimitRisk) != string(exp.RateLimitRisk) || got.Degraded != exp.Degraded {
			t.Errorf("%s = %+v, want the figures of %+v", id, got, exp)
		}
	}
	if o := body.Providers["openai"]; o.RecentIncidents != 1 || o.UptimePct == nil || o.AvgResponseMs == nil {
		t.Errorf("openai = %+v, want one recent incident and figures", o)
	}

	// The same payment again: refused, and the facilitator is not asked again.
	refused(t, e.pay(header), "nonce already used")
	if n := len(e.fac.Calls()); n != 2 {
		t.Errorf("replay reached the facilitator: %d calls", n)
	}
}

func eqPtr(a, b *float64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// testPremiumLocalRefusals: payments refused before the facilitator or the store is involved.
func testPremiumLocalRefusals(t *testing.T, eng dbtest.Engine) {
	st, _ := eng.Open(t)
	e := startPremium(t, st, nil)
	other := x402test.NewPayer(t)
	now := time.Now()
	sign := func(edit func(a *x402.Authorization, d *x402test.Domain), pl func(p *x402.PaymentPayload)) string {
		a := e.payer.Authorization(e.req, now)
		d := x402test.DomainOf(e.req)
		if edit != nil {
			edit(&a, &d)
		}
		p := x402.PaymentPayload{X402Version: 1, Scheme: "exact", Network: e.req.Network,
			Payload: x402.ExactPayload{Signature: e.payer.Sign(t, a, d), Authorization: a}}
		if pl != nil {
			pl(&p)
		}
		return x402test.Header(t, p)
	}
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	for _, tc := range []struct{ name, header, want string }{
		{"empty header", "", "X-PAYMENT header is required"},
		{"bad base64", "%%%not-base64%%%", "not valid base64"},
		{"bad JSON", b64(`{"x402Version": 1, "scheme": `), "not valid JSON"},
		{"missing fields", b64(`{"x402Version": 1, "scheme": "exact", "network": "base-sepolia", "payload": {"signature": "0x00"}}`),
			"missing field payload.authorization"},
		{"wrong version", sign(nil, func(p *x402.PaymentPayload) { p.X402Version = 2 }), "X-PAYMENT carries x402 v1 payments; send a v2 payment in PAYMENT-SIGNATURE"},
		{"unknown version", sign(nil, func(p *x402.PaymentPayload) { p.X402Version = 3 }), "x402Version 3 is not supported"},
		{"wrong scheme", sign(nil, func(p *x402.PaymentPayload) { p.Scheme = "upto" }), "scheme is not supported"},
		{"wrong network", sign(nil, func(p *x402.PaymentPayload) { p.Network = "base" }), "network does not match"},
		{"wrong asset", sign(func(_ *x402.Authorization, d *x402test.Domain) {
			d.Contract = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
		}, nil), "not made by payload.authorization.from"},
		{"wrong pay-to", sign(func(a *x402.Authorization, _ *x402test.Domain) { a.To = other.Address.Hex() }, nil), "not the payee"},
		{"too little value", sign(func(a *x402.Authorization, _ *x402test.Domain) { a.Value = "999" }, nil), "below the price"},
		{"expired", sign(func(a *x402.Authorization, _ *x402test.Domain) {
			a.ValidBefore = strconv.FormatInt(now.Add(-time.Second).Unix(), 10)
		}, nil), "expired"},
		{"not yet valid", sign(func(a *x402.Authorization, _ *x402test.Domain) {
			a.ValidAfter = strconv.FormatInt(now.Add(time.Minute).Unix(), 10)
		}, nil), "not valid yet"},
		{"forged signature", sign(nil, func(p *x402.PaymentPayload) {
			p.Payload.Signature = other.Sign(t, p.Payload.Authorization, x402test.DomainOf(e.req))
		}), "not made by payload.authorization.from"},
		{"high-s signature", sign(nil, func(p *x402.PaymentPayload) {
			sig := e.payer.SignBytes(t, p.Payload.Authorization, x402test.DomainOf(e.req))
			p.Payload.Signature = "0x" + hex.EncodeToString(x402test.HighS(sig))
		}), "malleable"},
		{"bad v", sign(nil, func(p *x402.PaymentPayload) {
			sig := e.payer.SignBytes(t, p.Payload.Authorization, x402test.DomainOf(e.req))
			sig[64] -= 27
			p.Payload.Signature = "0x" + hex.EncodeToString(sig)
		}), "v must be 27 or 28"},
	} {
		t.Run(tc.name, func(t *testing.T) { refused(t, e.pay(tc.header), tc.want) })
	}
	if n := len(e.fac.Calls()); n != 0 {
		t.Errorf("local refusals reached the facilitator: %d calls", n)
	}

	// A header beyond the document's bound is a 400 from the request validator.
	if res := e.pay(strings.Repeat("A", x402.MaxHeaderLength+4)); res.Status != http.StatusBadRequest {
		t.Errorf("oversized header: %d %s", res.Status, res.Body)
	}
}

// testPremiumConcurrent sends one payment twice at once: exactly one is served, and settled once.
func testPremiumConcurrent(t *testing.T, eng dbtest.Engine) {
	st, _ := eng.Open(t)
	e := startPremium(t, st, nil)
	// Verification takes a while, so that both requests are in flight together.
	e.fac.OnVerify(func(r x402.FacilitatorRequest) x402test.Answer {
		a := x402test.Valid(r)
		a.Delay = 300 * time.Millisecond
		return a
	})
	for round := range 3 {
		header, _ := e.header()
		statuses := make([]int, 2)
		errs := make([]string, 2)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range 2 {
			wg.Go(func() {
				<-start
				res := e.pay(header)
				statuses[i] = res.Status
				if res.Status == http.StatusPaymentRequired {
					var pr api.PaymentRequired
					json.Unmarshal(res.Body, &pr)
					errs[i] = pr.Error
				}
			})
		}
		close(start)
		wg.Wait()
		ok, refusedUsed := 0, 0
		for i, s := range statuses {
			switch {
			case s == http.StatusOK:
				ok++
			case s == http.StatusPaymentRequired && strings.Contains(errs[i], "nonce already used"):
				refusedUsed++
			}
		}
		if ok != 1 || refusedUsed != 1 {
			t.Errorf("round %d: statuses %v (%q), want one 200 and one 402 nonce already used", round, statuses, errs)
		}
		if n := e.fac.Count("settle"); n != round+1 {
			t.Errorf("round %d: %d settlements in all, want %d", round, n, round+1)
		}
	}
}

// testPremiumVerifyFailures: the facilitator refuses or fails at verification. Nothing is served or settled,
// and the claim is released, so the same authorization can be presented again: at once after a failure without
// a verdict, after x402.RefusalMemory when the facilitator refused the payer (until then it is refused here).
func testPremiumVerifyFailures(t *testing.T, eng dbtest.Engine) {
	st, _ := eng.Open(t)
	e := startPremium(t, st, func(c *x402.Config) { c.FacilitatorTimeout = 300 * time.Millisecond })
	for _, tc := range []struct {
		name   string
		answer x402test.Answer
		want   string
	}{
		{"refused", x402test.Answer{Status: 400, Body: map[string]any{"isValid": false, "invalidReason": "insufficient_funds"}},
			"refused by the facilitator: insufficient_funds"},
		{"invalid with 200", x402test.Answer{Status: 200, Body: map[string]any{"isValid": false, "invalidReason": "invalid_exact_evm_payload_signature"}},
			"refused by the facilitator: invalid_exact_evm_payload_signature"},
		{"server error", x402test.Answer{Status: 502, Body: map[string]any{"error": "bad gateway"}}, "could not be verified"},
		{"timeout", x402test.Answer{Status: 200, Body: map[string]any{"isValid": true}, Delay: 2 * time.Second}, "could not be verified"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.payer = x402test.NewPayer(t)
			e.fac.OnVerify(func(x402.FacilitatorRequest) x402test.Answer { return tc.answer })
			header, p := e.header()
			settles := e.fac.Count("settle")
			refused(t, e.pay(header), tc.want)
			if e.fac.Count("settle") != settles {
				t.Error("settled after a failed verification")
			}
			if st := e.payment(p.Payload.Authorization.Nonce); st != "" {
				t.Errorf("claim not released: %s", st)
			}
			e.fac.OnVerify(x402test.Valid)
			if strings.HasPrefix(tc.want, "refused by the facilitator") {
				// A payer the facilitator refused is refused here for a minute, without asking it again.
				verifies := e.fac.Count("verify")
				refused(t, e.pay(header), "less than a minute ago")
				if e.fac.Count("verify") != verifies {
					t.Error("a payer refused a moment ago reached the facilitator again")
				}
				return
			}
			// Once the facilitator answers, the same authorization pays.
			if res := e.pay(header); res.Status != http.StatusOK {
				t.Errorf("retry of the released payment: %d %s", res.Status, res.Body)
			}
		})
	}
}

// testPremiumFacilitatorDown: nothing listens at the facilitator address: 503, nothing stored.
func testPremiumFacilitatorDown(t *testing.T, eng dbtest.Engine) {
	st, _ := eng.Open(t)
	dead := x402test.DeadURL(t)
	e := startPremium(t, st, func(c *x402.Config) { c.FacilitatorURL = dead })
	header, p := e.header()
	res := e.pay(header)
	if res.Status != http.StatusServiceUnavailable || !strings.Contains(res.Error(t), "facilitator unreachable") {
		t.Fatalf("facilitator down: %d %s, want 503", res.Status, res.Body)
	}
	if st := e.payment(p.Payload.Authorization.Nonce); st != "" {
		t.Errorf("claim not released: %s", st)
	}
}

// testPremiumSettleFailures: settlement fails after a verified payment. The answer is withheld, the nonce is
// spent for good (the transfer may have happened), and the failure is logged at error level.
func testPremiumSettleFailures(t *testing.T, eng dbtest.Engine) {
	st, _ := eng.Open(t)
	e := startPremium(t, st, func(c *x402.Config) { c.FacilitatorTimeout = 300 * time.Millisecond })
	for _, tc := range []struct {
		name   string
		answer x402test.Answer
		want   string
		log    string
	}{
		{"refused", x402test.Answer{Status: 200, Body: map[string]any{"success": false, "errorReason": "invalid_transaction_state",
			"transaction": "", "network": "base-sepolia"}}, "settlement failed: invalid_transaction_state", "SETTLEMENT REFUSED"},
		{"server error", x402test.Answer{Status: 500, Body: map[string]any{"error": "boom"}}, "settlement failed", "SETTLEMENT FAILED"},
		{"timeout", x402test.Answer{Status: 200, Body: map[string]any{"success": true, "transaction": "0x01"}, Delay: 2 * time.Second},
			"settlement failed", "SETTLEMENT FAILED"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.fac.OnSettle(func(x402.FacilitatorRequest) x402test.Answer { return tc.answer })
			header, p := e.header()
			res := e.pay(header)
			refused(t, res, tc.want)
			if strings.Contains(string(res.Body), "providers") {
				t.Error("data in a refused answer")
			}
			if st := e.payment(p.Payload.Authorization.Nonce); st != store.PaymentFailed {
				t.Errorf("stored state %q, want failed", st)
			}
			if !strings.Contains(e.s.Logs.String(), tc.log) || !strings.Contains(e.s.Logs.String(), `"level":"ERROR"`) {
				t.Errorf("no error-level %q line in the log", tc.log)
			}
			// The nonce is spent: the same authorization is refused even once settlement works again.
			e.fac.OnSettle(x402test.Settled)
			verifies := e.fac.Count("verify")
			refused(t, e.pay(header), "nonce already used")
			if e.fac.Count("verify") != verifies {
				t.Error("a spent nonce reached the facilitator")
			}
		})
	}
}
