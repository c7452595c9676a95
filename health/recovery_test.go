package health

import (
	"testing"
	"time"

	"github.com/switchboard/switchboard/store"
)

func TestEstimateRecovery(t *testing.T) {
	now := time.Date(2025, 6, 10, 12, 0, 0, 0, time.UTC)
	since := now.Add(-RecoveryWindow)
	// ended builds an incident of provider and severity that lasted minutes and ended ago before now.
	ended := func(provider string, sev store.Outcome, minutes float64, ago time.Duration) store.Incident {
		end := now.Add(-ago)
		return store.Incident{ProviderID: provider, Severity: sev, StartedAt: end.Add(-time.Duration(minutes * float64(time.Minute))), EndedAt: &end}
	}
	open := func(provider string, sev store.Outcome, minutes float64) store.Incident {
		return store.Incident{ProviderID: provider, Severity: sev, StartedAt: now.Add(-time.Duration(minutes * float64(time.Minute)))}
	}
	outages := func(minutes ...float64) []store.Incident {
		var out []store.Incident
		for i, m := range minutes {
			out = append(out, ended("openai", store.OutcomeOutage, m, time.Duration(i+1)*time.Hour))
		}
		return out
	}
	later := now.Add(time.Hour)
	endsLater := store.Incident{ProviderID: "openai", Severity: store.OutcomeOutage, StartedAt: now.Add(-time.Hour), EndedAt: &later}
	const basedOn = "openai outage incidents ended in the last 7 days"

	for _, tc := range []struct {
		name      string
		incidents []store.Incident
		provider  string
		severity  store.Outcome
		want      *Recovery
	}{
		{name: "none", provider: "openai", severity: store.OutcomeOutage},
		{name: "four ended are too few", incidents: outages(10, 20, 30, 40), provider: "openai", severity: store.OutcomeOutage},
		{name: "five, unsorted", incidents: outages(50, 10, 40, 20, 30), provider: "openai", severity: store.OutcomeOutage,
			// nearest rank: p50 is the 3rd of 5 (ceil 2.5), p80 the 4th (ceil 4.0).
			want: &Recovery{MedianMinutes: 30, P80Minutes: 40, SampleSize: 5, BasedOn: basedOn}},
		{name: "six: the lower median, p80 the 5th", incidents: outages(60, 50, 40, 30, 20, 10), provider: "openai", severity: store.OutcomeOutage,
			want: &Recovery{MedianMinutes: 30, P80Minutes: 50, SampleSize: 6, BasedOn: basedOn}},
		{name: "ten", incidents: outages(1, 2, 3, 4, 5, 6, 7, 8, 9, 10.04), provider: "openai", severity: store.OutcomeOutage,
			want: &Recovery{MedianMinutes: 5, P80Minutes: 8, SampleSize: 10, BasedOn: basedOn}},
		{name: "rounded to 0.1 minute", incidents: outages(10.04, 10.04, 10.04, 10.04, 10.06), provider: "openai", severity: store.OutcomeOutage,
			want: &Recovery{MedianMinutes: 10, P80Minutes: 10, SampleSize: 5, BasedOn: basedOn}},
		{name: "only the same severity", provider: "openai", severity: store.OutcomeDegraded,
			incidents: append(outages(10, 20, 30, 40, 50), ended("openai", store.OutcomeDegraded, 5, time.Hour)),
		},
		{name: "only the same provider", provider: "anthropic", severity: store.OutcomeOutage,
			incidents: append(outages(10, 20, 30, 40, 50), ended("anthropic", store.OutcomeOutage, 5, time.Hour)),
		},
		{name: "other providers and severities do not feed the sample", provider: "openai", severity: store.OutcomeOutage,
			incidents: append(outages(10, 20, 30, 40, 50), ended("anthropic", store.OutcomeOutage, 500, time.Hour),
				ended("openai", store.OutcomeDegraded, 500, time.Hour), ended("anthropic", store.OutcomeOutage, 500, time.Hour)),
			want: &Recovery{MedianMinutes: 30, P80Minutes: 40, SampleSize: 5, BasedOn: basedOn}},
		{name: "ongoing incidents do not count", provider: "openai", severity: store.OutcomeOutage,
			incidents: append(outages(10, 20, 30, 40), open("openai", store.OutcomeOutage, 500), endsLater)},
		{name: "ongoing incidents do not move the figures", provider: "openai", severity: store.OutcomeOutage,
			incidents: append(outages(10, 20, 30, 40, 50), open("openai", store.OutcomeOutage, 500), endsLater),
			want:      &Recovery{MedianMinutes: 30, P80Minutes: 40, SampleSize: 5, BasedOn: basedOn}},
		{name: "ended before the window does not count", provider: "openai", severity: store.OutcomeOutage,
			incidents: append(outages(10, 20, 30, 40), ended("openai", store.OutcomeOutage, 30, RecoveryWindow+time.Minute))},
		{name: "ended at the window's start counts", provider: "openai", severity: store.OutcomeOutage,
			incidents: append(outages(10, 20, 30, 40), ended("openai", store.OutcomeOutage, 50, RecoveryWindow)),
			want:      &Recovery{MedianMinutes: 30, P80Minutes: 40, SampleSize: 5, BasedOn: basedOn}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := EstimateRecovery(tc.incidents, tc.provider, tc.severity, since, now)
			switch {
			case tc.want == nil && got != nil:
				t.Fatalf("got %+v, want nil", *got)
			case tc.want != nil && got == nil:
				t.Fatalf("got nil, want %+v", *tc.want)
			case tc.want != nil && *got != *tc.want:
				t.Fatalf("got %+v, want %+v", *got, *tc.want)
			}
		})
	}
}

func TestOngoingCarriesEstimate(t *testing.T) {
	now := time.Date(2025, 6, 10, 12, 0, 0, 0, time.UTC)
	var in Input
	for i := range 5 {
		end := now.Add(-time.Duration(i+1) * time.Hour)
		in.Incidents = append(in.Incidents, store.Incident{ID: string(rune('a' + i)), ProviderID: "openai", Severity: store.OutcomeOutage,
			StartedAt: end.Add(-time.Duration(10*(i+1)) * time.Minute), EndedAt: &end})
	}
	in.Incidents = append(in.Incidents,
		store.Incident{ID: "open", ProviderID: "openai", Severity: store.OutcomeOutage, StartedAt: now.Add(-5 * time.Minute)},
		store.Incident{ID: "few", ProviderID: "mistral", Severity: store.OutcomeOutage, StartedAt: now.Add(-5 * time.Minute)})
	s := NewSnapshot(now, in, Options{})

	on := s.Ongoing(now)
	if len(on) != 2 || on["openai"].ID != "open" || on["mistral"].Expected != nil {
		t.Fatalf("ongoing: %+v", on)
	}
	if e := on["openai"].Expected; e == nil || e.MedianMinutes != 30 || e.P80Minutes != 40 || e.SampleSize != 5 {
		t.Fatalf("openai estimate: %+v", e)
	}
	// Incidents: only the ongoing one carries the estimate, and with hours 1 the sample still reaches back 7 days.
	r, err := s.Incidents(1, SeverityAll, "openai", now)
	if err != nil {
		t.Fatal(err)
	}
	for _, inc := range r.Incidents {
		if inc.Ongoing != (inc.ExpectedRecovery != nil) {
			t.Errorf("incident %s (ongoing %v): expected recovery %+v", inc.ID, inc.Ongoing, inc.ExpectedRecovery)
		}
	}
	if p := s.Premium(now); p["openai"].ExpectedRecovery == nil || p["anthropic"].ExpectedRecovery != nil || p["mistral"].ExpectedRecovery != nil {
		t.Errorf("premium: openai %+v, anthropic %+v, mistral %+v", p["openai"].ExpectedRecovery, p["anthropic"].ExpectedRecovery, p["mistral"].ExpectedRecovery)
	}
}
