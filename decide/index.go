// Package decide holds the logic of the decision endpoints (pick, failover, recommend, compare, cheapest,
// cost-estimate, task-cost, cost-forecast, quota-check): plain functions over in-memory indexes of the seeds
// catalogs, built once, and the live statuses passed in by the caller. Nothing here touches a database or the
// clock, so every scoring rule is testable with statuses set by the test.
package decide

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/switchboard/switchboard/errs"
	"github.com/switchboard/switchboard/seeds"
)

// Live statuses, as health reports them.
const (
	StatusOperational = "operational"
	StatusDegraded    = "degraded"
	StatusOutage      = "outage"
	StatusUnknown     = "unknown"
)

// Live is one provider's live status.
type Live struct {
	Status string
	// ResponseTimeMs is the last poll's status-page fetch time; nil when unknown.
	ResponseTimeMs *float64
	// P50Ms and P95Ms are over the fetch times of the last hour; nil without samples.
	P50Ms, P95Ms *float64
	// Uptime7d is the percentage of the observed checks of the last 7 UTC days that did not read outage; nil
	// without any.
	Uptime7d *float64

	// latency is latencyScore, uptime uptimeScore and reason liveReason, worked out once by Statuses.Prepared
	// (prepared is then true).
	latency, uptime float64
	reason          string
	prepared        bool
}

// Statuses maps provider IDs to their live status; a provider missing from the map is unknown.
type Statuses map[string]Live

// Prepared returns a copy of s with each provider's latency score, pick score part and reason phrase worked out
// once. The service keeps the statuses of a second for every decision of that second; scoring every provider
// for every request was two thirds of /pick's ranking. Decisions give the same answers with s or its copy.
func (s Statuses) Prepared() Statuses {
	out := make(Statuses, len(s))
	for id, l := range s {
		l.latency, l.uptime, l.reason, l.prepared = latencyScore(l), uptimeScore(l.Uptime7d), liveReason(l), true
		out[id] = l
	}
	return out
}

// noneObserved reports whether no provider has an observed status: decisions then answer from catalog facts
// and say so.
func (s Statuses) noneObserved() bool {
	for _, l := range s {
		if l.Status != "" && l.Status != StatusUnknown {
			return false
		}
	}
	return true
}

// NothingObserved is the note of a decision answered while no provider has been observed.
const NothingObserved = "No provider has been observed yet (the poller has no data, see /health): ranked from catalog facts alone, every status unknown."

func (s Statuses) get(id string) Live {
	if l, ok := s[id]; ok && l.Status != "" {
		return l
	}
	return Live{Status: StatusUnknown}
}

func inputErr(format string, a ...any) error    { return errs.Input(format, a...) }
func notFoundErr(format string, a ...any) error { return errs.NotFound(format, a...) }

// Price is a known catalog price in USD per 1M tokens, with its exact value in 1e-9 USD per 1M tokens so that
// cost arithmetic is done in integers (catalog prices have at most 7 decimals; Build checks the conversion).
type Price struct {
	USD  float64
	nano uint64
}

func newPrice(p *float64) (*Price, error) {
	if p == nil {
		return nil, nil
	}
	if *p < 0 || *p > 1e9 || math.IsNaN(*p) {
		return nil, fmt.Errorf("price %v out of range", *p)
	}
	n := math.Round(*p * 1e9)
	if math.Abs(n-*p*1e9) > 1e-3 {
		return nil, fmt.Errorf("price %v has more than 9 decimals", *p)
	}
	return &Price{USD: *p, nano: uint64(n)}, nil
}

// Model is one model of the catalogs: its prices (pricing catalog), context window and capabilities (model
// catalog) and benchmark scores. A part missing from its catalog is unknown: nil, or HasCaps false.
type Model struct {
	Provider string
	ID       string
	// Task is the pricing catalog's task, or the model catalog's when the model has no price record.
	Task     string
	Input    *Price
	Output   *Price
	Cached   *Price
	FreeTier bool
	Context  *int64
	Caps     seeds.ModelCapabilities
	HasCaps  bool
	// Unit and UnitPrice are the price of the model's task in its unit: the input price per 1M tokens for the
	// token-priced tasks, per image, audio minute, 1K characters, request or video second for the others; nil
	// when unknown.
	Unit      Unit
	UnitPrice *Price
	// Tasks are the tasks the model is a candidate for (tasksOf), set when the index is built.
	Tasks []string
	// Stage is the lifecycle stage ("" when the lifecycle catalog does not list the model).
	Stage  string
	Scores map[string]float64
	// Long, Promo and Windows are the pricing catalog's long-context tier, promotion and time-of-day windows;
	// nil when it gives none.
	Long    *LongTier
	Promo   *Promo
	Windows []Window
	// AliasOf is the alias this pinned version is the same offer as (same prices, same window): the alias stands
	// for it in rankings, and it stays reachable by its own ID. "" when it is no such duplicate.
	AliasOf string
	// Ending is the shutdown day its provider announced when it falls within ShutdownNoticeDays of the index's
	// day: such a model is no candidate of any ranking, though it stays reachable by its ID.
	Ending string
	// Canon is the model whatever the host's spelling (canonicalModel), Family its family (ModelFamily), Tier
	// its provider's lineup tier ("" unknown).
	Canon, Family, Tier string
	// Quality is its quality per task it is a candidate for.
	Quality map[string]QualityOf
}

// ranked is a model in one task's field, with the part of its pick score that is its own for that task (price,
// quality, fit), set when the index is built: Pick skips a model whose best possible score cannot enter its
// top 3.
type ranked struct {
	m    *Model
	part float64
	// reason is the model's own part of a pick reason for that task (price, benchmark, context, capabilities):
	// it is the same for every request, so it is written once.
	reason string
}

// Benchmark names, in the document's order.
var Benchmarks = []string{"mmlu", "humaneval", "math", "gpqa", "mgsm", "hellaswag"}

// Index is the catalogs, indexed for the decision endpoints. It is read-only once built.
type Index struct {
	reg *seeds.Registry
	// families lists, per provider and task ("" for any), the model families of its models (see domains.go).
	families map[string]map[string][]string
	byTask   map[string][]*Model // each sorted by provider then model ID; a model is in its own task and in agent and code when it qualifies
	// byPickPart is byTask with each model's own pick part, highest first, per task and preference
	// (pickKey): Pick stops its scan where no later model can reach its top 3.
	byPickPart map[string][]ranked
	quality    *qualityIndex
	// today is the index's day ("" for Load); lifecycle holds every announced shutdown day and replacement.
	today      string
	lifecycle  map[string]retirement
	byProvider map[string][]*Model // each sorted by model ID
	priced     []*Model            // token-priced models (input price known), by provider then model ID
	// serves holds, per provider, the tasks of its registry categories and of its catalogued models.
	serves       map[string]map[string]bool
	catalogTasks map[string]map[string]int // provider -> task -> catalogued models
	// offers holds, per provider and task ("" for every token-priced model), the model with the lowest scored
	// price and the number of priced candidates, for failover and recommend.
	offers       map[string]map[string]offer
	freeTier     map[string]bool
	rateLimits   map[string][]seeds.RateLimitRecord
	rateLimitAll []seeds.RateLimitRecord
	bench        map[string][]seeds.BenchmarkRecord // per provider
	modelIDs     map[string][]string                // model catalog IDs per provider, ascending
}

// Catalogs are the records an Index is built from.
type Catalogs struct {
	Pricing    []seeds.PricingRecord
	Models     []seeds.ModelRecord
	Benchmarks []seeds.BenchmarkRecord
	RateLimits []seeds.RateLimitRecord
	FreeTier   []seeds.FreeTierRecord
	// Shutdowns maps "provider/model" to the day its provider stops serving it; with Today set, a model whose
	// day is within ShutdownNoticeDays of Today, or has passed, is left out (Eligible).
	Shutdowns map[string]string
	Today     string
	// Stages maps "provider/model" to its lifecycle stage; experimental and sunset models are no candidates.
	Stages map[string]string
	// Pinned maps "provider/version" to its alias (model_versions): a pinned version priced and sized as its
	// alias is one offer, ranked once under the alias.
	Pinned map[string]string
	// Probation maps "provider/model" to the day from which a model a refresh added on one source's word may be
	// a candidate (seeds.Probation): a fake model cannot top a ranking the day a source invents it.
	Probation map[string]string
	// Replacements maps "provider/model" to the replacement its provider names for it (deprecations).
	Replacements map[string]string
}

// retired reports whether the model is out of the index on c.Today: shut down (ShutdownIn), or excluded by its
// stage: experimental builds (which their providers withdraw without notice) and sunset models. A model shutting
// down within ShutdownNoticeDays stays in the index, reachable by its ID so an answer can tell a caller using it
// the day and the replacement, but is no candidate of any ranking (Model.Ending).
func (c *Catalogs) retired(provider, model string) bool {
	switch c.Stages[provider+"/"+model] {
	case "experimental", "sunset":
		return true
	}
	// Without a day (Load), a model on probation is left out: it is no candidate until its day has come.
	if until, ok := c.Probation[provider+"/"+model]; ok && (c.Today == "" || c.Today < until) {
		return true
	}
	d, ok := c.Shutdowns[provider+"/"+model]
	if !ok || c.Today == "" {
		return false
	}
	live, _ := ShutdownIn(d, c.Today)
	return !live
}

// stage is the model's lifecycle stage; a model the lifecycle catalog does not list is a preview when its
// provider named it one (veo-3.1-generate-preview, fal-ai/imagen4/preview), else "" (taken as generally
// available).
func (c *Catalogs) stage(provider, model string) string {
	if st := c.Stages[provider+"/"+model]; st != "" {
		return st
	}
	if strings.Contains(strings.ToLower(model), "preview") {
		return "preview"
	}
	return ""
}

// inServiceCatalogs reads the seeds catalogs in service, with the shutdown day of every model that has one.
func inServiceCatalogs() (Catalogs, error) {
	var c Catalogs
	var err error
	if c.Pricing, err = seeds.PricingRecords(); err != nil {
		return c, fmt.Errorf("decide: loading pricing: %w", err)
	}
	if c.Models, err = seeds.ModelRecords(); err != nil {
		return c, fmt.Errorf("decide: loading models: %w", err)
	}
	if c.Benchmarks, err = seeds.BenchmarkRecords(); err != nil {
		return c, fmt.Errorf("decide: loading benchmarks: %w", err)
	}
	if c.RateLimits, err = seeds.RateLimitRecords(); err != nil {
		return c, fmt.Errorf("decide: loading rate limits: %w", err)
	}
	if c.FreeTier, err = seeds.FreeTierRecords(); err != nil {
		return c, fmt.Errorf("decide: loading free tier: %w", err)
	}
	if c.Shutdowns, err = seeds.Shutdowns(); err != nil {
		return c, fmt.Errorf("decide: loading shutdown days: %w", err)
	}
	if c.Stages, err = seeds.Stages(); err != nil {
		return c, fmt.Errorf("decide: loading lifecycle stages: %w", err)
	}
	if c.Pinned, err = seeds.PinnedVersions(); err != nil {
		return c, fmt.Errorf("decide: loading model versions: %w", err)
	}
	if c.Probation, err = seeds.Probation(); err != nil {
		return c, fmt.Errorf("decide: loading probation: %w", err)
	}
	if c.Replacements, err = seeds.Replacements(); err != nil {
		return c, fmt.Errorf("decide: loading replacements: %w", err)
	}
	return c, nil
}

// Load builds the index of every model of the catalogs in service, whatever the day.
func Load() (*Index, error) {
	c, err := inServiceCatalogs()
	if err != nil {
		return nil, err
	}
	c.Shutdowns = nil
	return Build(seeds.Providers(), c)
}

// LoadAt builds the index of the models still served on day (YYYY-MM-DD): a model whose shutdown day has come,
// or comes within ShutdownNoticeDays, is no candidate of any decision.
func LoadAt(day string) (*Index, error) {
	c, err := inServiceCatalogs()
	if err != nil {
		return nil, err
	}
	c.Today = day
	return Build(seeds.Providers(), c)
}

type modelKey struct{ provider, model string }

// Build indexes the catalogs over the provider registry.
func Build(reg *seeds.Registry, c Catalogs) (*Index, error) {
	ix := &Index{
		reg: reg, byTask: map[string][]*Model{}, byPickPart: map[string][]ranked{}, byProvider: map[string][]*Model{}, serves: map[string]map[string]bool{},
		catalogTasks: map[string]map[string]int{}, offers: map[string]map[string]offer{}, freeTier: map[string]bool{}, rateLimits: map[string][]seeds.RateLimitRecord{},
		bench: map[string][]seeds.BenchmarkRecord{}, modelIDs: map[string][]string{},
		quality: newQualityIndex(c.Benchmarks, c.Today), today: c.Today, lifecycle: lifecycleOf(c),
	}
	models := map[modelKey]*Model{}
	for _, p := range c.Pricing {
		if c.retired(p.ProviderId, p.Model) {
			continue
		}
		k := modelKey{p.ProviderId, p.Model}
		if models[k] != nil {
			return nil, fmt.Errorf("decide: pricing lists %s/%s twice", p.ProviderId, p.Model)
		}
		m := &Model{Provider: p.ProviderId, ID: p.Model, Task: string(p.Task), FreeTier: p.FreeTier, Stage: c.stage(p.ProviderId, p.Model)}
		var err error
		if m.Input, err = newPrice(p.Pricing.InputPer1mTokens); err == nil {
			if m.Output, err = newPrice(p.Pricing.OutputPer1mTokens); err == nil {
				m.Cached, err = newPrice(p.Pricing.CachedInputPer1mTokens)
			}
		}
		if err == nil {
			m.Unit, m.UnitPrice, err = unitPrice(m, p.Pricing)
		}
		if err == nil {
			err = m.setStructures(p)
		}
		if err != nil {
			return nil, fmt.Errorf("decide: pricing of %s/%s: %w", p.ProviderId, p.Model, err)
		}
		models[k] = m
	}
	for _, r := range c.Models {
		if c.retired(r.ProviderId, r.ModelId) {
			continue
		}
		k := modelKey{r.ProviderId, r.ModelId}
		m := models[k]
		if m == nil {
			m = &Model{Provider: r.ProviderId, ID: r.ModelId, Task: string(r.Task), Stage: c.stage(r.ProviderId, r.ModelId)}
			m.Unit = unitOf(m.Task, seeds.PricingRates{})
			models[k] = m
		}
		m.Context, m.Caps, m.HasCaps = Wide(r.ContextWindow), r.Capabilities, true
		ix.modelIDs[r.ProviderId] = append(ix.modelIDs[r.ProviderId], r.ModelId)
	}
	for _, b := range c.Benchmarks {
		ix.bench[b.ProviderId] = append(ix.bench[b.ProviderId], b)
		if m := models[modelKey{b.ProviderId, b.ModelId}]; m != nil {
			m.Scores = b.Scores
		}
	}
	for k, m := range models {
		if alias := c.Pinned[k.provider+"/"+k.model]; alias != "" {
			if a := models[modelKey{k.provider, alias}]; a != nil && sameOffer(a, m) {
				m.AliasOf = alias
			}
		}
	}
	all := make([]*Model, 0, len(models))
	for _, m := range models {
		m.Canon, m.Family, m.Tier = canonicalModel(m.ID), ModelFamily(m.ID), ix.quality.tiers[canonicalModel(m.ID)]
		m.Ending = ix.endingSoon(m.Provider, m.ID)
		if !reg.Known(m.Provider) {
			return nil, fmt.Errorf("decide: model %s/%s of an unknown provider", m.Provider, m.ID)
		}
		all = append(all, m)
	}
	slices.SortFunc(all, func(a, b *Model) int { return cmp.Or(cmp.Compare(a.Provider, b.Provider), cmp.Compare(a.ID, b.ID)) })
	for _, p := range reg.All() {
		ix.serves[p.ID] = map[string]bool{}
		for _, c := range p.Categories {
			ix.serves[p.ID][c] = true
		}
		ix.catalogTasks[p.ID] = map[string]int{}
	}
	for _, m := range all {
		ix.byProvider[m.Provider] = append(ix.byProvider[m.Provider], m)
		if m.AliasOf != "" || m.Ending != "" {
			continue // ranked once, under its alias; or shut down soon, so no candidate
		}
		m.Tasks = tasksOf(m, ix.quality)
		m.Quality = make(map[string]QualityOf, len(m.Tasks))
		for _, t := range m.Tasks {
			m.Quality[t] = ix.quality.quality(m.ID, t)
		}
		for _, task := range m.Tasks {
			ix.byTask[task] = append(ix.byTask[task], m)
			ix.serves[m.Provider][task] = true
			ix.catalogTasks[m.Provider][task]++
		}
		if m.Input != nil {
			ix.priced = append(ix.priced, m)
		}
	}
	for _, m := range all {
		if ix.offers[m.Provider] == nil {
			ix.offers[m.Provider] = map[string]offer{}
		}
		if m.Input != nil && m.Ending == "" { // the lowest input price per 1M tokens, of any task ("") and of each of its tasks
			for _, task := range append(slices.Clone(m.Tasks), "") {
				o := ix.offers[m.Provider][task]
				if o.lowestInput == nil || m.Input.USD < *o.lowestInput {
					v := m.Input.USD
					o.lowestInput = &v
				}
				ix.offers[m.Provider][task] = o
			}
		}
		if m.AliasOf != "" || m.Ending != "" || m.UnitPrice == nil {
			continue
		}
		keys := m.Tasks
		if m.Unit == UnitTokens {
			keys = append(slices.Clone(keys), "")
		}
		for _, task := range keys {
			o := ix.offers[m.Provider][task]
			o.priced++
			qu := m.Quality[cmp.Or(task, m.Task)]
			if qu.Known && (o.best == nil || qu.Value > o.bestQuality.Value) {
				o.best, o.bestQuality = m, qu
			}
			if p := *scoredPrice(m); o.cheapest == nil || p < o.price {
				o.cheapest, o.price = m, p
			}
			ix.offers[m.Provider][task] = o
		}
	}
	for task, field := range ix.byTask {
		for prefer, w := range pickWeights {
			rs := make([]ranked, len(field))
			for i, m := range field {
				rs[i] = ranked{m, pickModelPart(m, task, w), pickModelReason(m, task)}
			}
			slices.SortStableFunc(rs, func(a, b ranked) int { return cmp.Compare(b.part, a.part) })
			ix.byPickPart[pickKey(task, prefer)] = rs
		}
	}
	for _, f := range c.FreeTier {
		// Unconfirmed free access (nil) does not count as free: free_only stays a promise.
		ix.freeTier[f.ProviderId] = f.HasFreeTier != nil && *f.HasFreeTier
	}
	for _, r := range c.RateLimits {
		ix.rateLimits[r.ProviderId] = append(ix.rateLimits[r.ProviderId], r)
	}
	ix.rateLimitAll = c.RateLimits
	for _, ids := range ix.modelIDs {
		slices.Sort(ids)
	}
	ix.indexFamilies()
	return ix, nil
}

// Agent and code are tasks that models of other tasks also do. An agent model calls functions, answers in
// structured JSON and holds a long context; a code model is one catalogued for code, or a generalist that leads
// the code benchmark.
const (
	agentMinContext  = 128_000
	codeMinHumanEval = 85.0
)

// tasksOf lists the tasks a model is a candidate for: its own, and agent and code when it qualifies (for code:
// HumanEval 85 or more, or a result of a code benchmark).
func tasksOf(m *Model, qi *qualityIndex) []string {
	tasks := []string{m.Task}
	if m.Task != "llm" && m.Task != "code" {
		return tasks
	}
	if m.HasCaps && stated(m.Caps.FunctionCalling) && stated(m.Caps.JsonMode) && m.Context != nil && *m.Context >= agentMinContext {
		tasks = append(tasks, "agent")
	}
	if m.Task == "llm" && (m.Scores["humaneval"] >= codeMinHumanEval || qi.hasEvidence(m.ID, "code") || qi.placedAboveCoder(m.ID)) {
		tasks = append(tasks, "code")
	}
	return tasks
}

// unitOf is the unit a task is priced in; for speech, per minute of audio unless the model is priced per 1K
// characters only (text to speech).
func unitOf(task string, r seeds.PricingRates) Unit {
	switch task {
	case "image":
		return UnitImage
	case "speech":
		if r.PerMinuteAudio == nil && r.Per1kCharacters != nil {
			return UnitChars
		}
		return UnitAudioMin
	case "search":
		return UnitRequest
	case "video":
		return UnitVideoSec
	}
	return UnitTokens
}

// unitPrice is the price of the model's task in its unit.
func unitPrice(m *Model, r seeds.PricingRates) (Unit, *Price, error) {
	u := unitOf(m.Task, r)
	var p *float64
	switch u {
	case UnitTokens:
		return u, m.Input, nil
	case UnitImage:
		p = r.PerImage
	case UnitAudioMin:
		p = r.PerMinuteAudio
	case UnitChars:
		p = r.Per1kCharacters
	case UnitRequest:
		p = r.PerRequest
	case UnitVideoSec:
		p = r.PerSecondVideo
	}
	price, err := newPrice(p)
	return u, price, err
}

// offer is a provider's cheapest priced candidate of a task and how many it prices.
type offer struct {
	cheapest *Model
	price    float64 // its scored price
	priced   int
	// lowestInput is the lowest known input price per 1M tokens of the provider's models of the task.
	lowestInput *float64
	// best is its priced candidate of the highest known quality, with that quality; nil when none is known.
	best        *Model
	bestQuality QualityOf
}

// sameOffer reports whether a pinned version is its alias again: the same task, prices and context window.
func sameOffer(alias, v *Model) bool {
	samePrice := func(a, b *Price) bool { return (a == nil) == (b == nil) && (a == nil || a.USD == b.USD) }
	sameInt := func(a, b *int64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
	return alias.Task == v.Task && samePrice(alias.Input, v.Input) && samePrice(alias.Output, v.Output) &&
		samePrice(alias.Cached, v.Cached) && sameInt(alias.Context, v.Context)
}

// Registry is the provider registry the index was built over.
func (ix *Index) Registry() *seeds.Registry { return ix.reg }

// checkProviders returns an errs.NotFoundError naming param for the first unknown ID of ids.
func (ix *Index) checkProviders(param string, ids []string) error {
	for _, id := range ids {
		if !ix.reg.Known(id) {
			return notFoundErr("parameter %s: unknown provider %q", param, id)
		}
	}
	return nil
}

// ---- money ----

// micro is an amount in micro-USD (1e-6 USD). Every amount is a whole number of micro-USD, rounded half up from
// the exact product, so that sums of parts are exact (float64 holds whole numbers exactly up to 2^53 micro-USD,
// about 9 billion USD).
type micro = float64

// cost returns tokens at price, in whole micro-USD: round(tokens × price / 1e6 / den), computed exactly in
// 128-bit integers (den 2 is the 50 percent cache discount). A result beyond 2^64 micro-USD is approximated.
func cost(tokens uint64, p *Price, den uint64) micro {
	if p == nil || tokens == 0 {
		return 0
	}
	return mulDivRound(tokens, p.nano, den*1e9)
}

// mulDivRound returns round-half-up(a × b / d) for d > 0.
func mulDivRound(a, b, d uint64) float64 {
	hi, lo := bits.Mul64(a, b)
	lo2, carry := bits.Add64(lo, d/2, 0)
	hi += carry
	if hi >= d { // the quotient does not fit in 64 bits
		return math.Round(float64(a) * float64(b) / float64(d))
	}
	q, _ := bits.Div64(hi, lo2, d)
	return float64(q)
}

func usd(m micro) float64 { return m / 1e6 }

// unitCost returns units at a price per unit (image, request, minute...), in whole micro-USD, rounded half up.
func unitCost(units uint64, p *Price) micro { return mulDivRound(units, p.nano, 1e3) }

// round2 rounds to 0.01.
func round2(x float64) float64 { return math.Round(x*100) / 100 }

// fmtUSD writes a price such as $0.15 or $3.
func fmtUSD(x float64) string { return "$" + strconv.FormatFloat(x, 'f', -1, 64) }

// topK keeps the k first items in cmp order: a bounded insertion instead of sorting a whole field when only
// the first few are answered.
type topK[T any] struct {
	k     int
	cmp   func(a, b T) int
	items []T
}

func (t *topK[T]) push(x T) {
	n := len(t.items)
	if t.k <= 0 || (n == t.k && t.cmp(x, t.items[n-1]) >= 0) {
		return
	}
	i, _ := slices.BinarySearchFunc(t.items, x, t.cmp)
	if n < t.k {
		if t.items == nil {
			// One allocation for the k kept, not a doubling per push (q.Limit is bounded by the document).
			t.items = make([]T, 0, min(t.k, 64))
		}
		t.items = append(t.items, x)
	}
	copy(t.items[i+1:], t.items[i:len(t.items)-1])
	t.items[i] = x
}

// Wide is a catalog count (the API records' int) as the int64 the decisions compute with; nil stays nil.
func Wide(p *int) *int64 {
	if p == nil {
		return nil
	}
	v := int64(*p)
	return &v
}
