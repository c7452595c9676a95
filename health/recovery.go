package health

import (
	"fmt"
	"time"

	"github.com/switchboard/switchboard/store"
)

// Recovery estimates: how long an ongoing incident may last, read from how long the provider's past incidents of
// the same severity lasted.
const (
	// MinRecoverySample is the fewest ended incidents an estimate stands on; with fewer there is no estimate
	// (null), never a guess.
	MinRecoverySample = 5
	// RecoveryWindow is how far back ended incidents feed an estimate: all the snapshot keeps (IncidentWindow).
	RecoveryWindow = IncidentWindow
	// RecoveryWindowDays is RecoveryWindow in days, as the estimate's based_on says it.
	RecoveryWindowDays = int(RecoveryWindow / (24 * time.Hour))
	// RecoveryMedianPct and RecoveryHighPct are the nearest-rank percentiles an estimate reports.
	RecoveryMedianPct = 50
	RecoveryHighPct   = 80
)

// Recovery is the expected duration of an ongoing incident: nearest-rank percentiles of the durations of the
// provider's ended incidents of the same severity, each an observed duration, to 0.1 minute.
type Recovery struct {
	MedianMinutes float64
	P80Minutes    float64
	SampleSize    int
	// BasedOn names the sample: "<provider> <severity> incidents ended in the last N days".
	BasedOn string
}

// EstimateRecovery estimates from incidents the duration of an incident of provider with severity: the
// nearest-rank median and 80th percentile of the durations of that provider's incidents of that severity that
// ended within [since, now]. Ongoing incidents (not ended at now) never count: their duration is not known yet.
// nil when fewer than MinRecoverySample incidents qualify.
func EstimateRecovery(incidents []store.Incident, provider string, severity store.Outcome, since, now time.Time) *Recovery {
	var minutes []float64
	for _, inc := range incidents {
		if inc.ProviderID != provider || inc.Severity != severity || inc.EndedAt == nil ||
			inc.EndedAt.After(now) || inc.EndedAt.Before(since) {
			continue
		}
		minutes = append(minutes, max(inc.EndedAt.Sub(inc.StartedAt), 0).Minutes())
	}
	if len(minutes) < MinRecoverySample {
		return nil
	}
	days := int(now.Sub(since) / (24 * time.Hour))
	return &Recovery{
		MedianMinutes: roundTo(percentile(minutes, RecoveryMedianPct), 1),
		P80Minutes:    roundTo(percentile(minutes, RecoveryHighPct), 1),
		SampleSize:    len(minutes),
		BasedOn:       fmt.Sprintf("%s %s incidents ended in the last %d days", provider, severity, days),
	}
}

// ExpectedRecovery estimates the duration of an incident of provider with severity at now from every ended
// incident the snapshot keeps (the last RecoveryWindow); nil when the sample is too small.
func (s *Snapshot) ExpectedRecovery(provider string, severity store.Outcome, now time.Time) *Recovery {
	return EstimateRecovery(s.incidents, provider, severity, now.Add(-RecoveryWindow), now)
}

// OngoingIncident is a provider's incident still open at some time, with its recovery estimate.
type OngoingIncident struct {
	Incident
	// Expected is nil when the sample is too small.
	Expected *Recovery
}

// Ongoing returns the ongoing incident of every monitored provider that has one at now, keyed by provider ID
// (the newest, should a provider have two open).
func (s *Snapshot) Ongoing(now time.Time) map[string]OngoingIncident {
	out := map[string]OngoingIncident{}
	// Open incidents are kept whatever their start, so any since finds them; ended ones are skipped below.
	for _, inc := range s.incidentsOverlapping(now, now) {
		if _, seen := out[inc.ProviderID]; !inc.Ongoing || seen {
			continue
		}
		out[inc.ProviderID] = OngoingIncident{Incident: inc, Expected: s.ExpectedRecovery(inc.ProviderID, inc.Severity, now)}
	}
	return out
}
