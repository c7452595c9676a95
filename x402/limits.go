package x402

import (
	"context"
	"strings"
	"sync"
	"time"
)

// maxTracked bounds the clients, payers and refused payers remembered at once. Payer addresses cost nothing to
// make, but each new one a client brings counts against that client's limit first, so filling the table takes
// thousands of clients within one minute.
const maxTracked = 1 << 16

// perMinute counts attempts per key in fixed one-minute windows.
type perMinute struct {
	limit int
	mu    sync.Mutex
	m     map[string]window
}

type window struct {
	start time.Time
	n     int
}

func newPerMinute(limit int) *perMinute { return &perMinute{limit: limit, m: map[string]window{}} }

// take counts one attempt of key at now. When the key is over its limit, or the table is full of live windows,
// it returns false and how long until the key's window ends.
func (l *perMinute) take(key string, now time.Time) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	w, ok := l.m[key]
	if !ok || !now.Before(w.start.Add(time.Minute)) {
		if !ok && len(l.m) >= maxTracked {
			for k, old := range l.m {
				if !now.Before(old.start.Add(time.Minute)) {
					delete(l.m, k)
				}
			}
			if len(l.m) >= maxTracked {
				// Refusing is safe: the attempt cost nothing yet, and the flood that filled the table is over
				// within the minute.
				return false, time.Minute
			}
		}
		w = window{start: now}
	}
	if w.n >= l.limit {
		return false, w.start.Add(time.Minute).Sub(now)
	}
	w.n++
	l.m[key] = w
	return true, 0
}

// refusals remembers payers the facilitator refused, for RefusalMemory: their next attempts are refused here,
// without a store write or a facilitator call. Only a payer whose signature checked out is remembered, so
// nobody can get another payer refused by naming it.
type refusals struct {
	mu sync.Mutex
	m  map[string]refusal
}

type refusal struct {
	until  time.Time
	reason string
}

func (r *refusals) add(payer, reason string, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[string]refusal{}
	}
	if len(r.m) >= maxTracked {
		for k, v := range r.m {
			if !now.Before(v.until) {
				delete(r.m, k)
			}
		}
		if len(r.m) >= maxTracked {
			return // a memory only: the limits still hold
		}
	}
	r.m[payer] = refusal{until: now.Add(RefusalMemory), reason: reason}
}

func (r *refusals) get(payer string, now time.Time) (refusal, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	v, ok := r.m[payer]
	if ok && !now.Before(v.until) {
		delete(r.m, payer)
		return refusal{}, false
	}
	return v, ok
}

// slotWait is how long a payment waits for a facilitator slot before it is answered 503.
const slotWait = 250 * time.Millisecond

// acquire takes one of the facilitator slots, waiting up to slotWait.
func acquire(ctx context.Context, slots chan struct{}) bool {
	select {
	case slots <- struct{}{}:
		return true
	default:
	}
	t := time.NewTimer(slotWait)
	defer t.Stop()
	select {
	case slots <- struct{}{}:
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	return false
}

// payerKey is the form a payer address is remembered in.
func payerKey(addr string) string { return strings.ToLower(addr) }
