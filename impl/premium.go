package impl

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/server"
	"github.com/switchboard/switchboard/tools"
	"github.com/switchboard/switchboard/x402"
)

// PremiumPath is the paid route, under the service's base address.
const PremiumPath = "/api/v1/health/premium"

// premiumDescription tells payers what one payment buys (the requirements' description).
const premiumDescription = "Switchboard premium health: status of every monitored AI provider with 30-day uptime, " +
	"poll latency average and p95, incidents of the last 7 days, rate-limit risk and latency trend (one call)"

// newPayments builds the premium route's guard from deps.Payments; nil (the route answers 503) when no payee is
// configured.
func newPayments(deps Deps) *x402.Service {
	if !deps.Payments.Enabled() {
		return nil
	}
	svc, err := x402.NewService(x402.Options{
		Config: deps.Payments, Store: deps.Store, Resource: deps.BaseURL + PremiumPath,
		Description: premiumDescription, Logger: deps.Logger,
	})
	if err != nil {
		// x402.ParseSettings rules this out; should it happen, the route refuses to serve rather than serve free.
		deps.Logger.Error("premium payments disabled: invalid setup", "error", err)
		return nil
	}
	return svc
}

// GetHealthPremium serves the paid health envelope. The x402 guard decides; this handler only translates: the
// premium figures are computed inside the guard, after the payment is verified and before it is settled, and
// leave the server only once settlement succeeded.
func (s *Server) GetHealthPremium(ctx context.Context, req api.GetHealthPremiumRequestObject) (api.GetHealthPremiumResponseObject, error) {
	if s.payments == nil {
		return api.GetHealthPremium503JSONResponse{Error: "premium payments are not configured on this server"}, nil
	}
	in := presentedPayment(req.Params)
	in.Client = clientOf(ctx)
	var body []byte
	receipt, err := s.payments.Serve(ctx, in, s.now(), func(ctx context.Context) error {
		var err error
		body, err = s.premiumAnswer(ctx)
		return err
	})
	var pe *x402.PaymentError
	switch {
	case errors.Is(err, errAnswerTooLarge):
		return unavailable{reason: "the premium answer is larger than an MCP tool result may hold, so nothing was " +
			"charged: call GET " + PremiumPath + " over HTTP"}, nil
	case errors.As(err, &pe) && pe.Status == x402.StatusUnavailable:
		return unavailable{reason: pe.Reason, retryAfter: pe.RetryAfter}, nil
	case errors.As(err, &pe) && pe.Status == x402.StatusTooManyRequests:
		secs := max(1, int(pe.RetryAfter.Round(time.Second)/time.Second))
		return api.GetHealthPremium429JSONResponse{TooManyRequestsJSONResponse: api.TooManyRequestsJSONResponse{
			Body: api.Error{Error: pe.Reason}, Headers: api.TooManyRequestsResponseHeaders{RetryAfter: &secs}}}, nil
	case errors.As(err, &pe):
		return s.paymentRequired(in, pe), nil
	case err != nil:
		return nil, err
	}
	return paidPremium{body: body, receipt: receipt}, nil
}

// errAnswerTooLarge is a paid answer that could not reach the caller whole: found before settlement, so
// nothing is charged for it.
var errAnswerTooLarge = errors.New("the paid answer is larger than where it goes may hold")

// premiumAnswer computes and encodes the paid envelope, and checks, before the payment is settled, that it
// fits where it goes: a tool call's result has a size bound, and an answer over it would be replaced by an
// error after the caller paid.
func (s *Server) premiumAnswer(ctx context.Context) ([]byte, error) {
	body, err := s.premiumHealth(ctx)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(body); err != nil {
		return nil, fmt.Errorf("encoding the premium health: %w", err)
	}
	if limit, ok := tools.ResultLimit(ctx); ok && buf.Len() > limit {
		s.deps.Logger.WarnContext(ctx, "paid MCP answer over the result bound: refused before settlement", "bytes", buf.Len(), "limit", limit)
		return nil, fmt.Errorf("%w: %d bytes, %d allowed", errAnswerTooLarge, buf.Len(), limit)
	}
	return buf.Bytes(), nil
}

// clientOf names the caller for the per-client limits (the paid route, the webhook quota): the client the
// server named for the request (server.ClientKey: the connection's address, or the trusted proxies' word; IPv6
// per /64), which a tool call inherits from the MCP request that made it. "" for a request made in process.
func clientOf(ctx context.Context) string { return server.ClientKey(ctx) }

// unavailable is the premium route's 503, with Retry-After when a wait is known.
type unavailable struct {
	reason     string
	retryAfter time.Duration
}

func (u unavailable) VisitGetHealthPremiumResponse(w http.ResponseWriter) error {
	if u.retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(max(1, int(u.retryAfter.Round(time.Second)/time.Second))))
	}
	return api.GetHealthPremium503JSONResponse{Error: u.reason}.VisitGetHealthPremiumResponse(w)
}

// presentedPayment picks the payment of a request: PAYMENT-SIGNATURE (v2) when sent, else X-PAYMENT (v1). A v2
// client that also sends a v1 header is answered in v2, the version it speaks.
func presentedPayment(p api.GetHealthPremiumParams) x402.Presented {
	if v := orDefault(p.PAYMENTSIGNATURE, ""); strings.TrimSpace(v) != "" {
		return x402.PaymentSignature(v)
	}
	return x402.XPayment(orDefault(p.XPAYMENT, ""))
}

// paymentRequired is the 402: the v2 requirements in PAYMENT-REQUIRED and the v1 ones in the body, so that a
// client of either version can pay. When no payment came, each version names its own header as missing.
func (s *Server) paymentRequired(in x402.Presented, pe *x402.PaymentError) api.GetHealthPremium402JSONResponse {
	v1, v2 := pe.Reason, pe.Reason
	if pe.Missing {
		v1, v2 = x402.Missing(x402.InXPayment), x402.Missing(x402.InPaymentSignature)
	}
	return api.GetHealthPremium402JSONResponse{
		Body:    paymentRequiredV1(s.payments.PaymentRequired(v1)),
		Headers: api.GetHealthPremium402ResponseHeaders{PAYMENTREQUIRED: encodeHeader(s.payments.PaymentRequiredV2(v2))},
	}
}

// encodeHeader is base64 (standard alphabet) of v's JSON, as x402 headers carry their objects.
func encodeHeader(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		// The requirements are plain strings and numbers and the extension was encoded once already.
		panic(fmt.Sprintf("encoding an x402 header: %v", err))
	}
	return base64.StdEncoding.EncodeToString(b)
}

// premiumHealth computes the paid envelope: the /health envelope with the premium figures per provider.
func (s *Server) premiumHealth(ctx context.Context) (api.HealthPremiumResponse, error) {
	snap, err := s.health.Current(ctx)
	if err != nil {
		return api.HealthPremiumResponse{}, err
	}
	t := s.now()
	prem := snap.Premium(t)
	body := api.HealthPremiumResponse{
		Timestamp: t, Providers: make(map[string]api.PremiumProviderHealth, len(prem)), Summary: summary(snap.Health(t).Summary),
	}
	for id, p := range prem {
		body.Providers[id] = api.PremiumProviderHealth{
			Status: api.ProviderStatus(p.Status), LastChecked: p.LastChecked, ResponseTimeMs: p.ResponseTimeMs,
			UptimePct: p.UptimePct, AvgResponseMs: p.AvgResponseMs, P95ResponseMs: p.P95ResponseMs,
			RecentIncidents: p.RecentIncidents, RateLimitRisk: api.PremiumProviderHealthRateLimitRisk(p.RateLimitRisk),
			Trend: api.PremiumProviderHealthTrend(p.Trend), Degraded: p.Degraded, ExpectedRecovery: expectedRecovery(p.ExpectedRecovery),
		}
	}
	return body, nil
}

// paymentRequiredV1 is the document's form of the 402 body (x402 v1).
func paymentRequiredV1(p x402.PaymentRequired) api.PaymentRequired {
	out := api.PaymentRequired{X402Version: p.X402Version, Error: p.Error, Accepts: make([]api.PaymentRequirements, len(p.Accepts))}
	for i, r := range p.Accepts {
		out.Accepts[i] = api.PaymentRequirements{
			Scheme: api.PaymentRequirementsScheme(r.Scheme), Network: r.Network, MaxAmountRequired: r.MaxAmountRequired,
			Resource: r.Resource, Description: r.Description, MimeType: r.MimeType, PayTo: r.PayTo,
			MaxTimeoutSeconds: r.MaxTimeoutSeconds, Asset: r.Asset,
			Extra: api.PaymentRequirementsExtra{Name: r.Extra.Name, Version: r.Extra.Version},
		}
	}
	return out
}

// paidPremium is the 200 answer: the document's body and the receipt in the header of the payment's version,
// plus Cache-Control: no-store, which the generated response cannot carry: a paid answer must never be replayed
// by a cache to someone who did not pay.
type paidPremium struct {
	body    []byte // encoded before settlement, so its size was known before the caller was charged
	receipt x402.Receipt
}

func (p paidPremium) VisitGetHealthPremiumResponse(w http.ResponseWriter) error {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set(p.receipt.HeaderName(), p.receipt.Header())
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(p.body)
	return err
}
