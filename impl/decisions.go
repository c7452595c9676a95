package impl

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/switchboard/switchboard/decide"
	"github.com/switchboard/switchboard/errs"
	"github.com/switchboard/switchboard/gateway"
	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/health"
	"github.com/switchboard/switchboard/seeds"
)

// The document's defaults of the decision endpoints (the validator does not fill them in); a test compares them
// with the document.
const (
	defaultFailoverLimit     = 5
	defaultRecommendLimit    = 5
	defaultCheapestLimit     = 5
	defaultCheapestInput     = 1_000_000
	defaultCheapestOutput    = 500_000
	defaultCheapestUnits     = 1
	defaultCachedTokens      = 0
	defaultTaskCostInput     = 10_000
	defaultTaskCostOutput    = 2_000
	defaultTaskCostLimit     = 10
	defaultForecastRequests  = 100
	defaultForecastInput     = 2_000
	defaultForecastOutput    = 500
	defaultForecastCacheRate = 0.0
	defaultForecastTask      = "llm"
	defaultForecastLimit     = 10
	defaultQuotaTier         = "free"
	defaultQuotaPlanned      = 0
)

// decisionIndexes keeps the catalogs indexed for the decision endpoints for one day and one catalog set: the
// index of a day leaves out the models shut down by then, so it is rebuilt (once, about 0.3 s) when the server's
// clock reaches a new day or a catalog refresh installs a new set.
var decisionIndexes struct {
	sync.Mutex
	day        string
	generation uint64
	ix         *decide.Index
}

// decisionIndex returns the index of the models still served on now's day.
func decisionIndex(now time.Time) (*decide.Index, error) {
	day := now.UTC().Format(time.DateOnly)
	set, err := seeds.Current()
	if err != nil {
		return nil, fmt.Errorf("reading the catalogs: %w", err)
	}
	decisionIndexes.Lock()
	defer decisionIndexes.Unlock()
	if decisionIndexes.ix != nil && decisionIndexes.day == day && decisionIndexes.generation == set.Generation() {
		return decisionIndexes.ix, nil
	}
	ix, err := decide.LoadAt(day)
	if err != nil {
		return nil, fmt.Errorf("indexing the catalogs: %w", err)
	}
	decisionIndexes.day, decisionIndexes.generation, decisionIndexes.ix = day, set.Generation(), ix
	return ix, nil
}

// decisionInputs returns the index and the live status of every provider now.
func (s *Server) decisionInputs(ctx context.Context) (*decide.Index, decide.Statuses, error) {
	ix, err := decisionIndex(s.now())
	if err != nil {
		return nil, nil, err
	}
	snap, err := s.health.Current(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the health view: %w", err)
	}
	now := s.now()
	// The statuses move with the snapshot (a poll cycle) and, through staleness, with the clock: they are made
	// once per snapshot and second, not for each request (building them was a sixth of a /pick).
	if m := s.liveMemo.Load(); m != nil && m.snap == snap && m.second == now.Unix() {
		return ix, m.live, nil
	}
	rep := snap.Health(now)
	figures := snap.Figures(now)
	live := make(decide.Statuses, len(rep.Providers))
	for id, h := range rep.Providers {
		f := figures[id]
		live[id] = decide.Live{Status: string(h.Status), ResponseTimeMs: h.ResponseTimeMs, P50Ms: f.P50Ms, P95Ms: f.P95Ms, Uptime7d: f.Uptime7dPct}
	}
	live = live.Prepared()
	s.liveMemo.Store(&liveStatuses{snap: snap, second: now.Unix(), live: live})
	return ix, live, nil
}

// liveStatuses are the decision statuses of one snapshot and second; shared by the requests of that second, so
// read only.
type liveStatuses struct {
	snap   *health.Snapshot
	second int64
	live   decide.Statuses
}

// retryAfter is the Retry-After of a decision that answered found results: when it found none and every
// candidate (computed only then) is in outage, the smallest expected median recovery of their ongoing
// incidents, else the poll interval (decide.RetryAfter); nil when the decision found something or some
// candidate is not down.
func (s *Server) retryAfter(ctx context.Context, found int, candidates func() []string, live decide.Statuses) (*int, error) {
	if found > 0 {
		return nil, nil
	}
	cands := candidates()
	if len(cands) == 0 {
		return nil, nil
	}
	snap, err := s.health.Current(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the health view: %w", err)
	}
	medians := map[string]float64{}
	for id, inc := range snap.Ongoing(s.now()) {
		if inc.Expected != nil {
			medians[id] = inc.Expected.MedianMinutes
		}
	}
	secs, ok := decide.RetryAfter(cands, live, medians, s.deps.PollInterval)
	if !ok {
		return nil, nil
	}
	return &secs, nil
}

func quotaMissing(names []string) []api.QuotaCheckResponseMissingLimits {
	out := make([]api.QuotaCheckResponseMissingLimits, len(names))
	for i, n := range names {
		out[i] = api.QuotaCheckResponseMissingLimits(n)
	}
	return out
}

// noteOf is a decision's note as the document's nullable string.
func noteOf(note string) *string {
	if note == "" {
		return nil
	}
	return &note
}

func decList[T ~string](p *[]T) []string {
	if p == nil {
		return nil
	}
	out := make([]string, len(*p))
	for i, v := range *p {
		out[i] = string(v)
	}
	return out
}

func decInt(p *int64) *int {
	if p == nil {
		return nil
	}
	v := int(*p)
	return &v
}

// decTokens is a token count the document bounds to 0 or more.
func decTokens(n int) uint64 {
	if n < 0 {
		return 0
	}
	return uint64(n)
}

func decPickEntry(e decide.PickEntry) api.PickEntry {
	return api.PickEntry{
		ProviderId: e.Provider, Model: e.Model, Status: api.ProviderStatus(e.Status), ResponseTimeMs: e.ResponseTimeMs,
		InputPer1mUsd: e.InputPer1M, PriceUnit: api.PriceUnit(e.Unit), UnitPriceUsd: e.UnitPrice, ContextWindow: decInt(e.Context), Quality: e.Quality,
		Score: e.Score, Reason: e.Reason,
		Capabilities: api.ModelsCapabilities{Vision: e.Caps.Vision, FunctionCalling: e.Caps.FunctionCalling, JsonMode: e.Caps.JsonMode},
	}
}

// GetPick serves the best model for a task.
func (s *Server) GetPick(ctx context.Context, req api.GetPickRequestObject) (api.GetPickResponseObject, error) {
	ix, live, err := s.decisionInputs(ctx)
	if err != nil {
		return nil, err
	}
	p := req.Params
	pq := decide.PickQuery{Task: string(p.Task), Budget: p.Budget, MinContext: decide.Wide(p.MinContext),
		Needs: decList(p.Needs), Avoid: decList(p.Avoid), FreeOnly: orDefault(p.FreeOnly, false), MinQuality: p.MinQuality}
	if p.Prefer != nil {
		pq.Prefer = string(*p.Prefer)
	}
	best, rest, note, err := ix.Pick(pq, live)
	switch {
	case errs.IsInput(err):
		return api.GetPick400JSONResponse{BadRequestJSONResponse: badRequest(err.Error())}, nil
	case errs.IsNotFound(err):
		wait, werr := s.retryAfter(ctx, 0, func() []string { return ix.PickCandidates(pq) }, live)
		if werr != nil {
			return nil, werr
		}
		return api.GetPick404JSONResponse{Body: api.Error(notFound(err.Error())), Headers: api.GetPick404ResponseHeaders{RetryAfter: wait}}, nil
	case err != nil:
		return nil, err
	}
	pick := decPickEntry(best)
	out := api.GetPick200JSONResponse{Pick: &pick, RunnersUp: make([]api.PickEntry, len(rest)), Note: noteOf(note)}
	for i, e := range rest {
		out.RunnersUp[i] = decPickEntry(e)
	}
	return pickAnswer(out), nil
}

// pickAnswer is a 200 answer of /pick, written as the generated type writes it (encoded before the status, so
// that an encoding error can still be a 500) but through a pooled buffer: the generated writer encodes into a
// fresh buffer that grows by doubling, a third of the bytes a /pick allocated.
type pickAnswer api.GetPick200JSONResponse

func (a pickAnswer) VisitGetPickResponse(w http.ResponseWriter) error {
	return writePooledJSON(w, http.StatusOK, api.GetPick200JSONResponse(a))
}

// encodeBuffers are the buffers writePooledJSON encodes into; one that grew past encodeBufferMaxKeep is dropped.
var encodeBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const encodeBufferMaxKeep = 64 << 10

// writePooledJSON writes v as JSON with status, as the generated response types do.
func writePooledJSON(w http.ResponseWriter, status int, v any) error {
	buf := encodeBuffers.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= encodeBufferMaxKeep {
			buf.Reset()
			encodeBuffers.Put(buf)
		}
	}()
	if err := json.NewEncoder(buf).Encode(v); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, err := w.Write(buf.Bytes())
	return err
}

// failoverQuery is the query of GET /failover and GET /failover/export, which take the same parameters.
func failoverQuery[S ~string](primary string, task *api.Task, limit *int, maxCost *float64, model *string, scope *S) decide.FailoverQuery {
	q := decide.FailoverQuery{Primary: primary, Limit: orDefault(limit, defaultFailoverLimit), MaxCost: maxCost,
		Model: orDefault(model, ""), Scope: decide.ScopeProvider}
	if task != nil {
		q.Task = string(*task)
	}
	if scope != nil {
		q.Scope = string(*scope)
	}
	return q
}

// GetFailover serves the alternatives to a failing provider.
func (s *Server) GetFailover(ctx context.Context, req api.GetFailoverRequestObject) (api.GetFailoverResponseObject, error) {
	ix, live, err := s.decisionInputs(ctx)
	if err != nil {
		return nil, err
	}
	p := req.Params
	q := failoverQuery(p.Primary, p.Task, p.Limit, p.MaxCostPer1m, p.Model, p.Scope)
	chain, note, err := ix.Failover(q, live)
	switch {
	case errs.IsNotFound(err):
		return api.GetFailover404JSONResponse{NotFoundJSONResponse: notFound(err.Error())}, nil
	case errs.IsInput(err):
		return api.GetFailover400JSONResponse{BadRequestJSONResponse: badRequest(err.Error())}, nil
	case err != nil:
		return nil, err
	}
	wait, err := s.retryAfter(ctx, len(chain), func() []string { return ix.FailoverCandidates(q) }, live)
	if err != nil {
		return nil, err
	}
	ref, _, _, err := ix.FailoverReference(q)
	if err != nil {
		return nil, err
	}
	out := api.FailoverResponse{Primary: p.Primary, Scope: api.FailoverResponseScope(q.Scope), FailoverChain: make([]api.FailoverEntry, len(chain)), Note: noteOf(note)}
	if ref != nil {
		out.Model = &ref.ID
	}
	for i, e := range chain {
		shares := make([]api.FailureDomainShares, len(e.Domain.Shares))
		for k, sh := range e.Domain.Shares {
			shares[k] = api.FailureDomainShares(sh)
		}
		out.FailoverChain[i] = api.FailoverEntry{ProviderId: e.Provider, Model: e.Model, Status: api.ProviderStatus(e.Status), Score: e.Score,
			ResponseTimeMs: e.ResponseTimeMs, InputPer1mUsd: e.InputPer1M, OutputPer1mUsd: e.OutputPer1M, PriceUnit: api.PriceUnit(e.Unit),
			UnitPriceUsd: e.UnitPrice, Quality: e.Quality, Reason: e.Reason,
			FailureDomain: api.FailureDomain{Families: e.Domain.Families, SharedWithPrimary: e.Domain.Shared, Aggregator: e.Domain.Aggregator, Shares: shares}}
	}
	return api.GetFailover200JSONResponse{Body: out, Headers: api.GetFailover200ResponseHeaders{RetryAfter: wait}}, nil
}

// GetFailoverExport serves the failover ranking as a gateway's configuration (package gateway writes it).
func (s *Server) GetFailoverExport(ctx context.Context, req api.GetFailoverExportRequestObject) (api.GetFailoverExportResponseObject, error) {
	ix, live, err := s.decisionInputs(ctx)
	if err != nil {
		return nil, err
	}
	names, err := gateway.Embedded()
	if err != nil {
		return nil, err
	}
	p := req.Params
	q := failoverQuery(p.Primary, p.Task, p.Limit, p.MaxCostPer1m, p.Model, p.Scope)
	ranking, note, err := ix.FailoverRanking(q, live)
	switch {
	case errs.IsNotFound(err):
		return api.GetFailoverExport404JSONResponse{NotFoundJSONResponse: notFound(err.Error())}, nil
	case errs.IsInput(err):
		return api.GetFailoverExport400JSONResponse{BadRequestJSONResponse: badRequest(err.Error())}, nil
	case err != nil:
		return nil, err
	}
	cands := make([]gateway.Candidate, len(ranking))
	for i, r := range ranking {
		cands[i] = gateway.Candidate{Provider: r.Provider, Models: r.Models, Score: r.Score}
	}
	_, task, _, err := ix.FailoverReference(q)
	if err != nil {
		return nil, err
	}
	ex, err := names.Build(gateway.Format(p.Format), task, cands)
	if err != nil {
		return api.GetFailoverExport400JSONResponse{BadRequestJSONResponse: badRequest("format: " + err.Error())}, nil
	}
	raw, err := json.Marshal(ex.Config)
	if err != nil {
		return nil, fmt.Errorf("encoding the %s config: %w", p.Format, err)
	}
	out := api.GetFailoverExport200JSONResponse{Primary: p.Primary, Format: api.FailoverExportFormat(p.Format),
		GeneratedAt: s.now().Truncate(time.Second), Note: ex.Note,
		Targets: make([]api.FailoverExportTarget, len(ex.Targets)), Skipped: make([]api.FailoverExportSkipped, len(ex.Skipped))}
	if err := out.Config.UnmarshalJSON(raw); err != nil {
		return nil, fmt.Errorf("holding the %s config: %w", p.Format, err)
	}
	if note != "" {
		out.Note = note + " " + out.Note
	}
	for i, t := range ex.Targets {
		out.Targets[i] = api.FailoverExportTarget{ProviderId: t.Provider, ModelId: t.Model, GatewayModel: t.GatewayModel, Score: t.Score}
	}
	for i, sk := range ex.Skipped {
		out.Skipped[i] = api.FailoverExportSkipped{ProviderId: sk.Provider, Reason: sk.Reason}
	}
	return out, nil
}

// GetRecommend serves the recommended operational providers.
func (s *Server) GetRecommend(ctx context.Context, req api.GetRecommendRequestObject) (api.GetRecommendResponseObject, error) {
	ix, live, err := s.decisionInputs(ctx)
	if err != nil {
		return nil, err
	}
	p := req.Params
	q := decide.RecommendQuery{Avoid: decList(p.Avoid), Limit: orDefault(p.Limit, defaultRecommendLimit), FreeOnly: orDefault(p.FreeOnly, false)}
	if p.Task != nil {
		q.Task = string(*p.Task)
	}
	recs, note, err := ix.Recommend(q, live)
	switch {
	case errs.IsNotFound(err):
		return api.GetRecommend404JSONResponse{NotFoundJSONResponse: notFound(err.Error())}, nil
	case errs.IsInput(err):
		return api.GetRecommend400JSONResponse{BadRequestJSONResponse: badRequest(err.Error())}, nil
	case err != nil:
		return nil, err
	}
	wait, err := s.retryAfter(ctx, len(recs), func() []string { return ix.RecommendCandidates(q) }, live)
	if err != nil {
		return nil, err
	}
	out := api.RecommendResponse{Recommendations: make([]api.RecommendEntry, len(recs)), Note: noteOf(note)}
	for i, e := range recs {
		out.Recommendations[i] = api.RecommendEntry{Id: e.Provider, Name: e.Name, Status: api.ProviderStatus(e.Status),
			ResponseTimeMs: e.ResponseTimeMs, Score: e.Score, Reason: e.Reason}
	}
	return api.GetRecommend200JSONResponse{Body: out, Headers: api.GetRecommend200ResponseHeaders{RetryAfter: wait}}, nil
}

func decScore(scores map[string]float64, name string) *float64 {
	v, ok := scores[name]
	if !ok {
		return nil
	}
	return &v
}

// GetCompare serves a side-by-side comparison of providers.
func (s *Server) GetCompare(ctx context.Context, req api.GetCompareRequestObject) (api.GetCompareResponseObject, error) {
	ix, live, err := s.decisionInputs(ctx)
	if err != nil {
		return nil, err
	}
	cmp, err := ix.Compare(req.Params.Providers, decList(req.Params.Metrics), live)
	switch {
	case errs.IsNotFound(err):
		return api.GetCompare404JSONResponse{NotFoundJSONResponse: notFound(err.Error())}, nil
	case errs.IsInput(err):
		return api.GetCompare400JSONResponse{BadRequestJSONResponse: badRequest(err.Error())}, nil
	case err != nil:
		return nil, err
	}
	out := api.GetCompare200JSONResponse{Comparison: make(map[string]api.CompareEntry, len(cmp))}
	for id, c := range cmp {
		e := api.CompareEntry{Name: c.Name, ResponseTimeMs: c.ResponseTimeMs}
		if c.Status != nil {
			st := api.ProviderStatus(*c.Status)
			e.Status = &st
		}
		if c.Pricing != nil {
			e.Pricing = &api.ComparePricing{Model: c.Pricing.Model, InputPer1mUsd: c.Pricing.InputPer1M, OutputPer1mUsd: c.Pricing.OutputPer1M}
		}
		if b := c.Benchmarks; b != nil {
			e.Benchmarks = &api.CompareBenchmarks{Model: b.ModelId, Mmlu: decScore(b.Scores, "mmlu"), Humaneval: decScore(b.Scores, "humaneval"),
				Math: decScore(b.Scores, "math"), Gpqa: decScore(b.Scores, "gpqa"), Mgsm: decScore(b.Scores, "mgsm"), Hellaswag: decScore(b.Scores, "hellaswag")}
		}
		if c.RateLimits != nil {
			tiers := slices.Clone(c.RateLimits)
			e.RateLimits = &tiers
		}
		if c.Models != nil {
			models := c.Models
			e.Models = &models
		}
		out.Comparison[id] = e
	}
	return out, nil
}

// GetCheapest serves the cheapest models of operational providers for a token volume.
func (s *Server) GetCheapest(ctx context.Context, req api.GetCheapestRequestObject) (api.GetCheapestResponseObject, error) {
	ix, live, err := s.decisionInputs(ctx)
	if err != nil {
		return nil, err
	}
	p := req.Params
	q := decide.CheapestQuery{Task: string(p.Task), Input: decTokens(orDefault(p.InputTokens, defaultCheapestInput)),
		Output: decTokens(orDefault(p.OutputTokens, defaultCheapestOutput)), Units: uint64(max(1, orDefault(p.Units, defaultCheapestUnits))),
		Limit: orDefault(p.Limit, defaultCheapestLimit), At: s.now()}
	if p.MinQuality != nil {
		mq, err := decide.ParseQuality(*p.MinQuality)
		if err != nil {
			return api.GetCheapest400JSONResponse{BadRequestJSONResponse: badRequest(err.Error())}, nil
		}
		q.MinQuality = &mq
	}
	res, note := ix.Cheapest(q, live)
	wait, err := s.retryAfter(ctx, len(res), func() []string { return ix.CheapestCandidates(q) }, live)
	if err != nil {
		return nil, err
	}
	out := api.CheapestResponse{Results: make([]api.CheapestResult, len(res)), Note: noteOf(note)}
	for i, r := range res {
		out.Results[i] = api.CheapestResult{ProviderId: r.Provider, Model: r.Model, Status: api.ProviderStatus(r.Status),
			EstimatedCostUsd: r.CostUSD, InputPer1mUsd: r.InputPer1M, OutputPer1mUsd: r.OutputPer1M, PriceUnit: api.PriceUnit(r.Unit),
			UnitPriceUsd: &r.UnitPrice, QualityScore: r.Quality, FreeTier: r.FreeTier, Applied: r.Applied}
	}
	return api.GetCheapest200JSONResponse{Body: out, Headers: api.GetCheapest200ResponseHeaders{RetryAfter: wait}}, nil
}

// GetCostEstimate serves the cost of a token volume on one provider's model.
func (s *Server) GetCostEstimate(ctx context.Context, req api.GetCostEstimateRequestObject) (api.GetCostEstimateResponseObject, error) {
	ix, live, err := s.decisionInputs(ctx)
	if err != nil {
		return nil, err
	}
	p := req.Params
	e, err := ix.CostEstimate(decide.EstimateQuery{Provider: p.Provider, Model: orDefault(p.Model, ""), Input: decTokens(p.InputTokens),
		Output: decTokens(p.OutputTokens), Cached: decTokens(orDefault(p.CachedTokens, defaultCachedTokens)), At: s.now()}, live)
	switch {
	case errs.IsInput(err):
		return api.GetCostEstimate400JSONResponse{BadRequestJSONResponse: badRequest(err.Error())}, nil
	case errs.IsNotFound(err):
		return api.GetCostEstimate404JSONResponse{NotFoundJSONResponse: notFound(err.Error())}, nil
	case err != nil:
		return nil, err
	}
	out := api.GetCostEstimate200JSONResponse{
		Provider: e.Provider, Model: e.Model, EstimatedTotalUsd: e.Total, CacheSavingsUsd: e.Savings,
		Rates:               api.CostEstimateRates{InputPer1mUsd: e.InputPer1M, OutputPer1mUsd: e.OutputPer1M, CacheDiscountPct: e.CacheDiscountPct},
		Breakdown:           api.CostEstimateBreakdown{InputCostUsd: e.InputCost, CachedCostUsd: e.CachedCost, OutputCostUsd: e.OutputCost},
		CheaperAlternatives: make([]api.CostEstimateAlternative, len(e.Alternatives)),
		Applied:             e.Applied,
	}
	for i, a := range e.Alternatives {
		out.CheaperAlternatives[i] = api.CostEstimateAlternative{ProviderId: a.Provider, Model: a.Model, InputPer1mUsd: a.InputPer1M,
			EstimatedTotalUsd: a.Total, SavingsPct: a.SavingsPct}
	}
	return out, nil
}

// GetTaskCost serves providers ranked by the cost of one task.
func (s *Server) GetTaskCost(_ context.Context, req api.GetTaskCostRequestObject) (api.GetTaskCostResponseObject, error) {
	ix, err := decisionIndex(s.now())
	if err != nil {
		return nil, err
	}
	p := req.Params
	ranked, err := ix.TaskCosts(decide.TaskCostQuery{TaskType: string(p.TaskType), Input: decTokens(orDefault(p.InputTokens, defaultTaskCostInput)),
		Output: decTokens(orDefault(p.OutputTokens, defaultTaskCostOutput)), Cached: decTokens(orDefault(p.CachedTokens, defaultCachedTokens)),
		Limit: orDefault(p.Limit, defaultTaskCostLimit), FreeOnly: orDefault(p.FreeOnly, false), At: s.now()})
	switch {
	case errs.IsInput(err):
		return api.GetTaskCost400JSONResponse{BadRequestJSONResponse: badRequest(err.Error())}, nil
	case err != nil:
		return nil, err
	}
	out := api.GetTaskCost200JSONResponse{ProvidersRanked: make([]api.TaskCostRecord, len(ranked))}
	for i, t := range ranked {
		out.ProvidersRanked[i] = api.TaskCostRecord{Rank: t.Rank, ProviderId: t.Provider, Model: t.Model, EstimatedCostUsd: t.CostUSD,
			InputCostUsd: t.InputCost, OutputCostUsd: t.OutCost, InputPer1mUsd: t.InputPer1M, OutputPer1mUsd: t.OutputPer1M,
			PriceUnit: api.PriceUnit(t.Unit), UnitPriceUsd: t.UnitPrice,
			PctMoreExpensiveThanCheapest: t.PctMore, FreeTier: t.FreeTier, Applied: t.Applied}
	}
	if len(ranked) > 0 {
		out.Meta.CheapestProvider = &ranked[0].Provider
	}
	return out, nil
}

// GetCostForecast serves the spend of a usage profile per model, cheapest first.
func (s *Server) GetCostForecast(_ context.Context, req api.GetCostForecastRequestObject) (api.GetCostForecastResponseObject, error) {
	ix, err := decisionIndex(s.now())
	if err != nil {
		return nil, err
	}
	p := req.Params
	q := decide.ForecastQuery{RequestsPerDay: decTokens(orDefault(p.RequestsPerDay, defaultForecastRequests)),
		AvgInput: decTokens(orDefault(p.AvgInputTokens, defaultForecastInput)), AvgOutput: decTokens(orDefault(p.AvgOutputTokens, defaultForecastOutput)),
		CacheHitRate: orDefault(p.CacheHitRate, defaultForecastCacheRate),
		Task:         string(orDefault(p.Task, api.GetCostForecastParamsTask(defaultForecastTask))), Limit: orDefault(p.Limit, defaultForecastLimit),
		At: s.now()}
	fs, err := ix.Forecasts(q)
	switch {
	case errs.IsInput(err):
		return api.GetCostForecast400JSONResponse{BadRequestJSONResponse: badRequest(err.Error())}, nil
	case err != nil:
		return nil, err
	}
	out := api.GetCostForecast200JSONResponse{Forecasts: make([]api.CostForecastRecord, len(fs)), UsageProfile: api.CostForecastUsageProfile{
		RequestsPerDay: int(q.RequestsPerDay), AvgInputTokens: int(q.AvgInput), AvgOutputTokens: int(q.AvgOutput),
		CacheHitRate: q.CacheHitRate, Task: api.CostForecastUsageProfileTask(q.Task)}}
	for i, f := range fs {
		out.Forecasts[i] = api.CostForecastRecord{ProviderId: f.Provider, Model: f.Model, DailyCost: f.Daily, WeeklyCost: f.Weekly,
			MonthlyCost: f.Monthly, YearlyCost: f.Yearly,
			CostBreakdown: api.CostForecastBreakdown{DailyInputCost: f.DailyInput, DailyOutputCost: f.DailyOutput, CacheSavingsPerDay: f.DailySaved},
			Pricing:       api.CostForecastPricing{InputPer1m: f.InputPer1M, OutputPer1m: f.OutputPer1M, CachingAvailable: f.CachingAvailable},
			Applied:       f.Applied}
	}
	return out, nil
}

func decQuotaDetail(d decide.QuotaDetail) api.QuotaDetail {
	return api.QuotaDetail{Status: api.QuotaDetailStatus(d.Status), UsagePct: d.UsagePct, Headroom: decInt(d.Headroom)}
}

// GetQuotaCheck serves whether a planned rate fits a provider tier's published limits.
func (s *Server) GetQuotaCheck(_ context.Context, req api.GetQuotaCheckRequestObject) (api.GetQuotaCheckResponseObject, error) {
	ix, err := decisionIndex(s.now())
	if err != nil {
		return nil, err
	}
	p := req.Params
	q := decide.QuotaQuery{Provider: p.Provider, Tier: string(orDefault(p.Tier, api.GetQuotaCheckParamsTier(defaultQuotaTier))),
		RPM: int64(orDefault(p.PlannedRpm, defaultQuotaPlanned)), TPM: int64(orDefault(p.PlannedTpm, defaultQuotaPlanned))}
	r, err := ix.QuotaCheck(q)
	switch {
	case errs.IsNotFound(err):
		return api.GetQuotaCheck404JSONResponse{NotFoundJSONResponse: notFound(err.Error())}, nil
	case errs.IsInput(err):
		return api.GetQuotaCheck400JSONResponse{BadRequestJSONResponse: badRequest(err.Error())}, nil
	case err != nil:
		return nil, err
	}
	out := api.GetQuotaCheck200JSONResponse{
		Provider: q.Provider, Tier: api.QuotaCheckResponseTier(q.Tier), Planned: api.QuotaCheckPlanned{Rpm: int(q.RPM), Tpm: int(q.TPM)},
		Limits: api.QuotaCheckLimits{Rpm: r.Limits.RequestsPerMinute, Rpd: r.Limits.RequestsPerDay,
			Tpm: r.Limits.TokensPerMinute, Tpd: r.Limits.TokensPerDay},
		Verdict:       api.QuotaCheckResponseVerdict(r.Verdict),
		MissingLimits: quotaMissing(r.Missing),
		Details:       api.QuotaCheckDetails{Rpm: decQuotaDetail(r.RPM), Tpm: decQuotaDetail(r.TPM)},
		Suggestions:   make([]api.QuotaCheckSuggestion, len(r.Suggestions)),
	}
	for i, sg := range r.Suggestions {
		out.Suggestions[i] = api.QuotaCheckSuggestion{ProviderId: sg.Provider, Tier: sg.Tier, Rpm: decInt(sg.RPM), Tpm: decInt(sg.TPM)}
	}
	return out, nil
}
