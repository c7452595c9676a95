package e2e

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/switchboard/switchboard/apitest"
	"github.com/switchboard/switchboard/dbtest"
	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/health"
	"github.com/switchboard/switchboard/impl"
	"github.com/switchboard/switchboard/netguard"
	"github.com/switchboard/switchboard/poller"
	"github.com/switchboard/switchboard/seeds"
	"github.com/switchboard/switchboard/simulator"
)

// TestWholeCycleAgainstSimulator polls the simulated pages of all 52 providers in their own formats, on every
// engine, and follows a provider into an outage and back, and another whose page times out, through the API.
func TestWholeCycleAgainstSimulator(t *testing.T) {
	t.Parallel()
	reg := seeds.Providers()
	sim := simulator.New(reg.All())
	srv := httptest.NewServer(sim.Handler())
	defer srv.Close()
	defer sim.Close()
	for _, e := range dbtest.Engines(t) {
		t.Run(e.Name, func(t *testing.T) {
			sim.Reset()
			st, _ := e.Open(t)
			log := slog.New(slog.NewTextHandler(io.Discard, nil))
			clock := time.Now()
			now := func() time.Time { return clock }
			// 52 pages fetched and parsed at once under -race beside other packages took over a second on CI's two
			// cores; the timeout scenario below waits out the whole timeout, so it stays a few seconds.
			p, err := poller.New(poller.Config{Timeout: 4 * time.Second, StatusBaseURL: srv.URL, Outbound: netguard.Options{AllowLoopback: true}, Now: now, SlowThreshold: 5 * time.Second}, st, reg.All(), log)
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Load(context.Background()); err != nil {
				t.Fatal(err)
			}
			view := health.New(st, health.Options{Providers: reg, Clock: now})
			s := apitest.Start(t, apitest.Options{Store: st, API: impl.New(impl.Deps{Store: st, Providers: reg, Health: view, Logger: log, Now: now})})
			cycle := func() poller.Report {
				rep := p.RunCycle(context.Background())
				if err := view.Refresh(context.Background(), clock); err != nil {
					t.Fatal(err)
				}
				return rep
			}
			var h api.HealthResponse
			get := func() api.HealthResponse {
				r := s.Get("/api/v1/health")
				r.Decode(t, &h)
				return h
			}

			rep := cycle()
			if rep.Checks != 52 || rep.Observed != 52 {
				t.Fatalf("first cycle: %+v", rep)
			}
			if h := get(); h.Summary.Operational != 52 {
				t.Errorf("all operational expected: %+v", h.Summary)
			}

			clock = clock.Add(10 * time.Minute)
			sim.Set("openai", simulator.Scenario{Status: "outage"})
			sim.Set("anthropic", simulator.Scenario{Status: "operational", Fail: "timeout"})
			sim.Set("cerebras", simulator.Scenario{Status: "degraded"})
			rep = cycle()
			if rep.Failed[poller.FailTimeout] != 1 {
				t.Errorf("second cycle: %+v", rep)
			}
			h = get()
			if h.Providers["openai"].Status != "outage" || h.Providers["cerebras"].Status != "degraded" || h.Providers["anthropic"].Status != "operational" {
				t.Errorf("after the scenario: openai %s, cerebras %s, anthropic %s (timed out: keeps its last observed status)",
					h.Providers["openai"].Status, h.Providers["cerebras"].Status, h.Providers["anthropic"].Status)
			}

			var inc api.IncidentsResponse
			s.Get("/api/v1/incidents?provider=openai").Decode(t, &inc)
			if len(inc.Incidents) != 1 || !inc.Incidents[0].Ongoing || inc.Incidents[0].Severity != "outage" {
				t.Errorf("incidents = %+v", inc)
			}

			// Two more cycles with anthropic's page hanging: after 720 s without an observation it is unknown,
			// never outage.
			clock = clock.Add(10 * time.Minute)
			cycle()
			clock = clock.Add(3 * time.Minute)
			view.Refresh(context.Background(), clock)
			if got := get().Providers["anthropic"].Status; got != "unknown" {
				t.Errorf("anthropic after 13 min of timeouts = %s, want unknown", got)
			}

			clock = clock.Add(7 * time.Minute)
			sim.Reset()
			cycle()
			h = get()
			if h.Summary.Operational != 52 {
				t.Errorf("after recovery: %+v", h.Summary)
			}
			var ch api.ChangelogResponse
			s.Get("/api/v1/changelog?provider=openai").Decode(t, &ch)
			if len(ch.Entries) != 2 || ch.Entries[0].Details.To != "operational" || ch.Entries[1].Details.To != "outage" {
				t.Errorf("openai changelog = %+v", ch.Entries)
			}
			s.Get("/api/v1/incidents?provider=openai").Decode(t, &inc)
			if len(inc.Incidents) != 1 || inc.Incidents[0].Ongoing || inc.Incidents[0].DurationMinutes != 20 {
				t.Errorf("resolved incident = %+v", inc.Incidents)
			}
			events, _ := st.OutboxAfter(context.Background(), 0, 0)
			count := map[string]int{}
			for _, ev := range events {
				count[ev.ProviderID+" "+ev.Type]++
			}
			for _, want := range []string{"openai provider.down", "openai incident.new", "openai provider.up", "openai incident.resolved",
				"cerebras provider.degraded", "cerebras incident.new", "cerebras provider.up", "cerebras incident.resolved"} {
				if count[want] != 1 {
					t.Errorf("%d events %q, want 1 (all: %v)", count[want], want, count)
				}
			}
			if len(events) != 8 {
				t.Errorf("%d events, want 8: %v", len(events), count)
			}
		})
	}
}
