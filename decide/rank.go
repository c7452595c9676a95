package decide

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/switchboard/switchboard/seeds"
)

// Scoring weights. The OpenAPI descriptions of getPick, getFailover and getRecommend and docs/decisions.md
// ("Scoring") state the same rules; keep them in step.
const (
	// The status bands are wider than the sum of the other parts (30), so a degraded provider always ranks below
	// an operational one and one of unknown status below every observed one.
	bandOperational, bandDegraded, bandUnknown = 70.0, 35.0, 0.0

	failoverQuality, failoverLatency, failoverUptime, failoverPrice = 14.0, 6.0, 5.0, 5.0

	recommendQuality, recommendLatency, recommendUptime, recommendFreeTier, recommendPrice = 30.0, 25.0, 15.0, 15.0, 15.0

	// costQualityFloor is the least quality (0..1) prefer=cost takes without min_quality: a balanced tier or an
	// average current result.
	costQualityFloor = 0.45
)

// weights are a pick's weights beyond the status band; they add up to 30.
type weights struct{ quality, price, latency, uptime, context, caps float64 }

// pickWeights per `prefer`: quality first (a 0.1 quality gap is worth 2.2 points, a 2x price at most 0.3);
// balanced, quality per dollar (a tenfold price costs about what 0.3 of quality gains); cost, price first among
// models above the quality floor.
var pickWeights = map[string]weights{
	PreferQuality:  {quality: 22, price: 3, latency: 2, uptime: 2, context: 0.5, caps: 0.5},
	PreferBalanced: {quality: 13, price: 13, latency: 2, uptime: 1.5, context: 0.25, caps: 0.25},
	PreferCost:     {quality: 4, price: 22, latency: 2, uptime: 1.5, context: 0.25, caps: 0.25},
}

// The values of `prefer`.
const (
	PreferQuality  = "quality"
	PreferBalanced = "balanced"
	PreferCost     = "cost"
)

func pickKey(task, prefer string) string { return task + "|" + prefer }

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

// stated is a capability the catalogs state the model has: unknown (nil) counts as not had, so a need is met only
// by a stated capability.
func stated(b *bool) bool { return b != nil && *b }

// capsKnown reports whether the catalogs state any of the model's capabilities, had or not.
func capsKnown(c seeds.ModelCapabilities) bool {
	return c.Vision != nil || c.FunctionCalling != nil || c.JsonMode != nil
}

func capNames(c seeds.ModelCapabilities) []string {
	var out []string
	if stated(c.Vision) {
		out = append(out, "vision")
	}
	if stated(c.FunctionCalling) {
		out = append(out, "function calling")
	}
	if stated(c.JsonMode) {
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
	// Prefer is PreferQuality ("" too), PreferBalanced or PreferCost; MinQuality (0-100) keeps models whose
	// quality for the task is known and at least that (prefer=cost: costQualityFloor when nil).
	Prefer     string
	MinQuality *float64
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
	Quality                 *float64 // 0-100, nil when unknown
	Score                   float64
	Reason                  string
}

func hasCap(c seeds.ModelCapabilities, name string) bool {
	switch name {
	case "vision":
		return stated(c.Vision)
	case "function_calling":
		return stated(c.FunctionCalling)
	case "json_mode":
		return stated(c.JsonMode)
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
	floor := q.MinQuality
	if floor == nil && q.Prefer == PreferCost {
		v := costQualityFloor * 100
		floor = &v
	}
	if floor != nil {
		min := *floor / 100
		steps = append(steps, step{"min_quality", "with quality >= " + strconv.FormatFloat(*floor, 'f', -1, 64), func(m *Model, _ Live) bool {
			qu := m.Quality[q.Task]
			return qu.Known && qu.Value >= min-1e-9
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
// Score (0-100): status band (operational 70, degraded 35, unknown 0) + the weights of q.Prefer (pickWeights)
// applied to quality (quality.go), priceScore (the task's unit; tokens blended 3 input : 1 output),
// latencyScore, uptimeScore, contextScore and the capabilities held. Rounded to 0.01; ties by provider ID, then
// model ID.
func (ix *Index) Pick(q PickQuery, live Statuses) (PickEntry, []PickEntry, string, error) {
	if err := ix.checkProviders("avoid", q.Avoid); err != nil {
		return PickEntry{}, nil, "", err
	}
	prefer := cmp.Or(q.Prefer, PreferQuality)
	w, ok := pickWeights[prefer]
	if !ok {
		return PickEntry{}, nil, "", inputErr("parameter prefer: must be quality, balanced or cost")
	}
	field := ix.byPickPart[pickKey(q.Task, prefer)]
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
	topProviderPart := pickProviderPart(Live{Status: StatusUnknown}, w)
	for _, l := range live {
		if l.Status == "" {
			continue // unknown, as get says: counted above
		}
		topProviderPart = max(topProviderPart, pickProviderPart(l, w))
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
				providerPart = pickProviderPart(l, w)
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
		entries[i] = pickEntry(c.r, c.l, c.score, q.Task)
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

// pickProviderPart (status, latency, uptime) and pickModelPart (quality, price, context, capabilities) add up
// to the pick score.
func pickProviderPart(l Live, w weights) float64 {
	lat, up := l.latency, l.uptime
	if !l.prepared {
		lat, up = latencyScore(l), uptimeScore(l.Uptime7d)
	}
	return statusPart(l.Status, bandOperational, bandDegraded, bandUnknown) + w.latency*lat + w.uptime*up
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

func pickModelPart(m *Model, task string, w weights) float64 {
	score := w.price * priceScore(scoredPrice(m), m.Unit)
	if qu := m.Quality[task]; qu.Known {
		score += w.quality * qu.Value
	}
	score += w.context * contextScore(m.Context)
	for _, has := range []bool{stated(m.Caps.Vision), stated(m.Caps.FunctionCalling), stated(m.Caps.JsonMode)} {
		if has {
			score += w.caps / 3
		}
	}
	return score
}

// prune turns the skipping of Pick on; the tests turn it off to compare with the full scan.
var prune = true

// pruneSlack is more than the rounding of a score to cents and any difference in the order of its sums.
const pruneSlack = 0.01

func pickEntry(r *ranked, l Live, score float64, task string) PickEntry {
	m := r.m
	return PickEntry{Provider: m.Provider, Model: m.ID, Status: l.Status, ResponseTimeMs: l.ResponseTimeMs, Context: m.Context,
		Caps: m.Caps, InputPer1M: priceUSD(m.Input), Unit: m.Unit, UnitPrice: priceUSD(m.UnitPrice), Quality: m.Quality[task].Pct(),
		Score: score, Reason: liveReason(l) + ", " + r.reason}
}

// liveReason is the provider's part of a pick reason: status, latency, 7-day uptime.
func liveReason(l Live) string {
	if l.prepared {
		return l.reason
	}
	return statusPhrase(l.Status) + ", " + fmtLatency(l) + ", " + fmtUptime(l.Uptime7d)
}

// pickModelReason is the model's part of a pick reason for task: quality and the evidence behind it, price,
// context window, capabilities.
func pickModelReason(m *Model, task string) string {
	parts := []string{m.Quality[task].phrase()}
	if m.UnitPrice != nil {
		parts = append(parts, unitPhrase(m.UnitPrice.USD, m.Unit))
	} else {
		parts = append(parts, "price unknown")
	}
	parts = append(parts, fmtContext(m.Context))
	switch caps := capNames(m.Caps); {
	case !m.HasCaps || !capsKnown(m.Caps):
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
	Task    string // "" for the model's task, else ExportTask
	Limit   int
	MaxCost *float64 // max input USD per 1M tokens of the offered model
	// Model is the caller's model at the primary; "" for the primary's flagship of the task (its best quality).
	Model string
	// Scope is ScopeProvider ("" too: the primary is failing) or ScopeModel (the model is withdrawn everywhere).
	Scope string
}

// The values of `scope`.
const (
	ScopeProvider = "provider"
	ScopeModel    = "model"
)

// FailoverEntry is one alternative: a provider and the model to call there.
type FailoverEntry struct {
	Provider, Model, Status string
	ResponseTimeMs          *float64
	InputPer1M, OutputPer1M *float64 // the offered model's prices per 1M tokens
	Unit                    Unit
	UnitPrice               *float64
	Quality                 *float64 // 0-100, nil when unknown
	Score                   float64
	Reason                  string
	Domain                  FailureDomain
	class                   int
}

// FailoverReference is the model a failover is about and its task: q.Model at the primary (which may be shut
// down already, when the deprecations know it), else the primary's best-quality candidate of the task (nil when
// it has none). The note names the shutdown day and replacement when the model's provider announced one.
func (ix *Index) FailoverReference(q FailoverQuery) (ref *Model, task, note string, err error) {
	if err := ix.checkProviders("primary", []string{q.Primary}); err != nil {
		return nil, "", "", err
	}
	switch q.Scope {
	case "", ScopeProvider, ScopeModel:
	default:
		return nil, "", "", inputErr("parameter scope: must be provider or model")
	}
	task = q.Task
	if q.Model != "" {
		for _, m := range ix.byProvider[q.Primary] {
			if m.ID == q.Model {
				ref = m
				break
			}
		}
		if ref == nil {
			if _, _, ok := ix.Retirement(q.Primary, q.Model); !ok {
				return nil, "", "", notFoundErr("parameter model: %q is not a model of %s in the catalogs", q.Model, q.Primary)
			}
			// Shut down already: its name still says its family and its tier.
			ref = &Model{Provider: q.Primary, ID: q.Model, Canon: canonicalModel(q.Model), Family: ModelFamily(q.Model),
				Tier: ix.quality.tiers[canonicalModel(q.Model)]}
		}
		if task == "" {
			task = ref.Task
		}
		if day, repl, ok := ix.Retirement(q.Primary, q.Model); ok {
			verb := "shuts down on "
			if ix.today != "" && day <= ix.today {
				verb = "was shut down on "
			}
			note = q.Model + " at " + q.Primary + " " + verb + day + "; "
			if repl != "" {
				note += "its provider names " + repl + " as the replacement."
			} else {
				note += "its provider names no replacement."
			}
		}
	}
	if task == "" {
		task = ix.mainTask(q.Primary)
	}
	if ref == nil {
		// The provider's flagship (its own lineup tier) is the model a caller of the provider stands for; a model
		// outside the lineup (a Pro variant at six times the price, say) is the reference only where the provider
		// names no flagship for the task.
		best, bestFlagship := -1.0, -1.0
		var flagship *Model
		for _, m := range ix.byProvider[q.Primary] {
			if m.UnitPrice == nil || !slices.Contains(m.Tasks, task) || secondChoice(m.Stage) {
				continue
			}
			v := pickModelPart(m, task, pickWeights[PreferQuality])
			if v > best {
				ref, best = m, v
			}
			if m.Tier == "flagship" && v > bestFlagship {
				flagship, bestFlagship = m, v
			}
		}
		if flagship != nil {
			ref = flagship
		}
	}
	return ref, task, note, nil
}

// mainTask is the task a failover without task or model is about: ExportTask when the provider has catalogued
// models of it, else the task of most of its models (ties by name), else ExportTask.
func (ix *Index) mainTask(provider string) string {
	if ix.catalogTasks[provider][ExportTask] > 0 {
		return ExportTask
	}
	best, n := ExportTask, 0
	for t, c := range ix.catalogTasks[provider] {
		if c > n || (c == n && t < best) {
			best, n = t, c
		}
	}
	return best
}

// Failover ranks, for a failing primary, one model per other provider not in outage: the model to call there
// instead of the reference model (FailoverReference). Each provider offers its best model by (class, score):
//
// scope=provider (the primary's infrastructure is failing): class 0 the same model (canonicalModel) on
// infrastructure independent of the primary; class 1 the same family and lineup tier; class 2 the primary's
// family on a host that may run it on the primary's infrastructure (operatorHosts: Claude on Microsoft Foundry
// when Anthropic fails); class 3 any other model of comparable quality (at least comparableShare of the reference's,
// or any where the reference's quality is unknown); class 4 any other model (lower or unknown quality); class 5 a
// model that reaches the primary's infrastructure through the candidate (an aggregator, or a reseller of a
// closed-weight family the primary hosts: routesToPrimary).
// scope=model (the model is withdrawn everywhere): the model itself is no candidate; class 0 other families,
// class 1 the same family (which shares the withdrawal's cause).
//
// Score (0-100): status band (operational 70, degraded 35, unknown 0) + quality 14 × Q + latency 6 × L +
// 7-day uptime 5 × U + price 5 × P of the model. Rounded to 0.01. Ordered by class, then score descending, then
// provider ID. The note is the reference's shutdown, and NothingObserved while no provider is observed.
func (ix *Index) Failover(q FailoverQuery, live Statuses) ([]FailoverEntry, string, error) {
	ref, task, note, err := ix.FailoverReference(q)
	if err != nil {
		return nil, "", err
	}
	best := map[string]FailoverEntry{}
	for _, m := range ix.byTask[task] {
		if m.Provider == q.Primary || m.UnitPrice == nil {
			continue
		}
		if q.MaxCost != nil && (m.Input == nil || m.Input.USD > *q.MaxCost) {
			continue
		}
		if q.Scope == ScopeModel && ref != nil && m.Canon == ref.Canon {
			continue // withdrawn everywhere
		}
		l := live.get(m.Provider)
		if l.Status == StatusOutage {
			continue
		}
		e := ix.failoverEntry(q, ref, task, m, l)
		if have, ok := best[m.Provider]; !ok || cmp.Or(cmp.Compare(e.class, have.class), cmp.Compare(have.Score, e.Score), cmp.Compare(e.Model, have.Model)) < 0 {
			best[m.Provider] = e
		}
	}
	chain := slices.Collect(maps.Values(best))
	slices.SortFunc(chain, func(a, b FailoverEntry) int {
		return cmp.Or(cmp.Compare(a.class, b.class), cmp.Compare(b.Score, a.Score), cmp.Compare(a.Provider, b.Provider))
	})
	chain = chain[:min(q.Limit, len(chain))]
	for i := range chain {
		chain[i].Reason = ix.failoverReason(q, ref, task, chain[i], live.get(chain[i].Provider))
	}
	if live.noneObserved() {
		note = strings.TrimSpace(note + " " + NothingObserved)
	}
	return chain, note, nil
}

// failoverEntry scores m as the primary's backup; the reason is written for the kept entries only.
func (ix *Index) failoverEntry(q FailoverQuery, ref *Model, task string, m *Model, l Live) FailoverEntry {
	qu := m.Quality[task]
	score := statusPart(l.Status, bandOperational, bandDegraded, bandUnknown) + failoverLatency*latencyScore(l) +
		failoverUptime*uptimeScore(l.Uptime7d) + failoverPrice*priceScore(scoredPrice(m), m.Unit)
	if qu.Known {
		score += failoverQuality * qu.Value
	}
	routes := ix.routesToPrimary(q.Primary, m)
	mayShare := !routes && mayShareOperator(q.Primary, m)
	sameFamily := ref != nil && m.Family != "" && m.Family == ref.Family
	class := 3
	switch {
	case q.Scope == ScopeModel && (sameFamily || routes):
		class = 1
	case q.Scope == ScopeModel:
		class = 0
	case routes:
		class = 5
	case mayShare:
		class = 2
	case ref != nil && m.Canon == ref.Canon:
		class = 0
	case sameFamily && m.Tier != "" && m.Tier == ref.Tier:
		class = 1
	case !comparable(ref, task, qu):
		// A free model far below the reference would otherwise lead on price alone.
		class = 4
	}
	d := FailureDomain{Families: []string{}, Shared: []string{}, Shares: []string{}, Aggregator: aggregators[m.Provider]}
	if m.Family != "" {
		d.Families = []string{m.Family}
		if slices.Contains(ix.families[q.Primary][""], m.Family) {
			d.Shared = []string{m.Family}
		}
	}
	if routes {
		d.Shares = append(d.Shares, ShareInfrastructure)
	}
	if mayShare {
		d.Shares = append(d.Shares, ShareMayInfrastructure)
	}
	if sameFamily {
		d.Shares = append(d.Shares, ShareModelFamily)
	}
	return FailoverEntry{Provider: m.Provider, Model: m.ID, Status: l.Status, ResponseTimeMs: l.ResponseTimeMs,
		InputPer1M: priceUSD(m.Input), OutputPer1M: priceUSD(m.Output), Unit: m.Unit, UnitPrice: priceUSD(m.UnitPrice),
		Quality: qu.Pct(), Score: round2(score), Domain: d, class: class}
}

// comparableShare is the share of the reference model's quality a backup of another model must reach to rank
// with the comparable ones.
const comparableShare = 0.8

// comparable reports whether a backup of quality qu stands in for ref on task: its quality is known and at least
// comparableShare of the reference's, or the reference's quality is unknown (nothing to compare with).
func comparable(ref *Model, task string, qu QualityOf) bool {
	if ref == nil || !ref.Quality[task].Known {
		return true
	}
	return qu.Known && qu.Value >= comparableShare*ref.Quality[task].Value
}

func (ix *Index) failoverReason(q FailoverQuery, ref *Model, task string, e FailoverEntry, l Live) string {
	var m *Model
	for _, c := range ix.byProvider[e.Provider] {
		if c.ID == e.Model {
			m = c
			break
		}
	}
	refName := "the primary's model"
	if ref != nil {
		refName = ref.ID
	}
	var what string
	switch {
	case q.Scope == ScopeModel && e.class == 0:
		what = e.Model + ", a model of another family than " + refName
	case q.Scope == ScopeModel:
		what = e.Model + ", of the same family as " + refName + " (shares a withdrawal's cause)"
	case e.class == 0:
		what = e.Model + ", the same model as " + refName + " on infrastructure of its own"
	case e.class == 1:
		what = e.Model + ", the same family and " + m.Tier + " tier as " + refName + " on infrastructure of its own"
	case e.class == 2:
		what = e.Model + ", on a host that may run it on " + q.Primary + "'s own infrastructure (may share the outage)"
	case e.class == 5:
		what = e.Model + ", routed to its maker's infrastructure, which " + q.Primary + " is part of (shares the outage)"
	case e.class == 4 && ref != nil && m.Family != "" && m.Family == ref.Family:
		what = e.Model + ", another model of the " + m.Family + " family, of lower or unknown quality than " + refName
	case e.class == 4:
		what = e.Model + ", a model of another family, of lower or unknown quality than " + refName
	case ref != nil && m.Family != "" && m.Family == ref.Family:
		what = e.Model + ", another model of the " + m.Family + " family"
	default:
		what = e.Model + ", a comparable model of another family"
	}
	price := "price unknown"
	if m.UnitPrice != nil {
		price = unitPhrase(m.UnitPrice.USD, m.Unit)
	}
	return strings.Join([]string{statusPhrase(l.Status), fmtLatency(l), fmtUptime(l.Uptime7d), what, m.Quality[task].phrase(), price}, ", ")
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
// Score (0-100): quality 30 × Q of the provider's best priced candidate of the task (any task when none is
// given) + latency 25 × L + 7-day uptime 15 × U + 15 with a free tier + price 15 × P of its cheapest offer for
// the task. Rounded to 0.01; ties by provider ID.
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
		o := ix.offers[p.ID][q.Task]
		if o.cheapest != nil {
			score += recommendPrice * priceScore(&o.price, o.cheapest.Unit)
		}
		if o.best != nil {
			score += recommendQuality * o.bestQuality.Value
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
		o := ix.offers[c.p.ID][q.Task]
		if o.best != nil {
			parts = append(parts, "best model "+o.best.ID+" "+o.bestQuality.phrase())
		} else {
			parts = append(parts, "quality unknown")
		}
		if o.cheapest != nil {
			parts = append(parts, "from "+unitPhrase(o.cheapest.UnitPrice.USD, o.cheapest.Unit))
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
