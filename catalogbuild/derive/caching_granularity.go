package derive

import (
	"slices"

	"github.com/switchboard/switchboard/seeds"
)

func init() {
	Register(Deriver{Name: "caching_granularity", Build: buildCachingGranularity})
}

// cachingGranularityRecord is the OpenAPI CachingGranularityRecord schema, fields in schema order.
type cachingGranularityRecord struct {
	ProviderID                 string   `json:"provider_id"`
	CachingSupported           *bool    `json:"caching_supported"`
	CachingType                *string  `json:"caching_type"`
	CacheableElements          []string `json:"cacheable_elements"`
	ElementsCacheIndependently *bool    `json:"elements_cache_independently"`
	MinTokensPerBlock          *int64   `json:"min_tokens_per_block"`
	MaxCacheBreakpoints        *int64   `json:"max_cache_breakpoints"`
	TTLOptionsSeconds          []int64  `json:"ttl_options_seconds"`
	DefaultTTLSeconds          *int64   `json:"default_ttl_seconds"`
	CachedPricePctOfInput      *float64 `json:"cached_price_pct_of_input"`
	RequiresExplicitMarkup     *bool    `json:"requires_explicit_markup"`
	MarkupMethod               *string  `json:"markup_method"`
	Notes                      *string  `json:"notes"`
}

// cachingGranularityOf builds one provider's /caching-granularity record from the same status as its
// /prompt-caching record.
func cachingGranularityOf(p seeds.Provider, pricing []seeds.PricingRecord) cachingGranularityRecord {
	st := cachingStatusOf(p, pricing)
	r := cachingGranularityRecord{ProviderID: p.ID, CachingSupported: st.Supported, CacheableElements: []string{},
		TTLOptionsSeconds: []int64{}, Notes: ptrTo(st.Basis)}
	if f := st.Fact; f != nil {
		r.CachingType = ptrTo(f.Type)
		r.CacheableElements = slices.Clone(f.Elements)
		r.ElementsCacheIndependently, r.MinTokensPerBlock, r.MaxCacheBreakpoints = f.Independent, f.MinTokens, f.MaxBreakpoints
		r.TTLOptionsSeconds = append(r.TTLOptionsSeconds, f.TTLOptions...)
		r.DefaultTTLSeconds, r.RequiresExplicitMarkup, r.MarkupMethod = f.DefaultTTL, f.Markup, f.MarkupMethod
	}
	if m := st.Price; m != nil && *m.Pricing.InputPer1MTokens > 0 {
		r.CachedPricePctOfInput = ptrTo(round1(*m.Pricing.CachedInputPer1MTokens / *m.Pricing.InputPer1MTokens * 100))
		r.Notes = ptrTo(*r.Notes + " Cached price percent of " + m.Model + " (the /prompt-caching price model).")
	}
	return r
}

func buildCachingGranularity(in *Input) (*Catalog, error) {
	ci, err := readCachingInputs(in)
	if err != nil {
		return nil, err
	}
	recs := make([]cachingGranularityRecord, 0, len(ci.providers))
	for _, p := range ci.providers {
		recs = append(recs, cachingGranularityOf(p, ci.pricing))
	}
	return &Catalog{AsOf: ci.priceCat.AsOf, Sources: ci.cachingSources(), Records: recs}, nil
}
