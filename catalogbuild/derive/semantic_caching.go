package derive

import (
	"github.com/switchboard/switchboard/seeds"

	"github.com/switchboard/switchboard/gen/api"
)

func init() {
	Register(Deriver{Name: "semantic_caching", Build: buildSemanticCaching})
}

// cloudflareGatewayCachingURL documents AI Gateway's response cache, which serves Workers AI (and other providers)
// through a gateway: identical requests only.
const cloudflareGatewayCachingURL = "https://developers.cloudflare.com/ai-gateway/features/caching/"

// semanticCachingOf builds one provider's /semantic-caching record: documented prompt caching is prefix caching
// only (false, exact_prefix); cached prices without documentation show prefix caching but say nothing of a
// semantic cache (null, exact_prefix); a provider without language models has nothing to cache (false).
func semanticCachingOf(p seeds.Provider, pricing []seeds.PricingRecord) api.SemanticCachingRecord {
	st := cachingStatusOf(p, pricing)
	r := api.SemanticCachingRecord{ProviderId: p.ID}
	switch {
	case p.ID == "cloudflare-workers-ai":
		r.SemanticCachingSupported, r.CachingType = ptrTo(false), ptrTo(semanticTypeExactMatch)
		r.SimilarityThresholdConfigurable, r.TtlConfigurable, r.CacheScope = ptrTo(false), ptrTo(true), ptrTo("gateway")
		r.Notes = ptrTo("Cloudflare AI Gateway (in front of Workers AI) can serve identical requests from its cache, with " +
			"a TTL set per gateway or per request (cf-aig-cache-ttl); it does not match similar prompts. Source: " +
			cloudflareGatewayCachingURL + ".")
	case st.Fact != nil:
		r.SemanticCachingSupported, r.CachingType = ptrTo(false), ptrTo(semanticTypeExactPrefix)
		r.SimilarityThresholdConfigurable, r.TtlConfigurable, r.CacheScope = ptrTo(false), st.Fact.TTLConfigurable, st.Fact.Scope
		r.Notes = ptrTo("Only prompt prefix caching is documented: an identical prompt prefix is reused and the response " +
			"is always generated; no response is served for a similar prompt. Source: " + st.Fact.URL + ".")
	case st.Supported != nil && *st.Supported:
		r.CachingType = ptrTo(semanticTypeExactPrefix)
		r.Notes = ptrTo("Cached-input prices in the pricing catalog show prompt prefix caching; whether any semantic " +
			"(similarity) cache exists was not confirmed.")
	case st.Supported != nil:
		r.SemanticCachingSupported, r.SimilarityThresholdConfigurable = ptrTo(false), ptrTo(false)
		r.Notes = ptrTo(noTextGenerationCachingMsg)
	default:
		r.Notes = ptrTo("Not confirmed: no official caching documentation was cited for this provider.")
	}
	return r
}

func buildSemanticCaching(in *Input) (*Catalog, error) {
	ci, err := readCachingInputs(in)
	if err != nil {
		return nil, err
	}
	recs := make([]api.SemanticCachingRecord, 0, len(ci.providers))
	for _, p := range ci.providers {
		recs = append(recs, semanticCachingOf(p, ci.pricing))
	}
	src := append(ci.cachingSources(), seeds.Source{Name: "Cloudflare AI Gateway documentation: caching", URL: cloudflareGatewayCachingURL})
	return &Catalog{AsOf: ci.priceCat.AsOf, Sources: src, Records: recs}, nil
}
