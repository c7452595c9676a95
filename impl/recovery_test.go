package impl_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/switchboard/switchboard/dbtest"
	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/poller/parse"
	"github.com/switchboard/switchboard/seeds"
)

// TestRecoveryEstimates seeds, on every engine, six past outages of openai of known durations and an ongoing
// one, then every provider in outage, and reads the estimates and the Retry-After of the decisions over HTTP
// (apitest checks every answer, headers included, against the document).
func TestRecoveryEstimates(t *testing.T) {
	for _, eng := range dbtest.Engines(t) {
		t.Run(eng.Name, func(t *testing.T) {
			st, _ := eng.Open(t)
			e := startPremium(t, st, nil)
			now := time.Now().UTC()
			h := newPollHistory(t, st)
			// Six ended outages of 10 to 60 minutes, 20 hours apart, the oldest about 5 days ago: nearest rank
			// gives a median of 30 (the 3rd of 6) and a p80 of 50 (the 5th, ceil(4.8)).
			start := now.Add(-6 * 24 * time.Hour)
			h.check("openai", start, parse.Operational, 200)
			for i, minutes := range []int{40, 10, 60, 30, 50, 20} {
				at := start.Add(time.Duration(i+1) * 20 * time.Hour)
				h.check("openai", at, parse.Outage, 300)
				h.check("openai", at.Add(time.Duration(minutes)*time.Minute), parse.Operational, 200)
			}
			// One degraded spell: another severity, which must not feed the outage estimate.
			h.check("openai", now.Add(-3*time.Hour), parse.Degraded, 3000)
			h.check("openai", now.Add(-2*time.Hour), parse.Operational, 200)
			h.check("openai", now.Add(-5*time.Minute), parse.Outage, 300)
			h.check("anthropic", now.Add(-5*time.Minute), parse.Operational, 150)
			refresh(t, e, now)

			var inc api.IncidentsResponse
			get(t, e.s, "/api/v1/incidents?provider=openai&hours=1", &inc)
			if len(inc.Incidents) != 1 || !inc.Incidents[0].Ongoing {
				t.Fatalf("last hour: %+v", inc.Incidents)
			}
			want := api.ExpectedRecovery{MedianMinutes: 30, P80Minutes: 50, SampleSize: 6, BasedOn: "openai outage incidents ended in the last 7 days"}
			if got := inc.Incidents[0].ExpectedRecovery; got == nil || *got != want {
				t.Errorf("expected_recovery = %+v, want %+v", got, want)
			}
			get(t, e.s, "/api/v1/incidents?provider=openai&hours=168", &inc)
			if len(inc.Incidents) != 8 {
				t.Errorf("last 7 days: %d incidents, want 8", len(inc.Incidents))
			}
			for _, i := range inc.Incidents {
				if i.Ongoing != (i.ExpectedRecovery != nil) {
					t.Errorf("incident started %s (ongoing %v): expected_recovery %+v", i.StartedAt, i.Ongoing, i.ExpectedRecovery)
				}
			}

			// Premium: the estimate for the provider in an incident, null for the others.
			header, _ := e.header()
			res := e.pay(header)
			if res.Status != http.StatusOK {
				t.Fatalf("paid premium: %d %s", res.Status, res.Body)
			}
			var prem api.HealthPremiumResponse
			res.Decode(t, &prem)
			if got := prem.Providers["openai"].ExpectedRecovery; got == nil || *got != want {
				t.Errorf("premium openai expected_recovery = %+v, want %+v", got, want)
			}
			if got := prem.Providers["anthropic"].ExpectedRecovery; got != nil {
				t.Errorf("premium anthropic expected_recovery = %+v, want null", got)
			}

			// Anthropic is up: no decision is told to wait.
			decisions := []string{"/api/v1/failover?primary=mistral", "/api/v1/pick?task=llm", "/api/v1/recommend", "/api/v1/cheapest?task=llm"}
			for _, path := range decisions {
				if r := e.s.Get(path); r.Header.Get("Retry-After") != "" {
					t.Errorf("GET %s with providers up: Retry-After %q", path, r.Header.Get("Retry-After"))
				}
			}

			// Every provider in outage: the decisions keep their status and add Retry-After, the smallest median
			// of the candidates' ongoing incidents (openai's 30 minutes) or, without one, the poll interval.
			for _, p := range seeds.Providers().All() {
				if p.ID != "openai" {
					h.check(p.ID, now.Add(-4*time.Minute), parse.Outage, 300)
				}
			}
			refresh(t, e, now)
			for _, tc := range []struct {
				path   string
				status int
				wait   string
			}{
				{"/api/v1/failover?primary=mistral", 200, "1800"},
				{"/api/v1/failover?primary=mistral&task=llm", 200, "1800"},
				{"/api/v1/pick?task=llm", 404, "1800"},
				{"/api/v1/recommend?task=llm", 200, "1800"},
				{"/api/v1/cheapest?task=llm", 200, "1800"},
				// Without openai among the candidates no estimate is known: the poll interval.
				{"/api/v1/failover?primary=openai", 200, "600"},
				{"/api/v1/pick?task=llm&avoid=openai", 404, "600"},
				{"/api/v1/recommend?avoid=openai", 200, "600"},
				// An unknown provider is refused whatever the statuses: no waiting helps.
				{"/api/v1/pick?task=llm&avoid=nobody", 404, ""},
				{"/api/v1/failover?primary=nobody", 404, ""},
			} {
				r := e.s.Get(tc.path)
				if r.Status != tc.status || r.Header.Get("Retry-After") != tc.wait {
					t.Errorf("GET %s = %d, Retry-After %q; want %d, %q (%s)", tc.path, r.Status, r.Header.Get("Retry-After"), tc.status, tc.wait, r.Body)
				}
			}
			var fo api.FailoverResponse
			get(t, e.s, "/api/v1/failover?primary=mistral", &fo)
			if len(fo.FailoverChain) != 0 {
				t.Errorf("failover with every provider down: %+v", fo.FailoverChain)
			}
		})
	}
}

func refresh(t *testing.T, e *premiumEnv, now time.Time) {
	t.Helper()
	if err := e.view.Refresh(context.Background(), now); err != nil {
		t.Fatal(fmt.Errorf("refreshing the view: %w", err))
	}
}
