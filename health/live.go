package health

import (
	"fmt"
	"slices"
	"time"

	"github.com/switchboard/switchboard/errs"
	"github.com/switchboard/switchboard/store"
)

// Status is a provider's live status: one of the three observed outcomes, or unknown.
type Status string

// The statuses.
const (
	StatusOperational Status = "operational"
	StatusDegraded    Status = "degraded"
	StatusOutage      Status = "outage"
	StatusUnknown     Status = "unknown"
)

// ProviderHealth is the latest health of one provider.
type ProviderHealth struct {
	Status Status
	// LastChecked is the time of the last check that observed a status; nil when none ever did.
	LastChecked *time.Time
	// ResponseTimeMs is the latest check's time to fetch the status page; nil when that fetch got no time.
	ResponseTimeMs *float64
}

// Summary counts the providers per status; the counts add up to the number of monitored providers.
type Summary struct {
	Operational, Degraded, Outage, Unknown int
}

func (s *Summary) add(st Status) {
	switch st {
	case StatusOperational:
		s.Operational++
	case StatusDegraded:
		s.Degraded++
	case StatusOutage:
		s.Outage++
	default:
		s.Unknown++
	}
}

// HealthReport is the latest health of every monitored provider.
type HealthReport struct {
	Providers map[string]ProviderHealth
	Summary   Summary
}

// providerHealth is the status rule: the last observed status while it is at most FreshThreshold old, unknown
// otherwise (and when nothing was ever observed).
func (s *Snapshot) providerHealth(id string, now time.Time) ProviderHealth {
	var h ProviderHealth
	h.Status = StatusUnknown
	if st, ok := s.states[id]; ok && !st.LastObservedAt.IsZero() {
		t := st.LastObservedAt.UTC()
		h.LastChecked = &t
		if now.Sub(t) <= FreshThreshold && observed(st.LastStatus) {
			h.Status = Status(st.LastStatus)
		}
	}
	if c, ok := s.latest[id]; ok && c.Outcome != store.OutcomeFailed && c.ResponseTimeMs != nil {
		h.ResponseTimeMs = ms(*c.ResponseTimeMs)
	}
	return h
}

func observed(o store.Outcome) bool {
	return o == store.OutcomeOperational || o == store.OutcomeDegraded || o == store.OutcomeOutage
}

// Health returns the latest health of every monitored provider at time now.
func (s *Snapshot) Health(now time.Time) HealthReport {
	r := HealthReport{Providers: make(map[string]ProviderHealth, len(s.reg.All()))}
	for _, p := range s.reg.All() {
		h := s.providerHealth(p.ID, now)
		r.Providers[p.ID] = h
		r.Summary.add(h.Status)
	}
	return r
}

// Freshness is how recent and how stable one provider's data is.
type Freshness struct {
	Provider    string
	Status      Status
	LastChecked *time.Time
	// Fresh is true when the last observation is at most FreshThreshold old.
	Fresh bool
	// AgeSeconds is the time since the last observation; nil when there was none.
	AgeSeconds *float64
	// DriftScore is the coefficient of variation of the last DriftSamples latency samples, clamped to 0..1; nil
	// with fewer than 2 samples.
	DriftScore *float64
	// Trend and LatencyTrendMs compare the recent half of those samples with the older half.
	Trend          Trend
	LatencyTrendMs *float64
	// AvgResponseMs is the average of those samples; nil without samples.
	AvgResponseMs         *float64
	FreshThresholdSeconds int
}

// Freshness returns the freshness of one provider at time now.
func (s *Snapshot) Freshness(id string, now time.Time) (Freshness, error) {
	if err := s.known(id); err != nil {
		return Freshness{}, err
	}
	h := s.providerHealth(id, now)
	f := Freshness{Provider: id, Status: h.Status, LastChecked: h.LastChecked, FreshThresholdSeconds: FreshThresholdSeconds}
	if h.LastChecked != nil {
		age := max(now.Sub(*h.LastChecked), 0)
		f.Fresh = age <= FreshThreshold
		a := roundTo(age.Seconds(), 1)
		f.AgeSeconds = &a
	}
	xs := s.lastSamples(id, now, DriftSamples)
	if d, ok := drift(xs); ok {
		f.DriftScore = fraction(d)
	}
	var delta float64
	var ok bool
	if f.Trend, delta, ok = trendOf(xs); ok {
		f.LatencyTrendMs = ms(delta)
	}
	if len(xs) > 0 {
		f.AvgResponseMs = ms(mean(xs))
	}
	return f, nil
}

// FreshnessAll returns the freshness of every monitored provider, sorted by provider ID.
func (s *Snapshot) FreshnessAll(now time.Time) []Freshness {
	out := make([]Freshness, 0, len(s.reg.All()))
	for _, p := range s.reg.All() {
		f, _ := s.Freshness(p.ID, now) // every registry ID is known
		out = append(out, f)
	}
	return out
}

// Windows of /latency.
var latencyWindows = map[string]time.Duration{"1h": time.Hour, "6h": 6 * time.Hour, "24h": 24 * time.Hour}

// Latency is the poll latency of one provider over a window.
type Latency struct {
	Provider string
	Window   string
	// Percentiles (nearest rank) and average of the latency samples in the window; nil without samples.
	P50Ms, P95Ms, P99Ms, AvgMs *float64
	// TTFTEstimateMs is 0.4 times AvgMs for providers with the category "llm"; nil otherwise.
	TTFTEstimateMs *float64
	// Trend compares the recent half of the window's samples with the older half.
	Trend Trend
	// UptimePct is the percentage of the window's observed checks that did not read outage; nil without any.
	UptimePct *float64
	// TotalChecks is the number of observed checks in the window (failed fetches are not observations).
	TotalChecks int
}

// TTFTFactor is the share of the average poll time given as a time-to-first-token estimate.
const TTFTFactor = 0.4

// Latency returns the latency statistics of one provider over the window (1h, 6h or 24h) ending at now.
func (s *Snapshot) Latency(id, window string, now time.Time) (Latency, error) {
	d, ok := latencyWindows[window]
	if !ok {
		return Latency{}, errs.Input("parameter window: must be one of 1h, 6h, 24h")
	}
	if err := s.known(id); err != nil {
		return Latency{}, err
	}
	cs := s.checksIn(id, now.Add(-d), now)
	l := Latency{Provider: id, Window: window}
	var up int
	for _, c := range cs {
		if c.Outcome == store.OutcomeFailed {
			continue
		}
		l.TotalChecks++
		if c.Outcome != store.OutcomeOutage {
			up++
		}
	}
	if l.TotalChecks > 0 {
		l.UptimePct = pct(100 * float64(up) / float64(l.TotalChecks))
	}
	xs := samplesOf(cs)
	l.Trend, _, _ = trendOf(xs)
	if len(xs) > 0 {
		avg := mean(xs)
		l.P50Ms, l.P95Ms, l.P99Ms = ms(percentile(xs, 50)), ms(percentile(xs, 95)), ms(percentile(xs, 99))
		l.AvgMs = ms(avg)
		if p, _ := s.reg.Get(id); slices.Contains(p.Categories, "llm") {
			l.TTFTEstimateMs = ms(TTFTFactor * avg)
		}
	}
	return l, nil
}

// ChangelogEntry is one observed status change.
type ChangelogEntry struct {
	Date        string // YYYY-MM-DD, UTC
	Timestamp   time.Time
	ProviderID  string
	Description string
	From, To    store.Outcome
}

// Changelog bounds, days.
const (
	MinChangelogDays = 1
	MaxChangelogDays = 30
)

// Changelog returns the status changes of the last days days (1 to 30) before now, of one provider or of all
// (provider ""), newest first (ties by provider ID).
func (s *Snapshot) Changelog(days int, provider string, now time.Time) ([]ChangelogEntry, error) {
	if days < MinChangelogDays || days > MaxChangelogDays {
		return nil, errs.Input("parameter days: must be between %d and %d", MinChangelogDays, MaxChangelogDays)
	}
	if provider != "" {
		if err := s.known(provider); err != nil {
			return nil, err
		}
	}
	since := now.Add(-time.Duration(days) * 24 * time.Hour)
	out := []ChangelogEntry{}
	for _, c := range s.changes {
		if c.ChangedAt.Before(since) || c.ChangedAt.After(now) || (provider != "" && c.ProviderID != provider) {
			continue
		}
		p, ok := s.reg.Get(c.ProviderID)
		if !ok {
			continue // a provider no longer monitored
		}
		t := c.ChangedAt.UTC()
		out = append(out, ChangelogEntry{
			Date: t.Format(time.DateOnly), Timestamp: t, ProviderID: c.ProviderID, From: c.From, To: c.To,
			Description: fmt.Sprintf("%s changed from %s to %s", p.Name, c.From, c.To),
		})
	}
	return out, nil
}

// Incident is one run of non-operational observations of a provider, as served.
type Incident struct {
	ID          string
	ProviderID  string
	Severity    store.Outcome // degraded or outage
	StartedAt   time.Time
	EndedAt     *time.Time
	Ongoing     bool
	Description string
	// DurationMinutes runs to EndedAt, or to now while ongoing; to 0.1 minute.
	DurationMinutes float64
	// ExpectedRecovery is set by Incidents on ongoing incidents whose sample is large enough; nil otherwise.
	ExpectedRecovery *Recovery
}

// IncidentSummary counts the incidents returned.
type IncidentSummary struct {
	Total, Outages, Degraded, Ongoing int
}

// IncidentReport is the answer of Incidents.
type IncidentReport struct {
	Incidents []Incident
	Summary   IncidentSummary
}

// Incidents bounds, hours, and severity filters.
const (
	MinIncidentHours = 1
	MaxIncidentHours = 168
	SeverityAll      = "all"
)

// Incidents returns the incidents of one provider or of all (provider "") that overlap the last hours hours
// (1 to 168) before now: started within them, or still ongoing, or ended within them. severity is outage,
// degraded or all. Newest first (started_at descending, ties by provider ID). Ongoing incidents carry their
// ExpectedRecovery, estimated from every ended incident kept, not only those of the last hours.
func (s *Snapshot) Incidents(hours int, severity, provider string, now time.Time) (IncidentReport, error) {
	if hours < MinIncidentHours || hours > MaxIncidentHours {
		return IncidentReport{}, errs.Input("parameter hours: must be between %d and %d", MinIncidentHours, MaxIncidentHours)
	}
	switch severity {
	case string(store.OutcomeOutage), string(store.OutcomeDegraded), SeverityAll:
	default:
		return IncidentReport{}, errs.Input("parameter severity: must be one of outage, degraded, all")
	}
	if provider != "" {
		if err := s.known(provider); err != nil {
			return IncidentReport{}, err
		}
	}
	r := IncidentReport{Incidents: []Incident{}}
	for _, inc := range s.incidentsOverlapping(now.Add(-time.Duration(hours)*time.Hour), now) {
		if (provider != "" && inc.ProviderID != provider) || (severity != SeverityAll && string(inc.Severity) != severity) {
			continue
		}
		if inc.Ongoing {
			inc.ExpectedRecovery = s.ExpectedRecovery(inc.ProviderID, inc.Severity, now)
		}
		r.Incidents = append(r.Incidents, inc)
		r.Summary.Total++
		switch inc.Severity {
		case store.OutcomeOutage:
			r.Summary.Outages++
		case store.OutcomeDegraded:
			r.Summary.Degraded++
		}
		if inc.Ongoing {
			r.Summary.Ongoing++
		}
	}
	return r, nil
}

// incidentsOverlapping returns the kept incidents of monitored providers that started at or before now and are
// ongoing or ended at or after since, newest first.
func (s *Snapshot) incidentsOverlapping(since, now time.Time) []Incident {
	var out []Incident
	for _, inc := range s.incidents {
		if inc.StartedAt.After(now) || (inc.EndedAt != nil && inc.EndedAt.Before(since)) || !s.reg.Known(inc.ProviderID) {
			continue
		}
		// An incident that ended after now (as seen from an earlier now) is ongoing at now.
		ended := inc.EndedAt != nil && !inc.EndedAt.After(now)
		end := now
		var endedAt *time.Time
		if ended {
			t := inc.EndedAt.UTC()
			end, endedAt = t, &t
		}
		out = append(out, Incident{
			ID: inc.ID, ProviderID: inc.ProviderID, Severity: inc.Severity, StartedAt: inc.StartedAt.UTC(),
			EndedAt: endedAt, Ongoing: !ended, Description: inc.Description,
			DurationMinutes: roundTo(max(end.Sub(inc.StartedAt), 0).Minutes(), 1),
		})
	}
	return out
}

// PollerState says whether the polling behind the statuses works, read from the checks in the store (so every
// replica answers the same), and what to do when it does not.
type PollerState struct {
	// State is "waiting" before any check is recorded, "no_network" when most providers' latest checks failed
	// for network reasons, "failing" when most failed for other reasons, "ok" otherwise.
	State string
	// LastSuccess is the newest observation of any provider; nil when none was ever made.
	LastSuccess *time.Time
	// Observed counts the providers whose status is observed and fresh.
	Observed int
	// Hint says in plain words how to get data when State is not "ok".
	Hint string
}

// The poller states.
const (
	PollerOK        = "ok"
	PollerWaiting   = "waiting"
	PollerNoNetwork = "no_network"
	PollerFailing   = "failing"
)

// HowToGetData is the hint of a poller that cannot reach the status pages.
const HowToGetData = "No status page could be reached from this machine, so every provider is unknown. To get data: " +
	"give the service internet access; or run the simulator (switchboard simulate --addr 127.0.0.1:8090) and start " +
	"the service with SWITCHBOARD_STATUS_BASE_URL=http://127.0.0.1:8090 SWITCHBOARD_OUTBOUND_ALLOW_LOOPBACK=true; or run " +
	"make demo, which does both."

// Poller returns the polling state at time now, from the latest check of every provider.
func (s *Snapshot) Poller(now time.Time, r HealthReport) PollerState {
	p := PollerState{State: PollerOK, Observed: r.Summary.Operational + r.Summary.Degraded + r.Summary.Outage}
	var latest, failed, network int
	for _, prov := range s.reg.All() {
		if st, ok := s.states[prov.ID]; ok && !st.LastObservedAt.IsZero() {
			if t := st.LastObservedAt.UTC(); p.LastSuccess == nil || t.After(*p.LastSuccess) {
				p.LastSuccess = &t
			}
		}
		c, ok := s.latest[prov.ID]
		if !ok {
			continue
		}
		latest++
		if c.Outcome == store.OutcomeFailed {
			failed++
			if c.FailureKind != nil && store.IsNetworkFailure(*c.FailureKind) {
				network++
			}
		}
	}
	switch {
	case latest == 0:
		p.State, p.Hint = PollerWaiting, "No status page has been polled yet: the first poll cycle runs at start and takes "+
			"up to a minute. If this lasts, no poller writes to this database (start one with serve --poll=true)."
	case network*2 > latest:
		p.State, p.Hint = PollerNoNetwork, HowToGetData
	case failed*2 > latest:
		p.State, p.Hint = PollerFailing, "Most status pages failed to fetch or parse on the last poll; the log names each "+
			"provider and the failure. Statuses stay unknown until pages answer again."
	}
	return p
}
