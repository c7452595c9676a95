package impl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/switchboard/switchboard/errs"
	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/health"
	"github.com/switchboard/switchboard/seeds"
)

// DefaultHealthMaxAge is the age after which the health view New makes reloads itself in the background, so that
// replicas that do not run the poller stay current.
const DefaultHealthMaxAge = time.Minute

// The document's defaults: the request validator checks parameters but does not fill them in.
const (
	defaultLatencyWindow  = "1h"
	defaultChangelogDays  = 7
	defaultIncidentHours  = 24
	defaultIncidentFilter = health.SeverityAll
	defaultUptimePeriod   = "30d"
)

// HealthView is the view the live endpoints answer from: the server command refreshes it at start and hands it
// to the poller, which refreshes it after each cycle.
func (s *Server) HealthView() *health.View { return s.health }

// errKind sorts the errors of the health functions into the answers they get.
type errKind int

const (
	errNone errKind = iota
	errBadRequest
	errNotFound
	errInternal
)

func classify(err error) (errKind, string) {
	var unknown *errs.UnknownProviderError
	var input *errs.InputError
	switch {
	case err == nil:
		return errNone, ""
	case errors.As(err, &unknown):
		return errNotFound, "parameter provider: " + unknown.Error()
	case errors.As(err, &input):
		return errBadRequest, input.Error()
	}
	return errInternal, ""
}

func badRequest(msg string) api.BadRequestJSONResponse { return api.BadRequestJSONResponse{Error: msg} }
func notFound(msg string) api.NotFoundJSONResponse     { return api.NotFoundJSONResponse{Error: msg} }

func orDefault[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

// GetHealth serves the latest status of every provider. The body is the hottest answer of the service: it is
// encoded once per view snapshot and second and reused within that second (its timestamp says when it was made),
// while HTTP caches are told not to keep it.
func (s *Server) GetHealth(ctx context.Context, _ api.GetHealthRequestObject) (api.GetHealthResponseObject, error) {
	snap, err := s.health.Current(ctx)
	if err != nil {
		return nil, err
	}
	t := s.now()
	if c := s.healthBody.Load(); c != nil && c.snap == snap && c.second == t.Unix() {
		return encodedHealth(c.body), nil
	}
	r := snap.Health(t)
	cats, err := s.catalogsState()
	if err != nil {
		return nil, err
	}
	body := api.HealthResponse{Timestamp: t, Providers: make(map[string]api.ProviderHealth, len(r.Providers)), Summary: summary(r.Summary),
		Poller: pollerState(snap.Poller(t, r)), Catalogs: cats}
	for id, h := range r.Providers {
		body.Providers[id] = api.ProviderHealth{Status: api.ProviderStatus(h.Status), LastChecked: h.LastChecked, ResponseTimeMs: h.ResponseTimeMs}
	}
	b, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("encoding health: %w", err)
	}
	s.healthBody.Store(&cachedHealth{snap: snap, second: t.Unix(), body: b})
	return encodedHealth(b), nil
}

// LiveEpoch names the moment a live answer that depends only on the health snapshot and the second (its
// operation says so with x-answer-reuse) is made for: the snapshot's number and the second on the service's
// clock. The HTTP layer replays such an answer until either moves (server.LiveEpocher). It runs ahead of the
// request limits, so it never waits for the store: before the first snapshot is loaded nothing is replayed.
func (s *Server) LiveEpoch(context.Context) (snapshot uint64, second int64, ok bool) {
	snap := s.health.Loaded()
	if snap == nil {
		return 0, 0, false
	}
	return snap.Seq(), s.now().Unix(), true
}

// catalogsState is the catalogs part of /health.
func (s *Server) catalogsState() (api.CatalogsState, error) {
	if s.deps.Catalogs != nil {
		return s.deps.Catalogs(), nil
	}
	set, err := seeds.Current()
	if err != nil {
		return api.CatalogsState{}, fmt.Errorf("reading the catalogs: %w", err)
	}
	return api.CatalogsState{Refresh: api.CatalogsStateRefreshOff, Origin: api.CatalogsStateOrigin(set.Origin()), Digest: set.Digest()}, nil
}

func pollerState(p health.PollerState) api.PollerState {
	out := api.PollerState{State: api.PollerStateState(p.State), LastSuccess: p.LastSuccess, ObservedProviders: p.Observed}
	if p.Hint != "" {
		out.Hint = &p.Hint
	}
	return out
}

// cachedHealth is one encoded /health body.
type cachedHealth struct {
	snap   *health.Snapshot
	second int64
	body   []byte
}

// encodedHealth writes an already encoded HealthResponse, as the document describes it.
type encodedHealth []byte

func (b encodedHealth) VisitGetHealthResponse(w http.ResponseWriter) error {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(b)
	return err
}

func summary(s health.Summary) api.HealthSummary {
	return api.HealthSummary{Operational: s.Operational, Degraded: s.Degraded, Outage: s.Outage, Unknown: s.Unknown}
}

// GetFreshness serves one provider's freshness, or every provider's.
func (s *Server) GetFreshness(ctx context.Context, req api.GetFreshnessRequestObject) (api.GetFreshnessResponseObject, error) {
	snap, err := s.health.Current(ctx)
	if err != nil {
		return nil, err
	}
	var out api.FreshnessResponse
	if req.Params.Provider == nil {
		all := snap.FreshnessAll(s.now())
		list := api.FreshnessListResponse{Providers: make([]api.FreshnessRecord, len(all))}
		for i, f := range all {
			list.Providers[i] = freshnessRecord(f)
		}
		err = out.FromFreshnessListResponse(list)
	} else {
		f, ferr := snap.Freshness(*req.Params.Provider, s.now())
		switch kind, msg := classify(ferr); kind {
		case errBadRequest:
			return api.GetFreshness400JSONResponse{BadRequestJSONResponse: badRequest(msg)}, nil
		case errNotFound:
			return api.GetFreshness404JSONResponse{NotFoundJSONResponse: notFound(msg)}, nil
		case errInternal:
			return nil, ferr
		}
		err = out.FromFreshnessRecord(freshnessRecord(f))
	}
	if err != nil {
		return nil, err
	}
	return api.GetFreshness200JSONResponse(out), nil
}

func freshnessRecord(f health.Freshness) api.FreshnessRecord {
	return api.FreshnessRecord{
		Provider: f.Provider, Status: api.ProviderStatus(f.Status), LastChecked: f.LastChecked, Fresh: f.Fresh,
		AgeSeconds: f.AgeSeconds, DriftScore: f.DriftScore, Trend: api.Trend(f.Trend), LatencyTrendMs: f.LatencyTrendMs,
		AvgResponseMs: f.AvgResponseMs, FreshThresholdSeconds: f.FreshThresholdSeconds,
	}
}

// GetLatency serves one provider's poll latency percentiles over a window.
func (s *Server) GetLatency(ctx context.Context, req api.GetLatencyRequestObject) (api.GetLatencyResponseObject, error) {
	snap, err := s.health.Current(ctx)
	if err != nil {
		return nil, err
	}
	window := string(orDefault(req.Params.Window, api.GetLatencyParamsWindow(defaultLatencyWindow)))
	l, err := snap.Latency(req.Params.Provider, window, s.now())
	switch kind, msg := classify(err); kind {
	case errBadRequest:
		return api.GetLatency400JSONResponse{BadRequestJSONResponse: badRequest(msg)}, nil
	case errNotFound:
		return api.GetLatency404JSONResponse{NotFoundJSONResponse: notFound(msg)}, nil
	case errInternal:
		return nil, err
	}
	return api.GetLatency200JSONResponse{
		Provider: l.Provider, Window: api.LatencyResponseWindow(l.Window), P50Ms: l.P50Ms, P95Ms: l.P95Ms, P99Ms: l.P99Ms,
		AvgMs: l.AvgMs, TtftEstimateMs: l.TTFTEstimateMs, Trend: api.Trend(l.Trend), UptimePctInWindow: l.UptimePct,
		TotalChecks: l.TotalChecks,
	}, nil
}

// GetChangelog serves the status changes of the last days.
func (s *Server) GetChangelog(ctx context.Context, req api.GetChangelogRequestObject) (api.GetChangelogResponseObject, error) {
	snap, err := s.health.Current(ctx)
	if err != nil {
		return nil, err
	}
	entries, err := snap.Changelog(orDefault(req.Params.Days, defaultChangelogDays), orDefault(req.Params.Provider, ""), s.now())
	switch kind, msg := classify(err); kind {
	case errBadRequest:
		return api.GetChangelog400JSONResponse{BadRequestJSONResponse: badRequest(msg)}, nil
	case errNotFound:
		return api.GetChangelog404JSONResponse{NotFoundJSONResponse: notFound(msg)}, nil
	case errInternal:
		return nil, err
	}
	out := api.GetChangelog200JSONResponse{Entries: make([]api.ChangelogEntry, len(entries))}
	for i, e := range entries {
		out.Entries[i] = api.ChangelogEntry{
			Date: openapi_types.Date{Time: e.Timestamp}, Timestamp: e.Timestamp, ProviderId: e.ProviderID,
			Type: api.ChangelogEntryTypeStatusChange, Description: e.Description,
			Details: api.ChangelogDetails{From: api.ChangelogObservedStatus(e.From), To: api.ChangelogObservedStatus(e.To)},
		}
	}
	return out, nil
}

// GetIncidents serves the incidents of the last hours.
func (s *Server) GetIncidents(ctx context.Context, req api.GetIncidentsRequestObject) (api.GetIncidentsResponseObject, error) {
	snap, err := s.health.Current(ctx)
	if err != nil {
		return nil, err
	}
	p := req.Params
	sev := string(orDefault(p.Severity, api.GetIncidentsParamsSeverity(defaultIncidentFilter)))
	r, err := snap.Incidents(orDefault(p.Hours, defaultIncidentHours), sev, orDefault(p.Provider, ""), s.now())
	switch kind, msg := classify(err); kind {
	case errBadRequest:
		return api.GetIncidents400JSONResponse{BadRequestJSONResponse: badRequest(msg)}, nil
	case errNotFound:
		return api.GetIncidents404JSONResponse{NotFoundJSONResponse: notFound(msg)}, nil
	case errInternal:
		return nil, err
	}
	out := api.GetIncidents200JSONResponse{
		Incidents: make([]api.Incident, len(r.Incidents)),
		Summary: api.IncidentsSummary{
			TotalIncidents: r.Summary.Total, Outages: r.Summary.Outages, Degraded: r.Summary.Degraded, Ongoing: r.Summary.Ongoing,
		},
	}
	for i, inc := range r.Incidents {
		out.Incidents[i] = api.Incident{
			ProviderId: inc.ProviderID, Severity: api.IncidentSeverity(inc.Severity), StartedAt: inc.StartedAt,
			EndedAt: inc.EndedAt, DurationMinutes: inc.DurationMinutes, Ongoing: inc.Ongoing, ExpectedRecovery: expectedRecovery(inc.ExpectedRecovery),
		}
	}
	return out, nil
}

// expectedRecovery is the document's form of a recovery estimate; nil stays nil (null).
func expectedRecovery(r *health.Recovery) *api.ExpectedRecovery {
	if r == nil {
		return nil
	}
	return &api.ExpectedRecovery{MedianMinutes: r.MedianMinutes, P80Minutes: r.P80Minutes, SampleSize: r.SampleSize, BasedOn: r.BasedOn}
}

// GetUptimeHistory serves one provider's daily uptime over a period.
func (s *Server) GetUptimeHistory(ctx context.Context, req api.GetUptimeHistoryRequestObject) (api.GetUptimeHistoryResponseObject, error) {
	snap, err := s.health.Current(ctx)
	if err != nil {
		return nil, err
	}
	period := string(orDefault(req.Params.Period, api.GetUptimeHistoryParamsPeriod(defaultUptimePeriod)))
	h, err := snap.UptimeHistory(req.Params.Provider, period, s.now())
	switch kind, msg := classify(err); kind {
	case errBadRequest:
		return api.GetUptimeHistory400JSONResponse{BadRequestJSONResponse: badRequest(msg)}, nil
	case errNotFound:
		return api.GetUptimeHistory404JSONResponse{NotFoundJSONResponse: notFound(msg)}, nil
	case errInternal:
		return nil, err
	}
	out := api.GetUptimeHistory200JSONResponse{
		Provider: h.Provider, Period: api.UptimeHistoryPeriod(h.Period), Granularity: api.UptimeHistoryResponseGranularityDaily,
		OverallUptimePct: h.OverallUptimePct, SlaTarget: h.SLATarget, SlaMet: h.SLAMet, IncidentsInPeriod: h.IncidentsInPeriod,
		Timeline: make([]api.UptimeHistoryDay, len(h.Timeline)),
	}
	for i, d := range h.Timeline {
		day, err := time.Parse(time.DateOnly, d.Date)
		if err != nil {
			return nil, err
		}
		out.Timeline[i] = api.UptimeHistoryDay{
			Date: openapi_types.Date{Time: day}, UptimePct: d.UptimePct, TotalChecks: d.TotalChecks, OutageChecks: d.OutageChecks,
		}
	}
	return out, nil
}

// GetRateLimitStatus serves the live congestion of one provider or of all, worst first.
func (s *Server) GetRateLimitStatus(ctx context.Context, req api.GetRateLimitStatusRequestObject) (api.GetRateLimitStatusResponseObject, error) {
	snap, err := s.health.Current(ctx)
	if err != nil {
		return nil, err
	}
	rs, err := snap.RateLimitStatus(orDefault(req.Params.Provider, ""), s.now())
	switch kind, msg := classify(err); kind {
	case errBadRequest:
		return api.GetRateLimitStatus400JSONResponse{BadRequestJSONResponse: badRequest(msg)}, nil
	case errNotFound:
		return api.GetRateLimitStatus404JSONResponse{NotFoundJSONResponse: notFound(msg)}, nil
	case errInternal:
		return nil, err
	}
	out := api.GetRateLimitStatus200JSONResponse{RateLimitStatus: make([]api.RateLimitStatusRecord, len(rs))}
	for i, r := range rs {
		var c *api.RateLimitStatusCongestion
		if r.Congestion != health.CongestionUnknown {
			v := api.RateLimitStatusCongestion(r.Congestion)
			c = &v
		}
		out.RateLimitStatus[i] = api.RateLimitStatusRecord{
			ProviderId: r.ProviderID, Congestion: c, AvgResponseTimeMs: r.AvgResponseTimeMs, P95ResponseTimeMs: r.P95ResponseTimeMs,
			ResponseTimeTrend: r.ResponseTimeTrendMs, ErrorRate1h: r.ErrorRate1h, Recommendation: r.Recommendation,
		}
	}
	return out, nil
}
