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
	// latencyCeilingMs is the poll response time at which the latency part of a score reaches 0.
	latencyCeilingMs = 3000.0

	// The status bands are wider than the sum of the other parts, so a degraded provider always ranks below an
	// operational one and an unknown below a degraded one: pick's other parts add up to 32, failover's to 30.
	pickOperational, pickDegraded, pickUnknown = 68.0, 35.0, 2.0
	pickLatency, pickPrice, pickContext        = 13.0, 13.0, 3.0
	pickCapability                             = 1.0 // per capability held, 3 at most
	pickContextFull                            = 1_000_000.0

	failoverOperational, failoverDegraded, failoverUnknown = 70.0, 35.0, 0.0
	failoverLatency, failoverCapability                    = 20.0, 10.0

	recommendOperational, recommendLatency, recommendFreeTier = 50.0, 30.0, 20.0
)

// latencyPart is weight × (1 - rt/3000), at least 0; 0 when the time is unknown.
func latencyPart(rt *float64, weight float64) float64 {
	if rt == nil {
		return 0
	}
	return weight * math.Max(0, 1-*rt/latencyCeilingMs)
}

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

// Pick scores the task's models of providers not in outage that meet every constraint and returns the best and
// up to 2 runners-up. When nothing qualifies, the errs.NotFoundError names the constraints in the order they were
// applied, ending with the one that left no model.
//
// Score (0-100): status (operational 68, degraded 35, unknown 2) + latency 13 × (1 - ms/3000, at least 0; 0 when
// unknown) + price 13 / (1 + input USD per 1M; 0 when unknown) + context 3 × min(1, tokens/1M; 0 when unknown) +
// 1 per capability held (vision, function calling, JSON mode). Rounded to 0.01; ties by provider ID, then model ID.
func (ix *Index) Pick(q PickQuery, live Statuses) (PickEntry, []PickEntry, error) {
	if err := ix.checkProviders("avoid", q.Avoid); err != nil {
		return PickEntry{}, nil, err
	}
	field := ix.byPickPart[q.Task]
	if len(field) == 0 {
		return PickEntry{}, nil, notFoundErr("no %s model in the catalogs (task left none)", q.Task)
	}
	type step struct {
		param, phrase string
		ok            func(m *Model, l Live) bool
	}
	steps := []step{{"live status", "of a provider not in outage", func(_ *Model, l Live) bool { return l.Status != StatusOutage }}}
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
	if q.Budget != nil {
		steps = append(steps, step{"budget", fmt.Sprintf("at most %s/1M input", fmtUSD(*q.Budget)), func(m *Model, _ Live) bool {
			return m.Input != nil && m.Input.USD <= *q.Budget
		}})
	}
	// Decisions stand on known prices: a token-priced model whose input price is unknown is no candidate.
	if tokenPricedTask(q.Task) {
		steps = append(steps, step{"price", "with a known input price", func(m *Model, _ Live) bool { return m.Input != nil }})
	}
	// Generally available models first; preview, beta and deprecated ones only when no generally available
	// model passes every other step, and then the reason says so (a model its provider is retiring is no
	// first choice for new code).
	withGA := append(slices.Clone(steps), step{"stage", "generally available", func(m *Model, _ Live) bool { return !secondChoice(m.Stage) }})
	// One pass: passed[k] counts the models that pass the first k+1 steps, so that the error can name the step
	// that emptied the field; only the 3 best survivors are kept (scores are cheap, reasons are built for them).
	type cand struct {
		m     *Model
		l     Live
		score float64
	}
	// The best provider part of this moment, over every provider's live status (one not listed is unknown).
	topProviderPart := pickProviderPart(Live{Status: StatusUnknown})
	for id := range live {
		topProviderPart = max(topProviderPart, pickProviderPart(live.get(id)))
	}
	run := func(steps []step) (topK[cand], []int) {
		passed := make([]int, len(steps))
		best := topK[cand]{k: 3, cmp: func(a, b cand) int {
			return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.m.Provider, b.m.Provider), cmp.Compare(a.m.ID, b.m.ID))
		}}
		var l Live
		lastProvider, providerPart := "", 0.0
		for _, m := range field {
			// Once 3 are kept, a model whose score cannot reach the third is skipped before its steps, and
			// since field is sorted by pickPart, the scan ends at the first that could not even with the best
			// provider part of the moment (the scan dominated /pick). passed then undercounts, which only matters when
			// nothing is kept. pruneSlack covers the rounding of the score and the order of its sums.
			full := prune && len(best.items) == best.k
			if full && topProviderPart+m.pickPart+pruneSlack < best.items[best.k-1].score {
				break
			}
			if m.Provider != lastProvider {
				l, lastProvider = live.get(m.Provider), m.Provider
				providerPart = pickProviderPart(l)
			}
			if full && providerPart+m.pickPart+pruneSlack < best.items[best.k-1].score {
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
				best.push(cand{m, l, pickScore(m, l)})
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
				return PickEntry{}, nil, notFoundErr("no %s model %s (%s left none)", q.Task, strings.Join(said, " "), s.param)
			}
		}
	}
	entries := make([]PickEntry, len(best.items))
	for i, c := range best.items {
		entries[i] = pickEntry(c.m, c.l, c.score)
		if preview {
			entries[i].Reason = c.m.Stage + " (no generally available model fits), " + entries[i].Reason
		}
	}
	return entries[0], entries[1:], nil
}

// pickProviderPart (status, latency) and pickModelPart (price, context, capabilities) add up to the pick score.
func pickProviderPart(l Live) float64 {
	return statusPart(l.Status, pickOperational, pickDegraded, pickUnknown) + latencyPart(l.ResponseTimeMs, pickLatency)
}

func pickModelPart(m *Model) float64 {
	var score float64
	if m.Input != nil {
		score += pickPrice / (1 + m.Input.USD)
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

// pickScore is the score rule of Pick, rounded to cents.
func pickScore(m *Model, l Live) float64 {
	return round2(pickProviderPart(l) + pickModelPart(m))
}

func pickEntry(m *Model, l Live, score float64) PickEntry {
	e := PickEntry{Provider: m.Provider, Model: m.ID, Status: l.Status, ResponseTimeMs: l.ResponseTimeMs, Context: m.Context,
		Caps: m.Caps, InputPer1M: priceUSD(m.Input), Score: score}
	parts := []string{l.Status, fmtMs(l.ResponseTimeMs)}
	if m.Input != nil {
		parts = append(parts, fmtUSD(m.Input.USD)+"/1M input")
	} else {
		parts = append(parts, "input price unknown")
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
	e.Reason = strings.Join(parts, ", ")
	return e
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
}

// lowestInput is the lowest known input price of the provider's models of task ("" any task); nil when none.
func (ix *Index) lowestInput(provider, task string) *float64 {
	var best *float64
	for _, m := range ix.byProvider[provider] {
		if m.Input == nil || (task != "" && m.Task != task) {
			continue
		}
		if best == nil || m.Input.USD < *best {
			v := m.Input.USD
			best = &v
		}
	}
	return best
}

// Failover ranks the providers other than the primary that are not in outage, serve the task (a registry
// category or a catalogued model of it) and, with MaxCost, have a matching model priced at most that.
//
// Score (0-100): status (operational 70, degraded 35, unknown 0) + latency 20 × (1 - ms/3000, at least 0; 0 when
// unknown) + task capability 10 (with a task: 10 when the provider has catalogued models of it, 5 when the task
// is only among its registry categories; without a task: 10 × tasks served / 8). Rounded to 0.01; ties by
// provider ID.
func (ix *Index) Failover(q FailoverQuery, live Statuses) ([]FailoverEntry, error) {
	if err := ix.checkProviders("primary", []string{q.Primary}); err != nil {
		return nil, err
	}
	var out []FailoverEntry
	for _, p := range ix.reg.All() {
		l := live.get(p.ID)
		if p.ID == q.Primary || l.Status == StatusOutage || (q.Task != "" && !ix.serves[p.ID][q.Task]) {
			continue
		}
		low := ix.lowestInput(p.ID, q.Task)
		if q.MaxCost != nil && (low == nil || *low > *q.MaxCost) {
			continue
		}
		score := statusPart(l.Status, failoverOperational, failoverDegraded, failoverUnknown) + latencyPart(l.ResponseTimeMs, failoverLatency)
		parts := []string{l.Status, fmtMs(l.ResponseTimeMs)}
		if q.Task != "" {
			if n := ix.catalogTasks[p.ID][q.Task]; n > 0 {
				score += failoverCapability
				parts = append(parts, fmt.Sprintf("serves %s (%d catalogued models)", q.Task, n))
			} else {
				score += failoverCapability / 2
				parts = append(parts, fmt.Sprintf("serves %s (no catalogued model)", q.Task))
			}
		} else {
			n := len(ix.serves[p.ID])
			score += failoverCapability * math.Min(1, float64(n)/8)
			parts = append(parts, fmt.Sprintf("serves %d of 8 tasks", n))
		}
		if low != nil {
			parts = append(parts, "from "+fmtUSD(*low)+"/1M input")
		} else {
			parts = append(parts, "input price unknown")
		}
		out = append(out, FailoverEntry{Provider: p.ID, Status: l.Status, ResponseTimeMs: l.ResponseTimeMs, InputPer1M: low,
			Score: round2(score), Reason: strings.Join(parts, ", ")})
	}
	slices.SortFunc(out, func(a, b FailoverEntry) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.Provider, b.Provider))
	})
	return out[:min(q.Limit, len(out))], nil
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

// Recommend ranks the operational providers (serving the task, outside Avoid, with a free tier when FreeOnly).
//
// Score (0-100): status 50 (operational; the others do not qualify) + latency 30 × (1 - ms/3000, at least 0; 0
// when unknown) + 20 with a free tier. Rounded to 0.01; ties by provider ID.
func (ix *Index) Recommend(q RecommendQuery, live Statuses) ([]RecommendEntry, error) {
	if err := ix.checkProviders("avoid", q.Avoid); err != nil {
		return nil, err
	}
	var out []RecommendEntry
	for _, p := range ix.reg.All() {
		l := live.get(p.ID)
		free := ix.freeTier[p.ID]
		if l.Status != StatusOperational || slices.Contains(q.Avoid, p.ID) || (q.Task != "" && !ix.serves[p.ID][q.Task]) || (q.FreeOnly && !free) {
			continue
		}
		score := recommendOperational + latencyPart(l.ResponseTimeMs, recommendLatency)
		parts := []string{l.Status, fmtMs(l.ResponseTimeMs)}
		if free {
			score += recommendFreeTier
			parts = append(parts, "free tier")
		} else {
			parts = append(parts, "no free tier")
		}
		out = append(out, RecommendEntry{Provider: p.ID, Name: p.Name, Status: l.Status, ResponseTimeMs: l.ResponseTimeMs,
			Score: round2(score), Reason: strings.Join(parts, ", ")})
	}
	slices.SortFunc(out, func(a, b RecommendEntry) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.Provider, b.Provider))
	})
	return out[:min(q.Limit, len(out))], nil
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

// tokenPricedTask reports whether a task's models are priced per token, so that "a known price" is the input price.
func tokenPricedTask(task string) bool { return task == "llm" || task == "code" || task == "embedding" }
