package webhooks

import (
	"sort"
	"sync"
	"time"
)

// lanes are the worker's per-host delivery lanes: how many attempts each callback host has in flight, and its
// breaker. One FIFO queue let receivers that never answer hold every slot while an honest subscriber's
// provider.down waited (63 s behind 256 of them); here a host gets at most perHost attempts at once (one while it
// is failing), and after threshold attempts in a row without an answer its breaker opens for cooldown: its
// deliveries wait in the database, unclaimed, and then one attempt probes it.
type lanes struct {
	mu        sync.Mutex
	m         map[string]*lane
	perHost   int
	threshold int
	cooldown  time.Duration
	opened    int64 // breakers opened, for the stats
}

type lane struct {
	inflight  int
	failures  int       // attempts in a row that got no answer (timeout, refused, reset)
	openUntil time.Time // the breaker is open until then
}

func newLanes(perHost, threshold int, cooldown time.Duration) *lanes {
	return &lanes{m: map[string]*lane{}, perHost: perHost, threshold: threshold, cooldown: cooldown}
}

// limit is how many attempts a host may have in flight: perHost while it answers, one while it fails.
func (l *lanes) limit(ln *lane) int {
	if ln.failures > 0 {
		return 1
	}
	return l.perHost
}

// excluded lists the hosts a claim must skip at now: at their in-flight limit, or behind an open breaker.
func (l *lanes) excluded(now time.Time) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for h, ln := range l.m {
		if ln.inflight >= l.limit(ln) || now.Before(ln.openUntil) {
			out = append(out, h)
		}
	}
	sort.Strings(out) // a stable query text for the database's statement cache
	return out
}

// acquire counts an attempt to host as in flight.
func (l *lanes) acquire(host string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ln := l.m[host]
	if ln == nil {
		ln = &lane{}
		l.m[host] = ln
	}
	ln.inflight++
}

// release ends an attempt to host. answered says whether the host answered at all (any HTTP status); it reports
// whether this attempt opened the host's breaker.
func (l *lanes) release(host string, answered bool, now time.Time) (opened bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ln := l.m[host]
	if ln == nil {
		return false
	}
	ln.inflight--
	if answered {
		ln.failures, ln.openUntil = 0, time.Time{}
	} else {
		ln.failures++
		if ln.failures >= l.threshold {
			ln.openUntil = now.Add(l.cooldown)
			l.opened++
			opened = true
		}
	}
	if ln.inflight <= 0 && ln.failures == 0 {
		delete(l.m, host) // a healthy idle host needs no entry: the map stays as small as the trouble
	}
	return opened
}
