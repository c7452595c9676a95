package impl_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/switchboard/switchboard/dbtest"
	"github.com/switchboard/switchboard/impl"
	"github.com/switchboard/switchboard/x402"
	"github.com/switchboard/switchboard/x402/x402test"
)

// paidToolCall calls the paid tool over MCP with a fresh v2 payment from payer and returns the result.
func paidToolCall(t *testing.T, e *premiumEnv, payer *x402test.Payer) (toolAnswer, x402.PaymentPayload) {
	t.Helper()
	req, _ := e.v2()
	res := &x402.ResourceInfo{URL: strings.TrimSuffix(e.s.URL, "/") + "/api/v1/mcp"}
	p := payer.PayloadV2(t, req, res, time.Now())
	payment, _ := json.Marshal(p)
	a := rpcCall(t, e.s, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+impl.PremiumTool+
		`","arguments":{},"_meta":{"x402/payment":`+string(payment)+`}}}`)
	if a.Error != nil {
		t.Fatalf("JSON-RPC error %+v", a.Error)
	}
	var ta toolAnswer
	if err := json.Unmarshal(a.Result, &ta); err != nil || len(ta.Content) != 1 {
		t.Fatalf("result %s", a.Result)
	}
	return ta, p
}

// TestPaidMCPAnswerSizeCheckedBeforeSettlement reproduces the finding: a paid MCP answer used to be size-checked
// after settlement, so a caller could be charged for an answer then replaced by an error. The check now runs
// before settlement: the call fails, nothing is settled and the authorization stays usable.
func TestPaidMCPAnswerSizeCheckedBeforeSettlement(t *testing.T) {
	for _, eng := range dbtest.Engines(t) {
		t.Run(eng.Name, func(t *testing.T) {
			st, _ := eng.Open(t)
			// An MCP request may gather 2,000 bytes of answers here: less than the premium envelope.
			e := startPremiumWith(t, st, nil, func(d *impl.Deps) { d.MCPMaxAnswerBytes = 2000 })
			ta, p := paidToolCall(t, e, e.payer)
			if !ta.IsError || !strings.Contains(ta.Content[0].Text, "nothing was charged") {
				t.Errorf("oversized paid answer: %+v", ta)
			}
			if n := e.fac.Count("settle"); n != 0 {
				t.Errorf("%d settlements for an answer the caller never got", n)
			}
			if s := e.payment(p.Payload.Authorization.Nonce); s != "" {
				t.Errorf("the payment is %q, want its claim released", s)
			}
			// Over HTTP, where no such bound applies, the same authorization buys the answer.
			if res := e.payV2(x402test.Header(t, p)); res.Status != http.StatusOK || e.fac.Count("settle") != 1 {
				t.Errorf("the same payment over HTTP: %d, %d settlements", res.Status, e.fac.Count("settle"))
			}
		})
	}
}

// TestPremiumAttemptsLimitedPerClient: a client bringing a new throwaway key each time gets 429 with Retry-After
// once over its attempts a minute, before its payment reaches the store or the facilitator; a tool call counts
// against the MCP client's own address, so the paid tool and the paid route share one limit.
func TestPremiumAttemptsLimitedPerClient(t *testing.T) {
	st, _ := dbtest.Engines(t)[0].Open(t)
	e := startPremium(t, st, func(c *x402.Config) { c.ClientLimit = 2 })
	if ta, _ := paidToolCall(t, e, x402test.NewPayer(t)); ta.IsError {
		t.Fatalf("paid tool call: %s", ta.Content[0].Text)
	}
	e.fac.OnVerify(func(x402.FacilitatorRequest) x402test.Answer {
		return x402test.Answer{Status: 400, Body: map[string]any{"isValid": false, "invalidReason": "insufficient_funds"}}
	})
	e.payer = x402test.NewPayer(t)
	h, _ := e.header()
	refused(t, e.pay(h), "insufficient_funds")
	e.payer = x402test.NewPayer(t)
	h, _ = e.header()
	res := e.pay(h)
	if res.Status != http.StatusTooManyRequests {
		t.Fatalf("third attempt in the minute: %d %s", res.Status, res.Body)
	}
	if s, err := strconv.Atoi(res.Header.Get("Retry-After")); err != nil || s < 1 || s > 60 {
		t.Errorf("Retry-After %q", res.Header.Get("Retry-After"))
	}
	if n := e.fac.Count("verify"); n != 2 {
		t.Errorf("%d verify calls, want 2", n)
	}
	if ta, _ := paidToolCall(t, e, x402test.NewPayer(t)); !ta.IsError || !strings.Contains(ta.Content[0].Text, "too many payment attempts") {
		t.Errorf("tool call over the client's limit: %+v", ta)
	}
}
