package health

import (
	"time"

	"github.com/switchboard/switchboard/store"
)

// ResponseSample is the response time of one check that observed a status, for the dashboard's charts.
type ResponseSample struct {
	At      time.Time
	Ms      float64
	Outcome store.Outcome
}

// ResponseTimes returns the latency samples of one provider's kept checks with since <= checked_at <= now,
// oldest first. Failed fetches carry no sample (see sample), so a chart shows only what the page answered.
func (s *Snapshot) ResponseTimes(id string, since, now time.Time) ([]ResponseSample, error) {
	if err := s.known(id); err != nil {
		return nil, err
	}
	cs := s.checksIn(id, since, now)
	out := make([]ResponseSample, 0, len(cs))
	for _, c := range cs {
		if v, ok := sample(c); ok {
			out = append(out, ResponseSample{At: c.CheckedAt, Ms: v, Outcome: c.Outcome})
		}
	}
	return out, nil
}
