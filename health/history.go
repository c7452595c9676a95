package health

import (
	"fmt"
	"sort"
	"time"

	"github.com/switchboard/switchboard/errs"
	"github.com/switchboard/switchboard/store"
)

// UptimeDay is one UTC day of a provider's uptime history.
type UptimeDay struct {
	Date string // YYYY-MM-DD
	// UptimePct is the percentage of the day's observed checks that did not read outage; nil without any.
	UptimePct    *float64
	TotalChecks  int // observed checks (failed fetches are not observations)
	OutageChecks int
}

// UptimeHistory is the daily uptime of one provider over a period.
type UptimeHistory struct {
	Provider string
	Period   string // 7d, 30d or 90d
	// OverallUptimePct is weighted by checks: non-outage observed checks over observed checks of the period.
	OverallUptimePct *float64
	// SLATarget comes from the SLATargets of the view; SLAMet is nil when it or the overall uptime is nil.
	SLATarget *float64
	SLAMet    *bool
	// IncidentsInPeriod is the number of days with at least one outage check.
	IncidentsInPeriod int
	// Timeline has one entry per day of the period, today (UTC) first.
	Timeline []UptimeDay
}

var uptimePeriods = map[string]int{"7d": 7, "30d": 30, "90d": 90}

// UptimeHistory returns the daily uptime of one provider over the period (7d, 30d or 90d) ending on now's UTC day.
func (s *Snapshot) UptimeHistory(id, period string, now time.Time) (UptimeHistory, error) {
	days, ok := uptimePeriods[period]
	if !ok {
		return UptimeHistory{}, errs.Input("parameter period: must be one of 7d, 30d, 90d")
	}
	if err := s.known(id); err != nil {
		return UptimeHistory{}, err
	}
	h := UptimeHistory{Provider: id, Period: period, Timeline: make([]UptimeDay, 0, days)}
	observed, outages := s.uptimeCounts(id, days, now, func(d UptimeDay) {
		h.Timeline = append(h.Timeline, d)
		if d.OutageChecks > 0 {
			h.IncidentsInPeriod++
		}
	})
	var overall float64
	if observed > 0 {
		overall = 100 * float64(observed-outages) / float64(observed)
		h.OverallUptimePct = pct(overall)
	}
	if s.sla != nil {
		if target, ok := s.sla.SLATarget(id); ok {
			h.SLATarget = &target
			if observed > 0 {
				met := overall >= target
				h.SLAMet = &met
			}
		}
	}
	return h, nil
}

// uptimeCounts walks the days UTC days ending on now's day, newest first, calling each (when not nil) with the
// day's figures, and returns the totals of observed and outage checks.
func (s *Snapshot) uptimeCounts(id string, days int, now time.Time, each func(UptimeDay)) (observed, outages int64) {
	today := dayStart(now)
	counts := s.daily[id]
	for i := range days {
		date := today.AddDate(0, 0, -i).Format(time.DateOnly)
		c := counts[date]
		d := UptimeDay{Date: date, TotalChecks: int(c.Observed), OutageChecks: int(c.Outages)}
		if c.Observed > 0 {
			d.UptimePct = pct(100 * float64(c.Observed-c.Outages) / float64(c.Observed))
		}
		observed += c.Observed
		outages += c.Outages
		if each != nil {
			each(d)
		}
	}
	return observed, outages
}

// Congestion is the live congestion level of a provider; "" is unknown.
type Congestion string

// The congestion levels, best first.
const (
	CongestionUnknown  Congestion = ""
	CongestionLow      Congestion = "low"
	CongestionModerate Congestion = "moderate"
	CongestionHigh     Congestion = "high"
	CongestionCritical Congestion = "critical"
)

// Congestion thresholds over the last hour: the first level whose error-rate or average-time bound is reached.
// The error rate is the share of poll attempts that failed or read outage; the average is over latency samples.
const (
	CongestionWindow  = time.Hour
	CriticalErrorRate = 0.5
	CriticalAvgMs     = 8000.0
	HighErrorRate     = 0.25
	HighAvgMs         = 3000.0
	ModerateErrorRate = 0.1
	ModerateAvgMs     = 1500.0
)

// Recommendations per congestion level.
var recommendations = map[Congestion]string{
	CongestionUnknown:  "No data: no poll in the last hour, so congestion is unknown. Check /health before relying on this provider.",
	CongestionLow:      "Proceed normally.",
	CongestionModerate: "Some slowness or failed polls in the last hour: retry with exponential backoff and watch this provider.",
	CongestionHigh:     "Reduce the request rate, retry with exponential backoff and keep a failover provider ready.",
	CongestionCritical: "Route traffic to a failover provider; retry here only with long backoff.",
}

func congestionRank(c Congestion) int {
	switch c {
	case CongestionLow:
		return 1
	case CongestionModerate:
		return 2
	case CongestionHigh:
		return 3
	case CongestionCritical:
		return 4
	}
	return 0
}

// classify applies the congestion thresholds. avg is nil without latency samples.
func classify(errorRate float64, avg *float64) Congestion {
	a := -1.0
	if avg != nil {
		a = *avg
	}
	switch {
	case errorRate >= CriticalErrorRate || a >= CriticalAvgMs:
		return CongestionCritical
	case errorRate >= HighErrorRate || a >= HighAvgMs:
		return CongestionHigh
	case errorRate >= ModerateErrorRate || a >= ModerateAvgMs:
		return CongestionModerate
	}
	return CongestionLow
}

// RateLimitStatus is the live congestion of one provider, from the checks of the last hour.
type RateLimitStatus struct {
	ProviderID string
	Congestion Congestion // unknown without poll attempts in the last hour
	// AvgResponseTimeMs and P95ResponseTimeMs are over the hour's latency samples; nil without any.
	AvgResponseTimeMs, P95ResponseTimeMs *float64
	// ResponseTimeTrendMs is the recent half's average minus the older half's; nil with too few samples.
	ResponseTimeTrendMs *float64
	// ErrorRate1h is (failed + outage checks) / checks of the hour; nil without checks.
	ErrorRate1h    *float64
	Recommendation string
}

// observedIn reports whether any of the checks observed a status.
func observedIn(cs []store.Check) bool {
	for _, c := range cs {
		if c.Outcome != store.OutcomeFailed {
			return true
		}
	}
	return false
}

func (s *Snapshot) rateLimitStatus(id string, now time.Time) RateLimitStatus {
	r := RateLimitStatus{ProviderID: id}
	cs := s.checksIn(id, now.Add(-CongestionWindow), now)
	xs := samplesOf(cs)
	var avg *float64
	if len(xs) > 0 {
		a := mean(xs)
		avg = &a
		r.AvgResponseTimeMs, r.P95ResponseTimeMs = ms(a), ms(percentile(xs, 95))
	}
	if _, delta, ok := trendOf(xs); ok {
		r.ResponseTimeTrendMs = ms(delta)
	}
	if len(cs) > 0 {
		var bad int
		for _, c := range cs {
			if c.Outcome == store.OutcomeFailed || c.Outcome == store.OutcomeOutage {
				bad++
			}
		}
		rate := float64(bad) / float64(len(cs))
		r.ErrorRate1h = fraction(rate)
		// Failed fetches are no observation: an hour of them says nothing about the provider's congestion (a
		// machine without network would call every provider critical).
		if observedIn(cs) {
			r.Congestion = classify(rate, avg)
		}
	}
	r.Recommendation = recommendations[r.Congestion]
	if r.Congestion == CongestionUnknown && len(cs) > 0 {
		r.Recommendation = fmt.Sprintf("No data: the %d poll attempts of the last hour all failed (see /health), so congestion is unknown. Check the provider before relying on it.", len(cs))
	}
	return r
}

// RateLimitStatus returns the live congestion of one provider or of all (provider ""), worst first: critical,
// high, moderate, low, unknown; ties by average response time descending (none last), then provider ID.
func (s *Snapshot) RateLimitStatus(provider string, now time.Time) ([]RateLimitStatus, error) {
	if provider != "" {
		if err := s.known(provider); err != nil {
			return nil, err
		}
		return []RateLimitStatus{s.rateLimitStatus(provider, now)}, nil
	}
	out := make([]RateLimitStatus, 0, len(s.reg.All()))
	for _, p := range s.reg.All() {
		out = append(out, s.rateLimitStatus(p.ID, now))
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if ra, rb := congestionRank(a.Congestion), congestionRank(b.Congestion); ra != rb {
			return ra > rb
		}
		switch {
		case a.AvgResponseTimeMs != nil && b.AvgResponseTimeMs != nil && *a.AvgResponseTimeMs != *b.AvgResponseTimeMs:
			return *a.AvgResponseTimeMs > *b.AvgResponseTimeMs
		case (a.AvgResponseTimeMs == nil) != (b.AvgResponseTimeMs == nil):
			return a.AvgResponseTimeMs != nil
		}
		return a.ProviderID < b.ProviderID
	})
	return out, nil
}

// RateLimitRisk is the premium rate-limit risk.
type RateLimitRisk string

// The risks.
const (
	RiskLow    RateLimitRisk = "low"
	RiskMedium RateLimitRisk = "medium"
	RiskHigh   RateLimitRisk = "high"
)

// riskOf maps congestion to risk: low -> low, moderate -> medium, high and critical -> high; unknown (no poll in
// the last hour) -> medium, as nothing shows the provider is clear.
func riskOf(c Congestion) RateLimitRisk {
	switch c {
	case CongestionLow:
		return RiskLow
	case CongestionHigh, CongestionCritical:
		return RiskHigh
	}
	return RiskMedium
}

// Premium figures.
const (
	// PremiumUptimeDays is the period of the premium uptime percent (UTC days, today included).
	PremiumUptimeDays = 30
	// PremiumIncidentWindow is the lookback of recent_incidents.
	PremiumIncidentWindow = 7 * 24 * time.Hour
	// SlowAvgMs is the average poll time above which an operational provider is flagged degraded.
	SlowAvgMs = 3000.0
)

// Premium is the paid health of one provider: the health fields plus the premium additions.
type Premium struct {
	ProviderHealth
	// UptimePct is over the last PremiumUptimeDays UTC days, observed checks only; nil without any.
	UptimePct *float64
	// AvgResponseMs and P95ResponseMs are over the latency samples of the kept window (CheckWindow).
	AvgResponseMs, P95ResponseMs *float64
	// RecentIncidents counts incidents overlapping the last PremiumIncidentWindow.
	RecentIncidents int
	RateLimitRisk   RateLimitRisk
	// Trend is the freshness trend (last DriftSamples samples); stable when there are too few to compare.
	Trend Trend
	// Degraded is true when the status is operational and AvgResponseMs exceeds SlowAvgMs.
	Degraded bool
	// ExpectedRecovery estimates the provider's ongoing incident; nil when it has none or the sample is too small.
	ExpectedRecovery *Recovery
}

// Premium returns the premium figures of every monitored provider at time now, keyed by provider ID.
func (s *Snapshot) Premium(now time.Time) map[string]Premium {
	recent := map[string]int{}
	for _, inc := range s.incidentsOverlapping(now.Add(-PremiumIncidentWindow), now) {
		recent[inc.ProviderID]++
	}
	ongoing := s.Ongoing(now)
	out := make(map[string]Premium, len(s.reg.All()))
	for _, p := range s.reg.All() {
		pr := Premium{ProviderHealth: s.providerHealth(p.ID, now), RecentIncidents: recent[p.ID], ExpectedRecovery: ongoing[p.ID].Expected}
		if observed, outages := s.uptimeCounts(p.ID, PremiumUptimeDays, now, nil); observed > 0 {
			pr.UptimePct = pct(100 * float64(observed-outages) / float64(observed))
		}
		xs := samplesOf(s.checksIn(p.ID, now.Add(-CheckWindow), now))
		if len(xs) > 0 {
			avg := mean(xs)
			pr.AvgResponseMs, pr.P95ResponseMs = ms(avg), ms(percentile(xs, 95))
			pr.Degraded = pr.Status == StatusOperational && avg > SlowAvgMs
		}
		pr.RateLimitRisk = riskOf(s.rateLimitStatus(p.ID, now).Congestion)
		if pr.Trend, _, _ = trendOf(s.lastSamples(p.ID, now, DriftSamples)); pr.Trend == TrendUnknown {
			pr.Trend = TrendStable
		}
		out[p.ID] = pr
	}
	return out
}
