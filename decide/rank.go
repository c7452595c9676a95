package decide

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/switchboard/switchboard/seeds"
)

// Scoring weights. The OpenAPI descriptions of getPick, getFailover and getRecommend state the same rules; keep
// them in step.
const (
	// The status bands are wider than the sum of the other parts (30), so a degraded provider always ranks below
	// an operational one and one of unknown status below every observed one.
	bandOperational, bandDegraded, bandUnknown = 70.0, 35.0, 0.0

	pickLatency, pickUptime, pickPrice, pickQuality = 8.0, 4.0, 10.0, 5.0
	pickContext, pickCapability                     = 1.5, 0.5 // capability: per capability held, 3 at most
	pickContextFull                                 = 1_000_000.0

	failoverLatency, failoverUptime, failoverCapability, failoverPrice = 10.0, 8.0, 7.0, 5.0

	recommendLatency, recommendUptime, recommendFreeTier, recommendPrice = 35.0, 25.0, 20.0, 20.0
)

// qualityBenchmark is the benchmark that measures a task's quality; tasks without one score no quality part.
var qualityBenchmark = map[string]string{"llm": "mmlu", "agent": "mmlu", "code": "humaneval"}

func statusPart(status string, op, deg, unk float64) float64 {
	switch status {
	case StatusOperational:
		return op
	case StatusDegraded:
		return deg
	case StatusUnknown:
		return unk
	}
	return 0
}

func fmtMs(rt *float64) string {
	if rt == nil {
		return "latency unknown"
	}
	return strconv.FormatFloat(math.Round(*rt), 'f', -1, 64) + " ms"
}

func fmtContext(c *int64) string {
	switch {
	case c == nil:
		return "context unknown"
	case *c >= 1_000_000:
		return strconv.FormatFloat(math.Round(float64(*c)/1e4)/100, 'f', -1, 64) + "M context"
	case *c >= 1000:
		return strconv.FormatInt((*c+500)/1000, 10) + "k context"
	}
	return strconv.FormatInt(*c, 10) + " context"
}

func capNames(c seeds.ModelCapabilities) []string {
	var out []string
	if c.Vision {
		out = append(out, "vision")
	}
	if c.FunctionCalling {
		out = append(out, "function calling")
	}
	if c.JsonMode {
		out = append(out, "json mode")
	}
	return out
}

// PickQuery is a /pick request after defaults.
type PickQuery struct {
	Task       string
	Budget     *float64 // max input USD per 1M tokens
	MinContext *int64
	Needs      []string // vision, function_calling, json_mode
	Avoid      []string
	FreeOnly   bool
}

// PickEntry is one scored model.
type PickEntry struct {
	Provider, Model, Status string
	ResponseTimeMs          *float64
	InputPer1M              *float64
	Unit                    Unit
	UnitPrice               *float64
	Context                 *int64
	Caps                    seeds.ModelCapabilities
	Score                   float64
	Reason                  string
}

func hasCap(c seeds.ModelCapabilities, name string) bool {
	switch name {
	case "vision":
		return c.Vision
	case "function_calling":
		return c.FunctionCalling
	case "json_mode":
		return c.JsonMode
	}
	return false
}

// step is one constraint of Pick: param names it in the error, phrase in the list of constraints applied.
type step struct {
	param, phrase string
	ok            func(m *Model, l Live) bool
}

// pickFilters are Pick's constraints after the live status, in the order they apply: the candidates of a pick
// are the models that pass them all.
func pickFilters(q PickQuery) []step {
	var steps []step
	if len(q.Avoid) > 0 {
		steps = append(steps, step{"avoid", "outside " + strings.Join(q.Avoid, ", "), func(m *Model, _ Live) bool { return !slices.Contains(q.Avoid, m.Provider) }})
	}
	if q.FreeOnly {
		steps = append(steps, step{"free_only", "with a free tier", func(m *Model, _ Live) bool { return m.FreeTier }})
	}
	if len(q.Needs) > 0 {
		steps = append(steps, step{"needs", "with " + strings.Join(q.Needs, " and "), func(m *Model, _ Live) bool {
			for _, n := range q.Needs {
				if !hasCap(m.Caps, n) {
					return false
				}
			}
			return true
		}})
	}
	if q.MinContext != nil {
		steps = append(steps, step{"min_context", fmt.Sprintf("with context >= %d", *q.MinContext), func(m *Model, _ Live) bool {
			return m.Context != nil && *m.Context >= *q.MinContext
		}})
	}
	unit := unitOf(q.Task, seeds.PricingRates{})
	if q.Budget != nil {
		steps = append(steps, step{"budget", "at most " + unitPhrase(*q.Budget, unit), func(m *Model, _ Live) bool {
			return m.UnitPrice != nil && m.UnitPrice.USD <= *q.Budget
		}})
	}
	// Decisions stand on known prices: a model whose price for the task is unknown is no candidate.
	steps = append(steps, step{"price", "with a known price", func(m *Model, _ Live) bool { return m.UnitPrice != nil }})
	return steps
}

// Pick scores the task's priced models of providers not in outage that meet every constraint and returns the
// best, up to 2 runners-up and a note (NothingObserved, or that only second-choice models fit; "" otherwise).
// When nothing qualifies, the errs.NotFoundError names the constraints in the order they were applied, ending
// with the one that left no model.
//
// Score (0-100): status band (operational 70, degraded 35, unknown 0) + latency 8 × latencyScore + 7-day uptime
// 4 × uptimeScore + price 10 × priceScore (the task's unit; tokens blended 3 input : 1 output) + quality 5 ×
// the task's benchmark / 100 (llm and agent MMLU, code HumanEval; 0 when unknown or none) + context 1.5 ×
// min(1, tokens/1M) + 0.5 per capability held. Rounded to 0.01; ties by provider ID, then model ID.
func (ix *Index) Pick(q PickQuery, live Statuses) (PickEntry, []PickEntry, string, error) {
	if err := ix.checkProviders("avoid", q.Avoid); err != nil {
		return PickEntry{}, nil, "", err
	}
	field := ix.byPickPart[q.Task]
	if len(field) == 0 {
		return PickEntry{}, nil, "", notFoundErr("no %s model in the catalogs (task left none)", q.Task)
	}
	steps := append([]step{{"live status", "of a provider not in outage", func(_ *Model, l Live) bool { return l.Status != StatusOutage }}},
		pickFilters(q)...)
	// Generally available models first; preview, beta and deprecated ones only when no generally available
	// model passes every other step, and then the reason says so (a model its provider is retiring is no
	// first choice for new code).
	withGA := append(slices.Clone(steps), step{"stage", "generally available", func(m *Model, _ Live) bool { return !secondChoice(m.Stage) }})
	// One pass: passed[k] counts the models that pass the first k+1 steps, so that the error can name the step
	// that emptied the field; only the 3 best survivors are kept (scores are cheap, reasons are built for them).
	type cand struct {
		r     *ranked
		l     Live
		score float64
	}
	// The best provider part of this moment, over every provider's live status (one not listed is unknown).
	topProviderPart := pickProviderPart(Live{Status: StatusUnknown})
	for _, l := range live {
		if l.Status == "" {
			continue // unknown, as get says: counted above
		}
		topProviderPart = max(topProviderPart, pickProviderPart(l))
	}
	run := func(steps []step) (topK[cand], []int) {
		passed := make([]int, len(steps))
		best := topK[cand]{k: 3, cmp: func(a, b cand) int {
			return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.r.m.Provider, b.r.m.Provider), cmp.Compare(a.r.m.ID, b.r.m.ID))
		}}
		var l Live
		lastProvider, providerPart := "", 0.0
		for i := range field {
			r := &field[i]
			m := r.m
			// Once 3 are kept, a model whose score cannot reach the third is skipped before its steps, and
			// since field is sorted by pickPart, the scan ends at the first that could not even with the best
			// provider part of the moment (the scan dominated /pick). passed then undercounts, which only matters when
			// nothing is kept. pruneSlack covers the rounding of the score and the order of its sums.
			full := prune && len(best.items) == best.k
			if full && topProviderPart+r.part+pruneSlack < best.items[best.k-1].score {
				break
			}
			if m.Provider != lastProvider {
				l, lastProvider = live.get(m.Provider), m.Provider
				providerPart = pickProviderPart(l)
			}
			if full && providerPart+r.part+pruneSlack < best.items[best.k-1].score {
				continue
			}
			ok := true
			for k, s := range steps {
				if !s.ok(m, l) {
					ok = false
					break
				}
				passed[k]++
			}
			if ok {
				best.push(cand{r, l, round2(providerPart + r.part)})
			}
		}
		return best, passed
	}
	best, passed := run(withGA)
	preview := false
	if len(best.items) == 0 && passed[len(steps)-1] > 0 {
		best, passed = run(steps)
		preview = true
	}
	if len(best.items) == 0 {
		said := make([]string, 0, len(steps))
		for k, s := range steps {
			said = append(said, s.phrase)
			if passed[k] == 0 {
				return PickEntry{}, nil, "", notFoundErr("no %s model %s (%s left none)", q.Task, strings.Join(said, " "), s.param)
			}
		}
	}
	entries := make([]PickEntry, len(best.items))
	for i, c := range best.items {
		entries[i] = pickEntry(c.r, c.l, c.score)
		if preview {
			entries[i].Reason = c.r.m.Stage + " (no generally available model fits), " + entries[i].Reason
		}
	}
	note := ""
	switch {
	case live.noneObserved():
		note = NothingObserved
	case preview:
		note = "No generally available model fits: the candidates are preview, beta or deprecated models."
	}
	return entries[0], entries[1:], note, nil
}

// pickProviderPart (status, latency, uptime) and pickModelPart (price, quality, context, capabilities) add up
// to the pick score.
func pickProviderPart(l Live) float64 {
	if l.prepared {
		return l.pick
	}
	return statusPart(l.Status, bandOperational, bandDegraded, bandUnknown) + pickLatency*latencyScore(l) +
		pickUptime*uptimeScore(l.Uptime7d)
}

// scoredPrice is the price a score compares in the model's unit: for token prices the blend of 3 input to 1
// output tokens (the input price alone when the output price is unknown); nil when unknown.
func scoredPrice(m *Model) *float64 {
	if m.UnitPrice == nil {
		return nil
	}
	v := m.UnitPrice.USD
	if m.Unit == UnitTokens && m.Output != nil {
		v = (3*m.Input.USD + m.Output.USD) / 4
	}
	return &v
}

func pickModelPart(m *Model, task string) float64 {
	score := pickPrice * priceScore(scoredPrice(m), m.Unit)
	if b := qualityBenchmark[task]; b != "" {
		if v, ok := m.Scores[b]; ok {
			score += pickQuality * clamp01(v/100)
		}
	}
	if m.Context != nil {
		score += pickContext * math.Min(1, float64(*m.Context)/pickContextFull)
	}
	for _, has := range []bool{m.Caps.Vision, m.Caps.FunctionCalling, m.Caps.JsonMode} {
		if has {
			score += pickCapability
		}
	}
	return score
}

// prune turns the skipping of Pick on; the tests turn it off to compare with the full scan.
var prune = true

// pruneSlack is more than the rounding of a score to cents and any difference in the order of its sums.
const pruneSlack = 0.01

func pickEntry(r *ranked, l Live, score float64) PickEntry {
	m := r.m
	return PickEntry{Provider: m.Provider, Model: m.ID, Status: l.Status, ResponseTimeMs: l.ResponseTimeMs, Context: m.Context,
		Caps: m.Caps, InputPer1M: priceUSD(m.Input), Unit: m.Unit, UnitPrice: priceUSD(m.UnitPrice), Score: score,
		Reason: liveReason(l) + ", " + r.reason}
}

// liveReason is the provider's part of a pick reason: status, latency, 7-day uptime.
func liveReason(l Live) string {
	if l.prepared {
		return l.reason
	}
	return statusPhrase(l.Status) + ", " + fmtLatency(l) + ", " + fmtUptime(l.Uptime7d)
}

// pickModelReason is the model's part of a pick reason for task: price, the task's benchmark, context window,
// capabilities.
func pickModelReason(m *Model, task string) string {
	var parts []string
	if m.UnitPrice != nil {
		parts = append(parts, unitPhrase(m.UnitPrice.USD, m.Unit))
	} else {
		parts = append(parts, "price unknown")
	}
	if b := qualityBenchmark[task]; b != "" {
		if v, ok := m.Scores[b]; ok {
			parts = append(parts, b+" "+strconv.FormatFloat(v, 'f', -1, 64))
		}
	}
	parts = append(parts, fmtContext(m.Context))
	switch caps := capNames(m.Caps); {
	case !m.HasCaps:
		parts = append(parts, "capabilities unknown")
	case len(caps) == 0:
		parts = append(parts, "no vision, function calling or json mode")
	default:
		parts = append(parts, "has "+strings.Join(caps, ", "))
	}
	return strings.Join(parts, ", ")
}

// FailoverQuery is a /failover request after defaults.
type FailoverQuery struct {
	Primary string
	Task    string // "" for any task
	Limit   int
	MaxCost *float64 // max lowest input USD per 1M tokens
}

// FailoverEntry is one alternative provider.
type FailoverEntry struct {
	Provider, Status string
	ResponseTimeMs   *float64
	InputPer1M       *float64 // lowest input price of the provider's matching models
	Score            float64
	Reason           string
	Domain           FailureDomain
}

// lowestInput is the lowest known input price of the provider's models of task ("" any task); nil when none.
func (ix *Index) lowestInput(provider, task string) *float64 {
	if p := ix.offers[provider][task].lowestInput; p != nil {
		v := *p
		return &v
	}
	return nil
}

// cheapestOffer is the provider's model with the lowest scored price (scoredPrice) among its priced candidate
// models of task (every token-priced model when task is ""), and that price; nil when it has none.
func (ix *Index) cheapestOffer(provider, task string) (*Model, *float64) {
	o, ok := ix.offers[provider][task]
	if !ok {
		return nil, nil
	}
	return o.cheapest, &o.price
}

// pricedModels counts the provider's priced candidate models of the task.
func (ix *Index) pricedModels(provider, task string) int { return ix.offers[provider][task].priced }

// Failover ranks the providers other than the primary that are not in outage, serve the task (a registry
// category or a catalogued model of it) and, with MaxCost, have a matching model priced at most that per 1M
// input tokens. The note is NothingObserved while no provider is observed.
//
// Score (0-100): status band (operational 70, degraded 35, unknown 0) + latency 10 × latencyScore + 7-day
// uptime 8 × uptimeScore + task capability 7 (with a task: 7 when the provider prices models of it, 3.5 when it
// only lists the task; without: 7 × tasks served / 8) + price 5 × priceScore of its cheapest offer for the task.
// Rounded to 0.01. Candidates that share no failure domain with the primary (domains.go) come first, then those
// that share one; each group by score descending, ties by provider ID.
func (ix *Index) Failover(q FailoverQuery, live Statuses) ([]FailoverEntry, string, error) {
	if err := ix.checkProviders("primary", []string{q.Primary}); err != nil {
		return nil, "", err
	}
	// Every provider is scored; reasons, the costly part, are written for the kept entries only.
	type cand struct {
		id    string
		l     Live
		low   *float64
		score float64
		dom   FailureDomain
	}
	var cands []cand
	for _, p := range ix.reg.All() {
		l := live.get(p.ID)
		if p.ID == q.Primary || l.Status == StatusOutage || (q.Task != "" && !ix.serves[p.ID][q.Task]) {
			continue
		}
		low := ix.lowestInput(p.ID, q.Task)
		if q.MaxCost != nil && (low == nil || *low > *q.MaxCost) {
			continue
		}
		score := statusPart(l.Status, bandOperational, bandDegraded, bandUnknown) + failoverLatency*latencyScore(l) +
			failoverUptime*uptimeScore(l.Uptime7d)
		switch {
		case q.Task == "":
			score += failoverCapability * math.Min(1, float64(len(ix.serves[p.ID]))/8)
		case ix.pricedModels(p.ID, q.Task) > 0:
			score += failoverCapability
		default:
			score += failoverCapability / 2
		}
		if m, offer := ix.cheapestOffer(p.ID, q.Task); m != nil {
			score += failoverPrice * priceScore(offer, m.Unit)
		}
		cands = append(cands, cand{p.ID, l, low, round2(score), ix.failureDomain(q.Primary, p.ID, q.Task)})
	}
	slices.SortFunc(cands, func(a, b cand) int {
		return cmp.Or(compareBool(!a.dom.independent(), !b.dom.independent()), cmp.Compare(b.score, a.score), cmp.Compare(a.id, b.id))
	})
	cands = cands[:min(q.Limit, len(cands))]
	out := make([]FailoverEntry, len(cands))
	for i, c := range cands {
		parts := []string{statusPhrase(c.l.Status), fmtLatency(c.l), fmtUptime(c.l.Uptime7d)}
		switch n := ix.pricedModels(c.id, q.Task); {
		case q.Task == "":
			parts = append(parts, fmt.Sprintf("serves %d of 8 tasks", len(ix.serves[c.id])))
		case n > 0:
			parts = append(parts, fmt.Sprintf("serves %s (%d priced models)", q.Task, n))
		default:
			parts = append(parts, fmt.Sprintf("serves %s (no priced model)", q.Task))
		}
		if m, _ := ix.cheapestOffer(c.id, q.Task); m != nil {
			parts = append(parts, "from "+unitPhrase(m.UnitPrice.USD, m.Unit))
		} else {
			parts = append(parts, "price unknown")
		}
		if len(c.dom.Shared) > 0 {
			parts = append(parts, "shares the "+strings.Join(c.dom.Shared, ", ")+" model family with "+q.Primary+" (ranked after independent providers)")
		} else {
			parts = append(parts, "no model family shared with "+q.Primary)
		}
		out[i] = FailoverEntry{Provider: c.id, Status: c.l.Status, ResponseTimeMs: c.l.ResponseTimeMs, InputPer1M: c.low,
			Score: c.score, Reason: strings.Join(parts, ", "), Domain: c.dom}
	}
	note := ""
	if live.noneObserved() {
		note = NothingObserved
	}
	return out, note, nil
}

// RecommendQuery is a /recommend request after defaults.
type RecommendQuery struct {
	Task     string // "" for any task
	Avoid    []string
	Limit    int
	FreeOnly bool
}

// RecommendEntry is one recommended provider.
type RecommendEntry struct {
	Provider, Name, Status string
	ResponseTimeMs         *float64
	Score                  float64
	Reason                 string
}

// Recommend ranks the operational providers (serving the task, outside Avoid, with a free tier when FreeOnly);
// while no provider is observed, every provider of unknown status, with the note NothingObserved.
//
// Score (0-100): latency 35 × latencyScore + 7-day uptime 25 × uptimeScore + 20 with a free tier + price 20 ×
// priceScore of the provider's cheapest offer for the task. Rounded to 0.01; ties by provider ID.
func (ix *Index) Recommend(q RecommendQuery, live Statuses) ([]RecommendEntry, string, error) {
	if err := ix.checkProviders("avoid", q.Avoid); err != nil {
		return nil, "", err
	}
	want, note := StatusOperational, ""
	if live.noneObserved() {
		want, note = StatusUnknown, NothingObserved
	}
	type cand struct {
		p     seeds.Provider
		l     Live
		free  bool
		score float64
	}
	var cands []cand
	for _, p := range ix.reg.All() {
		l := live.get(p.ID)
		free := ix.freeTier[p.ID]
		if l.Status != want || slices.Contains(q.Avoid, p.ID) || (q.Task != "" && !ix.serves[p.ID][q.Task]) || (q.FreeOnly && !free) {
			continue
		}
		score := recommendLatency*latencyScore(l) + recommendUptime*uptimeScore(l.Uptime7d)
		if free {
			score += recommendFreeTier
		}
		if m, offer := ix.cheapestOffer(p.ID, q.Task); m != nil {
			score += recommendPrice * priceScore(offer, m.Unit)
		}
		cands = append(cands, cand{p, l, free, round2(score)})
	}
	slices.SortFunc(cands, func(a, b cand) int { return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.p.ID, b.p.ID)) })
	cands = cands[:min(q.Limit, len(cands))]
	out := make([]RecommendEntry, len(cands))
	for i, c := range cands {
		parts := []string{statusPhrase(c.l.Status), fmtLatency(c.l), fmtUptime(c.l.Uptime7d), "no free tier"}
		if c.free {
			parts[3] = "free tier"
		}
		if m, _ := ix.cheapestOffer(c.p.ID, q.Task); m != nil {
			parts = append(parts, "from "+unitPhrase(m.UnitPrice.USD, m.Unit))
		} else {
			parts = append(parts, "price unknown")
		}
		out[i] = RecommendEntry{Provider: c.p.ID, Name: c.p.Name, Status: c.l.Status, ResponseTimeMs: c.l.ResponseTimeMs,
			Score: c.score, Reason: strings.Join(parts, ", ")}
	}
	return out, note, nil
}

// secondChoice reports whether a lifecycle stage is a preview, a beta or a deprecation ahead of its shutdown
// (experimental and sunset models are never indexed).
func secondChoice(stage string) bool {
	switch stage {
	case "preview", "beta", "soft_deprecated", "hard_deprecated":
		return true
	}
	return false
}

// compareBool orders false before true.
func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}
