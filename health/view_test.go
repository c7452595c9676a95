package health_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard/switchboard/health"
	"github.com/switchboard/switchboard/poller"
	"github.com/switchboard/switchboard/poller/parse"
	"github.com/switchboard/switchboard/store"
)

// countingStore counts the reads of the store, to show that answers come from memory.
type countingStore struct {
	store.Store
	reads atomic.Int64
}

func (c *countingStore) ProviderStates(ctx context.Context) ([]store.ProviderState, error) {
	c.reads.Add(1)
	return c.Store.ProviderStates(ctx)
}

func (c *countingStore) ChecksSince(ctx context.Context, id string, since time.Time, limit int) ([]store.Check, error) {
	c.reads.Add(1)
	return c.Store.ChecksSince(ctx, id, since, limit)
}

// history feeds observations through the poller's state machine into a store, as the poll cycle does.
type history struct {
	t    *testing.T
	st   store.Store
	prev map[string]*store.ProviderState
	open map[string]*store.Incident
	n    int
}

func newHistory(t *testing.T, st store.Store) *history {
	return &history{t: t, st: st, prev: map[string]*store.ProviderState{}, open: map[string]*store.Incident{}}
}

// check records one check of id at at: status "" is a failed fetch; rt < 0 is no time.
func (h *history) check(id string, at time.Time, status parse.Status, rt float64) {
	h.t.Helper()
	fx := poller.Step(h.prev[id], h.open[id], poller.Observation{ProviderID: id, ProviderName: id, At: at, Status: status},
		func() string { h.n++; return fmt.Sprintf("inc-%s-%d", id, h.n) })
	c := store.Check{ProviderID: id, CheckedAt: at, Outcome: store.Outcome(status)}
	if status == "" {
		c.Outcome = store.OutcomeFailed
		kind := "timeout"
		c.FailureKind = &kind
	}
	if rt >= 0 {
		c.ResponseTimeMs = &rt
	}
	if _, err := h.st.RecordCheckResult(context.Background(), store.CheckResult{
		Check: c, State: fx.State, Change: fx.Change, NewIncident: fx.NewIncident, UpdatedIncident: fx.UpdatedIncident, Events: fx.Events,
	}); err != nil {
		h.t.Fatal(err)
	}
	if fx.State != nil {
		h.prev[id] = fx.State
	}
	switch {
	case fx.NewIncident != nil:
		h.open[id] = fx.NewIncident
	case fx.UpdatedIncident != nil && fx.UpdatedIncident.EndedAt != nil:
		delete(h.open, id)
	case fx.UpdatedIncident != nil:
		h.open[id] = fx.UpdatedIncident
	}
}

func openStore(t *testing.T) store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), "sqlite://"+filepath.Join(t.TempDir(), "h.db"), store.Options{Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func TestViewRefreshFromStore(t *testing.T) {
	ctx := context.Background()
	cs := &countingStore{Store: openStore(t)}
	h := newHistory(t, cs)
	// openai every 10 minutes for the last 2 hours: operational, degraded, outage (with failed fetches in
	// between), back to operational.
	seq := []parse.Status{parse.Operational, parse.Operational, parse.Degraded, "", parse.Outage, parse.Outage, "",
		parse.Operational, parse.Operational, parse.Operational, parse.Operational, parse.Operational}
	for i, s := range seq {
		h.check("openai", now.Add(-time.Duration(len(seq)-i)*10*time.Minute), s, float64(200+10*i))
	}
	h.check("groq", now.Add(-8*24*time.Hour), parse.Operational, 100) // outside every kept window but the daily counts

	v := health.New(cs, health.Options{MaxChecksPerProvider: 8})
	if got := v.Snapshot().Health(now).Summary.Unknown; got != 52 {
		t.Errorf("before any refresh: %d unknown", got)
	}
	if err := v.Refresh(ctx, now); err != nil {
		t.Fatal(err)
	}
	reads := cs.reads.Load()
	s := v.Snapshot()
	if !s.At().Equal(now) {
		t.Errorf("snapshot at %v", s.At())
	}
	for range 100 {
		s.Health(now)
		s.Premium(now)
		if _, err := v.Current(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if cs.reads.Load() != reads {
		t.Error("reads queried the store")
	}

	hr := s.Health(now)
	if o := hr.Providers["openai"]; o.Status != health.StatusOperational || o.LastChecked == nil || !o.LastChecked.Equal(now.Add(-10*time.Minute)) || !eqPtr(o.ResponseTimeMs, 310) {
		t.Errorf("openai = %+v", o)
	}
	if g := hr.Providers["groq"]; g.Status != health.StatusUnknown || g.LastChecked == nil {
		t.Errorf("groq = %+v", g)
	}
	// MaxChecksPerProvider keeps the 8 newest: 1 failed, 7 observed.
	if l, _ := s.Latency("openai", "24h", now); l.TotalChecks != 7 {
		t.Errorf("kept checks: %d observed in 24h, want 7", l.TotalChecks)
	}
	es, _ := s.Changelog(7, "", now)
	if len(es) != 3 || es[0].From != store.OutcomeOutage || es[2].To != store.OutcomeDegraded {
		t.Errorf("changelog = %+v", es)
	}
	inc, _ := s.Incidents(24, "all", "", now)
	if inc.Summary != (health.IncidentSummary{Total: 1, Outages: 1}) || inc.Incidents[0].DurationMinutes != 50 {
		t.Errorf("incidents = %+v", inc)
	}
	up, _ := s.UptimeHistory("openai", "7d", now)
	if up.Timeline[0].TotalChecks != 10 || up.Timeline[0].OutageChecks != 2 || !eqPtr(up.OverallUptimePct, 80) {
		t.Errorf("uptime = %+v %s", up.Timeline[0], val(up.OverallUptimePct))
	}
	g, _ := s.UptimeHistory("groq", "30d", now)
	if g.IncidentsInPeriod != 0 || !eqPtr(g.OverallUptimePct, 100) || g.Timeline[8].TotalChecks != 1 {
		t.Errorf("groq uptime = %s %+v", val(g.OverallUptimePct), g.Timeline[8])
	}

	// A later refresh sees new checks; the old snapshot is unchanged.
	h.check("openai", now.Add(time.Minute), parse.Outage, 900)
	if err := v.Refresh(ctx, now.Add(2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if st := v.Snapshot().Health(now.Add(2 * time.Minute)).Providers["openai"].Status; st != health.StatusOutage {
		t.Errorf("after refresh: %s", st)
	}
	if st := s.Health(now).Providers["openai"].Status; st != health.StatusOperational {
		t.Errorf("the old snapshot changed: %s", st)
	}
}

// fakeClock is a settable wall clock.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestViewCurrent(t *testing.T) {
	ctx := context.Background()
	cs := &countingStore{Store: openStore(t)}
	newHistory(t, cs).check("openai", now.Add(-time.Minute), parse.Degraded, 100)
	clock := &fakeClock{t: now}
	v := health.New(cs, health.Options{MaxAge: time.Minute, Clock: clock.now})

	// The first reads load once, however many arrive together.
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := v.Current(ctx)
			if err != nil || s.Health(now).Providers["openai"].Status != health.StatusDegraded {
				t.Errorf("first read: %v", err)
			}
		}()
	}
	wg.Wait()
	once := cs.reads.Load()
	if once != 1+52 { // ProviderStates + ChecksSince per provider
		t.Errorf("%d counted reads for the first load, want 53", once)
	}
	if _, err := v.Current(ctx); err != nil || cs.reads.Load() != once {
		t.Errorf("a fresh snapshot was reloaded")
	}

	// Older than MaxAge: the read answers at once from the old snapshot and one background refresh follows.
	newHistory(t, cs).check("groq", now, parse.Outage, 100)
	clock.add(2 * time.Minute)
	s, err := v.Current(ctx)
	if err != nil || s == nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for v.Snapshot().Health(now).Providers["groq"].Status != health.StatusOutage {
		if time.Now().After(deadline) {
			t.Fatal("the background refresh did not happen")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestViewLoaded: Loaded never reads the store itself (nil before the first load), answers the snapshot in
// service with a number that grows with each load, and starts the background refresh of a stale snapshot as
// Current does.
func TestViewLoaded(t *testing.T) {
	ctx := context.Background()
	cs := &countingStore{Store: openStore(t)}
	clock := &fakeClock{t: now}
	v := health.New(cs, health.Options{MaxAge: time.Minute, Clock: clock.now})
	if s := v.Loaded(); s != nil || cs.reads.Load() != 0 {
		t.Fatalf("before any load: %v after %d reads", s, cs.reads.Load())
	}
	if err := v.Refresh(ctx, now); err != nil {
		t.Fatal(err)
	}
	first := v.Loaded()
	if first == nil || v.Loaded() != first {
		t.Fatal("the loaded snapshot is not answered")
	}
	newHistory(t, cs).check("groq", now, parse.Outage, 100)
	clock.add(2 * time.Minute)
	v.Loaded()
	deadline := time.Now().Add(5 * time.Second)
	for s := v.Loaded(); s == first || s.Health(now).Providers["groq"].Status != health.StatusOutage; s = v.Loaded() {
		if time.Now().After(deadline) {
			t.Fatal("the background refresh did not happen")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if v.Loaded().Seq() <= first.Seq() {
		t.Errorf("snapshot numbers: %d after %d", v.Loaded().Seq(), first.Seq())
	}
}
