package impl

import (
	"cmp"
	"context"
	"slices"

	"github.com/switchboard/switchboard/catalog"
	"github.com/switchboard/switchboard/gen/api"
)

// the cost and batch catalogs: cost and batch catalogs (prompt caching, caching granularity, semantic caching, batch APIs,
// fine-tuning, audio prices, reranking).

// The catalogs of this file.
var (
	promptCachingCatalog = declare(catalog.Spec[api.PromptCachingRecord]{
		Name: "prompt_caching", Provider: promptCachingProvider, Natural: catalog.ByKeys(promptCachingProvider),
	})
	cachingGranularityCatalog = declare(catalog.Spec[api.CachingGranularityRecord]{
		Name: "caching_granularity", Provider: cachingGranularityProvider, Natural: catalog.ByKeys(cachingGranularityProvider),
	})
	semanticCachingCatalog = declare(catalog.Spec[api.SemanticCachingRecord]{
		Name: "semantic_caching", Provider: semanticCachingProvider, Natural: catalog.ByKeys(semanticCachingProvider),
	})
	batchAPICatalog = declare(catalog.Spec[api.BatchApiRecord]{
		Name: "batch_api", Provider: batchAPIProvider, Natural: catalog.ByKeys(batchAPIProvider),
	})
	fineTuningCatalog = declare(catalog.Spec[api.FineTuningRecord]{
		Name: "fine_tuning", Provider: fineTuningProvider, Natural: catalog.ByKeys(fineTuningProvider),
	})
	audioPricingCatalog = declare(catalog.Spec[api.AudioPricingRecord]{
		Name: "audio_pricing", Provider: audioPricingProvider, Natural: audioPricingOrder,
	})
	rerankingCatalog = declare(catalog.Spec[api.RerankingRecord]{
		Name: "reranking", Provider: rerankingProvider, Natural: catalog.ByKeys(rerankingProvider),
	})
)

// Record fields the specs and filters read.
func promptCachingProvider(r *api.PromptCachingRecord) string { return r.ProviderId }
func cachingGranularityProvider(r *api.CachingGranularityRecord) string {
	return r.ProviderId
}
func semanticCachingProvider(r *api.SemanticCachingRecord) string { return r.ProviderId }
func batchAPIProvider(r *api.BatchApiRecord) string               { return r.ProviderId }
func fineTuningProvider(r *api.FineTuningRecord) string           { return r.ProviderId }
func audioPricingProvider(r *api.AudioPricingRecord) string       { return r.ProviderId }
func audioPricingModel(r *api.AudioPricingRecord) string          { return r.Model }
func rerankingProvider(r *api.RerankingRecord) string             { return r.ProviderId }

// audioPrice is the price /audio-pricing sorts by: per minute for speech-to-text, per 1000 characters for
// text-to-speech.
func audioPrice(r *api.AudioPricingRecord) *float64 {
	if r.Type == api.AudioPricingRecordTypeStt {
		return r.PricePerMinute
	}
	return r.PricePer1kChars
}

// audioPricingOrder is the order of the operation's description: speech-to-text first, then cheapest first
// (unknown prices last), ties by provider ID then model.
var audioPricingOrder = catalog.Then(
	func(a, b *api.AudioPricingRecord) int {
		return cmp.Compare(audioTypeRank(a.Type), audioTypeRank(b.Type))
	},
	catalog.Ascending(audioPrice),
	catalog.ByKeys(audioPricingProvider, audioPricingModel),
)

func audioTypeRank(t api.AudioPricingRecordType) int {
	if t == api.AudioPricingRecordTypeStt {
		return 0
	}
	return 1
}

// audioTypeFilter is the `type` parameter: stt or tts keeps that type; both (the default) keeps all.
func audioTypeFilter(t *api.GetAudioPricingParamsType) catalog.Filter[api.AudioPricingRecord] {
	want := orDefault(t, api.GetAudioPricingParamsTypeBoth)
	if want == api.GetAudioPricingParamsTypeBoth {
		return nil
	}
	return func(r *api.AudioPricingRecord) bool { return string(r.Type) == string(want) }
}

// offersMethod is the fine-tuning `method` filter.
func offersMethod(m *api.FineTuningMethod) catalog.Filter[api.FineTuningRecord] {
	if m == nil {
		return nil
	}
	want := *m
	return func(r *api.FineTuningRecord) bool { return slices.Contains(r.Methods, want) }
}

// The 200 answers, with the meta counts computed over the records returned.

func promptCachingOK(recs []api.PromptCachingRecord, m listMeta) api.GetPromptCachingResponseObject {
	return api.GetPromptCaching200JSONResponse{PromptCaching: recs, Meta: api.PromptCachingMeta{Total: m.Total, NextCursor: m.NextCursor,
		SupportedCount: countTrue(recs, func(r *api.PromptCachingRecord) *bool { return r.CachingSupported }),
		AsOf:           m.AsOf, Sources: m.Sources,
	}}
}

func cachingGranularityOK(recs []api.CachingGranularityRecord, m listMeta) api.GetCachingGranularityResponseObject {
	return api.GetCachingGranularity200JSONResponse{CachingGranularity: recs,
		Meta: api.CachingGranularityMeta{Total: m.Total, NextCursor: m.NextCursor, AsOf: m.AsOf, Sources: m.Sources}}
}

// semanticCachingNote is /semantic-caching's meta.note.
const semanticCachingNote = "Semantic caching would answer a prompt similar in meaning to an earlier one from a stored " +
	"response. No provider here documents it: prompt (prefix) caching only reuses an identical prompt prefix and " +
	"still generates every response, and exact-match response caches need byte-identical requests. Null means not " +
	"confirmed either way."

func semanticCachingOK(recs []api.SemanticCachingRecord, m listMeta) api.GetSemanticCachingResponseObject {
	return api.GetSemanticCaching200JSONResponse{Data: recs,
		Meta: api.SemanticCachingMeta{Total: m.Total, NextCursor: m.NextCursor, Note: semanticCachingNote, AsOf: m.AsOf, Sources: m.Sources}}
}

func batchAPIOK(recs []api.BatchApiRecord, m listMeta) api.GetBatchApiResponseObject {
	return api.GetBatchApi200JSONResponse{BatchApi: recs, Meta: api.BatchApiMeta{Total: m.Total, NextCursor: m.NextCursor,
		AvailableCount: countTrue(recs, func(r *api.BatchApiRecord) *bool { return r.BatchApiAvailable }),
		AsOf:           m.AsOf, Sources: m.Sources,
	}}
}

func fineTuningOK(recs []api.FineTuningRecord, m listMeta) api.GetFineTuningResponseObject {
	return api.GetFineTuning200JSONResponse{FineTuning: recs, Meta: api.FineTuningMeta{Total: m.Total, NextCursor: m.NextCursor,
		AvailableCount: countTrue(recs, func(r *api.FineTuningRecord) *bool { return r.Available }),
		AsOf:           m.AsOf, Sources: m.Sources,
	}}
}

func audioPricingOK(recs []api.AudioPricingRecord, m listMeta) api.GetAudioPricingResponseObject {
	return api.GetAudioPricing200JSONResponse{AudioPricing: recs, Meta: api.AudioPricingMeta{Total: m.Total, NextCursor: m.NextCursor,
		SttCount:      catalog.Count(recs, func(r *api.AudioPricingRecord) bool { return r.Type == api.AudioPricingRecordTypeStt }),
		TtsCount:      catalog.Count(recs, func(r *api.AudioPricingRecord) bool { return r.Type == api.AudioPricingRecordTypeTts }),
		RealtimeCount: countTrue(recs, func(r *api.AudioPricingRecord) *bool { return r.RealtimeSupported }),
		AsOf:          m.AsOf, Sources: m.Sources,
	}}
}

func rerankingOK(recs []api.RerankingRecord, m listMeta) api.GetRerankingResponseObject {
	return api.GetReranking200JSONResponse{Reranking: recs, Meta: api.RerankingMeta{Total: m.Total, NextCursor: m.NextCursor,
		AvailableCount: countTrue(recs, func(r *api.RerankingRecord) *bool { return r.RerankingAvailable }),
		AsOf:           m.AsOf, Sources: m.Sources,
	}}
}

// The handlers below only say which records each parameter keeps; answer does the rest.

// GetPromptCaching serves prompt caching support and prices per provider.
func (s *Server) GetPromptCaching(ctx context.Context, req api.GetPromptCachingRequestObject) (api.GetPromptCachingResponseObject, error) {
	q := catalog.Query[api.PromptCachingRecord]{Provider: orDefault(req.Params.Provider, "")}
	return answer[api.GetPromptCaching404JSONResponse, api.GetPromptCaching400JSONResponse](ctx, s, pageOf(req.Params.Limit, req.Params.Cursor), promptCachingCatalog.from, promptCachingOK, q,
		trueFlag(req.Params.SupportedOnly, func(r *api.PromptCachingRecord) *bool { return r.CachingSupported }))
}

// GetCachingGranularity serves how prompt caching works per provider.
func (s *Server) GetCachingGranularity(ctx context.Context, req api.GetCachingGranularityRequestObject) (api.GetCachingGranularityResponseObject, error) {
	q := catalog.Query[api.CachingGranularityRecord]{Provider: orDefault(req.Params.Provider, "")}
	return answer[api.GetCachingGranularity404JSONResponse, api.GetCachingGranularity400JSONResponse](ctx, s, pageOf(req.Params.Limit, req.Params.Cursor), cachingGranularityCatalog.from, cachingGranularityOK, q,
		trueFlag(req.Params.SupportsCaching, func(r *api.CachingGranularityRecord) *bool { return r.CachingSupported }))
}

// GetSemanticCaching serves semantic caching support per provider.
func (s *Server) GetSemanticCaching(ctx context.Context, req api.GetSemanticCachingRequestObject) (api.GetSemanticCachingResponseObject, error) {
	q := catalog.Query[api.SemanticCachingRecord]{Provider: orDefault(req.Params.Provider, "")}
	return answer[api.GetSemanticCaching404JSONResponse, api.GetSemanticCaching400JSONResponse](ctx, s, pageOf(req.Params.Limit, req.Params.Cursor), semanticCachingCatalog.from, semanticCachingOK, q,
		trueFlag(req.Params.SemanticOnly, func(r *api.SemanticCachingRecord) *bool { return r.SemanticCachingSupported }))
}

// GetBatchApi serves batch API availability and discounts per provider.
func (s *Server) GetBatchApi(ctx context.Context, req api.GetBatchApiRequestObject) (api.GetBatchApiResponseObject, error) {
	q := catalog.Query[api.BatchApiRecord]{Provider: orDefault(req.Params.Provider, "")}
	return answer[api.GetBatchApi404JSONResponse, api.GetBatchApi400JSONResponse](ctx, s, pageOf(req.Params.Limit, req.Params.Cursor), batchAPICatalog.from, batchAPIOK, q,
		trueFlag(req.Params.AvailableOnly, func(r *api.BatchApiRecord) *bool { return r.BatchApiAvailable }))
}

// GetFineTuning serves fine-tuning availability, methods and prices per provider.
func (s *Server) GetFineTuning(ctx context.Context, req api.GetFineTuningRequestObject) (api.GetFineTuningResponseObject, error) {
	q := catalog.Query[api.FineTuningRecord]{Provider: orDefault(req.Params.Provider, "")}
	return answer[api.GetFineTuning404JSONResponse, api.GetFineTuning400JSONResponse](ctx, s, pageOf(req.Params.Limit, req.Params.Cursor), fineTuningCatalog.from, fineTuningOK, q,
		trueFlag(req.Params.AvailableOnly, func(r *api.FineTuningRecord) *bool { return r.Available }),
		offersMethod(req.Params.Method))
}

// GetAudioPricing serves speech-to-text and text-to-speech prices, speech-to-text first, cheapest first.
func (s *Server) GetAudioPricing(ctx context.Context, req api.GetAudioPricingRequestObject) (api.GetAudioPricingResponseObject, error) {
	q := catalog.Query[api.AudioPricingRecord]{Provider: orDefault(req.Params.Provider, "")}
	return answer[api.GetAudioPricing404JSONResponse, api.GetAudioPricing400JSONResponse](ctx, s, pageOf(req.Params.Limit, req.Params.Cursor), audioPricingCatalog.from, audioPricingOK, q,
		audioTypeFilter(req.Params.Type),
		trueFlag(req.Params.RealtimeOnly, func(r *api.AudioPricingRecord) *bool { return r.RealtimeSupported }),
		catalog.Flag(orDefault(req.Params.FreeOnly, false), func(r *api.AudioPricingRecord) bool { return r.FreeTier != nil }))
}

// GetReranking serves reranking APIs and prices per provider.
func (s *Server) GetReranking(ctx context.Context, req api.GetRerankingRequestObject) (api.GetRerankingResponseObject, error) {
	q := catalog.Query[api.RerankingRecord]{Provider: orDefault(req.Params.Provider, "")}
	return answer[api.GetReranking404JSONResponse, api.GetReranking400JSONResponse](ctx, s, pageOf(req.Params.Limit, req.Params.Cursor), rerankingCatalog.from, rerankingOK, q,
		trueFlag(req.Params.AvailableOnly, func(r *api.RerankingRecord) *bool { return r.RerankingAvailable }),
		trueFlag(req.Params.MultilingualOnly, func(r *api.RerankingRecord) *bool { return r.SupportsMultilingual }))
}
