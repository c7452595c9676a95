package health_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/switchboard/switchboard/errs"
	"github.com/switchboard/switchboard/health"
	"github.com/switchboard/switchboard/store"
)

// now is the fixed current time of the hand-built histories: 12:00 UTC, so that day boundaries are clear.
var now = time.Date(2026, 11, 10, 12, 0, 0, 0, time.UTC)

func ago(d time.Duration) time.Time { return now.Add(-d) }

func f(v float64) *float64 { return &v }

// chk is one check; rt < 0 means no time was obtained.
func chk(id string, at time.Time, o store.Outcome, rt float64) store.Check {
	c := store.Check{ProviderID: id, CheckedAt: at, Outcome: o}
	if rt >= 0 {
		c.ResponseTimeMs = f(rt)
	}
	return c
}

func snap(in health.Input) *health.Snapshot { return health.NewSnapshot(now, in, health.Options{}) }

func val(p *float64) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
}

func eqPtr(p *float64, want float64) bool { return p != nil && *p == want }

func TestHealthStaleness(t *testing.T) {
	in := health.Input{
		States: []store.ProviderState{
			{ProviderID: "openai", LastStatus: store.OutcomeOperational, LastObservedAt: ago(719 * time.Second)},
			{ProviderID: "anthropic", LastStatus: store.OutcomeDegraded, LastObservedAt: ago(720 * time.Second)},
			{ProviderID: "groq", LastStatus: store.OutcomeOutage, LastObservedAt: ago(721 * time.Second)},
			{ProviderID: "mistral", LastStatus: store.OutcomeOutage, LastObservedAt: ago(time.Minute)},
		},
		Latest: []store.Check{
			chk("openai", ago(30*time.Second), store.OutcomeFailed, -1), // the last fetch failed: no time
			chk("anthropic", ago(720*time.Second), store.OutcomeDegraded, 3456.78),
			chk("mistral", ago(time.Minute), store.OutcomeOutage, 250),
			chk("cohere", ago(time.Minute), store.OutcomeFailed, 10000), // never observed, but fetched
		},
	}
	r := snap(in).Health(now)
	if len(r.Providers) != 52 {
		t.Fatalf("%d providers, want all 52", len(r.Providers))
	}
	s := r.Summary
	if s.Operational+s.Degraded+s.Outage+s.Unknown != 52 || s.Operational != 1 || s.Degraded != 1 || s.Outage != 1 || s.Unknown != 49 {
		t.Errorf("summary = %+v", s)
	}
	cases := []struct {
		id          string
		status      health.Status
		lastChecked *time.Time
		rt          string
	}{
		{"openai", health.StatusOperational, ptrTime(ago(719 * time.Second)), "null"},
		{"anthropic", health.StatusDegraded, ptrTime(ago(720 * time.Second)), "3456.8"}, // exactly 720 s: still fresh
		{"groq", health.StatusUnknown, ptrTime(ago(721 * time.Second)), "null"},         // stale
		{"mistral", health.StatusOutage, ptrTime(ago(time.Minute)), "250"},
		{"cohere", health.StatusUnknown, nil, "null"}, // its fetch failed: the time of a failed fetch is no response time
		{"voyage-ai", health.StatusUnknown, nil, "null"},
	}
	for _, c := range cases {
		h := r.Providers[c.id]
		if h.Status != c.status || val(h.ResponseTimeMs) != c.rt || (h.LastChecked == nil) != (c.lastChecked == nil) ||
			(h.LastChecked != nil && !h.LastChecked.Equal(*c.lastChecked)) {
			t.Errorf("%s = %s %v %s, want %s %v %s", c.id, h.Status, h.LastChecked, val(h.ResponseTimeMs), c.status, c.lastChecked, c.rt)
		}
	}

	// Time passes, nothing new is observed: everything goes unknown, last_checked stays.
	later := snap(in).Health(now.Add(time.Hour))
	if later.Summary.Unknown != 52 || later.Providers["mistral"].LastChecked == nil {
		t.Errorf("an hour later: %+v", later.Summary)
	}

	// An empty snapshot (never refreshed): all unknown.
	empty := health.NewSnapshot(time.Time{}, health.Input{}, health.Options{}).Health(now)
	if empty.Summary.Unknown != 52 || len(empty.Providers) != 52 {
		t.Errorf("empty = %+v", empty.Summary)
	}
}

func ptrTime(t time.Time) *time.Time { return &t }

func TestFreshness(t *testing.T) {
	var cs []store.Check
	// 12 samples, oldest first: 100 x 6 then 300 x 6, with failed fetches (never samples) in between. The last
	// 10 samples are 100 x 4 then 300 x 6: older half 100,100,100,100,300 (avg 140), recent half 300 x 5.
	for i := range 12 {
		rt := 100.0
		if i >= 6 {
			rt = 300
		}
		at := ago(time.Duration(12-i) * 10 * time.Minute)
		cs = append(cs, chk("openai", at, store.OutcomeOperational, rt), chk("openai", at.Add(time.Minute), store.OutcomeFailed, 5))
	}
	cs = append(cs, chk("openai", now.Add(time.Minute), store.OutcomeOperational, 99999)) // after now: ignored
	in := health.Input{
		States: []store.ProviderState{
			{ProviderID: "openai", LastStatus: store.OutcomeOperational, LastObservedAt: ago(10 * time.Minute)},
			{ProviderID: "groq", LastStatus: store.OutcomeDegraded, LastObservedAt: ago(13 * time.Minute)},
		},
		Checks: map[string][]store.Check{
			"openai": cs,
			"groq":   {chk("groq", ago(13*time.Minute), store.OutcomeDegraded, 4000)},
		},
	}
	s := snap(in)
	fr, err := s.Freshness("openai", now)
	if err != nil {
		t.Fatal(err)
	}
	// mean of the last 10: (4*100 + 6*300)/10 = 220; population sd = sqrt((4*120^2 + 6*80^2)/10) = 97.98; cv 0.4454
	if !fr.Fresh || !eqPtr(fr.AgeSeconds, 600) || !eqPtr(fr.AvgResponseMs, 220) || !eqPtr(fr.DriftScore, 0.4454) ||
		fr.Trend != health.TrendDegrading || !eqPtr(fr.LatencyTrendMs, 160) || fr.FreshThresholdSeconds != 720 ||
		fr.Status != health.StatusOperational || fr.LastChecked == nil {
		t.Errorf("openai = %+v drift %s trend_ms %s avg %s age %s", fr, val(fr.DriftScore), val(fr.LatencyTrendMs), val(fr.AvgResponseMs), val(fr.AgeSeconds))
	}
	g, _ := s.Freshness("groq", now)
	if g.Fresh || !eqPtr(g.AgeSeconds, 780) || g.DriftScore != nil || g.Trend != health.TrendUnknown || g.LatencyTrendMs != nil ||
		!eqPtr(g.AvgResponseMs, 4000) || g.Status != health.StatusUnknown {
		t.Errorf("groq = %+v", g)
	}
	n, _ := s.Freshness("voyage-ai", now)
	if n.Fresh || n.AgeSeconds != nil || n.LastChecked != nil || n.AvgResponseMs != nil || n.Trend != health.TrendUnknown {
		t.Errorf("never polled = %+v", n)
	}
	all := s.FreshnessAll(now)
	if len(all) != 52 {
		t.Fatalf("%d records", len(all))
	}
	for i := 1; i < len(all); i++ {
		if all[i-1].Provider >= all[i].Provider {
			t.Fatalf("not sorted by ID at %d: %s, %s", i, all[i-1].Provider, all[i].Provider)
		}
	}
	var unknown *errs.UnknownProviderError
	if _, err := s.Freshness("nope", now); !errors.As(err, &unknown) || unknown.ID != "nope" {
		t.Errorf("unknown provider: %v", err)
	}
}

func TestLatency(t *testing.T) {
	var cs []store.Check
	// In the last hour: samples 100..1000 (ten checks, one of them an outage), a failed fetch and an
	// observed check without a time.
	for i := 1; i <= 10; i++ {
		o := store.OutcomeOperational
		if i == 10 {
			o = store.OutcomeOutage
		}
		cs = append(cs, chk("openai", ago(time.Duration(60-5*i)*time.Minute), o, float64(i*100)))
	}
	cs = append(cs, chk("openai", ago(3*time.Minute), store.OutcomeFailed, 15000), chk("openai", ago(2*time.Minute), store.OutcomeDegraded, -1))
	// Older: only in the 6h and 24h windows.
	cs = append(cs, chk("openai", ago(2*time.Hour), store.OutcomeOutage, 5000), chk("openai", ago(23*time.Hour), store.OutcomeOperational, 50))
	s := snap(health.Input{Checks: map[string][]store.Check{
		"openai":    cs,
		"voyage-ai": {chk("voyage-ai", ago(time.Minute), store.OutcomeOperational, 100)},
	}})

	l, err := s.Latency("openai", "1h", now)
	if err != nil {
		t.Fatal(err)
	}
	// 11 observed checks (the failed one is not), 1 outage: 10/11.
	if !eqPtr(l.P50Ms, 500) || !eqPtr(l.P95Ms, 1000) || !eqPtr(l.P99Ms, 1000) || !eqPtr(l.AvgMs, 550) ||
		!eqPtr(l.TTFTEstimateMs, 220) || l.TotalChecks != 11 || !eqPtr(l.UptimePct, 90.91) || l.Trend != health.TrendDegrading ||
		l.Window != "1h" || l.Provider != "openai" {
		t.Errorf("1h = %+v p50 %s p95 %s p99 %s avg %s ttft %s uptime %s", l, val(l.P50Ms), val(l.P95Ms), val(l.P99Ms), val(l.AvgMs), val(l.TTFTEstimateMs), val(l.UptimePct))
	}
	l6, _ := s.Latency("openai", "6h", now)
	if l6.TotalChecks != 12 || !eqPtr(l6.P99Ms, 5000) || !eqPtr(l6.UptimePct, 83.33) {
		t.Errorf("6h = %+v", l6)
	}
	l24, _ := s.Latency("openai", "24h", now)
	if l24.TotalChecks != 13 || !eqPtr(l24.P50Ms, 500) {
		t.Errorf("24h = %+v p50 %s", l24, val(l24.P50Ms))
	}

	v, _ := s.Latency("voyage-ai", "1h", now) // not an LLM provider
	if v.TTFTEstimateMs != nil || !eqPtr(v.AvgMs, 100) || v.Trend != health.TrendUnknown {
		t.Errorf("voyage-ai = %+v", v)
	}
	e, _ := s.Latency("anthropic", "24h", now)
	if e.P50Ms != nil || e.AvgMs != nil || e.TTFTEstimateMs != nil || e.UptimePct != nil || e.TotalChecks != 0 || e.Trend != health.TrendUnknown {
		t.Errorf("no samples = %+v", e)
	}
	var input *errs.InputError
	if _, err := s.Latency("openai", "2h", now); !errors.As(err, &input) || !strings.HasPrefix(input.Msg, "parameter "+"window"+":") {
		t.Errorf("bad window: %v", err)
	}
	var unknown *errs.UnknownProviderError
	if _, err := s.Latency("nope", "1h", now); !errors.As(err, &unknown) {
		t.Errorf("unknown provider: %v", err)
	}
}

func TestChangelog(t *testing.T) {
	change := func(id string, at time.Time, from, to store.Outcome, n int64) store.StatusChange {
		return store.StatusChange{ID: n, ProviderID: id, ChangedAt: at, From: from, To: to}
	}
	op, deg, out := store.OutcomeOperational, store.OutcomeDegraded, store.OutcomeOutage
	s := snap(health.Input{Changes: []store.StatusChange{
		change("openai", ago(time.Hour), op, deg, 1),
		change("anthropic", ago(time.Hour), deg, out, 2), // same time: anthropic before openai
		change("openai", ago(30*time.Minute), deg, op, 3),
		change("groq", ago(7*24*time.Hour), op, out, 4),                  // exactly 7 days: inside the default window
		change("groq", ago(7*24*time.Hour+time.Second), out, op, 5),      // just outside
		change("mistral", ago(29*24*time.Hour), op, deg, 6),              // within 30 days
		change("mistral", now.Add(time.Minute), deg, op, 7),              // after now
		change("not-monitored", ago(2*time.Minute), op, deg, 8),          // not one of the 52: left out
		change("cohere", ago(23*time.Hour+59*time.Minute), op, deg, 9),   // yesterday is 2026-11-09
		change("cohere", ago(12*time.Hour+time.Nanosecond), deg, op, 10), // 2026-11-09 23:59:59.999999999
	}})
	es, err := s.Changelog(7, "", now)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range es {
		got = append(got, fmt.Sprintf("%s %s %s>%s", e.Date, e.ProviderID, e.From, e.To))
	}
	want := []string{
		"2026-11-10 openai degraded>operational",
		"2026-11-10 anthropic degraded>outage",
		"2026-11-10 openai operational>degraded",
		"2026-11-09 cohere degraded>operational",
		"2026-11-09 cohere operational>degraded",
		"2026-11-03 groq operational>outage",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("changelog =\n%v\nwant\n%v", got, want)
	}
	if es[0].Description != "OpenAI changed from degraded to operational" || !es[0].Timestamp.Equal(ago(30*time.Minute)) {
		t.Errorf("entry = %+v", es[0])
	}
	one, _ := s.Changelog(1, "openai", now)
	if len(one) != 2 || one[0].ProviderID != "openai" || one[1].ProviderID != "openai" {
		t.Errorf("openai, 1 day = %+v", one)
	}
	month, _ := s.Changelog(30, "mistral", now)
	if len(month) != 1 || month[0].To != deg {
		t.Errorf("mistral, 30 days = %+v", month)
	}
	none, _ := s.Changelog(30, "voyage-ai", now)
	if none == nil || len(none) != 0 {
		t.Errorf("no changes = %#v, want an empty list", none)
	}
	var input *errs.InputError
	for _, d := range []int{0, 31} {
		if _, err := s.Changelog(d, "", now); !errors.As(err, &input) || !strings.HasPrefix(input.Msg, "parameter "+"days"+":") {
			t.Errorf("days=%d: %v", d, err)
		}
	}
	var unknown *errs.UnknownProviderError
	if _, err := s.Changelog(7, "nope", now); !errors.As(err, &unknown) {
		t.Errorf("unknown provider: %v", err)
	}
}

func TestIncidents(t *testing.T) {
	end := func(d time.Duration) *time.Time { e := ago(d); return &e }
	out, deg := store.OutcomeOutage, store.OutcomeDegraded
	s := snap(health.Input{Incidents: []store.Incident{
		{ID: "a", ProviderID: "openai", Severity: out, StartedAt: ago(2 * time.Hour)},                                   // ongoing, 120 min
		{ID: "b", ProviderID: "anthropic", Severity: deg, StartedAt: ago(30 * time.Hour), EndedAt: end(23 * time.Hour)}, // ended inside 24 h
		{ID: "c", ProviderID: "groq", Severity: deg, StartedAt: ago(30 * time.Hour), EndedAt: end(25 * time.Hour)},      // ended before 24 h
		{ID: "d", ProviderID: "groq", Severity: out, StartedAt: ago(3 * time.Hour), EndedAt: end(150 * time.Minute)},    // 30 min
		{ID: "e", ProviderID: "cohere", Severity: deg, StartedAt: ago(100 * time.Hour)},                                 // ongoing for long
		{ID: "f", ProviderID: "mistral", Severity: deg, StartedAt: ago(2 * time.Hour)},                                  // same start as a
		{ID: "g", ProviderID: "mistral", Severity: out, StartedAt: now.Add(time.Minute)},                                // after now
		{ID: "h", ProviderID: "xai", Severity: out, StartedAt: ago(20 * time.Minute), EndedAt: end(-10 * time.Minute)},  // ends after now: ongoing then
		{ID: "i", ProviderID: "not-monitored", Severity: out, StartedAt: ago(time.Hour)},                                // not one of the 52
	}})
	r, err := s.Incidents(24, "all", "", now)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, i := range r.Incidents {
		got = append(got, fmt.Sprintf("%s:%s:%v:%v", i.ProviderID, i.Severity, i.DurationMinutes, i.Ongoing))
	}
	want := []string{"xai:outage:20:true", "mistral:degraded:120:true", "openai:outage:120:true", "groq:outage:30:false",
		"anthropic:degraded:420:false", "cohere:degraded:6000:true"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("incidents =\n%v\nwant\n%v", got, want)
	}
	if r.Summary != (health.IncidentSummary{Total: 6, Outages: 3, Degraded: 3, Ongoing: 4}) {
		t.Errorf("summary = %+v", r.Summary)
	}
	if r.Incidents[0].EndedAt != nil || r.Incidents[3].EndedAt == nil || !r.Incidents[3].EndedAt.Equal(ago(150*time.Minute)) {
		t.Errorf("ended_at: %+v / %+v", r.Incidents[0], r.Incidents[3])
	}

	o, _ := s.Incidents(24, "outage", "", now)
	d, _ := s.Incidents(24, "degraded", "", now)
	if o.Summary.Total != 3 || o.Summary.Degraded != 0 || d.Summary.Total != 3 || d.Summary.Outages != 0 {
		t.Errorf("severity filters: %+v %+v", o.Summary, d.Summary)
	}
	g, _ := s.Incidents(168, "all", "groq", now)
	if len(g.Incidents) != 2 || g.Incidents[0].StartedAt.After(now) || g.Summary.Ongoing != 0 {
		t.Errorf("groq, 168 h = %+v", g)
	}
	short, _ := s.Incidents(1, "all", "", now)
	if short.Summary.Total != 4 { // the ongoing ones: xai, mistral, openai, cohere
		t.Errorf("1 h = %+v", short.Summary)
	}
	none, _ := s.Incidents(24, "all", "voyage-ai", now)
	if none.Incidents == nil || len(none.Incidents) != 0 || none.Summary.Total != 0 {
		t.Errorf("none = %#v", none)
	}
	var input *errs.InputError
	for _, c := range []struct {
		hours int
		sev   string
		param string
	}{{0, "all", "hours"}, {169, "all", "hours"}, {24, "minor", "severity"}} {
		if _, err := s.Incidents(c.hours, c.sev, "", now); !errors.As(err, &input) || !strings.HasPrefix(input.Msg, "parameter "+c.param+":") {
			t.Errorf("%d %s: %v", c.hours, c.sev, err)
		}
	}
	var unknown *errs.UnknownProviderError
	if _, err := s.Incidents(24, "all", "nope", now); !errors.As(err, &unknown) {
		t.Errorf("unknown provider: %v", err)
	}
}

func TestUptimeHistory(t *testing.T) {
	day := func(d int) string { return now.AddDate(0, 0, -d).Format(time.DateOnly) }
	in := health.Input{Daily: []store.DayCount{
		{ProviderID: "openai", Day: day(0), Observed: 10, Outages: 1, Degraded: 3}, // 90 %
		{ProviderID: "openai", Day: day(2), Observed: 144, Outages: 0},             // 100 %
		{ProviderID: "openai", Day: day(3), Observed: 0, Outages: 0},               // only failed fetches: null
		{ProviderID: "openai", Day: day(6), Observed: 46, Outages: 46},             // 0 %
		{ProviderID: "openai", Day: day(7), Observed: 100, Outages: 50},            // outside 7d, inside 30d
		{ProviderID: "openai", Day: day(89), Observed: 1, Outages: 1},              // the 90th day
		{ProviderID: "anthropic", Day: day(1), Observed: 3, Outages: 0},
	}}
	s := snap(in)
	h, err := s.UptimeHistory("openai", "7d", now)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Timeline) != 7 || h.Timeline[0].Date != "2026-11-10" || h.Timeline[6].Date != "2026-11-04" {
		t.Fatalf("timeline = %+v", h.Timeline)
	}
	wantPct := []string{"90", "null", "100", "null", "null", "null", "0"}
	for i, d := range h.Timeline {
		if val(d.UptimePct) != wantPct[i] {
			t.Errorf("day %s uptime %s, want %s", d.Date, val(d.UptimePct), wantPct[i])
		}
	}
	if h.Timeline[0].TotalChecks != 10 || h.Timeline[0].OutageChecks != 1 || h.Timeline[1].TotalChecks != 0 {
		t.Errorf("counts = %+v", h.Timeline[:2])
	}
	// Weighted: (200 - 47) / 200 observed, not the mean of the daily percentages.
	if !eqPtr(h.OverallUptimePct, 76.5) || h.IncidentsInPeriod != 2 || h.SLATarget != nil || h.SLAMet != nil || h.Period != "7d" {
		t.Errorf("7d = overall %s incidents %d sla %v %v", val(h.OverallUptimePct), h.IncidentsInPeriod, h.SLATarget, h.SLAMet)
	}
	m, _ := s.UptimeHistory("openai", "30d", now)
	if len(m.Timeline) != 30 || !eqPtr(m.OverallUptimePct, 67.67) || m.IncidentsInPeriod != 3 {
		t.Errorf("30d = %s %d", val(m.OverallUptimePct), m.IncidentsInPeriod)
	}
	q, _ := s.UptimeHistory("openai", "90d", now)
	if len(q.Timeline) != 90 || q.Timeline[89].Date != day(89) || q.IncidentsInPeriod != 4 {
		t.Errorf("90d = %d days, last %s, incidents %d", len(q.Timeline), q.Timeline[89].Date, q.IncidentsInPeriod)
	}
	e, _ := s.UptimeHistory("voyage-ai", "7d", now)
	if e.OverallUptimePct != nil || e.IncidentsInPeriod != 0 || len(e.Timeline) != 7 || e.Timeline[0].UptimePct != nil {
		t.Errorf("no checks = %+v", e)
	}

	// The SLA catalog plugs in through SLATargets.
	sla := health.SLAFunc(func(id string) (float64, bool) {
		switch id {
		case "openai":
			return 99.9, true
		case "anthropic", "voyage-ai":
			return 99.5, true
		}
		return 0, false
	})
	ws := health.NewSnapshot(now, in, health.Options{SLA: sla})
	for id, want := range map[string]string{"openai": "false", "anthropic": "true", "voyage-ai": "null", "groq": "null"} {
		h, _ := ws.UptimeHistory(id, "7d", now)
		got := "null"
		if h.SLAMet != nil {
			got = fmt.Sprint(*h.SLAMet)
		}
		if got != want {
			t.Errorf("%s sla_met = %s, want %s", id, got, want)
		}
		if (id == "groq") != (h.SLATarget == nil) {
			t.Errorf("%s sla_target = %v", id, h.SLATarget)
		}
	}
	var input *errs.InputError
	if _, err := s.UptimeHistory("openai", "1y", now); !errors.As(err, &input) || !strings.HasPrefix(input.Msg, "parameter "+"period"+":") {
		t.Errorf("bad period: %v", err)
	}
	var unknown *errs.UnknownProviderError
	if _, err := s.UptimeHistory("nope", "7d", now); !errors.As(err, &unknown) {
		t.Errorf("unknown provider: %v", err)
	}
}

// hour builds six checks over the last hour from outcomes and times.
func hour(id string, outcomes []store.Outcome, rts []float64) []store.Check {
	var cs []store.Check
	for i := range outcomes {
		cs = append(cs, chk(id, ago(time.Duration(55-10*i)*time.Minute), outcomes[i], rts[i]))
	}
	return cs
}

func TestRateLimitStatus(t *testing.T) {
	op, out, fail := store.OutcomeOperational, store.OutcomeOutage, store.OutcomeFailed
	six := func(o store.Outcome) []store.Outcome { return []store.Outcome{o, o, o, o, o, o} }
	checks := map[string][]store.Check{
		// low: quick, no errors
		"openai": hour("openai", six(op), []float64{200, 200, 200, 200, 200, 200}),
		// low too, slower: sorted before openai
		"anthropic": hour("anthropic", six(op), []float64{400, 400, 400, 400, 400, 400}),
		// moderate: one failed fetch in six (0.1667)
		"groq": hour("groq", []store.Outcome{op, op, fail, op, op, op}, []float64{100, 100, 9000, 100, 100, 100}),
		// high: average 3000 ms; getting slower
		"mistral": hour("mistral", six(op), []float64{2000, 2000, 2000, 4000, 4000, 4000}),
		// critical: three outages in six
		"cohere": hour("cohere", []store.Outcome{out, out, out, op, op, op}, []float64{100, 100, 100, 100, 100, 100}),
		// every fetch failed: no observation, so congestion unknown (never critical)
		"xai": hour("xai", six(fail), []float64{-1, -1, -1, -1, -1, -1}),
		// checks older than an hour only: unknown
		"deepseek": {chk("deepseek", ago(61*time.Minute), op, 100)},
	}
	s := snap(health.Input{Checks: checks})
	rs, err := s.RateLimitStatus("", now)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 52 {
		t.Fatalf("%d records", len(rs))
	}
	var got []string
	for _, r := range rs[:7] {
		got = append(got, fmt.Sprintf("%s:%s", r.ProviderID, r.Congestion))
	}
	want := []string{"cohere:critical", "mistral:high", "groq:moderate", "anthropic:low", "openai:low", "ai21:", "alibaba-dashscope:"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("order =\n%v\nwant\n%v", got, want)
	}
	by := map[string]health.RateLimitStatus{}
	for _, r := range rs {
		by[r.ProviderID] = r
		if r.Recommendation == "" {
			t.Errorf("%s has no recommendation", r.ProviderID)
		}
	}
	if x := by["xai"]; x.Congestion != health.CongestionUnknown || !eqPtr(x.ErrorRate1h, 1) || !strings.HasPrefix(x.Recommendation, "No data: the 6 poll attempts") {
		t.Errorf("xai = %+v", x)
	}
	if g := by["groq"]; !eqPtr(g.ErrorRate1h, 0.1667) || !eqPtr(g.AvgResponseTimeMs, 100) || !eqPtr(g.ResponseTimeTrendMs, 0) {
		t.Errorf("groq = %+v", g)
	}
	if m := by["mistral"]; !eqPtr(m.AvgResponseTimeMs, 3000) || !eqPtr(m.P95ResponseTimeMs, 4000) || !eqPtr(m.ResponseTimeTrendMs, 2000) || !eqPtr(m.ErrorRate1h, 0) {
		t.Errorf("mistral = %+v", m)
	}
	if x := by["xai"]; !eqPtr(x.ErrorRate1h, 1) || x.AvgResponseTimeMs != nil || x.P95ResponseTimeMs != nil || x.ResponseTimeTrendMs != nil {
		t.Errorf("xai = %+v", x)
	}
	if d := by["deepseek"]; d.Congestion != health.CongestionUnknown || d.ErrorRate1h != nil || d.AvgResponseTimeMs != nil {
		t.Errorf("deepseek = %+v", d)
	}
	one, err := s.RateLimitStatus("mistral", now)
	if err != nil || len(one) != 1 || one[0].Congestion != health.CongestionHigh {
		t.Errorf("one provider = %+v %v", one, err)
	}
	var unknown *errs.UnknownProviderError
	if _, err := s.RateLimitStatus("nope", now); !errors.As(err, &unknown) {
		t.Errorf("unknown provider: %v", err)
	}
}

func TestPremium(t *testing.T) {
	op, deg, out := store.OutcomeOperational, store.OutcomeDegraded, store.OutcomeOutage
	day := func(d int) string { return now.AddDate(0, 0, -d).Format(time.DateOnly) }
	var slow []store.Check
	for i := range 10 {
		slow = append(slow, chk("groq", ago(time.Duration(i+1)*time.Hour+time.Minute), op, 3500)) // none in the last hour
	}
	in := health.Input{
		States: []store.ProviderState{
			{ProviderID: "openai", LastStatus: op, LastObservedAt: ago(5 * time.Minute)},
			{ProviderID: "groq", LastStatus: op, LastObservedAt: ago(time.Hour)},
			{ProviderID: "mistral", LastStatus: deg, LastObservedAt: ago(5 * time.Minute)},
		},
		Latest: []store.Check{chk("openai", ago(5*time.Minute), op, 180)},
		Checks: map[string][]store.Check{
			"openai": append(hour("openai", []store.Outcome{op, op, op, op, op, op}, []float64{100, 100, 100, 300, 300, 300}),
				chk("openai", ago(3*24*time.Hour), op, 1000),
				chk("openai", ago(8*24*time.Hour), op, 99999)), // older than the kept window: ignored
			"groq":    slow,
			"mistral": hour("mistral", []store.Outcome{deg, deg, deg, deg, deg, deg}, []float64{5000, 5000, 5000, 5000, 5000, 5000}),
		},
		Daily: []store.DayCount{
			{ProviderID: "openai", Day: day(0), Observed: 100, Outages: 2},
			{ProviderID: "openai", Day: day(29), Observed: 100, Outages: 0},
			{ProviderID: "openai", Day: day(30), Observed: 100, Outages: 100}, // outside 30 days
		},
		Incidents: []store.Incident{
			{ID: "1", ProviderID: "openai", Severity: out, StartedAt: ago(2 * 24 * time.Hour), EndedAt: ptrTime(ago(47 * time.Hour))},
			{ID: "2", ProviderID: "openai", Severity: deg, StartedAt: ago(8 * 24 * time.Hour), EndedAt: ptrTime(ago(6 * 24 * time.Hour))},
			{ID: "3", ProviderID: "openai", Severity: deg, StartedAt: ago(9 * 24 * time.Hour), EndedAt: ptrTime(ago(8 * 24 * time.Hour))},
			{ID: "4", ProviderID: "mistral", Severity: deg, StartedAt: ago(time.Hour)},
		},
	}
	p := snap(in).Premium(now)
	if len(p) != 52 {
		t.Fatalf("%d providers", len(p))
	}
	o := p["openai"]
	// seven samples in 7 days: 100 x 3, 300 x 3, 1000 -> avg 314.3, p95 1000; the older half of the last 10
	// (1000, 100, 100) averages more than the recent one (300 x 3): improving.
	if o.Status != health.StatusOperational || !eqPtr(o.ResponseTimeMs, 180) || !eqPtr(o.UptimePct, 99) ||
		!eqPtr(o.AvgResponseMs, 314.3) || !eqPtr(o.P95ResponseMs, 1000) || o.RecentIncidents != 2 ||
		o.RateLimitRisk != health.RiskLow || o.Trend != health.TrendImproving || o.Degraded {
		t.Errorf("openai = %+v uptime %s avg %s p95 %s", o, val(o.UptimePct), val(o.AvgResponseMs), val(o.P95ResponseMs))
	}
	// Operational (an hour ago is stale: unknown) ... groq's status is unknown, so not flagged degraded.
	if g := p["groq"]; g.Status != health.StatusUnknown || g.Degraded || !eqPtr(g.AvgResponseMs, 3500) || g.RateLimitRisk != health.RiskMedium || g.Trend != health.TrendStable {
		t.Errorf("groq = %+v", g)
	}
	// Degraded status with a slow average: the flag is only for operational providers.
	if m := p["mistral"]; m.Degraded || m.RateLimitRisk != health.RiskHigh || m.RecentIncidents != 1 || m.UptimePct != nil {
		t.Errorf("mistral = %+v", m)
	}
	if v := p["voyage-ai"]; v.Status != health.StatusUnknown || v.AvgResponseMs != nil || v.UptimePct != nil || v.Trend != health.TrendStable ||
		v.RateLimitRisk != health.RiskMedium || v.Degraded || v.RecentIncidents != 0 {
		t.Errorf("never polled = %+v", v)
	}

	// The same slow provider, observed operational just now: flagged.
	in.States[1].LastObservedAt = ago(time.Minute)
	if g := snap(in).Premium(now)["groq"]; !g.Degraded || g.Status != health.StatusOperational {
		t.Errorf("slow and operational = %+v", g)
	}
}
