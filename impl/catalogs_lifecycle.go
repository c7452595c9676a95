package impl

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/switchboard/switchboard/catalog"
	"github.com/switchboard/switchboard/gen/api"
)

// The model lifecycle, version, knowledge-cutoff and task-fit catalogs (the lifecycle catalogs). All are derived by
// catalogbuild/derive; the rules are in each operation's description.

// The catalogs of this file.
var (
	deprecationsCatalog = declare(catalog.Spec[api.DeprecationsRecord]{
		Name: "deprecations", Provider: func(r *api.DeprecationsRecord) string { return r.ProviderId },
		Natural: catalog.Then(dateAscending(func(r *api.DeprecationsRecord) *openapi_types.Date { return r.SunsetDate }),
			catalog.ByKeys(func(r *api.DeprecationsRecord) string { return r.ProviderId }, func(r *api.DeprecationsRecord) string { return r.ModelId })),
	})
	lifecycleCatalog = declare(catalog.Spec[api.ModelLifecycleRecord]{
		Name: "model_lifecycle", Provider: func(r *api.ModelLifecycleRecord) string { return r.ProviderId },
		Natural: catalog.ByKeys(func(r *api.ModelLifecycleRecord) string { return r.ProviderId }, lifecycleModel),
	})
	knowledgeCutoffCatalog = declare(catalog.Spec[api.KnowledgeCutoffRecord]{
		Name: "knowledge_cutoff", Provider: func(r *api.KnowledgeCutoffRecord) string { return r.ProviderId },
		Model: func(r *api.KnowledgeCutoffRecord) string { return r.ModelId },
		Natural: catalog.Then(dateDescending(knowledgeCutoffDate),
			catalog.ByKeys(func(r *api.KnowledgeCutoffRecord) string { return r.ProviderId }, knowledgeCutoffModel)),
	})
	modelVersionsCatalog = declare(catalog.Spec[api.ModelVersionsRecord]{
		Name: "model_versions", Provider: func(r *api.ModelVersionsRecord) string { return r.ProviderId },
		Natural: catalog.ByKeys(func(r *api.ModelVersionsRecord) string { return r.ProviderId }, modelVersionsAlias),
	})
	resolveAliasCatalog = declare(catalog.Spec[api.ResolveAliasRecord]{
		Name: "resolve_alias", Provider: resolveAliasProvider,
		Natural: catalog.ByKeys(resolveAliasProvider, func(r *api.ResolveAliasRecord) string { return r.Alias }),
	})
	taskFitCatalog = declare(catalog.Spec[api.ModelTaskFitRecord]{
		Name: "model_task_fit", Provider: func(r *api.ModelTaskFitRecord) string { return r.ProviderId },
		Natural: catalog.Then(catalog.Descending(taskFitScoreOf), catalog.ByKeys(
			func(r *api.ModelTaskFitRecord) string { return r.ProviderId }, taskFitModel,
			func(r *api.ModelTaskFitRecord) string { return string(r.Task) })),
	})
)

// Record fields the orders and filters read.
func lifecycleModel(r *api.ModelLifecycleRecord) string                    { return r.ModelId }
func knowledgeCutoffModel(r *api.KnowledgeCutoffRecord) string             { return r.ModelId }
func modelVersionsAlias(r *api.ModelVersionsRecord) string                 { return r.Alias }
func resolveAliasProvider(r *api.ResolveAliasRecord) string                { return r.ProviderId }
func taskFitModel(r *api.ModelTaskFitRecord) string                        { return r.ModelId }
func taskFitScoreOf(r *api.ModelTaskFitRecord) *float64                    { return &r.Score }
func knowledgeCutoffDate(r *api.KnowledgeCutoffRecord) *openapi_types.Date { return r.CutoffDate }

// datesAsDays turns a date field into a number the catalog's orders compare (days since 1970), nil when unknown.
func datesAsDays[T any](field func(*T) *openapi_types.Date) func(*T) *int64 {
	return func(r *T) *int64 {
		d := field(r)
		if d == nil {
			return nil
		}
		n := d.Time.Unix() / 86400
		return &n
	}
}

// dateAscending orders by a date, earliest first, unknown dates last.
func dateAscending[T any](field func(*T) *openapi_types.Date) catalog.Compare[T] {
	return catalog.Ascending(datesAsDays(field))
}

// dateDescending orders by a date, latest first, unknown dates last.
func dateDescending[T any](field func(*T) *openapi_types.Date) catalog.Compare[T] {
	return catalog.Descending(datesAsDays(field))
}

// datesStrictlyBetween keeps the records whose date is known and strictly after `after` and strictly before `before`
// (each nil: open). The dates are whole days, so the exclusive bounds are the inclusive ones a day inwards.
func datesStrictlyBetween[T any](after, before *openapi_types.Date, field func(*T) *openapi_types.Date) catalog.Filter[T] {
	var from, to time.Time
	if after != nil {
		from = after.Time.AddDate(0, 0, 1)
	}
	if before != nil {
		to = before.Time.AddDate(0, 0, -1)
	}
	return catalog.Between(from, to, func(r *T) (time.Time, bool) {
		d := field(r)
		if d == nil {
			return time.Time{}, false
		}
		return d.Time, true
	})
}

// Lifecycle stage groups of the spec.
var (
	lifecycleActiveStages = []api.ModelLifecycleStage{api.ModelLifecycleStageExperimental, api.ModelLifecycleStagePreview,
		api.ModelLifecycleStageBeta, api.ModelLifecycleStageGa}
	lifecycleDeprecatedStages = []api.ModelLifecycleStage{api.ModelLifecycleStageSoftDeprecated,
		api.ModelLifecycleStageHardDeprecated, api.ModelLifecycleStageSunset}
)

func lifecycleStageIn(stages []api.ModelLifecycleStage) func(*api.ModelLifecycleRecord) bool {
	return func(r *api.ModelLifecycleRecord) bool { return slices.Contains(stages, r.Stage) }
}

// deprecationSummary counts the records per status; every status is present.
func deprecationSummary(recs []api.DeprecationsRecord) api.DeprecationsSummary {
	count := func(s api.DeprecationsStatus) int {
		return catalog.Count(recs, func(r *api.DeprecationsRecord) bool { return r.Status == s })
	}
	return api.DeprecationsSummary{
		Active: count(api.DeprecationsStatusActive), Warning: count(api.DeprecationsStatusWarning),
		Deprecated: count(api.DeprecationsStatusDeprecated), Sunset: count(api.DeprecationsStatusSunset),
	}
}

// deprecationStatusAt is a record's status on day: a model whose sunset date has come is `sunset`, whatever the
// catalog's build judged, so that the answer ages with the clock and not with the build.
func deprecationStatusAt(r *api.DeprecationsRecord, day time.Time) api.DeprecationsStatus {
	if r.SunsetDate != nil && !r.SunsetDate.Time.After(day) {
		return api.DeprecationsStatusSunset
	}
	return r.Status
}

// lifecycleStageAt is a record's stage on day: from its shutdown day on a model is `sunset`.
func lifecycleStageAt(r *api.ModelLifecycleRecord, day time.Time) api.ModelLifecycleStage {
	if r.DeprecationDate != nil && !r.DeprecationDate.Time.After(day) {
		return api.ModelLifecycleStageSunset
	}
	return r.Stage
}

// daysUntil is the number of whole days from day to the shutdown date; nil without one.
func daysUntil(shutdown *openapi_types.Date, day time.Time) *int {
	if shutdown == nil {
		return nil
	}
	d := time.Date(shutdown.Year(), shutdown.Month(), shutdown.Day(), 0, 0, 0, 0, time.UTC)
	n := int(d.Sub(day).Hours() / 24)
	return &n
}

// today is the server's day (UTC midnight), the day statuses and days left are judged at.
func (s *Server) today() time.Time {
	now := s.now()
	return time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
}

// GetDeprecations serves the deprecation status of each model, soonest sunset first; statuses and the days left
// are judged at the server's clock.
func (s *Server) GetDeprecations(ctx context.Context, req api.GetDeprecationsRequestObject) (api.GetDeprecationsResponseObject, error) {
	day := s.today()
	ok := func(recs []api.DeprecationsRecord, m listMeta) api.GetDeprecationsResponseObject {
		out := slices.Clone(recs) // the catalog's slice is shared: the copy is aged to the day
		for i := range out {
			out[i].Status = deprecationStatusAt(&out[i], day)
			out[i].DaysUntilShutdown = daysUntil(out[i].SunsetDate, day)
		}
		return api.GetDeprecations200JSONResponse{Deprecations: out, Summary: deprecationSummary(out),
			Meta: api.DeprecationsMeta{Total: m.Total, NextCursor: m.NextCursor, AsOf: m.AsOf, Sources: m.Sources}}
	}
	q := catalog.Query[api.DeprecationsRecord]{Provider: orDefault(req.Params.Provider, "")}
	return answer[api.GetDeprecations404JSONResponse, api.GetDeprecations400JSONResponse](ctx, s, pageOf(req.Params.Limit, req.Params.Cursor), deprecationsCatalog.from, ok, q,
		catalog.Equal(req.Params.Status, func(r *api.DeprecationsRecord) api.DeprecationsStatus { return deprecationStatusAt(r, day) }))
}

// lifecycleMeta counts the deprecated and sunset records among those returned.
func lifecycleMeta(recs []api.ModelLifecycleRecord, m listMeta) api.ModelLifecycleMeta {
	return api.ModelLifecycleMeta{Total: m.Total, NextCursor: m.NextCursor,
		DeprecatedCount: catalog.Count(recs, lifecycleStageIn(lifecycleDeprecatedStages)),
		SunsetCount:     catalog.Count(recs, lifecycleStageIn([]api.ModelLifecycleStage{api.ModelLifecycleStageSunset})),
		AsOf:            m.AsOf, Sources: m.Sources,
	}
}

// GetModelLifecycle serves the lifecycle stage of each model; stages and the days left are judged at the server's
// clock, filters included.
func (s *Server) GetModelLifecycle(ctx context.Context, req api.GetModelLifecycleRequestObject) (api.GetModelLifecycleResponseObject, error) {
	day := s.today()
	ok := func(recs []api.ModelLifecycleRecord, m listMeta) api.GetModelLifecycleResponseObject {
		out := slices.Clone(recs)
		for i := range out {
			out[i].Stage = lifecycleStageAt(&out[i], day)
			out[i].DaysUntilShutdown = daysUntil(out[i].DeprecationDate, day)
		}
		return api.GetModelLifecycle200JSONResponse{Data: out, Meta: lifecycleMeta(out, m)}
	}
	stageIn := func(stages []api.ModelLifecycleStage) func(*api.ModelLifecycleRecord) bool {
		return func(r *api.ModelLifecycleRecord) bool { return slices.Contains(stages, lifecycleStageAt(r, day)) }
	}
	p := req.Params
	q := catalog.Query[api.ModelLifecycleRecord]{Provider: orDefault(p.Provider, "")}
	return answer[api.GetModelLifecycle404JSONResponse, api.GetModelLifecycle400JSONResponse](ctx, s, pageOf(req.Params.Limit, req.Params.Cursor), lifecycleCatalog.from, ok, q,
		catalog.Contains(orDefault(p.Model, ""), lifecycleModel),
		catalog.Equal(p.Stage, func(r *api.ModelLifecycleRecord) api.ModelLifecycleStage { return lifecycleStageAt(r, day) }),
		catalog.Flag(orDefault(p.DeprecatedOnly, false), stageIn(lifecycleDeprecatedStages)),
		catalog.Flag(orDefault(p.ActiveOnly, false), stageIn(lifecycleActiveStages)))
}

// GetKnowledgeCutoff serves each current model's knowledge cutoff, newest first.
func (s *Server) GetKnowledgeCutoff(ctx context.Context, req api.GetKnowledgeCutoffRequestObject) (api.GetKnowledgeCutoffResponseObject, error) {
	ok := func(recs []api.KnowledgeCutoffRecord, m listMeta) api.GetKnowledgeCutoffResponseObject {
		return api.GetKnowledgeCutoff200JSONResponse{Data: recs, Meta: api.KnowledgeCutoffMeta{Total: m.Total, NextCursor: m.NextCursor, AsOf: m.AsOf, Sources: m.Sources}}
	}
	p := req.Params
	q := catalog.Query[api.KnowledgeCutoffRecord]{Provider: orDefault(p.Provider, "")}
	return answer[api.GetKnowledgeCutoff404JSONResponse, api.GetKnowledgeCutoff400JSONResponse](ctx, s, pageOf(req.Params.Limit, req.Params.Cursor), knowledgeCutoffCatalog.from, ok, q,
		catalog.Contains(orDefault(p.Model, ""), knowledgeCutoffModel),
		datesStrictlyBetween(p.After, p.Before, knowledgeCutoffDate))
}

// GetModelVersions serves the model aliases with their pinned versions.
func (s *Server) GetModelVersions(ctx context.Context, req api.GetModelVersionsRequestObject) (api.GetModelVersionsResponseObject, error) {
	ok := func(recs []api.ModelVersionsRecord, m listMeta) api.GetModelVersionsResponseObject {
		return api.GetModelVersions200JSONResponse{ModelVersions: recs, Meta: api.ModelVersionsMeta{Total: m.Total, NextCursor: m.NextCursor, AsOf: m.AsOf, Sources: m.Sources}}
	}
	p := req.Params
	q := catalog.Query[api.ModelVersionsRecord]{Provider: orDefault(p.Provider, "")}
	return answer[api.GetModelVersions404JSONResponse, api.GetModelVersions400JSONResponse](ctx, s, pageOf(req.Params.Limit, req.Params.Cursor), modelVersionsCatalog.from, ok, q,
		catalog.Contains(orDefault(p.Model, ""), modelVersionsAlias),
		catalog.Flag(orDefault(p.PinnableOnly, false), func(r *api.ModelVersionsRecord) bool { return r.Pinnable }),
		catalog.Flag(orDefault(p.HasBreakingChanges, false), func(r *api.ModelVersionsRecord) bool { return len(r.BreakingChanges) > 0 }))
}

// mostUsedProviders are the 15 most used LLM providers, most used first (the order of seeds/providers.json).
// When several providers serve the same alias, the resolve-alias description gives the first of these the answer.
var mostUsedProviders = []string{"openai", "anthropic", "google-gemini", "google-vertex-ai", "aws-bedrock", "azure-openai",
	"mistral", "cohere", "groq", "together", "fireworks", "deepseek", "perplexity", "xai", "openrouter"}

// preferredAlias picks, among records of the same alias, the one of the most used provider (mostUsedProviders
// order, then provider_id ascending for the others).
func preferredAlias(recs []api.ResolveAliasRecord) api.ResolveAliasRecord {
	rank := func(id string) int {
		if i := slices.Index(mostUsedProviders, id); i >= 0 {
			return i
		}
		return len(mostUsedProviders)
	}
	return slices.MinFunc(recs, func(a, b api.ResolveAliasRecord) int {
		return cmp.Or(cmp.Compare(rank(a.ProviderId), rank(b.ProviderId)), strings.Compare(a.ProviderId, b.ProviderId))
	})
}

// GetResolveAlias resolves one alias, or lists every alias without one.
func (s *Server) GetResolveAlias(ctx context.Context, req api.GetResolveAliasRequestObject) (api.GetResolveAliasResponseObject, error) {
	alias := req.Params.Alias
	ok := func(recs []api.ResolveAliasRecord, m listMeta) api.GetResolveAliasResponseObject {
		var body api.ResolveAliasResponse
		var err error
		switch {
		case alias == nil:
			err = body.FromResolveAliasListResponse(api.ResolveAliasListResponse{Aliases: recs, Meta: api.ResolveAliasMeta{
				Total: m.Total, NextCursor: m.NextCursor, AsOf: m.AsOf, Sources: m.Sources}})
		case len(recs) == 0:
			return api.GetResolveAlias404JSONResponse{NotFoundJSONResponse: notFound("parameter alias: no such alias in the catalog" + forProviderSuffix(req.Params.Provider))}
		default:
			err = body.FromResolveAliasRecord(preferredAlias(recs))
		}
		if err != nil {
			return api.GetResolveAlias500JSONResponse{InternalErrorJSONResponse: api.InternalErrorJSONResponse{Error: "encoding the answer"}}
		}
		return api.GetResolveAlias200JSONResponse(body)
	}
	q := catalog.Query[api.ResolveAliasRecord]{Provider: orDefault(req.Params.Provider, "")}
	// One alias may have a record per provider serving it, and preferredAlias chooses among them all: only the
	// list pages.
	pg := wholeList
	if alias == nil {
		pg = pageOf(req.Params.Limit, req.Params.Cursor)
	}
	return answer[api.GetResolveAlias404JSONResponse, api.GetResolveAlias400JSONResponse](ctx, s, pg, resolveAliasCatalog.from, ok, q,
		catalog.Equal(alias, func(r *api.ResolveAliasRecord) string { return r.Alias }))
}

// forProviderSuffix completes an error message with the provider it was limited to.
func forProviderSuffix(provider *string) string {
	if provider == nil {
		return ""
	}
	return " for that provider"
}

// taskFitMeasured reports whether any model of the task-fit catalog has a score for the task.
func (s *Server) taskFitMeasured(task api.ModelTaskFitTask) bool {
	cs, err := s.catalogs()
	if err != nil {
		return true // the catalog's own answer reports the failure
	}
	recs, err := taskFitCatalog.from(cs).Select(catalog.Query[api.ModelTaskFitRecord]{Limit: 1,
		Filters: []catalog.Filter[api.ModelTaskFitRecord]{func(r *api.ModelTaskFitRecord) bool { return r.Task == task }}})
	return err != nil || len(recs) > 0
}

// GetModelTaskFit serves task-fit scores, best first.
func (s *Server) GetModelTaskFit(ctx context.Context, req api.GetModelTaskFitRequestObject) (api.GetModelTaskFitResponseObject, error) {
	p := req.Params
	ok := func(recs []api.ModelTaskFitRecord, m listMeta) api.GetModelTaskFitResponseObject {
		meta := api.ModelTaskFitMeta{Total: m.Total, NextCursor: m.NextCursor, AsOf: m.AsOf, Sources: m.Sources}
		if m.Total == 0 && p.Task != nil && !s.taskFitMeasured(*p.Task) {
			note := "No benchmark in the catalog's data measures " + string(*p.Task) + ", so no model has a score for it; a missing score is never guessed."
			meta.Note = &note
		}
		return api.GetModelTaskFit200JSONResponse{Data: recs, Meta: meta}
	}
	q := catalog.Query[api.ModelTaskFitRecord]{Provider: orDefault(p.Provider, "")}
	return answer[api.GetModelTaskFit404JSONResponse, api.GetModelTaskFit400JSONResponse](ctx, s, pageOf(req.Params.Limit, req.Params.Cursor), taskFitCatalog.from, ok, q,
		catalog.Contains(orDefault(p.Model, ""), taskFitModel),
		catalog.Equal(p.Task, func(r *api.ModelTaskFitRecord) api.ModelTaskFitTask { return r.Task }),
		catalog.AtLeast(orDefault(p.MinScore, 0), taskFitScoreOf),
		catalog.Equal(p.Tier, func(r *api.ModelTaskFitRecord) api.ModelTaskFitTier { return r.Tier }))
}
