package health

import "time"

// Figures are the live figures the decisions score a provider by, besides its status.
type Figures struct {
	// P50Ms and P95Ms are over the latency samples of the last FiguresLatencyWindow; nil without samples.
	P50Ms, P95Ms *float64
	// Uptime7dPct is the share of the observed checks of the last FiguresUptimeDays UTC days (today included)
	// that did not read outage, in percent; nil without any.
	Uptime7dPct *float64
}

// The windows of Figures.
const (
	FiguresLatencyWindow = time.Hour
	FiguresUptimeDays    = 7
)

// figuresMemo keeps the figures of one minute: every decision request reads them, and they move with the poll
// cycle (10 minutes), not with each request.
type figuresMemo struct {
	minute int64
	byID   map[string]Figures
}

// Figures returns every monitored provider's figures at now (to the minute), keyed by provider ID.
func (s *Snapshot) Figures(now time.Time) map[string]Figures {
	minute := now.Unix() / 60
	if m := s.figures.Load(); m != nil && m.minute == minute {
		return m.byID
	}
	byID := make(map[string]Figures, len(s.reg.All()))
	for _, p := range s.reg.All() {
		var f Figures
		if xs := samplesOf(s.checksIn(p.ID, now.Add(-FiguresLatencyWindow), now)); len(xs) > 0 {
			f.P50Ms, f.P95Ms = ms(percentile(xs, 50)), ms(percentile(xs, 95))
		}
		if observed, outages := s.uptimeCounts(p.ID, FiguresUptimeDays, now, nil); observed > 0 {
			f.Uptime7dPct = pct(100 * float64(observed-outages) / float64(observed))
		}
		byID[p.ID] = f
	}
	s.figures.Store(&figuresMemo{minute: minute, byID: byID})
	return byID
}
