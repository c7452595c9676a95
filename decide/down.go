package decide

import (
	"cmp"
	"maps"
	"math"
	"slices"
	"time"
)

// When every candidate of a decision is in outage, nothing qualifies and no other constraint would help: the
// caller can only wait. The candidates below are the providers a decision would consider were every provider up,
// so that "every candidate is down" is a statement about the providers the request allows, not about all 52.

// PickCandidates returns the providers (sorted) of the task's models that pass every constraint of q but the
// live status, whatever their lifecycle stage (second-choice stages qualify when nothing else does); none when
// q names an unknown provider, which Pick refuses whatever the statuses.
func (ix *Index) PickCandidates(q PickQuery) []string {
	if ix.checkProviders("avoid", q.Avoid) != nil {
		return nil
	}
	filters := pickFilters(q)
	seen := map[string]bool{}
	for _, r := range ix.byPickPart[pickKey(q.Task, cmp.Or(q.Prefer, PreferQuality))] {
		if seen[r.m.Provider] {
			continue
		}
		if !slices.ContainsFunc(filters, func(s step) bool { return !s.ok(r.m, Live{}) }) {
			seen[r.m.Provider] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// FailoverCandidates returns the providers (sorted) Failover would chain for q were every provider operational,
// without its limit: Failover's own rules decide, so the two cannot drift apart. None when Failover refuses q.
func (ix *Index) FailoverCandidates(q FailoverQuery) []string {
	q.Limit = len(ix.reg.All())
	chain, _, err := ix.Failover(q, ix.allUp())
	if err != nil {
		return nil
	}
	return providersOf(chain, func(e FailoverEntry) string { return e.Provider })
}

// RecommendCandidates returns the providers (sorted) Recommend would rank for q were every provider operational,
// without its limit.
func (ix *Index) RecommendCandidates(q RecommendQuery) []string {
	q.Limit = len(ix.reg.All())
	recs, _, err := ix.Recommend(q, ix.allUp())
	if err != nil {
		return nil
	}
	return providersOf(recs, func(e RecommendEntry) string { return e.Provider })
}

// providersOf lists the providers of a ranking, sorted.
func providersOf[T any](ranked []T, provider func(T) string) []string {
	out := make([]string, len(ranked))
	for i, e := range ranked {
		out[i] = provider(e)
	}
	slices.Sort(out)
	return out
}

// CheapestCandidates returns the providers (sorted) with a priced model of the task that meets q's minimum
// quality, whatever its lifecycle stage: the models Cheapest prices when their provider is operational.
func (ix *Index) CheapestCandidates(q CheapestQuery) []string {
	seen := map[string]bool{}
	for _, m := range ix.byTask[q.Task] {
		if m.UnitPrice != nil && q.MinQuality.fits(m) {
			seen[m.Provider] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// allUp is every monitored provider operational, with nothing else known.
func (ix *Index) allUp() Statuses {
	live := make(Statuses, len(ix.reg.All()))
	for _, p := range ix.reg.All() {
		live[p.ID] = Live{Status: StatusOperational}
	}
	return live
}

// RetryAfter is the Retry-After, in whole seconds, of a decision whose candidates are all in outage: the
// smallest expected median recovery among the candidates' ongoing incidents (medianMinutes, keyed by provider;
// a provider without an estimate is absent), rounded up and at least 1 second; when no candidate has one,
// fallback (the poll interval: no status can change sooner), rounded up. ok is false when there is no candidate
// or some candidate is not in outage: then waiting is not the answer (another constraint is).
func RetryAfter(candidates []string, live Statuses, medianMinutes map[string]float64, fallback time.Duration) (seconds int, ok bool) {
	if len(candidates) == 0 {
		return 0, false
	}
	best := math.Inf(1)
	for _, id := range candidates {
		if live.get(id).Status != StatusOutage {
			return 0, false
		}
		if m, known := medianMinutes[id]; known {
			best = min(best, m)
		}
	}
	if math.IsInf(best, 1) {
		return max(1, int(math.Ceil(fallback.Seconds()))), true
	}
	return max(1, int(math.Ceil(best*60))), true
}
