package impl

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/switchboard/switchboard/tools"
	"github.com/switchboard/switchboard/x402"
)

// The paid MCP tool and x402's MCP transport (specs/transports-v2/mcp.md): an unpaid call answers an error
// result whose structuredContent is the v2 PaymentRequired (and content[0].text its JSON); the client calls again
// with its payment in params._meta["x402/payment"]; a paid result carries the receipt in
// _meta["x402/payment-response"]. The call still runs through the HTTP route, so verification, replay
// protection and settle-once are the route's own, shared by both transports.
const (
	PremiumTool        = "service_health_premium"
	mcpPaymentKey      = "x402/payment"
	mcpPaymentResponse = "x402/payment-response"
	// paymentRequiredSchema is the component schema of x402 v2's PaymentRequired in the OpenAPI document.
	paymentRequiredSchema = "PaymentRequiredV2"
)

// mcpPath is the MCP endpoint under the base address (the resource of the paid tool).
const mcpPath = "/api/v1/mcp"

// mcpHooks adjusts the generated tools that need more than their endpoint's query.
func (s *Server) mcpHooks() map[string]tools.Hook {
	return map[string]tools.Hook{PremiumTool: {
		ErrorSchema: paymentRequiredSchema,
		Before:      s.premiumToolBefore,
		After:       s.premiumToolAfter,
	}}
}

// premiumToolBefore moves the payment from _meta into the header of its version. Without payments configured the
// call goes through and the route answers 503, as over HTTP. A call without payment, or with one that cannot be
// read, is answered here with the requirements, its reason naming _meta rather than a header.
func (s *Server) premiumToolBefore(_ context.Context, meta map[string]json.RawMessage, req *http.Request) *tools.Result {
	if s.payments == nil {
		return nil
	}
	in := x402.MCPPayment(meta[mcpPaymentKey])
	if in.Value == "" {
		return s.mcpPaymentRequired(x402.Missing(x402.InMCPMeta))
	}
	p, err := x402.Decode(in)
	if err != nil {
		return s.mcpPaymentRequired(reasonOf(err))
	}
	header := base64.StdEncoding.EncodeToString([]byte(in.Value))
	if p.Version() == x402.Version1 {
		req.Header.Set("X-PAYMENT", header)
	} else {
		req.Header.Set("PAYMENT-SIGNATURE", header)
	}
	return nil
}

// premiumToolAfter turns the route's answer into x402's MCP form: a 402 into the requirements (the reason taken
// from PAYMENT-REQUIRED), a paid 200 into a result with the receipt in _meta.
func (s *Server) premiumToolAfter(ctx context.Context, status int, header http.Header, _ []byte, res *tools.Result) {
	switch status {
	case http.StatusPaymentRequired:
		reason := "payment required"
		var pr x402.PaymentRequired
		if raw, err := base64.StdEncoding.DecodeString(header.Get("PAYMENT-REQUIRED")); err == nil && json.Unmarshal(raw, &pr) == nil && pr.Error != "" {
			reason = pr.Error
		}
		*res = *s.mcpPaymentRequired(reason)
	case http.StatusOK:
		for _, name := range []string{"PAYMENT-RESPONSE", "X-PAYMENT-RESPONSE"} {
			raw, err := base64.StdEncoding.DecodeString(header.Get(name))
			if err != nil || len(raw) == 0 || !json.Valid(raw) {
				continue
			}
			if res.Meta == nil {
				res.Meta = map[string]any{}
			}
			res.Meta[mcpPaymentResponse] = json.RawMessage(raw)
			return
		}
		// The route settles before it answers 200 and always sends a receipt: without one the answer is not
		// released, as it would not be over HTTP.
		s.deps.Logger.ErrorContext(ctx, "a paid MCP call answered 200 without a receipt")
		*res = tools.ErrorResult("internal error: the payment receipt is missing")
	}
}

// mcpPaymentRequired is the error result of x402's MCP transport: the v2 PaymentRequired of the tool as
// structuredContent and as the JSON text of content[0].
func (s *Server) mcpPaymentRequired(reason string) *tools.Result {
	b, err := json.Marshal(s.payments.PaymentRequiredMCP(reason))
	if err != nil {
		panic(fmt.Sprintf("encoding the MCP payment requirements: %v", err)) // strings and numbers only
	}
	res := tools.TextResult(string(b), true)
	res.StructuredContent = b
	return &res
}

// reasonOf is the caller-safe reason of a payment error.
func reasonOf(err error) string {
	var pe *x402.PaymentError
	if errors.As(err, &pe) {
		return pe.Reason
	}
	return "the payment could not be read"
}

// useDiscovery hands the paid route's description to the payments, from the generated tool (whose schemas come
// from the OpenAPI document), so that the 402s carry x402's bazaar discovery extension.
func (s *Server) useDiscovery(b *tools.Bridge) error {
	if s.payments == nil {
		return nil
	}
	for _, t := range b.Tools() {
		if t.Name != PremiumTool {
			continue
		}
		return s.payments.SetDiscovery(x402.Discovery{
			Method: http.MethodGet, QuerySchema: t.InputSchema, OutputSchema: t.AnswerSchema(),
			Tool: t.Name, ToolDescription: t.Title, ToolInputSchema: t.InputSchema, MCPURL: s.deps.BaseURL + mcpPath,
		})
	}
	return fmt.Errorf("the OpenAPI document has no tool %s", PremiumTool)
}
