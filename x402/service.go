package x402

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"strings"
	"sync/atomic"
	"time"

	"github.com/switchboard/switchboard/store"
)

// Options configure NewService.
type Options struct {
	Config Config
	// Store remembers nonces (claims, settlements) across requests and replicas.
	Store store.PaymentStore
	// Resource is the full URL of the paid route; Description says what is paid for. Both go in the requirements.
	Resource    string
	Description string
	Logger      *slog.Logger
}

// Service guards one paid route: it checks payments, holds their nonces, and verifies and settles them with the
// facilitator around the production of the paid answer.
type Service struct {
	cfg      Config
	store    store.PaymentStore
	fac      *Facilitator
	log      *slog.Logger
	req1     Requirements // v1
	req2     Requirements // v2
	resource ResourceInfo
	// discovery holds the bazaar extensions of the HTTP route and of the MCP tool, once SetDiscovery gave them.
	discovery atomic.Pointer[discoveryExtensions]

	// What an attempt may cost is bounded before it reaches the store and the facilitator: attempts per client
	// and per payer in a minute, payers the facilitator refused remembered for a minute, and the payments with
	// the facilitator at once.
	clients, payers *perMinute
	refused         refusals
	slots           chan struct{}
}

// NewService returns the guard of one paid route. The configuration must be enabled (a payee and a facilitator).
func NewService(o Options) (*Service, error) {
	if !o.Config.Enabled() || o.Config.FacilitatorURL == "" {
		return nil, errors.New("x402: payments need a payee and a facilitator")
	}
	if o.Store == nil || o.Resource == "" {
		return nil, errors.New("x402: a store and the resource URL are required")
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return &Service{
		cfg:      o.Config,
		store:    o.Store,
		fac:      NewFacilitator(o.Config.FacilitatorURL, o.Config.facilitatorTimeout(), o.Config.Outbound),
		log:      o.Logger.With("component", "x402"),
		req1:     o.Config.Requirements(o.Resource, o.Description),
		req2:     o.Config.RequirementsV2(),
		resource: ResourceInfo{URL: o.Resource, Description: o.Description, MimeType: "application/json"},
		clients:  newPerMinute(o.Config.clientLimit()),
		payers:   newPerMinute(o.Config.payerLimit()),
		slots:    make(chan struct{}, o.Config.concurrency()),
	}, nil
}

// Requirements returns the route's one accepted way to pay, in x402 v1.
func (s *Service) Requirements() Requirements { return s.req1 }

// RequirementsV2 returns the same way to pay in x402 v2.
func (s *Service) RequirementsV2() Requirements { return s.req2 }

// requirements returns the way to pay in the given version, as the facilitator gets it.
func (s *Service) requirements(version int) Requirements {
	if version == Version2 {
		return s.req2
	}
	return s.req1
}

// Missing is the reason given when no payment was presented in place in (InXPayment, ...).
func Missing(in string) string {
	if in == InMCPMeta {
		return "payment required: call the tool again with the payment in " + InMCPMeta
	}
	return in + " header is required"
}

// PaymentRequired returns the v1 402 body with reason as its error.
func (s *Service) PaymentRequired(reason string) PaymentRequired {
	return PaymentRequired{X402Version: Version1, Error: reason, Accepts: []Requirements{s.req1}}
}

// PaymentRequiredV2 returns the v2 PaymentRequired of the HTTP route (the PAYMENT-REQUIRED header), with the
// bazaar discovery extension once SetDiscovery gave it.
func (s *Service) PaymentRequiredV2(reason string) PaymentRequired {
	pr := PaymentRequired{X402Version: Version2, Error: reason, Resource: &s.resource, Accepts: []Requirements{s.req2}}
	if d := s.discovery.Load(); d != nil && d.http != nil {
		pr.Extensions = map[string]json.RawMessage{BazaarKey: d.http}
	}
	return pr
}

// PaymentRequiredMCP returns the v2 PaymentRequired of the MCP tool: the resource is the MCP endpoint, and the
// bazaar extension describes the tool. Before SetDiscovery it is PaymentRequiredV2's.
func (s *Service) PaymentRequiredMCP(reason string) PaymentRequired {
	d := s.discovery.Load()
	if d == nil || d.mcp == nil {
		return s.PaymentRequiredV2(reason)
	}
	return PaymentRequired{X402Version: Version2, Error: reason, Resource: &d.mcpResource, Accepts: []Requirements{s.req2},
		Extensions: map[string]json.RawMessage{BazaarKey: d.mcp}}
}

// Receipt is the settlement receipt (SettlementResponse), sent in PAYMENT-RESPONSE (v2), X-PAYMENT-RESPONSE (v1)
// or an MCP result's _meta["x402/payment-response"].
type Receipt struct {
	Success     bool   `json:"success"`
	Transaction string `json:"transaction"`
	Network     string `json:"network"` // the network as the payment's version names it
	Payer       string `json:"payer"`
	// Version is the protocol version the payment was made in; it picks the header.
	Version int `json:"-"`
}

// Header encodes the receipt for its header: base64 (standard alphabet) of its JSON.
func (r Receipt) Header() string {
	b, _ := json.Marshal(r) // four strings and a bool: cannot fail
	return base64.StdEncoding.EncodeToString(b)
}

// HeaderName is the header the receipt travels in: the one that matches the header the payment came in.
func (r Receipt) HeaderName() string {
	if r.Version == Version2 {
		return "PAYMENT-RESPONSE"
	}
	return "X-PAYMENT-RESPONSE"
}

// storeTimeout bounds the bookkeeping writes after the claim. They run detached from the request, so that a
// caller hanging up cannot leave a claim behind half-done.
const storeTimeout = 5 * time.Second

// Serve takes the payment presented (in either version) for one call at time now, and runs
// produce, which computes the paid answer, only when the payment is good. It returns the settlement receipt
// when the answer may be sent; a *PaymentError when the payment is refused or cannot be processed (the caller
// answers 402 with PaymentRequired(reason) or 503); any other error is an internal failure (500).
//
// The order is what makes one payment serve at most once:
//  1. decode and check locally (Check): refused -> 402, nothing stored;
//  2. bound what the attempt may cost, before it reaches the store and the facilitator: a payer the facilitator
//     refused within RefusalMemory -> 402; over the client's or the payer's attempts a minute -> 429 with a
//     wait; every facilitator slot taken -> 503;
//  3. claim the nonce in the store, atomically: already claimed (in flight, settled or failed) -> 402;
//  4. ask the facilitator to verify: refused -> 402 with its reason (and the payer remembered); unreachable ->
//     503; no usable answer in time, or a verdict about another payer -> 402. The claim is released: nothing
//     was settled, so the same authorization may be presented again;
//  5. produce the answer: failure (an answer too large for where it goes among them) -> the claim is
//     released, the error returned;
//  6. settle: success naming this payer and network -> the nonce is recorded as settled and the receipt
//     returned; a success naming another payer or network counts as an unknown outcome (below). Settlement
//     that could not even be sent (facilitator unreachable) -> the claim is released, 503. Any other failure
//     (refused, error,
//     timeout: the transfer may or may not have happened) -> the nonce is recorded as failed and never usable
//     again, the answer is withheld (402), and the event is logged at error level with the payer and nonce so
//     that a transfer that did land can be refunded by hand.
//
// produce runs before settlement so that a failure to compute the answer never costs the caller anything; the
// answer is released to the caller only after settlement succeeded.
func (s *Service) Serve(ctx context.Context, in Presented, now time.Time, produce func(context.Context) error) (Receipt, error) {
	r, err := s.serve(ctx, in, now, produce)
	if s.cfg.OnOutcome != nil {
		s.cfg.OnOutcome(OutcomeOf(err))
	}
	return r, err
}

// The outcomes of a call of the paid route, as OnOutcome receives them.
const (
	OutcomeSettled     = "settled"     // paid and answered
	OutcomeRefused     = "refused"     // 402: no, bad, reused or refused payment, or failed settlement
	OutcomeUnavailable = "unavailable" // 503: the facilitator could not be reached; nothing was charged
	OutcomeError       = "error"       // the answer could not be produced, or the caller went away
)

// OutcomeOf classifies Serve's error.
func OutcomeOf(err error) string {
	var pe *PaymentError
	switch {
	case err == nil:
		return OutcomeSettled
	case errors.As(err, &pe) && pe.Status == StatusUnavailable:
		return OutcomeUnavailable
	case errors.As(err, &pe):
		return OutcomeRefused
	}
	return OutcomeError
}

func (s *Service) serve(ctx context.Context, in Presented, now time.Time, produce func(context.Context) error) (Receipt, error) {
	start := time.Now()
	elapsed := func() time.Time { return now.Add(time.Since(start)).UTC() }
	if strings.TrimSpace(in.Value) == "" {
		return Receipt{}, &PaymentError{Status: StatusPaymentRequired, Reason: Missing(in.In), Missing: true}
	}
	p, err := Decode(in)
	if err != nil {
		return Receipt{}, err
	}
	if err := s.cfg.Check(p, now); err != nil {
		return Receipt{}, err
	}
	nonce := p.NonceHex()
	version := p.Version()
	log := s.log.With("nonce", nonce, "payer", p.From.Hex(), "value", p.Value.String(), "x402_version", version)
	// The signature is good, so the payer is who the authorization says: from here on an attempt would cost a
	// store write and a facilitator call, which a throwaway key makes free to ask for. Bound it first.
	payer := payerKey(p.From.Hex())
	if r, ok := s.refused.get(payer, now); ok {
		return Receipt{}, refuse("payment refused: the facilitator refused this payer's payment less than a minute ago (%s); "+
			"nothing was charged, retry in %d s", r.reason, max(1, int(r.until.Sub(now).Seconds())))
	}
	if ok, wait := s.clients.take(in.Client, now); !ok {
		log.Warn("payment attempt refused: client over its limit", "client", in.Client)
		return Receipt{}, tooMany(fmt.Sprintf("too many payment attempts from this client: at most %d a minute", s.cfg.clientLimit()), wait)
	}
	if ok, wait := s.payers.take(payer, now); !ok {
		log.Warn("payment attempt refused: payer over its limit")
		return Receipt{}, tooMany(fmt.Sprintf("too many payment attempts from this payer: at most %d a minute", s.cfg.payerLimit()), wait)
	}
	if !acquire(ctx, s.slots) {
		log.Warn("payment attempt refused: every facilitator slot is taken", "slots", cap(s.slots))
		return Receipt{}, &PaymentError{Status: StatusUnavailable, RetryAfter: time.Second,
			Reason: "too many payments in progress: nothing was charged, retry shortly"}
	}
	defer func() { <-s.slots }()
	err = s.store.ClaimPayment(ctx, store.Payment{
		Nonce: nonce, Payer: strings.ToLower(p.From.Hex()), Network: s.cfg.Network.Name,
		Asset: strings.ToLower(s.cfg.Asset.Hex()), Amount: p.Value.String(), ValidBefore: unixTime(p.ValidBefore),
		ClaimedAt: now,
	})
	if errors.Is(err, store.ErrNonceUsed) {
		log.Info("payment refused: nonce already used")
		return Receipt{}, refuse("payment nonce already used: sign a new authorization")
	}
	if err != nil {
		return Receipt{}, fmt.Errorf("claiming the payment nonce: %w", err)
	}

	// From here on every path ends the claim: released when nothing was settled, finished otherwise.
	freq := FacilitatorRequest{X402Version: version, PaymentPayload: p.Payload, PaymentRequirements: s.requirements(version)}
	vr, err := s.fac.Verify(ctx, freq)
	if err != nil {
		s.release(ctx, log, nonce)
		if errors.Is(err, ErrFacilitatorUnreachable) {
			log.Error("payment not verified: facilitator unreachable", "error", err)
			return Receipt{}, &PaymentError{Status: StatusUnavailable, Reason: "payment facilitator unreachable: nothing was charged, retry later"}
		}
		log.Error("payment not verified: facilitator failed", "error", err)
		return Receipt{}, refuse("payment could not be verified: the facilitator gave no usable answer; nothing was charged")
	}
	if !*vr.IsValid {
		s.release(ctx, log, nonce)
		reason := sanitizeReason(vr.InvalidReason)
		s.refused.add(payer, reason, now)
		log.Info("payment refused by the facilitator", "reason", reason)
		return Receipt{}, refuse("payment refused by the facilitator: %s", reason)
	}
	if vr.Payer != "" && payerKey(vr.Payer) != payer {
		// The verdict is about another payment than the one presented: not an answer to rely on.
		s.release(ctx, log, nonce)
		log.Error("payment not verified: the facilitator's verdict names another payer", "facilitator_payer", sanitizeReason(vr.Payer))
		return Receipt{}, refuse("payment could not be verified: the facilitator's answer names another payer; nothing was charged")
	}

	if err := produce(ctx); err != nil {
		s.release(ctx, log, nonce)
		return Receipt{}, fmt.Errorf("producing the paid answer: %w", err)
	}
	if err := ctx.Err(); err != nil {
		// The caller is gone: nobody would receive the answer, so nothing is charged.
		s.release(ctx, log, nonce)
		return Receipt{}, err
	}

	// Settlement runs to its end even if the caller hangs up now: its outcome must be known and recorded.
	sr, err := s.fac.Settle(context.WithoutCancel(ctx), freq)
	switch {
	case errors.Is(err, ErrFacilitatorUnreachable):
		s.release(ctx, log, nonce)
		log.Error("SETTLEMENT NOT SENT: facilitator unreachable after a verified payment; answer withheld, nonce released", "error", err)
		return Receipt{}, &PaymentError{Status: StatusUnavailable, Reason: "payment facilitator unreachable: the payment was not settled and nothing was charged, retry later"}
	case err != nil:
		s.finish(ctx, log, nonce, store.PaymentFailed, nil, elapsed())
		log.Error("SETTLEMENT FAILED after a verified payment: outcome unknown, answer withheld, nonce spent; check the chain and refund by hand if the transfer landed", "error", err)
		return Receipt{}, refuse("payment settlement failed: the answer was withheld; sign a new authorization to retry")
	case !*sr.Success:
		reason := sanitizeReason(sr.ErrorReason)
		s.finish(ctx, log, nonce, store.PaymentFailed, nil, elapsed())
		log.Error("SETTLEMENT REFUSED after a verified payment: answer withheld, nonce spent", "reason", reason, "transaction", sr.Transaction)
		return Receipt{}, refuse("payment settlement failed: %s; the answer was withheld", reason)
	case sr.Payer != "" && payerKey(sr.Payer) != payer, sr.Network != "" && !s.isNetwork(sr.Network):
		// A settlement of someone else's transfer, or on another chain, is not this payment: the answer is
		// withheld and the nonce spent, as for any settlement whose outcome is unknown.
		s.finish(ctx, log, nonce, store.PaymentFailed, nil, elapsed())
		log.Error("SETTLEMENT NOT ACCEPTED: the facilitator's answer names another payer or network; answer withheld, nonce spent; check the chain",
			"facilitator_payer", sanitizeReason(sr.Payer), "facilitator_network", sanitizeReason(sr.Network), "transaction", sanitizeReason(sr.Transaction))
		return Receipt{}, refuse("payment settlement failed: the facilitator's answer names another payer or network; the answer was withheld")
	}
	tx := sr.Transaction
	s.finish(ctx, log, nonce, store.PaymentSettled, &tx, elapsed())
	network := s.requirements(version).Network
	log.Info("payment settled", "transaction", tx)
	return Receipt{Success: true, Transaction: tx, Network: network, Payer: p.From.Hex(), Version: version}, nil
}

// isNetwork reports whether a facilitator's network is the configured one, in either version's naming.
func (s *Service) isNetwork(n string) bool {
	return n == s.cfg.Network.Name || n == s.cfg.Network.CAIP2
}

// tooMany is the refusal of an attempt over a limit.
func tooMany(reason string, wait time.Duration) *PaymentError {
	return &PaymentError{Status: StatusTooManyRequests, Reason: reason + "; nothing was charged", RetryAfter: max(wait, time.Second)}
}

// release gives a claim back after a failure before settlement. A failure to release leaves the nonce spent,
// which is safe: the payer signs a new authorization.
func (s *Service) release(ctx context.Context, log *slog.Logger, nonce string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
	defer cancel()
	if err := s.store.ReleasePayment(ctx, nonce); err != nil {
		log.Error("releasing a payment claim failed; the nonce stays spent", "error", err)
	}
}

// finish records the outcome of a settlement attempt. A failure leaves the nonce claimed, still never reusable.
func (s *Service) finish(ctx context.Context, log *slog.Logger, nonce string, state store.PaymentState, tx *string, at time.Time) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
	defer cancel()
	if err := s.store.FinishPayment(ctx, nonce, state, tx, at); err != nil {
		log.Error("recording the payment outcome failed; the nonce stays claimed and unusable", "state", state, "error", err)
	}
}

// maxUnixTime is 9999-12-31T23:59:59Z: validBefore is a uint256, the databases store four-digit years.
var maxUnixTime = time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)

func unixTime(secs *big.Int) time.Time {
	if !secs.IsInt64() || secs.Int64() > maxUnixTime.Unix() {
		return maxUnixTime
	}
	return time.Unix(secs.Int64(), 0).UTC()
}

// sanitizeReason keeps a facilitator's reason code short and printable before it reaches a caller or a log.
func sanitizeReason(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e {
			return -1
		}
		return r
	}, s)
	if len(s) > 200 {
		s = s[:200]
	}
	if s == "" {
		return "no reason given"
	}
	return s
}
