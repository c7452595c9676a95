package impl

import (
	"cmp"
	"context"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/switchboard/switchboard/catalog"
	"github.com/switchboard/switchboard/gen/api"
)

// the SDK and change-feed catalogs: SDK support, the API change feed, function calling, log probabilities, WebSocket support, streaming
// latency and embedding quality.

// The catalogs of this file.
var (
	sdkSupportCatalog = declare(catalog.Spec[api.SdkSupportRecord]{
		Name: "sdk_support", Provider: sdkProvider, Natural: catalog.ByKeys(sdkProvider),
	})
	functionCallingCatalog = declare(catalog.Spec[api.FunctionCallingRecord]{
		Name: "function_calling", Provider: functionCallingProvider, Natural: catalog.ByKeys(functionCallingProvider),
	})
	logprobCatalog = declare(catalog.Spec[api.LogprobSupportRecord]{
		Name: "logprob_support", Provider: logprobProvider, Natural: catalog.ByKeys(logprobProvider),
	})
	websocketCatalog = declare(catalog.Spec[api.WebsocketSupportRecord]{
		Name: "websocket_support", Provider: websocketProvider, Natural: catalog.ByKeys(websocketProvider, websocketUseCase),
	})
	changelogCatalog = declare(catalog.Spec[api.ApiChangelogRecord]{
		Name: "api_changelog", Provider: changelogProvider, Natural: changelogNatural,
	})
	streamingLatencyCatalog = declare(catalog.Spec[api.StreamingLatencyRecord]{
		Name: "streaming_latency", Provider: latencyProvider,
		Natural: catalog.Then(catalog.Ascending(latencyTTFT), latencyKeys),
		Orders: map[string]catalog.Order[api.StreamingLatencyRecord]{
			string(api.GetStreamingLatencyParamsSortTpt): {By: catalog.Then(catalog.Ascending(latencyTPT), latencyKeys)},
		},
	})
	embeddingQualityCatalog = declare(catalog.Spec[api.EmbeddingQualityRecord]{
		Name: "embedding_quality", Provider: embeddingProvider,
		Natural: catalog.Then(catalog.Descending(embeddingScore), catalog.ByKeys(embeddingProvider, embeddingModel, embeddingTask)),
	})
)

// The document's defaults for the the SDK and change-feed catalogs endpoints (the request validator does not fill them in).
const (
	defaultAPIChangelogDays     = 30
	defaultAPIChangelogLimit    = 50
	defaultEmbeddingLimit       = 20
	defaultStreamingLatencySort = api.GetStreamingLatencyParamsSortTtft
	// streamingBenchmarkSource is the published benchmark the streaming-latency catalog is drawn from.
	streamingBenchmarkSource = "LLM-Stats.com"
)

// Record fields the specs and filters read.
func sdkProvider(r *api.SdkSupportRecord) string                  { return r.ProviderId }
func functionCallingProvider(r *api.FunctionCallingRecord) string { return r.ProviderId }
func logprobProvider(r *api.LogprobSupportRecord) string          { return r.ProviderId }
func websocketProvider(r *api.WebsocketSupportRecord) string      { return r.ProviderId }
func websocketUseCase(r *api.WebsocketSupportRecord) string       { return orDefault(r.UseCase, "") }
func changelogProvider(r *api.ApiChangelogRecord) string          { return r.ProviderId }
func latencyProvider(r *api.StreamingLatencyRecord) string        { return r.ProviderId }
func latencyModel(r *api.StreamingLatencyRecord) string           { return r.ModelId }
func latencyTTFT(r *api.StreamingLatencyRecord) *float64          { return r.MedianTtftMs }
func latencyTPT(r *api.StreamingLatencyRecord) *float64           { return r.MedianTptMs }
func embeddingProvider(r *api.EmbeddingQualityRecord) string      { return r.ProviderId }
func embeddingModel(r *api.EmbeddingQualityRecord) string         { return r.ModelId }
func embeddingTask(r *api.EmbeddingQualityRecord) string          { return string(r.TaskType) }
func embeddingScore(r *api.EmbeddingQualityRecord) *float64       { return &r.MtebScore }

var latencyKeys = catalog.ByKeys(latencyProvider, latencyModel)

// changelogNatural is the feed's order: newest first, then provider ID, title and change type ascending.
func changelogNatural(a, b *api.ApiChangelogRecord) int {
	return cmp.Or(b.Date.Compare(a.Date.Time), strings.Compare(a.ProviderId, b.ProviderId), strings.Compare(a.Title, b.Title),
		strings.Compare(string(a.ChangeType), string(b.ChangeType)))
}

// sdkSelection is what `language` and `official_only` keep of a record's SDK entries.
type sdkSelection struct {
	language     string // lower case; "" keeps every language
	officialOnly bool
}

func (sel sdkSelection) active() bool { return sel.language != "" || sel.officialOnly }

func (sel sdkSelection) keeps(s api.SdkSupportSdk) bool {
	return (sel.language == "" || strings.ToLower(s.Language) == sel.language) && (!sel.officialOnly || s.Official)
}

// narrowSDKs returns r with only the SDK entries sel keeps, and sdk_count and languages recomputed for them (the
// operation's description); r itself is shared catalog memory and is not modified.
func narrowSDKs(r api.SdkSupportRecord, sel sdkSelection) api.SdkSupportRecord {
	if !sel.active() {
		return r
	}
	out := r
	out.Sdks = []api.SdkSupportSdk{}
	out.Languages = []string{}
	for _, s := range r.Sdks {
		if !sel.keeps(s) {
			continue
		}
		out.Sdks = append(out.Sdks, s)
		if !slices.Contains(out.Languages, s.Language) {
			out.Languages = append(out.Languages, s.Language)
		}
	}
	slices.Sort(out.Languages)
	out.SdkCount = len(out.Sdks)
	return out
}

// sdkLanguages is every language with at least one SDK in recs, ascending.
func sdkLanguages(recs []api.SdkSupportRecord) []string {
	langs := []string{}
	for _, r := range recs {
		for _, s := range r.Sdks {
			if !slices.Contains(langs, s.Language) {
				langs = append(langs, s.Language)
			}
		}
	}
	slices.Sort(langs)
	return langs
}

// GetSdkSupport serves the SDKs of each provider. `language` and `official_only` narrow each record's SDK list
// and drop the providers left without one.
func (s *Server) GetSdkSupport(ctx context.Context, req api.GetSdkSupportRequestObject) (api.GetSdkSupportResponseObject, error) {
	p := req.Params
	sel := sdkSelection{language: strings.ToLower(orDefault(p.Language, "")), officialOnly: orDefault(p.OfficialOnly, false)}
	cs, err := s.catalogs()
	if err != nil {
		return nil, err
	}
	all, err := sdkSupportCatalog.from(cs).Select(catalog.Query[api.SdkSupportRecord]{})
	if err != nil {
		return nil, err
	}
	ok := func(recs []api.SdkSupportRecord, m listMeta) api.GetSdkSupportResponseObject {
		out := make([]api.SdkSupportRecord, len(recs))
		for i, r := range recs {
			out[i] = narrowSDKs(r, sel)
		}
		meta := api.SdkSupportMeta{Total: m.Total, NextCursor: m.NextCursor, AvailableLanguages: sdkLanguages(all), AsOf: m.AsOf, Sources: m.Sources}
		return api.GetSdkSupport200JSONResponse{SdkSupport: out, Meta: meta}
	}
	q := catalog.Query[api.SdkSupportRecord]{Provider: orDefault(p.Provider, "")}
	return answer[api.GetSdkSupport404JSONResponse, api.GetSdkSupport400JSONResponse](ctx, s, pageOf(req.Params.Limit, req.Params.Cursor), sdkSupportCatalog.from, ok, q,
		catalog.Flag(sel.active(), func(r *api.SdkSupportRecord) bool { return slices.ContainsFunc(r.Sdks, sel.keeps) }),
		catalog.Flag(orDefault(p.ReferenceCompatOnly, false), func(r *api.SdkSupportRecord) bool { return r.ReferenceCompatSdk }))
}

// GetFunctionCalling serves function-calling support per provider.
func (s *Server) GetFunctionCalling(ctx context.Context, req api.GetFunctionCallingRequestObject) (api.GetFunctionCallingResponseObject, error) {
	p := req.Params
	ok := func(recs []api.FunctionCallingRecord, m listMeta) api.GetFunctionCallingResponseObject {
		return api.GetFunctionCalling200JSONResponse{FunctionCalling: recs, Meta: api.FunctionCallingMeta{Total: m.Total, NextCursor: m.NextCursor, AsOf: m.AsOf, Sources: m.Sources}}
	}
	q := catalog.Query[api.FunctionCallingRecord]{Provider: orDefault(p.Provider, "")}
	return answer[api.GetFunctionCalling404JSONResponse, api.GetFunctionCalling400JSONResponse](ctx, s, pageOf(req.Params.Limit, req.Params.Cursor), functionCallingCatalog.from, ok, q,
		trueFlag(p.ParallelOnly, func(r *api.FunctionCallingRecord) *bool { return r.ParallelCallsSupported }),
		trueFlag(p.SupportedOnly, func(r *api.FunctionCallingRecord) *bool { return r.ToolCallSupported }))
}

func logprobSupported(r *api.LogprobSupportRecord) bool { return isTrue(r.LogprobSupported) }

// GetLogprobSupport serves log-probability support per provider, with counts over the returned records.
func (s *Server) GetLogprobSupport(ctx context.Context, req api.GetLogprobSupportRequestObject) (api.GetLogprobSupportResponseObject, error) {
	p := req.Params
	ok := func(recs []api.LogprobSupportRecord, m listMeta) api.GetLogprobSupportResponseObject {
		meta := api.LogprobSupportMeta{SupportedCount: catalog.Count(recs, logprobSupported), Total: m.Total, NextCursor: m.NextCursor, AsOf: m.AsOf, Sources: m.Sources}
		return api.GetLogprobSupport200JSONResponse{LogprobSupport: recs, Meta: meta}
	}
	q := catalog.Query[api.LogprobSupportRecord]{Provider: orDefault(p.Provider, "")}
	return answer[api.GetLogprobSupport404JSONResponse, api.GetLogprobSupport400JSONResponse](ctx, s, pageOf(req.Params.Limit, req.Params.Cursor), logprobCatalog.from, ok, q,
		catalog.Flag(orDefault(p.SupportedOnly, false), logprobSupported))
}

func websocketSupported(r *api.WebsocketSupportRecord) bool { return isTrue(r.WebsocketSupported) }

// sseOnly is a record confirmed without WebSocket support that streams with server-sent events.
func sseOnly(r *api.WebsocketSupportRecord) bool {
	return isFalse(r.WebsocketSupported) && r.AlsoSupportsSse
}

// GetWebsocketSupport serves WebSocket support per provider and use case, with counts over the returned records.
func (s *Server) GetWebsocketSupport(ctx context.Context, req api.GetWebsocketSupportRequestObject) (api.GetWebsocketSupportResponseObject, error) {
	p := req.Params
	ok := func(recs []api.WebsocketSupportRecord, m listMeta) api.GetWebsocketSupportResponseObject {
		meta := api.WebsocketSupportMeta{Total: m.Total, NextCursor: m.NextCursor,
			WebsocketCount: catalog.Count(recs, websocketSupported), SseOnlyCount: catalog.Count(recs, sseOnly),
			AsOf: m.AsOf, Sources: m.Sources,
		}
		return api.GetWebsocketSupport200JSONResponse{WebsocketSupport: recs, Meta: meta}
	}
	category := strings.ToLower(orDefault(p.Category, ""))
	q := catalog.Query[api.WebsocketSupportRecord]{Provider: orDefault(p.Provider, "")}
	return answer[api.GetWebsocketSupport404JSONResponse, api.GetWebsocketSupport400JSONResponse](ctx, s, pageOf(req.Params.Limit, req.Params.Cursor), websocketCatalog.from, ok, q,
		catalog.Flag(orDefault(p.WebsocketOnly, false), websocketSupported),
		catalog.Flag(category != "", func(r *api.WebsocketSupportRecord) bool { return strings.ToLower(websocketUseCase(r)) == category }))
}

// changelogWindow is the `days` window ending today (UTC): the days from today minus days through today, both
// inclusive. Entries dated after today (announced future shutdowns and price changes) are outside it.
func changelogWindow(now time.Time, days int) (from, to time.Time) {
	to = time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	return to.AddDate(0, 0, -days), to
}

// mergeChangelog adds the refresh's entries to the derived ones, in the feed's order: date descending, then
// provider ID and title ascending.
func mergeChangelog(derived, fresh []api.ApiChangelogRecord) []api.ApiChangelogRecord {
	out := make([]api.ApiChangelogRecord, 0, len(derived)+len(fresh))
	out = append(append(out, derived...), fresh...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if !a.Date.Equal(b.Date.Time) {
			return a.Date.After(b.Date.Time)
		}
		if a.ProviderId != b.ProviderId {
			return a.ProviderId < b.ProviderId
		}
		return a.Title < b.Title
	})
	return out
}

// addSources appends the sources of more that list does not hold yet.
func addSources(list, more []api.Source) []api.Source {
	out := slices.Clone(list)
	for _, s := range more {
		if !slices.ContainsFunc(out, func(x api.Source) bool { return x.Id == s.Id }) {
			out = append(out, s)
		}
	}
	return out
}

// changelogCounts are the meta counts of the entries matching a request, before `limit`.
func changelogCounts(recs []api.ApiChangelogRecord) (api.ApiChangelogByType, api.ApiChangelogByImpact) {
	var byType api.ApiChangelogByType
	var byImpact api.ApiChangelogByImpact
	for _, r := range recs {
		switch r.ChangeType {
		case api.ApiChangelogChangeTypeNewModel:
			byType.NewModel++
		case api.ApiChangelogChangeTypeDeprecation:
			byType.Deprecation++
		case api.ApiChangelogChangeTypePricingChange:
			byType.PricingChange++
		case api.ApiChangelogChangeTypeFeatureAdded:
			byType.FeatureAdded++
		case api.ApiChangelogChangeTypeBreakingChange:
			byType.BreakingChange++
		case api.ApiChangelogChangeTypeRateLimitChange:
			byType.RateLimitChange++
		}
		switch r.Impact {
		case api.ApiChangelogImpactHigh:
			byImpact.High++
		case api.ApiChangelogImpactMedium:
			byImpact.Medium++
		case api.ApiChangelogImpactLow:
			byImpact.Low++
		}
	}
	return byType, byImpact
}

// GetApiChangelog serves the API change feed of the last `days` days, counted back from the server's clock.
func (s *Server) GetApiChangelog(ctx context.Context, req api.GetApiChangelogRequestObject) (api.GetApiChangelogResponseObject, error) {
	p := req.Params
	limit := orDefault(p.Limit, defaultAPIChangelogLimit)
	from, to := changelogWindow(s.now(), orDefault(p.Days, defaultAPIChangelogDays))
	var fresh []api.ApiChangelogRecord
	var freshSources []api.Source
	if s.deps.Store != nil && (p.Provider == nil || s.deps.Providers.Known(*p.Provider)) {
		var err error
		fresh, freshSources, err = s.refreshEntries(ctx, refreshFilter{provider: orDefault(p.Provider, ""), typ: p.Type, impact: p.Impact, from: from, to: to})
		if err != nil {
			return nil, err
		}
	}
	ok := func(recs []api.ApiChangelogRecord, m listMeta) api.GetApiChangelogResponseObject {
		if len(fresh) > 0 {
			recs = mergeChangelog(recs, fresh)
			m.Sources = addSources(m.Sources, freshSources)
		}
		byType, byImpact := changelogCounts(recs)
		return api.GetApiChangelog200JSONResponse{
			Changelog: recs[:min(limit, len(recs))],
			Meta:      api.ApiChangelogMeta{ByType: byType, ByImpact: byImpact, AsOf: m.AsOf, Sources: m.Sources},
		}
	}
	q := catalog.Query[api.ApiChangelogRecord]{Provider: orDefault(p.Provider, "")}
	return answer[api.GetApiChangelog404JSONResponse, api.GetApiChangelog400JSONResponse](ctx, s, wholeList, changelogCatalog.from, ok, q,
		catalog.Between(from, to, func(r *api.ApiChangelogRecord) (time.Time, bool) { return r.Date.Time, true }),
		catalog.Equal(p.Type, func(r *api.ApiChangelogRecord) api.ApiChangelogChangeType { return r.ChangeType }),
		catalog.Equal(p.Impact, func(r *api.ApiChangelogRecord) api.ApiChangelogImpact { return r.Impact }))
}

// streamingLatencyOrder is the catalog order a `sort` value asks for: the natural order is ascending TTFT.
func streamingLatencyOrder(sort api.GetStreamingLatencyParamsSort) string {
	if sort == api.GetStreamingLatencyParamsSortTpt {
		return string(sort)
	}
	return catalog.Natural
}

// GetStreamingLatency serves published streaming-latency figures per model.
func (s *Server) GetStreamingLatency(ctx context.Context, req api.GetStreamingLatencyRequestObject) (api.GetStreamingLatencyResponseObject, error) {
	p := req.Params
	ok := func(recs []api.StreamingLatencyRecord, m listMeta) api.GetStreamingLatencyResponseObject {
		meta := api.StreamingLatencyMeta{Total: m.Total, NextCursor: m.NextCursor, BenchmarkSource: streamingBenchmarkSource, AsOf: m.AsOf, Sources: m.Sources}
		return api.GetStreamingLatency200JSONResponse{StreamingLatency: recs, Meta: meta}
	}
	q := catalog.Query[api.StreamingLatencyRecord]{
		Provider: orDefault(p.Provider, ""), Order: streamingLatencyOrder(orDefault(p.Sort, defaultStreamingLatencySort)),
	}
	return answer[api.GetStreamingLatency404JSONResponse, api.GetStreamingLatency400JSONResponse](ctx, s, pageOf(req.Params.Limit, req.Params.Cursor), streamingLatencyCatalog.from, ok, q,
		catalog.Contains(orDefault(p.Model, ""), latencyModel))
}

// GetEmbeddingQuality serves embedding benchmark scores, best first.
func (s *Server) GetEmbeddingQuality(ctx context.Context, req api.GetEmbeddingQualityRequestObject) (api.GetEmbeddingQualityResponseObject, error) {
	p := req.Params
	ok := func(recs []api.EmbeddingQualityRecord, m listMeta) api.GetEmbeddingQualityResponseObject {
		return api.GetEmbeddingQuality200JSONResponse{EmbeddingQuality: recs, Meta: api.EmbeddingQualityMeta{AsOf: m.AsOf, Sources: m.Sources}}
	}
	q := catalog.Query[api.EmbeddingQualityRecord]{Provider: orDefault(p.Provider, ""), Limit: orDefault(p.Limit, defaultEmbeddingLimit)}
	return answer[api.GetEmbeddingQuality404JSONResponse, api.GetEmbeddingQuality400JSONResponse](ctx, s, wholeList, embeddingQualityCatalog.from, ok, q,
		catalog.Equal(p.TaskType, func(r *api.EmbeddingQualityRecord) api.EmbeddingQualityTaskType { return r.TaskType }),
		catalog.AtLeast(orDefault(p.MinScore, 0), embeddingScore))
}
