package derive

import (
	"slices"

	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/seeds"
)

func init() {
	Register(Deriver{Name: "caching_granularity", Build: buildCachingGranularity})
}

// cachingGranularityOf builds one provider's /caching-granularity record from the same status as its
// /prompt-caching record.
func cachingGranularityOf(p seeds.Provider, pricing []seeds.PricingRecord) api.CachingGranularityRecord {
	st := cachingStatusOf(p, pricing)
	r := api.CachingGranularityRecord{ProviderId: p.ID, CachingSupported: st.Supported, CacheableElements: []string{},
		TtlOptionsSeconds: []int{}, Notes: ptrTo(st.Basis)}
	if f := st.Fact; f != nil {
		r.CachingType = ptrTo(f.Type)
		r.CacheableElements = slices.Clone(f.Elements)
		r.ElementsCacheIndependently, r.MinTokensPerBlock, r.MaxCacheBreakpoints = f.Independent, intOf(f.MinTokens), intOf(f.MaxBreakpoints)
		for _, ttl := range f.TTLOptions {
			r.TtlOptionsSeconds = append(r.TtlOptionsSeconds, int(ttl))
		}
		r.DefaultTtlSeconds, r.RequiresExplicitMarkup, r.MarkupMethod = intOf(f.DefaultTTL), f.Markup, f.MarkupMethod
	}
	if m := st.Price; m != nil && *m.Pricing.InputPer1mTokens > 0 {
		r.CachedPricePctOfInput = ptrTo(round1(*m.Pricing.CachedInputPer1mTokens / *m.Pricing.InputPer1mTokens * 100))
		r.Notes = ptrTo(*r.Notes + " Cached price percent of " + m.Model + " (the /prompt-caching price model).")
	}
	return r
}

func buildCachingGranularity(in *Input) (*Catalog, error) {
	ci, err := readCachingInputs(in)
	if err != nil {
		return nil, err
	}
	recs := make([]api.CachingGranularityRecord, 0, len(ci.providers))
	for _, p := range ci.providers {
		recs = append(recs, cachingGranularityOf(p, ci.pricing))
	}
	return &Catalog{AsOf: ci.priceCat.AsOf, Sources: ci.cachingSources(), Records: recs}, nil
}
