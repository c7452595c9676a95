package decide

import (
	"cmp"
	"slices"

	"github.com/switchboard/switchboard/seeds"
)

// Metrics are compare's metric names, in the document's order (the default is all of them).
var Metrics = []string{"status", "latency", "price", "benchmarks", "rate_limits", "models"}

// Comparison is one provider's requested metrics; a part is nil when not requested or unknown (Models and
// RateLimits are empty, not nil, when requested and the catalog has none).
type Comparison struct {
	Name           string
	Status         *string
	ResponseTimeMs *float64
	Pricing        *ComparePricing
	Benchmarks     *seeds.BenchmarkRecord
	RateLimits     []seeds.RateLimitRecord
	Models         []string
}

// ComparePricing is the token prices of one model.
type ComparePricing struct {
	Model       string
	InputPer1M  float64
	OutputPer1M *float64
}

// Compare gathers the metrics of 2 to 10 distinct known providers. Pricing is the provider's cheapest
// token-priced llm model (lowest input price, ties by model ID), or of any task when it prices no llm model;
// benchmarks are those of its model with the highest MMLU (models without MMLU after, ties by model ID).
func (ix *Index) Compare(providers, metrics []string, live Statuses) (map[string]Comparison, error) {
	if len(providers) < 2 || len(providers) > 10 {
		return nil, inputErr("parameter providers: must list 2 to 10 provider IDs")
	}
	for i, p := range providers {
		if slices.Contains(providers[:i], p) {
			return nil, inputErr("parameter providers: %q is listed twice", p)
		}
	}
	if err := ix.checkProviders("providers", providers); err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, m := range metrics {
		if !slices.Contains(Metrics, m) {
			return nil, inputErr("parameter metrics: unknown metric %q", m)
		}
		want[m] = true
	}
	if len(metrics) == 0 {
		for _, m := range Metrics {
			want[m] = true
		}
	}
	out := make(map[string]Comparison, len(providers))
	for _, id := range providers {
		p, _ := ix.reg.Get(id)
		c := Comparison{Name: p.Name}
		l := live.get(id)
		if want["status"] {
			s := l.Status
			c.Status = &s
		}
		if want["latency"] {
			c.ResponseTimeMs = l.ResponseTimeMs
		}
		if want["price"] {
			c.Pricing = ix.cheapestPricing(id)
		}
		if want["benchmarks"] {
			c.Benchmarks = ix.bestBenchmark(id)
		}
		if want["rate_limits"] {
			c.RateLimits = append([]seeds.RateLimitRecord{}, ix.rateLimits[id]...)
		}
		if want["models"] {
			c.Models = append([]string{}, ix.modelIDs[id]...)
		}
		out[id] = c
	}
	return out, nil
}

func (ix *Index) cheapestPricing(provider string) *ComparePricing {
	var best *Model
	for _, llmOnly := range []bool{true, false} {
		for _, m := range ix.byProvider[provider] {
			if m.Input == nil || (llmOnly && m.Task != "llm") {
				continue
			}
			if best == nil || m.Input.USD < best.Input.USD {
				best = m
			}
		}
		if best != nil {
			return &ComparePricing{Model: best.ID, InputPer1M: best.Input.USD, OutputPer1M: priceUSD(best.Output)}
		}
	}
	return nil
}

func (ix *Index) bestBenchmark(provider string) *seeds.BenchmarkRecord {
	recs := ix.bench[provider]
	if len(recs) == 0 {
		return nil
	}
	best := slices.MinFunc(recs, func(a, b seeds.BenchmarkRecord) int {
		am, aok := a.Scores["mmlu"]
		bm, bok := b.Scores["mmlu"]
		switch {
		case aok && !bok:
			return -1
		case bok && !aok:
			return 1
		}
		return cmp.Or(cmp.Compare(bm, am), cmp.Compare(a.ModelId, b.ModelId))
	})
	return &best
}

// Quota statuses of one limit, and of the verdict.
const (
	QuotaSafe    = "safe"
	QuotaTight   = "tight"
	QuotaExceeds = "exceeds"
	QuotaUnknown = "unknown"
)

// QuotaQuery is a /quota-check request after defaults.
type QuotaQuery struct {
	Provider, Tier string
	RPM, TPM       int64
}

// QuotaDetail is one planned value against one limit; UsagePct and Headroom are nil when the limit is unknown.
type QuotaDetail struct {
	Status   string
	UsagePct *float64
	Headroom *int64
}

// QuotaSuggestion is another provider's tier that covers the plan.
type QuotaSuggestion struct {
	Provider, Tier string
	RPM, TPM       *int64
}

// QuotaResult is a quota check.
type QuotaResult struct {
	Limits  seeds.RateLimitValues // all nil when the catalog has no such tier for the provider
	Verdict string
	// Missing names the limits the plan uses that the tier does not publish: "rpm" (always used) and "tpm"
	// (used when TPM is above 0).
	Missing     []string
	RPM, TPM    QuotaDetail
	Suggestions []QuotaSuggestion
}

// quotaDetail: below 80 percent of the limit is safe, 80 to 100 percent tight, above it exceeds; a null limit
// (unknown or unlimited) is unknown, never guessed.
func quotaDetail(planned int64, limit *int64) QuotaDetail {
	if limit == nil {
		return QuotaDetail{Status: QuotaUnknown}
	}
	d := QuotaDetail{Headroom: ptr(*limit - planned)}
	if *limit > 0 {
		d.UsagePct = ptr(round2(float64(planned) / float64(*limit) * 100))
	} else if planned == 0 {
		d.UsagePct = ptr(0.0)
	}
	switch {
	case planned > *limit:
		d.Status = QuotaExceeds
	case planned*100 >= *limit*80 && planned > 0:
		d.Status = QuotaTight
	default:
		d.Status = QuotaSafe
	}
	return d
}

func ptr[T any](v T) *T { return &v }

// quotaRank orders the verdicts: a limit exceeded outweighs one unknown, which outweighs one nearly reached.
var quotaRank = map[string]int{QuotaSafe: 0, QuotaTight: 1, QuotaUnknown: 2, QuotaExceeds: 3}

// covers reports whether a limit holds a planned value: nothing planned needs no limit; otherwise the limit must
// be known and at least the plan.
func covers(planned int64, limit *int64) bool {
	return planned == 0 || (limit != nil && *limit >= planned)
}

// QuotaCheck compares a planned rate with a provider tier's published limits. The verdict is the worst status
// of the limits the plan uses (rpm always, tpm when TPM is above 0), in the order exceeds, unknown, tight, safe:
// an unknown limit is never read as room. When it is exceeds, Suggestions lists other providers' tiers
// whose known limits cover the plan, largest rpm first (unknown rpm last), ties by provider ID then tier.
func (ix *Index) QuotaCheck(q QuotaQuery) (QuotaResult, error) {
	if err := ix.checkProviders("provider", []string{q.Provider}); err != nil {
		return QuotaResult{}, err
	}
	var r QuotaResult
	for _, rec := range ix.rateLimits[q.Provider] {
		if rec.Tier == q.Tier {
			r.Limits = rec.Limits
		}
	}
	r.RPM = quotaDetail(q.RPM, Wide(r.Limits.RequestsPerMinute))
	r.TPM = quotaDetail(q.TPM, Wide(r.Limits.TokensPerMinute))
	r.Verdict, r.Missing = QuotaSafe, []string{}
	for _, l := range []struct {
		name string
		d    QuotaDetail
		used bool
	}{{"rpm", r.RPM, true}, {"tpm", r.TPM, q.TPM > 0}} {
		if !l.used {
			continue
		}
		if l.d.Status == QuotaUnknown {
			r.Missing = append(r.Missing, l.name)
		}
		if quotaRank[l.d.Status] > quotaRank[r.Verdict] {
			r.Verdict = l.d.Status
		}
	}
	r.Suggestions = []QuotaSuggestion{}
	if r.Verdict != QuotaExceeds {
		return r, nil
	}
	for _, rec := range ix.rateLimitAll {
		l := rec.Limits
		if rec.ProviderId == q.Provider || !covers(q.RPM, Wide(l.RequestsPerMinute)) || !covers(q.TPM, Wide(l.TokensPerMinute)) ||
			(l.RequestsPerMinute == nil && l.TokensPerMinute == nil) {
			continue
		}
		r.Suggestions = append(r.Suggestions, QuotaSuggestion{Provider: rec.ProviderId, Tier: rec.Tier, RPM: Wide(l.RequestsPerMinute), TPM: Wide(l.TokensPerMinute)})
	}
	slices.SortFunc(r.Suggestions, func(a, b QuotaSuggestion) int {
		ar, br := int64(-1), int64(-1)
		if a.RPM != nil {
			ar = *a.RPM
		}
		if b.RPM != nil {
			br = *b.RPM
		}
		return cmp.Or(cmp.Compare(br, ar), cmp.Compare(a.Provider, b.Provider), cmp.Compare(a.Tier, b.Tier))
	})
	return r, nil
}
