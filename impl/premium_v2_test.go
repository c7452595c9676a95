package impl_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/switchboard/switchboard/apitest"
	"github.com/switchboard/switchboard/dbtest"
	"github.com/switchboard/switchboard/impl"
	"github.com/switchboard/switchboard/x402"
	"github.com/switchboard/switchboard/x402/x402test"
)

// required402 decodes the PAYMENT-REQUIRED header of a 402 (x402 v2).
func required402(t *testing.T, res *apitest.Response) x402.PaymentRequired {
	t.Helper()
	if res.Status != http.StatusPaymentRequired {
		t.Fatalf("status %d, want 402: %s", res.Status, res.Body)
	}
	raw, err := base64.StdEncoding.DecodeString(res.Header.Get("PAYMENT-REQUIRED"))
	if err != nil || len(raw) == 0 {
		t.Fatalf("PAYMENT-REQUIRED %q: %v", res.Header.Get("PAYMENT-REQUIRED"), err)
	}
	var pr x402.PaymentRequired
	if err := json.Unmarshal(raw, &pr); err != nil {
		t.Fatalf("PAYMENT-REQUIRED JSON %s: %v", raw, err)
	}
	return pr
}

// payV2 sends header as PAYMENT-SIGNATURE.
func (e *premiumEnv) payV2(header string) *apitest.Response {
	return e.s.Do(http.MethodGet, impl.PremiumPath, nil, http.Header{"Payment-Signature": {header}})
}

// v2 returns the server's v2 requirements and resource, read from its unpaid 402.
func (e *premiumEnv) v2() (x402.Requirements, *x402.ResourceInfo) {
	pr := required402(e.t, e.s.Get(impl.PremiumPath))
	if len(pr.Accepts) != 1 || pr.Resource == nil {
		e.t.Fatalf("v2 requirements = %+v", pr)
	}
	return pr.Accepts[0], pr.Resource
}

func TestPremiumV2(t *testing.T) {
	for _, eng := range dbtest.Engines(t) {
		t.Run(eng.Name, func(t *testing.T) {
			st, _ := eng.Open(t)
			e := startPremium(t, st, nil)

			// Unpaid: both versions' requirements, each naming its own header.
			res := e.s.Get(impl.PremiumPath)
			pr := required402(t, res)
			refused(t, res, "X-PAYMENT header is required")
			req := pr.Accepts[0]
			if pr.X402Version != 2 || pr.Error != "PAYMENT-SIGNATURE header is required" || len(pr.Accepts) != 1 ||
				pr.Resource == nil || !strings.HasSuffix(pr.Resource.URL, impl.PremiumPath) || pr.Resource.MimeType != "application/json" ||
				req.Scheme != "exact" || req.Network != "eip155:84532" || req.Amount != "1000" || req.MaxAmountRequired != "" ||
				req.Asset != "0x036CbD53842c5426634e7929541eC2318f3dCF7e" || req.PayTo != e.req.PayTo ||
				req.MaxTimeoutSeconds != 60 || req.Extra != (x402.Extra{Name: "USDC", Version: "2"}) {
				t.Errorf("v2 requirements = %+v %+v", pr, pr.Resource)
			}
			checkBazaarHTTP(t, pr)
			// Proxies commonly buffer 4 KiB of response headers (nginx's proxy_buffer_size on many systems).
			if n := len(res.Header.Get("PAYMENT-REQUIRED")); n > 4096 {
				t.Errorf("PAYMENT-REQUIRED is %d bytes, over the 4096 that common proxies buffer", n)
			} else {
				t.Logf("PAYMENT-REQUIRED: %d bytes", n)
			}

			// Paid in v2: the receipt comes in PAYMENT-RESPONSE, with the CAIP-2 network.
			p := e.payer.PayloadV2(t, req, pr.Resource, time.Now())
			header := x402test.Header(t, p)
			res = e.payV2(header)
			if res.Status != http.StatusOK {
				t.Fatalf("paid v2: %d %s", res.Status, res.Body)
			}
			if res.Header.Get("X-PAYMENT-RESPONSE") != "" || res.Header.Get("Cache-Control") != "no-store" {
				t.Errorf("v2 answer headers = %v", res.Header)
			}
			var receipt map[string]any
			raw, _ := base64.StdEncoding.DecodeString(res.Header.Get("PAYMENT-RESPONSE"))
			if json.Unmarshal(raw, &receipt) != nil || receipt["success"] != true || receipt["network"] != "eip155:84532" ||
				receipt["payer"] != e.payer.Address.Hex() || !strings.HasPrefix(receipt["transaction"].(string), "0x") {
				t.Errorf("PAYMENT-RESPONSE = %s", raw)
			}
			// The facilitator was asked in v2, with the v2 requirements and the payload as the client sent it.
			calls := e.fac.Calls()
			if len(calls) != 2 {
				t.Fatalf("facilitator calls = %+v", calls)
			}
			for _, c := range calls {
				if c.Req.X402Version != 2 || c.Req.PaymentRequirements != req || c.Req.PaymentPayload.X402Version != 2 ||
					c.Req.PaymentPayload.Accepted == nil || *c.Req.PaymentPayload.Accepted != req ||
					c.Req.PaymentPayload.Payload.Authorization != p.Payload.Authorization {
					t.Errorf("%s request = %+v", c.Op, c.Req)
				}
			}
			if e.payment(p.Payload.Authorization.Nonce) != "settled" {
				t.Errorf("payment state %q", e.payment(p.Payload.Authorization.Nonce))
			}

			// A replay is refused in v2, and so is the same signed authorization presented as a v1 payment.
			if pr := required402(t, e.payV2(header)); !strings.Contains(pr.Error, "nonce already used") {
				t.Errorf("v2 replay: %s", pr.Error)
			}
			v1 := x402.PaymentPayload{X402Version: 1, Scheme: "exact", Network: "base-sepolia", Payload: p.Payload}
			refused(t, e.pay(x402test.Header(t, v1)), "nonce already used")
			if n := e.fac.Count("settle"); n != 1 {
				t.Errorf("%d settlements, want 1", n)
			}

			// Requirements other than those offered, and payments in the wrong header, are refused before any
			// facilitator call.
			before := len(e.fac.Calls())
			for _, c := range []struct {
				name, want string
				edit       func(*x402.Requirements)
			}{
				{"amount", "accepted.amount does not match", func(r *x402.Requirements) { r.Amount = "1" }},
				{"network", "accepted.network does not match", func(r *x402.Requirements) { r.Network = "eip155:8453" }},
				{"payTo", "accepted.payTo is not the payee", func(r *x402.Requirements) { r.PayTo = e.payer.Address.Hex() }},
				{"scheme", "accepted.scheme is not supported", func(r *x402.Requirements) { r.Scheme = "upto" }},
			} {
				p := e.payer.PayloadV2(t, req, pr.Resource, time.Now())
				c.edit(p.Accepted)
				if got := required402(t, e.payV2(x402test.Header(t, p))); !strings.Contains(got.Error, c.want) {
					t.Errorf("%s: %q, want %q", c.name, got.Error, c.want)
				}
			}
			if pr := required402(t, e.payV2(x402test.Header(t, e.payer.Payload(t, e.req, time.Now())))); !strings.Contains(pr.Error,
				"PAYMENT-SIGNATURE carries x402 v2 payments; send a v1 payment in X-PAYMENT") {
				t.Errorf("v1 in PAYMENT-SIGNATURE: %s", pr.Error)
			}
			if pr := required402(t, e.payV2("%%%")); pr.Error != "PAYMENT-SIGNATURE: not valid base64" {
				t.Errorf("garbage: %s", pr.Error)
			}
			if n := len(e.fac.Calls()); n != before {
				t.Errorf("refused payments reached the facilitator: %d calls", n-before)
			}
			if res := e.payV2(strings.Repeat("A", x402.MaxHeaderLength+1)); res.Status != http.StatusBadRequest {
				t.Errorf("oversized PAYMENT-SIGNATURE: %d", res.Status)
			}
		})
	}
}

// TestPremiumV2Concurrent sends one v2 payment twice at once: one answer, one settlement.
func TestPremiumV2Concurrent(t *testing.T) {
	for _, eng := range dbtest.Engines(t) {
		t.Run(eng.Name, func(t *testing.T) {
			st, _ := eng.Open(t)
			e := startPremium(t, st, nil)
			e.fac.OnVerify(func(r x402.FacilitatorRequest) x402test.Answer {
				a := x402test.Valid(r)
				a.Delay = 200 * time.Millisecond // both requests are in flight together
				return a
			})
			req, resource := e.v2()
			header := x402test.Header(t, e.payer.PayloadV2(t, req, resource, time.Now()))
			var wg sync.WaitGroup
			statuses := make([]int, 2)
			for i := range statuses {
				wg.Add(1)
				go func() {
					defer wg.Done()
					statuses[i] = e.payV2(header).Status
				}()
			}
			wg.Wait()
			ok := 0
			for _, s := range statuses {
				if s == http.StatusOK {
					ok++
				} else if s != http.StatusPaymentRequired {
					t.Errorf("status %d", s)
				}
			}
			if ok != 1 || e.fac.Count("settle") != 1 {
				t.Errorf("statuses %v, %d settlements; want one answer and one settlement", statuses, e.fac.Count("settle"))
			}
		})
	}
}

// checkBazaarHTTP checks the discovery extension of the route: the method, and the output schema taken from the
// document (the premium envelope).
func checkBazaarHTTP(t *testing.T, pr x402.PaymentRequired) {
	t.Helper()
	var ext struct {
		Info struct {
			Input struct {
				Type, Method string
			}
			Output struct{ Type string }
		}
		Schema struct {
			Schema     string `json:"$schema"`
			Properties struct {
				Output struct {
					Properties struct {
						Example struct {
							Required []string
						}
					}
				}
			}
		}
	}
	if err := json.Unmarshal(pr.Extensions[x402.BazaarKey], &ext); err != nil {
		t.Fatalf("bazaar extension %s: %v", pr.Extensions[x402.BazaarKey], err)
	}
	if ext.Info.Input.Type != "http" || ext.Info.Input.Method != "GET" || ext.Info.Output.Type != "json" ||
		ext.Schema.Schema != "https://json-schema.org/draft/2020-12/schema" ||
		strings.Join(ext.Schema.Properties.Output.Properties.Example.Required, ",") != "timestamp,providers,summary" {
		t.Errorf("bazaar extension = %s", pr.Extensions[x402.BazaarKey])
	}
}

// TestMCPPremiumTool pays for service_health_premium over MCP as x402's MCP transport says: the unpaid call is
// an error result carrying the v2 requirements; the paid one carries the receipt in _meta; a replay is refused.
// Every structuredContent follows the tool's outputSchema (checked with a JSON Schema validator).
func TestMCPPremiumTool(t *testing.T) {
	for _, eng := range dbtest.Engines(t) {
		t.Run(eng.Name, func(t *testing.T) {
			st, _ := eng.Open(t)
			e := startPremium(t, st, nil)
			schema := premiumOutputSchema(t, e.s)

			call := func(meta string) (toolAnswer, map[string]json.RawMessage) {
				params := `{"name":"` + impl.PremiumTool + `","arguments":{}`
				if meta != "" {
					params += `,"_meta":{"x402/payment":` + meta + `}`
				}
				a := rpcCall(t, e.s, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":`+params+`}}`)
				if a.Error != nil {
					t.Fatalf("JSON-RPC error %+v", a.Error)
				}
				var ta toolAnswer
				var extra struct {
					Meta map[string]json.RawMessage `json:"_meta"`
				}
				if json.Unmarshal(a.Result, &ta) != nil || json.Unmarshal(a.Result, &extra) != nil || len(ta.Content) != 1 {
					t.Fatalf("result %s", a.Result)
				}
				if err := validate(schema, ta.StructuredContent); err != nil {
					t.Errorf("structuredContent does not follow the output schema: %v\n%.500s", err, ta.StructuredContent)
				}
				return ta, extra.Meta
			}
			required := func(ta toolAnswer) x402.PaymentRequired {
				t.Helper()
				var pr x402.PaymentRequired
				if !ta.IsError || json.Unmarshal(ta.StructuredContent, &pr) != nil || pr.X402Version != 2 || len(pr.Accepts) != 1 {
					t.Fatalf("want the payment requirements, got %+v", ta)
				}
				if !bytes.Equal(bytes.TrimSpace([]byte(ta.Content[0].Text)), bytes.TrimSpace(ta.StructuredContent)) {
					t.Errorf("content[0].text is not the structuredContent's JSON:\n%s\n%s", ta.Content[0].Text, ta.StructuredContent)
				}
				return pr
			}

			pr := required(first(call("")))
			if pr.Error != `payment required: call the tool again with the payment in _meta["x402/payment"]` ||
				pr.Resource == nil || !strings.HasSuffix(pr.Resource.URL, "/api/v1/mcp") || pr.Accepts[0].Network != "eip155:84532" {
				t.Errorf("unpaid = %+v %+v", pr, pr.Resource)
			}
			var ext struct {
				Info struct {
					Input struct {
						Type, Tool, Transport string
						InputSchema           map[string]any `json:"inputSchema"`
					}
				}
			}
			if json.Unmarshal(pr.Extensions[x402.BazaarKey], &ext) != nil || ext.Info.Input.Type != "mcp" ||
				ext.Info.Input.Tool != impl.PremiumTool || ext.Info.Input.Transport != "streamable-http" || ext.Info.Input.InputSchema["type"] != "object" {
				t.Errorf("MCP bazaar extension = %s", pr.Extensions[x402.BazaarKey])
			}

			p := e.payer.PayloadV2(t, pr.Accepts[0], pr.Resource, time.Now())
			payment, _ := json.Marshal(p)
			ta, meta := call(string(payment))
			if ta.IsError {
				t.Fatalf("paid call: %s", ta.Content[0].Text)
			}
			var receipt map[string]any
			if json.Unmarshal(meta["x402/payment-response"], &receipt) != nil || receipt["success"] != true ||
				receipt["network"] != "eip155:84532" || receipt["payer"] != e.payer.Address.Hex() {
				t.Errorf("_meta = %s", meta["x402/payment-response"])
			}
			var body map[string]any
			if json.Unmarshal(ta.StructuredContent, &body) != nil || body["providers"] == nil {
				t.Errorf("paid structuredContent %.300s", ta.StructuredContent)
			}

			if pr := required(first(call(string(payment)))); !strings.Contains(pr.Error, "nonce already used") {
				t.Errorf("replay over MCP: %s", pr.Error)
			}
			// The same authorization over HTTP is a replay too: both transports share one nonce store.
			if pr := required402(t, e.payV2(x402test.Header(t, p))); !strings.Contains(pr.Error, "nonce already used") {
				t.Errorf("MCP payment replayed over HTTP: %s", pr.Error)
			}
			if pr := required(first(call(`{"x402Version":2}`))); pr.Error != `_meta["x402/payment"]: missing field accepted` {
				t.Errorf("malformed: %s", pr.Error)
			}
			if pr := required(first(call(`"text"`))); pr.Error != `_meta["x402/payment"]: not a JSON object` {
				t.Errorf("not an object: %s", pr.Error)
			}
			if n := e.fac.Count("settle"); n != 1 {
				t.Errorf("%d settlements, want 1", n)
			}
		})
	}
}

func first[A, B any](a A, _ B) A { return a }

// premiumOutputSchema compiles the output schema tools/list gives the premium tool.
func premiumOutputSchema(t *testing.T, s *apitest.Server) *jsonschema.Schema {
	for _, tl := range listTools(t, s).Tools {
		if tl.Name != impl.PremiumTool {
			continue
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(tl.OutputSchema))
		if err != nil {
			t.Fatal(err)
		}
		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft2020)
		if err := c.AddResource("mem://premium", doc); err != nil {
			t.Fatal(err)
		}
		sch, err := c.Compile("mem://premium")
		if err != nil {
			t.Fatal(err)
		}
		return sch
	}
	t.Fatalf("tools/list has no %s", impl.PremiumTool)
	return nil
}

func validate(sch *jsonschema.Schema, raw json.RawMessage) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	return sch.Validate(v)
}
