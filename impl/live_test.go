package impl_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/switchboard/switchboard/apitest"
	"github.com/switchboard/switchboard/dbtest"
	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/health"
	"github.com/switchboard/switchboard/impl"
	"github.com/switchboard/switchboard/poller"
	"github.com/switchboard/switchboard/poller/parse"
	"github.com/switchboard/switchboard/store"
)

// pollHistory feeds observations through the poller's state machine into a store, as the poll cycle does.
type pollHistory struct {
	t    *testing.T
	st   store.Store
	prev map[string]*store.ProviderState
	open map[string]*store.Incident
	n    int
}

func newPollHistory(t *testing.T, st store.Store) *pollHistory {
	return &pollHistory{t: t, st: st, prev: map[string]*store.ProviderState{}, open: map[string]*store.Incident{}}
}

// check records one check: status "" is a failed fetch (a timeout); rt < 0 means no time was obtained.
func (h *pollHistory) check(id string, at time.Time, status parse.Status, rt float64) {
	h.t.Helper()
	fx := poller.Step(h.prev[id], h.open[id], poller.Observation{ProviderID: id, ProviderName: id, At: at, Status: status},
		func() string { h.n++; return fmt.Sprintf("00000000-0000-4000-8000-%012d", h.n) })
	c := store.Check{ProviderID: id, CheckedAt: at, Outcome: store.Outcome(status)}
	if status == "" {
		kind := "timeout"
		c.Outcome, c.FailureKind = store.OutcomeFailed, &kind
	}
	if rt >= 0 {
		c.ResponseTimeMs = &rt
	}
	if _, err := h.st.RecordCheckResult(context.Background(), store.CheckResult{
		Check: c, State: fx.State, Change: fx.Change, NewIncident: fx.NewIncident, UpdatedIncident: fx.UpdatedIncident, Events: fx.Events,
	}); err != nil {
		h.t.Fatal(err)
	}
	if fx.State != nil {
		h.prev[id] = fx.State
	}
	switch {
	case fx.NewIncident != nil:
		h.open[id] = fx.NewIncident
	case fx.UpdatedIncident != nil && fx.UpdatedIncident.EndedAt != nil:
		delete(h.open, id)
	case fx.UpdatedIncident != nil:
		h.open[id] = fx.UpdatedIncident
	}
}

// buildHistory writes, relative to now:
//   - openai, every 10 minutes from 82 to 2 minutes ago: operational, operational, degraded, failed, outage,
//     outage, failed, operational, operational (one incident of 50 minutes, three status changes);
//   - mistral: operational 15 minutes ago, degraded 5 minutes ago (an ongoing incident);
//   - anthropic: operational 20 minutes ago (stale by now: unknown);
//   - groq: failed fetches only, without a time.
func buildHistory(t *testing.T, st store.Store, now time.Time) {
	h := newPollHistory(t, st)
	seq := []struct {
		s  parse.Status
		rt float64
	}{{parse.Operational, 200}, {parse.Operational, 210}, {parse.Degraded, 3500}, {"", 10000}, {parse.Outage, 800},
		{parse.Outage, 900}, {"", 10000}, {parse.Operational, 300}, {parse.Operational, 310}}
	for i, c := range seq {
		h.check("openai", now.Add(-2*time.Minute-time.Duration(len(seq)-1-i)*10*time.Minute), c.s, c.rt)
	}
	h.check("mistral", now.Add(-15*time.Minute), parse.Operational, 400)
	h.check("mistral", now.Add(-5*time.Minute), parse.Degraded, 4200)
	h.check("anthropic", now.Add(-20*time.Minute), parse.Operational, 150)
	for i := range 3 {
		h.check("groq", now.Add(-time.Duration(10+10*i)*time.Minute), "", -1)
	}
}

// TestLiveEndpoints runs the seven live endpoints over a realistic history on every engine. apitest validates
// every answer against the OpenAPI document.
func TestLiveEndpoints(t *testing.T) {
	for _, e := range dbtest.Engines(t) {
		t.Run(e.Name, func(t *testing.T) {
			st, _ := e.Open(t)
			now := time.Now().UTC()
			buildHistory(t, st, now)
			view := health.New(st, health.Options{})
			if err := view.Refresh(context.Background(), time.Now()); err != nil {
				t.Fatal(err)
			}
			s := apitest.Start(t, apitest.Options{Store: st, API: impl.New(impl.Deps{Store: st, Health: view})})
			t.Run("Health", func(t *testing.T) { testHealth(t, s, now) })
			t.Run("Freshness", func(t *testing.T) { testFreshness(t, s) })
			t.Run("Latency", func(t *testing.T) { testLatency(t, s) })
			t.Run("Changelog", func(t *testing.T) { testChangelog(t, s) })
			t.Run("Incidents", func(t *testing.T) { testIncidents(t, s) })
			t.Run("UptimeHistory", func(t *testing.T) { testUptimeHistory(t, s) })
			t.Run("RateLimitStatus", func(t *testing.T) { testRateLimitStatus(t, s) })
			t.Run("Errors", func(t *testing.T) { testLiveErrors(t, s) })

			// Without a view in Deps, New makes one that loads itself at the first request.
			lazy := apitest.Start(t, apitest.Options{Store: st})
			var hr api.HealthResponse
			lazy.Get("/api/v1/health").Decode(t, &hr)
			if hr.Providers["mistral"].Status != api.ProviderStatusDegraded || hr.Summary.Degraded != 1 {
				t.Errorf("lazily loaded view: %+v", hr.Summary)
			}
		})
	}
}

func get(t *testing.T, s *apitest.Server, path string, v any) *apitest.Response {
	t.Helper()
	r := s.Get(path)
	if r.Status != 200 {
		t.Fatalf("GET %s = %d %s", path, r.Status, r.Body)
	}
	r.Decode(t, v)
	return r
}

func num(p *float64) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
}

func testHealth(t *testing.T, s *apitest.Server, now time.Time) {
	var h api.HealthResponse
	r := get(t, s, "/api/v1/health", &h)
	if cc := r.Header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("Cache-Control = %q", cc)
	}
	if len(h.Providers) != 52 || h.Summary != (api.HealthSummary{Operational: 1, Degraded: 1, Outage: 0, Unknown: 50}) {
		t.Errorf("%d providers, summary %+v", len(h.Providers), h.Summary)
	}
	if time.Since(h.Timestamp) > time.Minute {
		t.Errorf("timestamp %v", h.Timestamp)
	}
	o := h.Providers["openai"]
	if o.Status != api.ProviderStatusOperational || o.LastChecked == nil || !o.LastChecked.Equal(now.Add(-2*time.Minute).Truncate(time.Microsecond)) || num(o.ResponseTimeMs) != "310" {
		t.Errorf("openai = %+v %s", o, num(o.ResponseTimeMs))
	}
	if a := h.Providers["anthropic"]; a.Status != api.ProviderStatusUnknown || a.LastChecked == nil {
		t.Errorf("anthropic (stale) = %+v", a)
	}
	if g := h.Providers["groq"]; g.Status != api.ProviderStatusUnknown || g.LastChecked != nil || g.ResponseTimeMs != nil {
		t.Errorf("groq (never observed) = %+v", g)
	}
	if !strings.Contains(string(r.Body), `"last_checked":null`) {
		t.Error("a never-observed provider's last_checked is not null")
	}
}

func testFreshness(t *testing.T, s *apitest.Server) {
	var f api.FreshnessRecord
	get(t, s, "/api/v1/freshness?provider=openai", &f)
	// Samples (failed fetches excluded): 200 210 3500 800 900 300 310; older half 200 210 3500, recent 900 300 310.
	if f.Provider != "openai" || !f.Fresh || f.AgeSeconds == nil || *f.AgeSeconds < 119 || *f.AgeSeconds > 720 ||
		f.Trend != api.TrendImproving || num(f.LatencyTrendMs) != "-800" || num(f.AvgResponseMs) != "888.6" ||
		f.DriftScore == nil || *f.DriftScore <= 0 || *f.DriftScore > 1 || f.FreshThresholdSeconds != 720 || f.Status != api.ProviderStatusOperational {
		t.Errorf("openai = %+v trend_ms %s avg %s", f, num(f.LatencyTrendMs), num(f.AvgResponseMs))
	}
	get(t, s, "/api/v1/freshness?provider=groq", &f)
	if f.Fresh || f.AgeSeconds != nil || f.LastChecked != nil || f.DriftScore != nil || f.Trend != api.TrendUnknown || f.AvgResponseMs != nil {
		t.Errorf("groq = %+v", f)
	}
	var all api.FreshnessListResponse
	get(t, s, "/api/v1/freshness", &all)
	if len(all.Providers) != 52 || all.Providers[0].Provider != "ai21" {
		t.Fatalf("all = %d records, first %+v", len(all.Providers), all.Providers[0])
	}
	for i := 1; i < len(all.Providers); i++ {
		if all.Providers[i-1].Provider >= all.Providers[i].Provider {
			t.Errorf("not sorted at %d", i)
		}
	}
}

func testLatency(t *testing.T, s *apitest.Server) {
	var l api.LatencyResponse
	get(t, s, "/api/v1/latency?provider=openai", &l) // default window 1h
	// In the last hour: failed, outage 800, outage 900, failed, operational 300, operational 310.
	if l.Window != "1h" || l.TotalChecks != 4 || num(l.UptimePctInWindow) != "50" || num(l.P50Ms) != "310" ||
		num(l.P95Ms) != "900" || num(l.P99Ms) != "900" || num(l.AvgMs) != "577.5" || num(l.TtftEstimateMs) != "231" ||
		l.Trend != api.TrendImproving {
		t.Errorf("1h = %+v p50 %s p95 %s avg %s ttft %s uptime %s", l, num(l.P50Ms), num(l.P95Ms), num(l.AvgMs), num(l.TtftEstimateMs), num(l.UptimePctInWindow))
	}
	get(t, s, "/api/v1/latency?provider=openai&window=24h", &l)
	if l.Window != "24h" || l.TotalChecks != 7 || num(l.UptimePctInWindow) != "71.43" || num(l.P99Ms) != "3500" {
		t.Errorf("24h = %+v", l)
	}
	get(t, s, "/api/v1/latency?provider=voyage-ai&window=6h", &l)
	if l.TotalChecks != 0 || l.P50Ms != nil || l.AvgMs != nil || l.TtftEstimateMs != nil || l.UptimePctInWindow != nil || l.Trend != api.TrendUnknown {
		t.Errorf("no samples = %+v", l)
	}
}

func testChangelog(t *testing.T, s *apitest.Server) {
	var c api.ChangelogResponse
	get(t, s, "/api/v1/changelog", &c)
	var got []string
	for _, e := range c.Entries {
		got = append(got, fmt.Sprintf("%s:%s>%s", e.ProviderId, e.Details.From, e.Details.To))
		if e.Type != api.ChangelogEntryTypeStatusChange || e.Date.Format(time.DateOnly) != e.Timestamp.UTC().Format(time.DateOnly) ||
			!strings.Contains(e.Description, string(e.Details.From)) || !strings.Contains(e.Description, string(e.Details.To)) {
			t.Errorf("entry = %+v", e)
		}
	}
	want := []string{"mistral:operational>degraded", "openai:outage>operational", "openai:degraded>outage", "openai:operational>degraded"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("changelog = %v, want %v", got, want)
	}
	if c.Entries[1].Description != "OpenAI changed from outage to operational" {
		t.Errorf("description = %q", c.Entries[1].Description)
	}
	get(t, s, "/api/v1/changelog?days=1&provider=mistral", &c)
	if len(c.Entries) != 1 {
		t.Errorf("mistral = %+v", c.Entries)
	}
	r := get(t, s, "/api/v1/changelog?days=30&provider=cohere", &c)
	if len(c.Entries) != 0 || !strings.Contains(string(r.Body), `"entries":[]`) {
		t.Errorf("cohere = %s", r.Body)
	}
}

func testIncidents(t *testing.T, s *apitest.Server) {
	var r api.IncidentsResponse
	get(t, s, "/api/v1/incidents", &r)
	if r.Summary != (api.IncidentsSummary{TotalIncidents: 2, Outages: 1, Degraded: 1, Ongoing: 1}) || len(r.Incidents) != 2 {
		t.Fatalf("incidents = %+v", r)
	}
	m, o := r.Incidents[0], r.Incidents[1]
	if m.ProviderId != "mistral" || !m.Ongoing || m.EndedAt != nil || m.Severity != api.IncidentSeverityDegraded || m.DurationMinutes < 5 {
		t.Errorf("mistral = %+v", m)
	}
	if o.ProviderId != "openai" || o.Ongoing || o.EndedAt == nil || o.Severity != api.IncidentSeverityOutage || o.DurationMinutes != 50 {
		t.Errorf("openai = %+v", o)
	}
	get(t, s, "/api/v1/incidents?severity=outage&hours=168", &r)
	if len(r.Incidents) != 1 || r.Incidents[0].ProviderId != "openai" || r.Summary.Degraded != 0 {
		t.Errorf("outages = %+v", r)
	}
	get(t, s, "/api/v1/incidents?severity=degraded&provider=openai", &r)
	if len(r.Incidents) != 0 || r.Summary.TotalIncidents != 0 {
		t.Errorf("openai degraded = %+v", r)
	}
	get(t, s, "/api/v1/incidents?hours=1&provider=mistral&severity=all", &r)
	if len(r.Incidents) != 1 {
		t.Errorf("mistral, 1 h = %+v", r)
	}
}

func testUptimeHistory(t *testing.T, s *apitest.Server) {
	var u api.UptimeHistoryResponse
	get(t, s, "/api/v1/uptime-history?provider=openai", &u) // default period 30d
	today := time.Now().UTC().Format(time.DateOnly)
	if u.Period != "30d" || u.Granularity != "daily" || len(u.Timeline) != 30 || u.Timeline[0].Date.Format(time.DateOnly) != today ||
		num(u.OverallUptimePct) != "71.43" || u.SlaTarget != nil || u.SlaMet != nil {
		t.Fatalf("openai = %+v overall %s", u, num(u.OverallUptimePct))
	}
	var total, outages, outageDays, nullDays int
	for i, d := range u.Timeline {
		total += d.TotalChecks
		outages += d.OutageChecks
		if d.OutageChecks > 0 {
			outageDays++
		}
		if d.UptimePct == nil {
			nullDays++
			if d.TotalChecks != 0 {
				t.Errorf("day %s has checks but no uptime", d.Date)
			}
		}
		if i > 0 && !d.Date.Before(u.Timeline[i-1].Date.Time) {
			t.Errorf("timeline not newest first at %d", i)
		}
	}
	// Seven observed checks (the two failed fetches are not), two outages; the history is under 90 minutes old.
	if total != 7 || outages != 2 || u.IncidentsInPeriod != outageDays || outageDays < 1 || nullDays < 28 {
		t.Errorf("totals: %d checks, %d outages, %d outage days (incidents_in_period %d), %d null days", total, outages, outageDays, u.IncidentsInPeriod, nullDays)
	}
	get(t, s, "/api/v1/uptime-history?provider=groq&period=7d", &u)
	if len(u.Timeline) != 7 || u.OverallUptimePct != nil || u.IncidentsInPeriod != 0 || u.Timeline[0].UptimePct != nil {
		t.Errorf("groq (failed fetches only) = %+v", u)
	}
	get(t, s, "/api/v1/uptime-history?provider=mistral&period=90d", &u)
	if len(u.Timeline) != 90 || num(u.OverallUptimePct) != "100" {
		t.Errorf("mistral 90d = %d days, %s", len(u.Timeline), num(u.OverallUptimePct))
	}
}

func testRateLimitStatus(t *testing.T, s *apitest.Server) {
	var r api.RateLimitStatusResponse
	get(t, s, "/api/v1/rate-limit-status", &r)
	if len(r.RateLimitStatus) != 52 {
		t.Fatalf("%d records", len(r.RateLimitStatus))
	}
	var got []string
	for _, x := range r.RateLimitStatus[:5] {
		c := "null"
		if x.Congestion != nil {
			c = string(*x.Congestion)
		}
		got = append(got, x.ProviderId+":"+c)
		if x.Recommendation == "" {
			t.Errorf("%s: no recommendation", x.ProviderId)
		}
	}
	// openai: 4 of 6 attempts failed or read outage; mistral: 400 and 4200 ms average 2300; anthropic's last
	// poll is 20 minutes old (low); then no data (groq's attempts all failed: no observation, congestion null).
	want := []string{"openai:critical", "mistral:moderate", "anthropic:low", "ai21:null", "alibaba-dashscope:null"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("order = %v, want %v", got, want)
	}
	o := r.RateLimitStatus[0]
	if num(o.ErrorRate1h) != "0.6667" || num(o.AvgResponseTimeMs) != "577.5" || num(o.P95ResponseTimeMs) != "900" || num(o.ResponseTimeTrend) != "-545" {
		t.Errorf("openai = %+v", o)
	}
	get(t, s, "/api/v1/rate-limit-status?provider=groq", &r)
	if g := r.RateLimitStatus[0]; g.Congestion != nil || num(g.ErrorRate1h) != "1" || g.AvgResponseTimeMs != nil || !strings.HasPrefix(g.Recommendation, "No data") {
		t.Errorf("groq = %+v", g)
	}
	get(t, s, "/api/v1/rate-limit-status", &r)
	if n := r.RateLimitStatus[3]; n.ErrorRate1h != nil || n.AvgResponseTimeMs != nil || n.P95ResponseTimeMs != nil {
		t.Errorf("no data = %+v", n)
	}
	get(t, s, "/api/v1/rate-limit-status?provider=mistral", &r)
	if len(r.RateLimitStatus) != 1 || r.RateLimitStatus[0].ProviderId != "mistral" || num(r.RateLimitStatus[0].AvgResponseTimeMs) != "2300" {
		t.Errorf("mistral = %+v", r)
	}
}

func testLiveErrors(t *testing.T, s *apitest.Server) {
	cases := []struct {
		path   string
		status int
		msg    string
	}{
		{"/api/v1/freshness?provider=nope", 404, `parameter provider: unknown provider "nope"`},
		{"/api/v1/freshness?provider=", 400, "parameter provider:"},
		{"/api/v1/latency", 400, "parameter provider: is required"},
		{"/api/v1/latency?provider=nope", 404, `parameter provider: unknown provider "nope"`},
		{"/api/v1/latency?provider=openai&window=2h", 400, "parameter window:"},
		{"/api/v1/latency?provider=" + strings.Repeat("a", 65), 400, "parameter provider:"},
		{"/api/v1/changelog?days=0", 400, "parameter days:"},
		{"/api/v1/changelog?days=31", 400, "parameter days:"},
		{"/api/v1/changelog?days=week", 400, "parameter days:"},
		{"/api/v1/changelog?provider=nope", 404, `parameter provider: unknown provider "nope"`},
		{"/api/v1/incidents?hours=0", 400, "parameter hours:"},
		{"/api/v1/incidents?hours=169", 400, "parameter hours:"},
		{"/api/v1/incidents?severity=minor", 400, "parameter severity:"},
		{"/api/v1/incidents?provider=nope", 404, `parameter provider: unknown provider "nope"`},
		{"/api/v1/uptime-history", 400, "parameter provider: is required"},
		{"/api/v1/uptime-history?provider=openai&period=1y", 400, "parameter period:"},
		{"/api/v1/uptime-history?provider=nope", 404, `parameter provider: unknown provider "nope"`},
		{"/api/v1/rate-limit-status?provider=nope", 404, `parameter provider: unknown provider "nope"`},
		{"/api/v1/rate-limit-status?provider=", 400, "parameter provider:"},
	}
	for _, c := range cases {
		r := s.Get(c.path)
		if r.Status != c.status || !strings.HasPrefix(r.Error(t), c.msg) {
			t.Errorf("GET %s = %d %s, want %d %q", c.path, r.Status, r.Body, c.status, c.msg)
		}
	}
	if r := s.Do("POST", "/api/v1/health", "{}", map[string][]string{"Content-Type": {"application/json"}}); r.Status != 405 {
		t.Errorf("POST /health = %d", r.Status)
	}
}
