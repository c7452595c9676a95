package impl

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/switchboard/switchboard/gen/api"
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
	var body api.HealthPremiumResponse
	receipt, err := s.payments.Serve(ctx, orDefault(req.Params.XPAYMENT, ""), s.now(), func(ctx context.Context) error {
		var err error
		body, err = s.premiumHealth(ctx)
		return err
	})
	var pe *x402.PaymentError
	switch {
	case errors.As(err, &pe) && pe.Status == x402.StatusUnavailable:
		return api.GetHealthPremium503JSONResponse{Error: pe.Reason}, nil
	case errors.As(err, &pe):
		return api.GetHealthPremium402JSONResponse(paymentRequired(s.payments.PaymentRequired(pe.Reason))), nil
	case err != nil:
		return nil, err
	}
	return paidPremium{body: body, receipt: receipt.Header()}, nil
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
			Trend: api.PremiumProviderHealthTrend(p.Trend), Degraded: p.Degraded,
		}
	}
	return body, nil
}

// paymentRequired is the document's form of the 402 body.
func paymentRequired(p x402.PaymentRequired) api.PaymentRequired {
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

// paidPremium is the 200 answer: the document's body and X-PAYMENT-RESPONSE, plus Cache-Control: no-store,
// which the generated response cannot carry: a paid answer must never be replayed by a cache to someone who did
// not pay.
type paidPremium struct {
	body    api.HealthPremiumResponse
	receipt string
}

func (p paidPremium) VisitGetHealthPremiumResponse(w http.ResponseWriter) error {
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(p.body); err != nil {
		return fmt.Errorf("encoding the premium health: %w", err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-PAYMENT-RESPONSE", p.receipt)
	w.WriteHeader(http.StatusOK)
	_, err := buf.WriteTo(w)
	return err
}
