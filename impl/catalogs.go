package impl

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/switchboard/switchboard/catalog"
	"github.com/switchboard/switchboard/errs"
	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/seeds"
)

// The document's defaults for the catalog endpoints (the request validator does not fill them in).
const (
	defaultBenchmarksLimit  = 20
	defaultBenchmarksMetric = api.BenchmarksMetricMmlu
)

// benchmarkTaskMetric is the sort metric each benchmarks `task` selects (the operation's description).
var benchmarkTaskMetric = map[api.GetBenchmarksParamsTask]api.BenchmarksMetric{
	api.GetBenchmarksParamsTaskCoding:       api.BenchmarksMetricHumaneval,
	api.GetBenchmarksParamsTaskMath:         api.BenchmarksMetricMath,
	api.GetBenchmarksParamsTaskReasoning:    api.BenchmarksMetricGpqa,
	api.GetBenchmarksParamsTaskGeneral:      api.BenchmarksMetricMmlu,
	api.GetBenchmarksParamsTaskMultilingual: api.BenchmarksMetricMgsm,
	api.GetBenchmarksParamsTaskCommonsense:  api.BenchmarksMetricHellaswag,
}

// benchmarkMetrics are every sort metric of GET /benchmarks, one precomputed order each.
var benchmarkMetrics = []api.BenchmarksMetric{
	api.BenchmarksMetricMmlu, api.BenchmarksMetricHumaneval, api.BenchmarksMetricMath,
	api.BenchmarksMetricGpqa, api.BenchmarksMetricMgsm, api.BenchmarksMetricHellaswag,
}

// orderInputPrice is the pricing view of `compare=true`: token-priced models only, input price per 1M tokens
// ascending.
const orderInputPrice = "input_price"

func tokenPriced(r *api.PricingRecord) bool { return r.Pricing.InputPer1mTokens != nil }

// Record fields the specs and filters read.
func pricingProvider(r *api.PricingRecord) string   { return r.ProviderId }
func pricingModel(r *api.PricingRecord) string      { return r.Model }
func pricingInput(r *api.PricingRecord) *float64    { return r.Pricing.InputPer1mTokens }
func modelProvider(r *api.ModelRecord) string       { return r.ProviderId }
func modelID(r *api.ModelRecord) string             { return r.ModelId }
func rateLimitProvider(r *api.RateLimitTier) string { return r.ProviderId }
func rateLimitTier(r *api.RateLimitTier) string     { return r.Tier }
func benchmarkProvider(r *api.BenchmarksRecord) string {
	return r.ProviderId
}
func benchmarkModel(r *api.BenchmarksRecord) string { return r.ModelId }
func freeTierProvider(r *api.FreeTierRecord) string { return r.ProviderId }

// isFreeRateTier tells the tiers `free_only` keeps on GET /rate-limits: `free`, names starting `free-` (such as
// OpenRouter's `free-10-credits`) and `trial` (Cohere's free trial keys).
func isFreeRateTier(r *api.RateLimitTier) bool {
	t := strings.ToLower(r.Tier)
	return t == "free" || strings.HasPrefix(t, "free-") || t == "trial"
}

// Free-tier kinds of the free-tier catalog's tier_type that its meta counts.
const (
	tierTypePermanent   = "permanent"
	tierTypeTrialCredit = "trial_credit"
)

func freeTierIs(kind string) func(*api.FreeTierRecord) bool {
	return func(r *api.FreeTierRecord) bool { return r.TierType != nil && *r.TierType == kind }
}

// catalogSet is every declared catalog, built once per provider registry: entry i is the *served[T] of the
// i-th declaration.
type catalogSet struct{ built []any }

// served is a catalog with its metadata already in the document's types.
type served[T any] struct {
	*catalog.Catalog[T]
	asOf    openapi_types.Date
	sources []api.Source
	// cites reads a record's source ids (nil for a record type without them): an answer's meta lists the sources
	// its records cite, not every source of the catalog, so that a page stays the size of its records.
	cites func(*T) []string
	// For per-model catalogs: the shutdown day of each of its models that has one, and the earliest of them.
	provider, model func(*T) string
	shutdowns       map[string]string
	firstShutdown   string
}

// shutdownFilter leaves out the models whose shutdown day has come by now; nil (no filter, the shared slice
// served as it is) until the first such day, which is the common case: the build already left out the models
// shut down before it ran.
func (c *served[T]) shutdownFilter(now time.Time) catalog.Filter[T] {
	if c.model == nil || c.firstShutdown == "" {
		return nil
	}
	day := now.UTC().Format(time.DateOnly)
	if day < c.firstShutdown {
		return nil
	}
	return func(r *T) bool {
		d, ok := c.shutdowns[c.provider(r)+"/"+c.model(r)]
		return !ok || d > day
	}
}

// catalogRef is a declared catalog: a handle handlers use to reach its build in a catalogSet.
type catalogRef[T any] struct{ i int }

// from returns the catalog of cs the reference points to. Its signature is that of answer's pick.
func (r catalogRef[T]) from(cs *catalogSet) *served[T] { return cs.built[r.i].(*served[T]) }

// declared are the builders of every declared catalog, in declaration order; each takes the registry's lookup.
var declared []func(known func(string) bool) (any, error)

// declare adds a catalog to every catalogSet. Endpoint files call it in package-level variables, so adding a
// catalog touches only its own file: spec.Known is filled in per registry at build time.
func declare[T any](spec catalog.Spec[T]) catalogRef[T] {
	declared = append(declared, func(known func(string) bool) (any, error) {
		s := spec
		s.Known = known
		return load(s)
	})
	return catalogRef[T]{i: len(declared) - 1}
}

// sharedCatalogs are the catalogs over the embedded provider registry. They depend on the catalog set in service
// only, so every server of the process shares one build per set.
var sharedCatalogs = perSet(func() (*catalogSet, error) { return loadCatalogs(seeds.Providers().Known) })

// catalogsFor returns the catalogs over reg, built once per catalog set.
func catalogsFor(reg *seeds.Registry) func() (*catalogSet, error) {
	if reg == seeds.Providers() {
		return sharedCatalogs
	}
	return perSet(func() (*catalogSet, error) { return loadCatalogs(reg.Known) })
}

// perSet memoizes what build derives from the catalog set in service: it is built once per set, again after a
// catalog refresh installs a new one. A failed build is not kept, so the next call tries again.
// Every catalog request passes here, so the common case is one atomic load; the mutex only keeps two requests
// from building the same set twice.
func perSet[T any](build func() (T, error)) func() (T, error) {
	type built struct {
		gen uint64
		val T
	}
	var (
		mu   sync.Mutex
		last atomic.Pointer[built]
	)
	return func() (T, error) {
		set, err := seeds.Current()
		if err != nil {
			var zero T
			return zero, err
		}
		if b := last.Load(); b != nil && b.gen == set.Generation() {
			return b.val, nil
		}
		mu.Lock()
		defer mu.Unlock()
		if b := last.Load(); b != nil && b.gen == set.Generation() {
			return b.val, nil
		}
		v, err := build()
		if err != nil {
			return v, err
		}
		last.Store(&built{gen: set.Generation(), val: v})
		return v, nil
	}
}

// loadCatalogs builds every declared catalog; known is the provider registry's lookup.
func loadCatalogs(known func(string) bool) (*catalogSet, error) {
	cs := &catalogSet{built: make([]any, len(declared))}
	for i, build := range declared {
		c, err := build(known)
		if err != nil {
			return nil, err
		}
		cs.built[i] = c
	}
	return cs, nil
}

// The catalogs of this file.
var (
	pricingCatalog = declare(catalog.Spec[api.PricingRecord]{
		Name: seeds.CatalogPricing, Provider: pricingProvider, Model: pricingModel, Natural: pricingNatural,
		Orders: map[string]catalog.Order[api.PricingRecord]{orderInputPrice: {
			By: catalog.Then(catalog.Ascending(pricingInput), pricingNatural), Only: tokenPriced,
		}},
	})
	modelsCatalog = declare(catalog.Spec[api.ModelRecord]{
		Name: seeds.CatalogModels, Provider: modelProvider, Model: modelID, Natural: catalog.ByKeys(modelProvider, modelID),
	})
	rateLimitsCatalog = declare(catalog.Spec[api.RateLimitTier]{
		Name: seeds.CatalogRateLimits, Provider: rateLimitProvider, Natural: catalog.ByKeys(rateLimitProvider, rateLimitTier),
	})
	benchmarksCatalog = declare(catalog.Spec[api.BenchmarksRecord]{
		Name: seeds.CatalogBenchmarks, Provider: benchmarkProvider, Model: benchmarkModel, Natural: benchmarkNatural, Orders: benchmarkOrders(),
	})
	freeTierCatalog = declare(catalog.Spec[api.FreeTierRecord]{
		Name: seeds.CatalogFreeTier, Provider: freeTierProvider, Natural: catalog.ByKeys(freeTierProvider),
	})
)

var (
	pricingNatural   = catalog.ByKeys(pricingProvider, pricingModel)
	benchmarkNatural = catalog.ByKeys(benchmarkProvider, benchmarkModel)
)

// benchmarkOrders is one order per sort metric of GET /benchmarks, best score first.
func benchmarkOrders() map[string]catalog.Order[api.BenchmarksRecord] {
	orders := map[string]catalog.Order[api.BenchmarksRecord]{}
	for _, m := range benchmarkMetrics {
		orders[string(m)] = catalog.Order[api.BenchmarksRecord]{By: catalog.Then(catalog.Descending(benchmarkScore(m)), benchmarkNatural)}
	}
	return orders
}

// load builds one catalog from seeds and converts its metadata to the document's types.
func load[T any](spec catalog.Spec[T]) (*served[T], error) {
	c, err := catalog.Load(spec)
	if err != nil {
		return nil, err
	}
	sv, err := serve(c, spec.Name)
	if err != nil || spec.Model == nil {
		return sv, err
	}
	all, err := seeds.Shutdowns()
	if err != nil {
		return nil, fmt.Errorf("catalog %s: %w", spec.Name, err)
	}
	recs, err := c.Select(catalog.Query[T]{})
	if err != nil {
		return nil, err
	}
	sv.provider, sv.model, sv.shutdowns = spec.Provider, spec.Model, map[string]string{}
	for i := range recs {
		k := spec.Provider(&recs[i]) + "/" + spec.Model(&recs[i])
		if d, ok := all[k]; ok {
			sv.shutdowns[k] = d
			if sv.firstShutdown == "" || d < sv.firstShutdown {
				sv.firstShutdown = d
			}
		}
	}
	return sv, nil
}

// serve converts a built catalog's metadata to the document's types.
func serve[T any](c *catalog.Catalog[T], name string) (*served[T], error) {
	day, err := time.Parse(time.DateOnly, c.AsOf())
	if err != nil {
		return nil, fmt.Errorf("catalog %s: as_of: %w", name, err)
	}
	src := make([]api.Source, len(c.Sources()))
	for i, s := range c.Sources() {
		if s.AsOf == nil {
			return nil, fmt.Errorf("catalog %s: source %s has no as_of", name, s.ID)
		}
		d, err := time.Parse(time.DateOnly, *s.AsOf)
		if err != nil {
			return nil, fmt.Errorf("catalog %s: source %s: as_of: %w", name, s.ID, err)
		}
		src[i] = api.Source{Id: s.ID, Name: s.Name, Url: s.URL, License: s.License, AsOf: openapi_types.Date{Time: d}}
	}
	return &served[T]{Catalog: c, asOf: openapi_types.Date{Time: day}, sources: src, cites: sourcesField[T]()}, nil
}

// sourcesField reads the `Sources` field of a record type ([]string or *[]string), or is nil when it has none.
func sourcesField[T any]() func(*T) []string {
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Struct {
		return nil
	}
	f, ok := t.FieldByName("Sources")
	strs := reflect.TypeFor[[]string]()
	switch {
	case !ok:
		return nil
	case f.Type == strs:
		return func(r *T) []string { return reflect.ValueOf(r).Elem().FieldByIndex(f.Index).Interface().([]string) }
	case f.Type == reflect.PointerTo(strs):
		return func(r *T) []string {
			if p := reflect.ValueOf(r).Elem().FieldByIndex(f.Index).Interface().(*[]string); p != nil {
				return *p
			}
			return nil
		}
	}
	return nil
}

// citedSources are the catalog's sources that the records of page cite, in the catalog's order; every source
// when the records carry no source ids.
func (c *served[T]) citedSources(page []T) []api.Source {
	if c.cites == nil {
		return c.sources
	}
	cited := map[string]bool{}
	for i := range page {
		for _, id := range c.cites(&page[i]) {
			cited[id] = true
		}
	}
	out := make([]api.Source, 0, len(cited))
	for _, s := range c.sources {
		if cited[s.Id] {
			out = append(out, s)
		}
	}
	return out
}

func benchmarkScore(m api.BenchmarksMetric) func(*api.BenchmarksRecord) *float64 {
	return func(r *api.BenchmarksRecord) *float64 {
		if v, ok := r.Scores[string(m)]; ok {
			return &v
		}
		return nil
	}
}

// listMeta is the meta every catalog answer carries. Its fields are those of the document's PricingMeta,
// ModelsMeta and RateLimitsMeta, in the generated order, so it converts to each. Count is the page's records,
// Total every record that matches, NextCursor the next page's cursor (nil on the last page).
type listMeta struct {
	AsOf       openapi_types.Date
	Count      int
	NextCursor *string
	Sources    []api.Source
	Total      int
}

// pageOf is the page a request asks for.
func pageOf(limit *int, cursor *string) catalog.Page {
	return catalog.Page{Limit: limit, Cursor: cursor}
}

// wholeList is the page of the lists that do not page (they are bounded by their own parameters).
var wholeList = catalog.Page{}

// answer runs q, with filters added, on the catalog pick chooses, cuts the page pg out of it, and shapes the
// outcome with the operation's own response types: ok builds the 200 answer, NF and BR (the operation's 404 and
// 400 types, which nothing can infer, so the caller names them) the answers for an unknown provider and for a
// refused limit or cursor. Any other error is the server's (500, logged, never shown).
func answer[NF ~struct{ api.NotFoundJSONResponse }, BR ~struct{ api.BadRequestJSONResponse }, T, R any](
	ctx context.Context, s *Server, pg catalog.Page, pick func(*catalogSet) *served[T], ok func([]T, listMeta) R,
	q catalog.Query[T], filters ...catalog.Filter[T],
) (R, error) {
	var zero R
	cs, err := s.catalogs()
	if err != nil {
		return zero, err
	}
	c := pick(cs)
	q.Filters = append(q.Filters, filters...)
	q.Filters = append(q.Filters, c.shutdownFilter(s.now()))
	recs, err := c.Select(q)
	var unknown *errs.UnknownProviderError
	switch {
	case errors.As(err, &unknown):
		nf := NF(struct{ api.NotFoundJSONResponse }{notFound("parameter provider: " + unknown.Error())})
		// Every generated 404 type implements its operation's response interface R; Go cannot state that in the
		// constraint (an interface cannot embed a type parameter), so it is asserted here and pinned by the tests.
		return any(nf).(R), nil
	case err != nil:
		return zero, err
	}
	page, next, total, err := catalog.Paginate(ctx, recs, pg)
	switch {
	case errs.IsInput(err):
		return any(BR(struct{ api.BadRequestJSONResponse }{badRequest(err.Error())})).(R), nil
	case err != nil:
		return zero, err
	}
	return ok(page, listMeta{AsOf: c.asOf, Count: len(page), NextCursor: next, Sources: c.citedSources(page), Total: total}), nil
}

// The 200 answers of the catalogs whose meta is listMeta.
func pricingOK(recs []api.PricingRecord, m listMeta) api.GetPricingResponseObject {
	return api.GetPricing200JSONResponse{Pricing: recs, Meta: api.PricingMeta(m)}
}
func modelsOK(recs []api.ModelRecord, m listMeta) api.GetModelsResponseObject {
	return api.GetModels200JSONResponse{Models: recs, Meta: api.ModelsMeta(m)}
}
func rateLimitsOK(recs []api.RateLimitTier, m listMeta) api.GetRateLimitsResponseObject {
	return api.GetRateLimits200JSONResponse{RateLimits: recs, Meta: api.RateLimitsMeta(m)}
}

// pricingOrder is the pricing order `compare` asks for: the token-priced view, or the natural listing.
func pricingOrder(compare *bool) string {
	if orDefault(compare, false) {
		return orderInputPrice
	}
	return catalog.Natural
}

// The handlers below only say which records each parameter keeps; answer does the rest.

// GetPricing serves the price catalog.
func (s *Server) GetPricing(ctx context.Context, req api.GetPricingRequestObject) (api.GetPricingResponseObject, error) {
	q := catalog.Query[api.PricingRecord]{Provider: orDefault(req.Params.Provider, ""), Order: pricingOrder(req.Params.Compare)}
	return answer[api.GetPricing404JSONResponse, api.GetPricing400JSONResponse](ctx, s, pageOf(req.Params.Limit, req.Params.Cursor), pricingCatalog.from, pricingOK, q,
		catalog.Equal(req.Params.Task, func(r *api.PricingRecord) api.Task { return r.Task }),
		catalog.Flag(orDefault(req.Params.FreeOnly, false), func(r *api.PricingRecord) bool { return r.FreeTier }))
}

// GetModels serves the model catalog.
func (s *Server) GetModels(ctx context.Context, req api.GetModelsRequestObject) (api.GetModelsResponseObject, error) {
	q := catalog.Query[api.ModelRecord]{Provider: orDefault(req.Params.Provider, "")}
	return answer[api.GetModels404JSONResponse, api.GetModels400JSONResponse](ctx, s, pageOf(req.Params.Limit, req.Params.Cursor), modelsCatalog.from, modelsOK, q,
		catalog.AtLeast(orDefault(req.Params.MinContext, 0), func(r *api.ModelRecord) *int { return r.ContextWindow }),
		catalog.Flag(orDefault(req.Params.Vision, false), func(r *api.ModelRecord) bool { return stated(r.Capabilities.Vision) }),
		catalog.Flag(orDefault(req.Params.FunctionCalling, false), func(r *api.ModelRecord) bool { return stated(r.Capabilities.FunctionCalling) }),
		catalog.Flag(orDefault(req.Params.JsonMode, false), func(r *api.ModelRecord) bool { return stated(r.Capabilities.JsonMode) }),
		catalog.Equal(req.Params.Task, func(r *api.ModelRecord) api.ModelTask { return r.Task }))
}

// GetRateLimits serves the published rate limits per tier.
func (s *Server) GetRateLimits(ctx context.Context, req api.GetRateLimitsRequestObject) (api.GetRateLimitsResponseObject, error) {
	q := catalog.Query[api.RateLimitTier]{Provider: orDefault(req.Params.Provider, "")}
	return answer[api.GetRateLimits404JSONResponse, api.GetRateLimits400JSONResponse](ctx, s, pageOf(req.Params.Limit, req.Params.Cursor), rateLimitsCatalog.from, rateLimitsOK, q,
		catalog.Contains(orDefault(req.Params.Tier, ""), rateLimitTier),
		catalog.AtLeast(orDefault(req.Params.MinRpm, 0), func(r *api.RateLimitTier) *int { return r.Limits.RequestsPerMinute }),
		catalog.Flag(orDefault(req.Params.FreeOnly, false), isFreeRateTier))
}

// benchmarkMetric is the sort metric of a benchmarks request: sort_by, else the task's, else the default.
func benchmarkMetric(p api.GetBenchmarksParams) api.BenchmarksMetric {
	if p.SortBy != nil {
		return *p.SortBy
	}
	if p.Task != nil {
		if m, ok := benchmarkTaskMetric[*p.Task]; ok {
			return m
		}
	}
	return defaultBenchmarksMetric
}

// GetBenchmarks serves benchmark scores, best first by the chosen metric.
func (s *Server) GetBenchmarks(ctx context.Context, req api.GetBenchmarksRequestObject) (api.GetBenchmarksResponseObject, error) {
	metric := benchmarkMetric(req.Params)
	limit := orDefault(req.Params.Limit, defaultBenchmarksLimit)
	ok := func(recs []api.BenchmarksRecord, m listMeta) api.GetBenchmarksResponseObject {
		meta := api.BenchmarksMeta{SortedBy: metric, AsOf: m.AsOf, Count: m.Count, Sources: m.Sources}
		return api.GetBenchmarks200JSONResponse{Benchmarks: recs, Meta: meta}
	}
	return answer[api.GetBenchmarks404JSONResponse, api.GetBenchmarks400JSONResponse](ctx, s, wholeList, benchmarksCatalog.from, ok,
		catalog.Query[api.BenchmarksRecord]{Provider: orDefault(req.Params.Provider, ""), Order: string(metric), Limit: limit})
}

// freeTierOK answers the free tiers with their meta counts, computed over the records returned.
func freeTierOK(recs []api.FreeTierRecord, m listMeta) api.GetFreeTierResponseObject {
	return api.GetFreeTier200JSONResponse{FreeTiers: recs, Meta: api.FreeTierMeta{Total: m.Total, NextCursor: m.NextCursor,
		PermanentFreeCount: catalog.Count(recs, freeTierIs(tierTypePermanent)),
		TrialCreditCount:   catalog.Count(recs, freeTierIs(tierTypeTrialCredit)),
		NoFreeAccessCount:  catalog.Count(recs, func(r *api.FreeTierRecord) bool { return isFalse(r.HasFreeTier) }),
		AsOf:               m.AsOf, Sources: m.Sources,
	}}
}

// GetFreeTier serves free tiers and trial credits per provider.
func (s *Server) GetFreeTier(ctx context.Context, req api.GetFreeTierRequestObject) (api.GetFreeTierResponseObject, error) {
	q := catalog.Query[api.FreeTierRecord]{Provider: orDefault(req.Params.Provider, "")}
	return answer[api.GetFreeTier404JSONResponse, api.GetFreeTier400JSONResponse](ctx, s, pageOf(req.Params.Limit, req.Params.Cursor), freeTierCatalog.from, freeTierOK, q,
		catalog.Flag(orDefault(req.Params.PermanentOnly, false), freeTierIs(tierTypePermanent)),
		catalog.IsKnown(req.Params.HasFreeTier, func(r *api.FreeTierRecord) *bool { return r.HasFreeTier }))
}

// stated is a capability the model catalog states the model has; null (unknown) does not meet a filter.
func stated(b *bool) bool { return b != nil && *b }
