package decide

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"time"
)

// CacheDiscountPct is the discount on cached input tokens of cost-estimate and task-cost.
const CacheDiscountPct = 50

// Quality is a parsed min_quality (`metric:score`).
type Quality struct {
	Metric string
	Score  float64
}

// fits reports whether m has a score for the metric at or above the minimum; every model fits no minimum (nil).
func (q *Quality) fits(m *Model) bool {
	if q == nil {
		return true
	}
	s, ok := m.Scores[q.Metric]
	return ok && s >= q.Score
}

// ParseQuality reads `metric:score`; the metric must be a benchmark name and the score a percent 0-100.
func ParseQuality(s string) (Quality, error) {
	metric, score, ok := strings.Cut(s, ":")
	if !ok {
		return Quality{}, inputErr("parameter min_quality: must be metric:score, for example mmlu:80")
	}
	if !slices.Contains(Benchmarks, metric) {
		return Quality{}, inputErr("parameter min_quality: unknown metric %q (one of %s)", metric, strings.Join(Benchmarks, ", "))
	}
	v, err := strconv.ParseFloat(score, 64)
	if err != nil || v < 0 || v > 100 || math.IsNaN(v) {
		return Quality{}, inputErr("parameter min_quality: score must be a number from 0 to 100")
	}
	return Quality{Metric: metric, Score: v}, nil
}

// CheapestQuery is a /cheapest request after defaults.
type CheapestQuery struct {
	Task          string
	Input, Output uint64
	// Units is the number of units priced for a task priced per unit (image, speech, search, video).
	Units      uint64
	MinQuality *Quality
	Limit      int
	// At is the time of the answer: promotions and time-of-day windows apply by it (zero: neither applies).
	At time.Time
}

// CheapestResult is the estimated cost of one model.
type CheapestResult struct {
	Provider, Model, Status string
	CostUSD                 float64
	InputPer1M              *float64
	OutputPer1M             *float64
	Unit                    Unit
	UnitPrice               float64
	Quality                 map[string]float64
	FreeTier                bool
	// Applied lists the price structures the cost applies (see priceAt); never nil.
	Applied []string
}

// Cheapest prices the request on every priced model of the task whose provider is operational (every provider
// while none is observed, with the note NothingObserved) and, with MinQuality, whose score for that metric is
// known and at least the minimum; cheapest first, ties by provider ID then model ID. Token-priced tasks price
// Input and Output tokens (output tokens cost nothing on a model without an output price); the others Units
// units. Generally available models only, unless none qualifies: then preview, beta and deprecated ones, and
// the note says so. An empty answer has a note that says why.
func (ix *Index) Cheapest(q CheapestQuery, live Statuses) ([]CheapestResult, string) {
	type cand struct {
		m       *Model
		cost    micro
		rates   rateSet
		applied []string
	}
	want, note := StatusOperational, ""
	if live.noneObserved() {
		want, note = StatusUnknown, NothingObserved
	}
	field := ix.byTask[q.Task]
	priced := 0
	run := func(second bool) topK[cand] {
		best := topK[cand]{k: q.Limit, cmp: func(a, b cand) int {
			return cmp.Or(cmp.Compare(a.cost, b.cost), cmp.Compare(a.m.Provider, b.m.Provider), cmp.Compare(a.m.ID, b.m.ID))
		}}
		lastProvider, up := "", false
		for _, m := range field {
			if m.Provider != lastProvider { // byTask is grouped by provider: one status lookup per provider
				lastProvider, up = m.Provider, live.get(m.Provider).Status == want
			}
			if m.UnitPrice == nil {
				continue
			}
			if !second {
				priced++
			}
			if !up || secondChoice(m.Stage) != second {
				continue
			}
			if !q.MinQuality.fits(m) {
				continue
			}
			c := cand{m: m, rates: m.standard()}
			if m.Unit == UnitTokens {
				// The volume is priced as one request, as cost-estimate prices it.
				var v volume
				v, c.rates, c.applied = priceAt(m, q.Input, q.Output, 0, q.At)
				c.cost = v.total()
			} else {
				c.cost = unitCost(q.Units, m.UnitPrice)
			}
			best.push(c)
		}
		return best
	}
	best := run(false)
	if len(best.items) == 0 && priced > 0 {
		if best = run(true); len(best.items) > 0 && note == "" {
			note = "No generally available model qualifies: these are preview, beta or deprecated models."
		}
	}
	out := make([]CheapestResult, 0, len(best.items))
	for _, c := range best.items {
		r := CheapestResult{Provider: c.m.Provider, Model: c.m.ID, Status: want, CostUSD: usd(c.cost),
			InputPer1M: priceUSD(c.rates.Input), OutputPer1M: priceUSD(c.rates.Output), Unit: c.m.Unit, UnitPrice: c.m.UnitPrice.USD,
			Quality: map[string]float64{}, FreeTier: c.m.FreeTier, Applied: nonNil(c.applied)}
		if c.m.Unit == UnitTokens && c.rates.Input != nil {
			r.UnitPrice = c.rates.Input.USD
		}
		for k, v := range c.m.Scores {
			r.Quality[k] = v
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		switch {
		case len(field) == 0:
			note = "No provider in the catalogs offers " + q.Task + "."
		case priced == 0:
			note = "No " + q.Task + " model in the catalogs has a known price."
		case q.MinQuality != nil:
			note = "No priced " + q.Task + " model of a qualifying provider has a " + q.MinQuality.Metric + " score at or above the minimum."
		default:
			note = "No priced " + q.Task + " model belongs to an operational provider right now."
		}
	}
	return out, note
}

func priceUSD(p *Price) *float64 {
	if p == nil {
		return nil
	}
	v := p.USD
	return &v
}

// EstimateQuery is a /cost-estimate request after defaults.
type EstimateQuery struct {
	Provider              string
	Model                 string // partial, case-insensitive; "" for any
	Input, Output, Cached uint64
	// At is the time of the answer: promotions and time-of-day windows apply by it (zero: neither applies).
	At time.Time
}

// Estimate is a cost estimate, amounts in USD.
type Estimate struct {
	Provider, Model            string
	InputPer1M                 float64
	OutputPer1M                *float64
	InputCost, CachedCost      float64
	OutputCost, Total, Savings float64
	// CacheDiscountPct is the discount of the cached-input rate used on the input rate, percent.
	CacheDiscountPct float64
	Alternatives     []Alternative
	// Applied lists the price structures the estimate applies; never nil.
	Applied []string
}

// Alternative is a cheaper model of another provider.
type Alternative struct {
	Provider, Model string
	InputPer1M      float64
	Total           float64
	SavingsPct      float64
}

// volume is the cost parts of one token volume on one model, in micro-USD.
type volume struct{ input, cached, output, savings micro }

func (v volume) total() micro { return v.input + v.cached + v.output }

// CostEstimate prices a volume on the provider's cheapest token-priced llm model (lowest input price for the request, ties by
// model ID; of any task when it prices no llm model), or with Model on the model of that ID, else its cheapest model whose ID contains it, and lists up to 3 cheaper alternatives: for each other
// provider not in outage, its cheapest model of the same task for the same volume, kept when it costs less,
// cheapest first (ties by provider ID, then model ID).
func (ix *Index) CostEstimate(q EstimateQuery, live Statuses) (Estimate, error) {
	if q.Cached > q.Input {
		return Estimate{}, inputErr("parameter cached_tokens: must not exceed input_tokens")
	}
	if err := ix.checkProviders("provider", []string{q.Provider}); err != nil {
		return Estimate{}, err
	}
	needle := strings.ToLower(q.Model)
	var chosen *Model
	var chosenIn float64
	// Without a model filter an llm model is preferred: an embedding model is rarely what "the provider's cost"
	// means, and it is only chosen when the provider prices no llm model. The input price compared is the one this
	// request would pay (a promotion, a long-context tier or a time-of-day window included).
	// A model named exactly is the one the caller means, even when another ID containing the name is cheaper
	// at this volume (gemini-3.1-pro-preview above its long-context threshold against
	// gemini-3.1-pro-preview-customtools).
	for _, m := range ix.byProvider[q.Provider] {
		if needle != "" && m.Input != nil && strings.ToLower(m.ID) == needle {
			chosen = m
		}
	}
	for _, llmOnly := range []bool{needle == "", false} {
		if chosen != nil {
			break
		}
		for _, m := range ix.byProvider[q.Provider] {
			if m.Input == nil || (needle != "" && !strings.Contains(strings.ToLower(m.ID), needle)) || (llmOnly && m.Task != "llm") {
				continue
			}
			r, _ := m.ratesFor(q.Input, q.At)
			if chosen == nil || r.Input.USD < chosenIn {
				chosen, chosenIn = m, r.Input.USD // byProvider is in model ID order, so ties keep the first ID
			}
		}
		if chosen != nil {
			break
		}
	}
	if chosen == nil {
		if needle != "" {
			return Estimate{}, notFoundErr("parameter model: no token-priced model of %s matches %q", q.Provider, q.Model)
		}
		return Estimate{}, notFoundErr("parameter provider: %s has no token-priced model", q.Provider)
	}
	v, r, applied := priceAt(chosen, q.Input, q.Output, q.Cached, q.At)
	e := Estimate{Provider: q.Provider, Model: chosen.ID, InputPer1M: r.Input.USD, OutputPer1M: priceUSD(r.Output),
		InputCost: usd(v.input), CachedCost: usd(v.cached), OutputCost: usd(v.output), Total: usd(v.total()), Savings: usd(v.savings),
		CacheDiscountPct: CacheDiscountPct, Applied: nonNil(applied)}
	if r.Cached != nil && r.Input.USD > 0 {
		e.CacheDiscountPct = max(0, round2((1-r.Cached.USD/r.Input.USD)*100))
	}
	type alt struct {
		m     *Model
		total micro
	}
	best := map[string]alt{}
	for _, m := range ix.byTask[chosen.Task] {
		if m.Input == nil || m.Provider == q.Provider || live.get(m.Provider).Status == StatusOutage {
			continue
		}
		av, _, _ := priceAt(m, q.Input, q.Output, q.Cached, q.At)
		t := av.total()
		if t >= v.total() {
			continue
		}
		if b, ok := best[m.Provider]; !ok || t < b.total {
			best[m.Provider] = alt{m, t}
		}
	}
	alts := make([]alt, 0, len(best))
	for _, a := range best {
		alts = append(alts, a)
	}
	slices.SortFunc(alts, func(a, b alt) int {
		return cmp.Or(cmp.Compare(a.total, b.total), cmp.Compare(a.m.Provider, b.m.Provider), cmp.Compare(a.m.ID, b.m.ID))
	})
	e.Alternatives = []Alternative{}
	for _, a := range alts[:min(3, len(alts))] {
		e.Alternatives = append(e.Alternatives, Alternative{Provider: a.m.Provider, Model: a.m.ID, InputPer1M: a.m.Input.USD,
			Total: usd(a.total), SavingsPct: round2((v.total() - a.total) / v.total() * 100)})
	}
	return e, nil
}

// TaskTypes maps task-cost's task_type to the catalog task it prices.
var TaskTypes = map[string]string{"chat": "llm", "embedding": "embedding", "image": "image", "audio": "speech", "search": "search"}

// TaskCostQuery is a /task-cost request after defaults.
type TaskCostQuery struct {
	TaskType              string
	Input, Output, Cached uint64
	Limit                 int
	FreeOnly              bool
	// At is the time of the answer: promotions and time-of-day windows apply by it (zero: neither applies).
	At time.Time
}

// TaskCost is one ranked provider.
type TaskCost struct {
	Rank                        int
	Provider, Model             string
	CostUSD, InputCost, OutCost float64
	InputPer1M                  *float64
	OutputPer1M                 *float64
	// Unit and UnitPrice are the price the task was priced at: per 1M input tokens, or per unit (one unit is
	// one task).
	Unit      Unit
	UnitPrice float64
	// PctMore is how much more than the cheapest this costs, in percent; nil when the cheapest costs 0 and this
	// does not (no finite percentage).
	PctMore  *float64
	FreeTier bool
	// Applied lists the price structures the cost applies; never nil.
	Applied []string
}

// TaskCosts prices one task on each provider's cheapest priced candidate of the task type (ties by model ID) and
// ranks the providers cheapest first (ties by provider ID). A token-priced model is priced by the task's tokens,
// input cost including the cached tokens at half the input price; a model priced per unit (a search request, an
// image, a minute of audio or 1K characters) at one unit, the task, as input cost. Generally available models
// only, unless a provider has none priced for the task.
func (ix *Index) TaskCosts(q TaskCostQuery) ([]TaskCost, error) {
	if q.Cached > q.Input {
		return nil, inputErr("parameter cached_tokens: must not exceed input_tokens")
	}
	task, ok := TaskTypes[q.TaskType]
	if !ok {
		return nil, inputErr("parameter task_type: must be one of chat, embedding, image, audio, search")
	}
	type cand struct {
		m       *Model
		v       volume
		rates   rateSet
		applied []string
	}
	best := map[string]cand{}
	for _, m := range ix.byTask[task] {
		if m.UnitPrice == nil || (q.FreeOnly && !ix.freeTier[m.Provider]) {
			continue
		}
		c := cand{m: m, v: volume{input: unitCost(1, m.UnitPrice)}, rates: m.standard()}
		if m.Unit == UnitTokens {
			c.v, c.rates, c.applied = priceAt(m, q.Input, q.Output, q.Cached, q.At)
		}
		v := c.v
		// A generally available model beats a second choice of the same provider whatever its cost.
		b, ok := best[m.Provider]
		switch {
		case !ok, secondChoice(b.m.Stage) && !secondChoice(m.Stage),
			secondChoice(b.m.Stage) == secondChoice(m.Stage) && v.total() < b.v.total():
			best[m.Provider] = c
		}
	}
	cands := make([]cand, 0, len(best))
	for _, c := range best {
		cands = append(cands, c)
	}
	slices.SortFunc(cands, func(a, b cand) int {
		return cmp.Or(cmp.Compare(a.v.total(), b.v.total()), cmp.Compare(a.m.Provider, b.m.Provider), cmp.Compare(a.m.ID, b.m.ID))
	})
	cands = cands[:min(q.Limit, len(cands))]
	out := make([]TaskCost, 0, len(cands))
	for i, c := range cands {
		t := TaskCost{Rank: i + 1, Provider: c.m.Provider, Model: c.m.ID, CostUSD: usd(c.v.total()), InputCost: usd(c.v.input + c.v.cached),
			OutCost: usd(c.v.output), InputPer1M: priceUSD(c.rates.Input), OutputPer1M: priceUSD(c.rates.Output), Unit: c.m.Unit,
			UnitPrice: c.m.UnitPrice.USD, FreeTier: ix.freeTier[c.m.Provider], Applied: nonNil(c.applied)}
		if c.m.Unit == UnitTokens && c.rates.Input != nil {
			t.UnitPrice = c.rates.Input.USD
		}
		cheapest := cands[0].v.total()
		switch {
		case c.v.total() == cheapest:
			t.PctMore = new(float64)
		case cheapest > 0:
			p := round2((c.v.total() - cheapest) / cheapest * 100)
			t.PctMore = &p
		}
		out = append(out, t)
	}
	return out, nil
}

// ForecastTasks maps cost-forecast's task to catalog tasks ("all": every token-priced model).
var ForecastTasks = map[string]string{"llm": "llm", "embedding": "embedding", "image": "image", "audio": "speech", "all": ""}

// ForecastQuery is a /cost-forecast request after defaults.
type ForecastQuery struct {
	RequestsPerDay, AvgInput, AvgOutput uint64
	CacheHitRate                        float64
	Task                                string
	Limit                               int
	// At is the time of the answer: a promotion in force at it applies (zero: none does).
	At time.Time
}

// Forecast is one model's spend, amounts in USD.
type Forecast struct {
	Provider, Model                     string
	Daily, Weekly, Monthly, Yearly      float64
	DailyInput, DailyOutput, DailySaved float64
	InputPer1M                          float64
	OutputPer1M                         *float64
	CachingAvailable                    bool
	// Applied lists the price structures the forecast applies; never nil.
	Applied []string
}

// Forecasts prices a usage profile on every token-priced model of the task, cheapest first (ties by provider ID,
// then model ID). Per day: input tokens = requests × avg input; cached tokens = input tokens × cache hit rate
// (the rate taken to 6 decimals, rounded to a whole token); output tokens = requests × avg output. Cached tokens
// are billed at the model's cached input price when the pricing catalog has one (caching available), else at the
// input price. Weekly, monthly and yearly are 7, 30 and 365 times the daily cost; every amount is rounded to the
// micro-USD part by part.
func (ix *Index) Forecasts(q ForecastQuery) ([]Forecast, error) {
	task, ok := ForecastTasks[q.Task]
	if !ok {
		return nil, inputErr("parameter task: must be one of llm, embedding, image, audio, all")
	}
	if q.CacheHitRate < 0 || q.CacheHitRate > 1 || math.IsNaN(q.CacheHitRate) {
		return nil, inputErr("parameter cache_hit_rate: must be from 0 to 1")
	}
	inHi, inTokens := bits.Mul64(q.RequestsPerDay, q.AvgInput)
	outHi, outTokens := bits.Mul64(q.RequestsPerDay, q.AvgOutput)
	if inHi != 0 || outHi != 0 {
		return nil, inputErr("parameter requests_per_day: the daily token count is too large")
	}
	ppm := uint64(math.Round(q.CacheHitRate * 1e6))
	cachedTokens := uint64(mulDivRound(inTokens, ppm, 1e6))
	models := ix.priced
	if task != "" {
		models = ix.byTask[task]
	}
	type cand struct {
		m                   *Model
		in, out, saved, day micro
		rates               rateSet
		applied             []string
	}
	best := topK[cand]{k: q.Limit, cmp: func(a, b cand) int {
		return cmp.Or(cmp.Compare(a.day, b.day), cmp.Compare(a.m.Provider, b.m.Provider), cmp.Compare(a.m.ID, b.m.ID))
	}}
	// Cached tokens at the cached-input price where there is one, else at the input price.
	bill := func(r rateSet) volume {
		if r.Cached == nil {
			return volume{input: cost(inTokens, r.Input, 1), output: cost(outTokens, r.Output, 1)}
		}
		v, _ := r.bill(inTokens, outTokens, cachedTokens)
		return v
	}
	for _, m := range models {
		if m.Input == nil {
			continue
		}
		c := cand{m: m}
		// The long-context tier applies per request: when the average request exceeds the threshold.
		r, s := m.ratesFor(q.AvgInput, q.At)
		v := bill(r)
		if s == "off_peak" || s == "peak" || (s == "" && len(m.Windows) > 0) {
			v, _ = m.weekAverage(bill)
			r, s = m.standard(), AppliedTimeAveraged
		}
		c.rates = r
		if s != "" {
			c.applied = append(c.applied, s)
		}
		if cachedTokens > 0 && r.Cached != nil {
			c.applied = append(c.applied, AppliedCachedInput)
		}
		c.in, c.out, c.saved = v.input+v.cached, v.output, v.savings
		c.day = c.in + c.out
		best.push(c)
	}
	cands := best.items
	out := make([]Forecast, len(cands))
	for i, c := range cands {
		out[i] = Forecast{Provider: c.m.Provider, Model: c.m.ID, Daily: usd(c.day), Weekly: usd(7 * c.day), Monthly: usd(30 * c.day),
			Yearly: usd(365 * c.day), DailyInput: usd(c.in), DailyOutput: usd(c.out), DailySaved: usd(c.saved),
			InputPer1M: c.rates.Input.USD, OutputPer1M: priceUSD(c.rates.Output), CachingAvailable: c.rates.Cached != nil, Applied: nonNil(c.applied)}
	}
	return out, nil
}
