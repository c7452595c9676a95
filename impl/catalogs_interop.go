package impl

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/switchboard/switchboard/catalog"
	"github.com/switchboard/switchboard/gen/api"
)

// The catalogs of the trust and compliance the interoperability catalogs: overflow behaviour, reference compatibility, error codes and
// rate-limit recovery (hand-curated, seeds/catalogs), and migration guides (built from other catalogs by the rules of
// catalogbuild/derive/migration_guide.go).
const (
	catalogOverflowBehaviour = "overflow_behaviour"
	catalogReferenceCompat   = "reference_compat"
	catalogErrorCodes        = "error_codes"
	catalogRateLimitRecovery = "rate_limit_recovery"
	catalogMigrationGuide    = "migration_guide"
)

// errorCategories is meta.categories of GET /error-codes: the six standard categories, then the three added for
// errors none of them fits, in the document's order.
var errorCategories = []api.ErrorCodesCategory{
	api.ErrorCodesCategoryRateLimit, api.ErrorCodesCategoryAuth, api.ErrorCodesCategoryContextLength,
	api.ErrorCodesCategoryContentFilter, api.ErrorCodesCategoryServerError, api.ErrorCodesCategoryTimeout,
	api.ErrorCodesCategoryInvalidRequest, api.ErrorCodesCategoryNotFound, api.ErrorCodesCategoryBilling,
}

func overflowProvider(r *api.OverflowBehaviourRecord) string { return r.ProviderId }
func refCompatProvider(r *api.ReferenceCompatRecord) string  { return r.ProviderId }
func errorCodeProvider(r *api.ErrorCodesRecord) string       { return r.ProviderId }
func recoveryProvider(r *api.RateLimitRecoveryRecord) string { return r.ProviderId }

var (
	overflowCatalog = declare(catalog.Spec[api.OverflowBehaviourRecord]{
		Name: catalogOverflowBehaviour, Provider: overflowProvider, Natural: catalog.ByKeys(overflowProvider),
	})
	refCompatCatalog = declare(catalog.Spec[api.ReferenceCompatRecord]{
		Name: catalogReferenceCompat, Provider: refCompatProvider, Natural: catalog.ByKeys(refCompatProvider),
	})
	errorCodesCatalog = declare(catalog.Spec[api.ErrorCodesRecord]{
		Name: catalogErrorCodes, Provider: errorCodeProvider, Natural: errorCodeOrder,
	})
	recoveryCatalog = declare(catalog.Spec[api.RateLimitRecoveryRecord]{
		Name: catalogRateLimitRecovery, Provider: recoveryProvider, Natural: catalog.ByKeys(recoveryProvider),
	})
)

// errorCodeOrder is the documented order of GET /error-codes: provider, HTTP status, then the provider's error
// type and code, each with unknown (null) last, then the category in meta.categories order.
func errorCodeOrder(a, b *api.ErrorCodesRecord) int {
	return cmp.Or(
		strings.Compare(a.ProviderId, b.ProviderId),
		cmp.Compare(a.HttpStatus, b.HttpStatus),
		catalog.KnownFirst(a.ProviderErrorType, b.ProviderErrorType, false),
		catalog.KnownFirst(a.ProviderErrorCode, b.ProviderErrorCode, false),
		cmp.Compare(slices.Index(errorCategories, a.StandardCategory), slices.Index(errorCategories, b.StandardCategory)),
	)
}

// SilentTruncator tells whether a provider cuts input that does not fit without telling the caller: behaviour
// truncate or sliding_window with warning_provided false (not unknown).
func SilentTruncator(r *api.OverflowBehaviourRecord) bool {
	if r.OverflowBehaviour == nil || r.WarningProvided == nil || *r.WarningProvided {
		return false
	}
	b := *r.OverflowBehaviour
	return b == api.OverflowBehaviourKindTruncate || b == api.OverflowBehaviourKindSlidingWindow
}

// OverflowSummary counts the records per behaviour and lists the silent truncators, in the records' order
// (provider_id ascending).
func OverflowSummary(recs []api.OverflowBehaviourRecord) api.OverflowBehaviourSummary {
	is := func(k api.OverflowBehaviourKind) func(*api.OverflowBehaviourRecord) bool {
		return func(r *api.OverflowBehaviourRecord) bool {
			return r.OverflowBehaviour != nil && *r.OverflowBehaviour == k
		}
	}
	silent := []string{}
	for i := range recs {
		if SilentTruncator(&recs[i]) {
			silent = append(silent, recs[i].ProviderId)
		}
	}
	return api.OverflowBehaviourSummary{
		Error:            catalog.Count(recs, is(api.OverflowBehaviourKindError)),
		Truncate:         catalog.Count(recs, is(api.OverflowBehaviourKindTruncate)),
		SlidingWindow:    catalog.Count(recs, is(api.OverflowBehaviourKindSlidingWindow)),
		SilentTruncators: silent,
	}
}

// GetOverflowBehaviour serves what each provider does when the context window overflows.
func (s *Server) GetOverflowBehaviour(ctx context.Context, req api.GetOverflowBehaviourRequestObject) (api.GetOverflowBehaviourResponseObject, error) {
	ok := func(recs []api.OverflowBehaviourRecord, m listMeta) api.GetOverflowBehaviourResponseObject {
		return api.GetOverflowBehaviour200JSONResponse{
			OverflowBehaviour: recs, Summary: OverflowSummary(recs),
			Meta: api.OverflowBehaviourMeta{Total: m.Total, NextCursor: m.NextCursor, AsOf: m.AsOf, Sources: m.Sources},
		}
	}
	q := catalog.Query[api.OverflowBehaviourRecord]{Provider: orDefault(req.Params.Provider, "")}
	return answer[api.GetOverflowBehaviour404JSONResponse, api.GetOverflowBehaviour400JSONResponse](ctx, s, pageOf(req.Params.Limit, req.Params.Cursor), overflowCatalog.from, ok, q,
		catalog.EqualKnown(req.Params.Behaviour, func(r *api.OverflowBehaviourRecord) *api.OverflowBehaviourKind { return r.OverflowBehaviour }))
}

// A compatibility that is not confirmed (null) counts as neither compatible nor drop-in.
func refCompatible(r *api.ReferenceCompatRecord) bool { return isTrue(r.ReferenceCompatible) }
func refDropIn(r *api.ReferenceCompatRecord) bool     { return isTrue(r.DropInReplacement) }

// GetReferenceCompat serves the reference chat-completions compatibility matrix.
func (s *Server) GetReferenceCompat(ctx context.Context, req api.GetReferenceCompatRequestObject) (api.GetReferenceCompatResponseObject, error) {
	ok := func(recs []api.ReferenceCompatRecord, m listMeta) api.GetReferenceCompatResponseObject {
		return api.GetReferenceCompat200JSONResponse{ReferenceCompat: recs, Meta: api.ReferenceCompatMeta{Total: m.Total, NextCursor: m.NextCursor,
			CompatibleCount: catalog.Count(recs, refCompatible), DropInCount: catalog.Count(recs, refDropIn),
			AsOf: m.AsOf, Sources: m.Sources,
		}}
	}
	q := catalog.Query[api.ReferenceCompatRecord]{Provider: orDefault(req.Params.Provider, "")}
	return answer[api.GetReferenceCompat404JSONResponse, api.GetReferenceCompat400JSONResponse](ctx, s, pageOf(req.Params.Limit, req.Params.Cursor), refCompatCatalog.from, ok, q,
		catalog.Flag(orDefault(req.Params.CompatibleOnly, false), refCompatible),
		catalog.Flag(orDefault(req.Params.DropInOnly, false), refDropIn))
}

// GetErrorCodes serves provider errors mapped to standard categories.
func (s *Server) GetErrorCodes(ctx context.Context, req api.GetErrorCodesRequestObject) (api.GetErrorCodesResponseObject, error) {
	ok := func(recs []api.ErrorCodesRecord, m listMeta) api.GetErrorCodesResponseObject {
		return api.GetErrorCodes200JSONResponse{ErrorCodes: recs, Meta: api.ErrorCodesMeta{Total: m.Total, NextCursor: m.NextCursor,
			Categories: errorCategories, AsOf: m.AsOf, Sources: m.Sources,
		}}
	}
	q := catalog.Query[api.ErrorCodesRecord]{Provider: orDefault(req.Params.Provider, "")}
	return answer[api.GetErrorCodes404JSONResponse, api.GetErrorCodes400JSONResponse](ctx, s, pageOf(req.Params.Limit, req.Params.Cursor), errorCodesCatalog.from, ok, q,
		catalog.Equal(req.Params.Category, func(r *api.ErrorCodesRecord) api.ErrorCodesCategory { return r.StandardCategory }),
		catalog.Flag(orDefault(req.Params.RetryableOnly, false), func(r *api.ErrorCodesRecord) bool { return r.Retryable }),
		catalog.Equal(req.Params.HttpStatus, func(r *api.ErrorCodesRecord) int { return r.HttpStatus }))
}

// GetRateLimitRecovery serves how to recover from rate limiting, per provider.
func (s *Server) GetRateLimitRecovery(ctx context.Context, req api.GetRateLimitRecoveryRequestObject) (api.GetRateLimitRecoveryResponseObject, error) {
	ok := func(recs []api.RateLimitRecoveryRecord, m listMeta) api.GetRateLimitRecoveryResponseObject {
		return api.GetRateLimitRecovery200JSONResponse{RateLimitRecovery: recs, Meta: api.RateLimitRecoveryMeta{Total: m.Total, NextCursor: m.NextCursor, AsOf: m.AsOf, Sources: m.Sources}}
	}
	q := catalog.Query[api.RateLimitRecoveryRecord]{Provider: orDefault(req.Params.Provider, "")}
	return answer[api.GetRateLimitRecovery404JSONResponse, api.GetRateLimitRecovery400JSONResponse](ctx, s, pageOf(req.Params.Limit, req.Params.Cursor), recoveryCatalog.from, ok, q)
}

// migrationDifficulties are the difficulty levels, easiest first: the order of the answer and of max_difficulty.
var migrationDifficulties = []api.MigrationGuideDifficulty{
	api.MigrationGuideDifficultyDropIn, api.MigrationGuideDifficultyEasy,
	api.MigrationGuideDifficultyModerate, api.MigrationGuideDifficultyHard,
}

func guideFrom(r *api.MigrationGuideRecord) string { return r.FromProvider }
func guideTo(r *api.MigrationGuideRecord) string   { return r.ToProvider }

// guideOrder is the documented order: difficulty (easiest first), then from, then to.
func guideOrder(a, b *api.MigrationGuideRecord) int {
	return cmp.Or(cmp.Compare(slices.Index(migrationDifficulties, a.Difficulty), slices.Index(migrationDifficulties, b.Difficulty)),
		strings.Compare(a.FromProvider, b.FromProvider), strings.Compare(a.ToProvider, b.ToProvider))
}

// The guides are indexed by their source provider, so `from` walks only that provider's guides.
var migrationCatalog = declare(catalog.Spec[api.MigrationGuideRecord]{
	Name: catalogMigrationGuide, Provider: guideFrom, Natural: guideOrder,
})

// atMostDifficulty keeps the guides no harder than max; nil is no filter.
func atMostDifficulty(max *api.MigrationGuideDifficulty) catalog.Filter[api.MigrationGuideRecord] {
	if max == nil {
		return nil
	}
	limit := slices.Index(migrationDifficulties, *max)
	return func(r *api.MigrationGuideRecord) bool {
		return slices.Index(migrationDifficulties, r.Difficulty) <= limit
	}
}

// GetMigrationGuide serves the guides from and/or to a provider. Guides exist for the 15 most used LLM providers;
// a known provider outside them has none (an empty list).
func (s *Server) GetMigrationGuide(ctx context.Context, req api.GetMigrationGuideRequestObject) (api.GetMigrationGuideResponseObject, error) {
	from, to := orDefault(req.Params.From, ""), orDefault(req.Params.To, "")
	if from == "" && to == "" {
		return api.GetMigrationGuide400JSONResponse{BadRequestJSONResponse: badRequest("parameters from and to: at least one of from and to is required")}, nil
	}
	for _, p := range []struct{ name, id string }{{"from", from}, {"to", to}} {
		if p.id != "" && !s.deps.Providers.Known(p.id) {
			return api.GetMigrationGuide404JSONResponse{NotFoundJSONResponse: notFound(fmt.Sprintf("parameter %s: unknown provider %q", p.name, p.id))}, nil
		}
	}
	ok := func(recs []api.MigrationGuideRecord, m listMeta) api.GetMigrationGuideResponseObject {
		return api.GetMigrationGuide200JSONResponse{MigrationGuides: recs, Meta: api.MigrationGuideMeta{Total: m.Total, NextCursor: m.NextCursor, AsOf: m.AsOf, Sources: m.Sources}}
	}
	return answer[api.GetMigrationGuide404JSONResponse, api.GetMigrationGuide400JSONResponse](ctx, s, pageOf(req.Params.Limit, req.Params.Cursor), migrationCatalog.from, ok, catalog.Query[api.MigrationGuideRecord]{Provider: from},
		catalog.Flag(to != "", func(r *api.MigrationGuideRecord) bool { return guideTo(r) == to }),
		atMostDifficulty(req.Params.MaxDifficulty),
		catalog.Flag(orDefault(req.Params.DropInOnly, false), func(r *api.MigrationGuideRecord) bool {
			return r.Difficulty == api.MigrationGuideDifficultyDropIn
		}))
}
