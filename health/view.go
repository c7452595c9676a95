// Package health holds the derived views of the polling history: the latest status of every provider, freshness,
// poll latency percentiles, the status changelog, incidents, daily uptime, live congestion and the premium figures.
//
// A View keeps one in-memory Snapshot of what these answers need, loaded from the store as a whole by Refresh (the
// server calls it at start, the poller after each cycle). Reads never query the store: every answer is a pure
// function of a Snapshot and of the current time, which is a parameter so that tests control it.
package health

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/switchboard/switchboard/errs"
	"github.com/switchboard/switchboard/seeds"
	"github.com/switchboard/switchboard/store"
)

// What a Snapshot keeps. The windows bound every answer: the longest lookback of each endpoint.
const (
	// FreshThreshold is the age up to which the last observation counts: older, the provider is unknown.
	FreshThreshold = 720 * time.Second
	// FreshThresholdSeconds is FreshThreshold in seconds, as the API reports it.
	FreshThresholdSeconds = 720

	// CheckWindow is how far back the individual checks of each provider are kept (latency, freshness,
	// congestion, premium averages).
	CheckWindow = 7 * 24 * time.Hour
	// UptimeDays is how many UTC days of per-day check counts are kept, today included (uptime history).
	UptimeDays = 90
	// ChangeWindow is how far back status changes are kept (changelog, at most 30 days).
	ChangeWindow = 30 * 24 * time.Hour
	// IncidentWindow is how far back incidents are kept, besides the open ones (incidents, at most 168 hours).
	IncidentWindow = 7 * 24 * time.Hour

	// DefaultMaxChecksPerProvider bounds the checks kept per provider: twice a 10-minute cadence over CheckWindow.
	DefaultMaxChecksPerProvider = 2 * 7 * 24 * 6
	// MaxChanges bounds the status changes kept.
	MaxChanges = 20_000
	// MaxIncidents bounds the incidents kept.
	MaxIncidents = 10_000
)

// SLATargets gives a provider's published guaranteed uptime in percent (0 to 100); ok is false when the provider
// publishes none. The SLA catalog plugs in here; without it every target is null.
type SLATargets interface {
	SLATarget(providerID string) (pct float64, ok bool)
}

// SLAFunc adapts a function to SLATargets.
type SLAFunc func(providerID string) (float64, bool)

// SLATarget calls f.
func (f SLAFunc) SLATarget(providerID string) (float64, bool) { return f(providerID) }

// Options configure a View.
type Options struct {
	// Providers is the registry of monitored providers; seeds.Providers() when nil.
	Providers *seeds.Registry
	// SLA gives the uptime targets of /uptime-history; nil: no provider has one.
	SLA SLATargets
	// MaxChecksPerProvider bounds the checks kept per provider; DefaultMaxChecksPerProvider when not positive.
	MaxChecksPerProvider int
	// MaxAge, when positive, makes Current start a background Refresh once the snapshot is older than this
	// (wall clock), still answering from the snapshot it has. Replicas that do not run the poller rely on it.
	MaxAge time.Duration
	// Logger reports failed background refreshes; slog.Default() when nil.
	Logger *slog.Logger
	// Clock is the wall clock of lazy refreshes; time.Now when nil.
	Clock func() time.Time
}

func (o Options) withDefaults() Options {
	if o.Providers == nil {
		o.Providers = seeds.Providers()
	}
	if o.MaxChecksPerProvider <= 0 {
		o.MaxChecksPerProvider = DefaultMaxChecksPerProvider
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	return o
}

// View is the in-memory view of the polling history. It is safe for concurrent use: readers get the current
// Snapshot under a read lock and compute from it; Refresh builds a new Snapshot off to the side and swaps it in.
type View struct {
	st store.Store
	o  Options

	mu       sync.RWMutex
	snap     *Snapshot
	loadedAt time.Time // wall clock of the last successful refresh

	refreshMu  sync.Mutex  // one load at a time
	refreshing atomic.Bool // a background refresh is under way
}

// New returns a View over st. It holds nothing until the first Refresh (or the first Current, which loads it).
func New(st store.Store, o Options) *View {
	return &View{st: st, o: o.withDefaults()}
}

// Refresh reloads everything from the store, with now as the end of every window, and swaps the new snapshot in.
// On error the previous snapshot stays.
func (v *View) Refresh(ctx context.Context, now time.Time) error {
	v.refreshMu.Lock()
	defer v.refreshMu.Unlock()
	return v.refreshLocked(ctx, now)
}

func (v *View) refreshLocked(ctx context.Context, now time.Time) error {
	in, err := Load(ctx, v.st, v.o.Providers, now, v.o.MaxChecksPerProvider)
	if err != nil {
		return err
	}
	s := NewSnapshot(now, in, v.o)
	v.mu.Lock()
	v.snap, v.loadedAt = s, v.o.Clock()
	v.mu.Unlock()
	return nil
}

// Snapshot returns the current snapshot: an empty one (every provider unknown) before the first Refresh.
func (v *View) Snapshot() *Snapshot {
	v.mu.RLock()
	s := v.snap
	v.mu.RUnlock()
	if s == nil {
		return NewSnapshot(time.Time{}, Input{}, v.o)
	}
	return s
}

// Current returns the snapshot to answer a request from. The first call on a view never refreshed loads it
// (concurrent first callers wait for that one load); afterwards it never waits for the store. With MaxAge set,
// a snapshot older than MaxAge starts one background refresh.
func (v *View) Current(ctx context.Context) (*Snapshot, error) {
	v.mu.RLock()
	s, loadedAt := v.snap, v.loadedAt
	v.mu.RUnlock()
	if s == nil {
		v.refreshMu.Lock()
		defer v.refreshMu.Unlock()
		v.mu.RLock()
		s = v.snap
		v.mu.RUnlock()
		if s != nil {
			return s, nil
		}
		if err := v.refreshLocked(ctx, v.o.Clock()); err != nil {
			return nil, err
		}
		v.mu.RLock()
		defer v.mu.RUnlock()
		return v.snap, nil
	}
	v.refreshIfStale(loadedAt)
	return s, nil
}

// Loaded returns the snapshot in service, nil before the first load, without ever waiting for the store. Like
// Current, it starts a background refresh of a snapshot older than MaxAge.
func (v *View) Loaded() *Snapshot {
	v.mu.RLock()
	s, loadedAt := v.snap, v.loadedAt
	v.mu.RUnlock()
	if s != nil {
		v.refreshIfStale(loadedAt)
	}
	return s
}

// refreshIfStale starts one background refresh when the snapshot loaded at loadedAt is older than MaxAge.
func (v *View) refreshIfStale(loadedAt time.Time) {
	if v.o.MaxAge > 0 && v.o.Clock().Sub(loadedAt) > v.o.MaxAge && v.refreshing.CompareAndSwap(false, true) {
		go func() {
			defer v.refreshing.Store(false)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := v.Refresh(ctx, v.o.Clock()); err != nil {
				v.o.Logger.Warn("health: background refresh failed; answering from the previous snapshot", "error", err)
			}
		}()
	}
}

// Input is everything a Snapshot is built from, as the store returns it.
type Input struct {
	States []store.ProviderState
	// Latest is the newest check of each provider, whatever its age.
	Latest []store.Check
	// Checks are each provider's checks of the last CheckWindow, in any order.
	Checks map[string][]store.Check
	// Daily are the per-day counts of the last UptimeDays UTC days.
	Daily     []store.DayCount
	Changes   []store.StatusChange
	Incidents []store.Incident
}

// Load reads the Input of a snapshot ending at now: the provider states, the latest check of each provider, the
// checks of the last CheckWindow of every monitored provider (at most maxChecks each, the newest), the daily counts
// of the last UptimeDays days, the status changes of the last ChangeWindow and the incidents of the last
// IncidentWindow plus the open ones.
func Load(ctx context.Context, st store.Store, reg *seeds.Registry, now time.Time, maxChecks int) (Input, error) {
	var in Input
	var err error
	now = now.UTC()
	if in.States, err = st.ProviderStates(ctx); err != nil {
		return Input{}, fmt.Errorf("health: %w", err)
	}
	if in.Latest, err = st.LatestChecks(ctx); err != nil {
		return Input{}, fmt.Errorf("health: %w", err)
	}
	in.Checks = make(map[string][]store.Check, len(reg.All()))
	for _, p := range reg.All() {
		cs, err := st.ChecksSince(ctx, p.ID, now.Add(-CheckWindow), maxChecks)
		if err != nil {
			return Input{}, fmt.Errorf("health: %w", err)
		}
		in.Checks[p.ID] = cs
	}
	if in.Daily, err = st.DailyCheckCounts(ctx, dayStart(now).AddDate(0, 0, -(UptimeDays-1))); err != nil {
		return Input{}, fmt.Errorf("health: %w", err)
	}
	if in.Changes, err = st.StatusChangesSince(ctx, now.Add(-ChangeWindow), MaxChanges); err != nil {
		return Input{}, fmt.Errorf("health: %w", err)
	}
	if in.Incidents, err = st.IncidentsSince(ctx, now.Add(-IncidentWindow), MaxIncidents); err != nil {
		return Input{}, fmt.Errorf("health: %w", err)
	}
	return in, nil
}

// Snapshot is an immutable copy of the polling history an answer needs. Its methods are pure functions of it and
// of the time they are given.
type Snapshot struct {
	at        time.Time
	reg       *seeds.Registry
	sla       SLATargets
	states    map[string]store.ProviderState
	latest    map[string]store.Check
	checks    map[string][]store.Check             // oldest first
	daily     map[string]map[string]store.DayCount // provider -> YYYY-MM-DD -> counts
	changes   []store.StatusChange                 // newest first
	incidents []store.Incident                     // newest first
	figures   atomic.Pointer[figuresMemo]
	seq       uint64
}

// snapshots numbers the snapshots made by this process, so that an answer made from one can name it cheaply.
var snapshots atomic.Uint64

// Seq is the snapshot's number, unique in the process and higher for a later snapshot: what an answer derived
// from the snapshot can be keyed by (a new poll cycle makes a new snapshot).
func (s *Snapshot) Seq() uint64 { return s.seq }

// NewSnapshot builds a snapshot from in, loaded at time at. Only o.Providers and o.SLA are used.
func NewSnapshot(at time.Time, in Input, o Options) *Snapshot {
	o = o.withDefaults()
	s := &Snapshot{
		at: at.UTC(), reg: o.Providers, sla: o.SLA,
		states: make(map[string]store.ProviderState, len(in.States)),
		latest: make(map[string]store.Check, len(in.Latest)),
		checks: make(map[string][]store.Check, len(in.Checks)),
		daily:  map[string]map[string]store.DayCount{},
		seq:    snapshots.Add(1),
	}
	for _, st := range in.States {
		s.states[st.ProviderID] = st
	}
	for _, c := range in.Latest {
		if old, ok := s.latest[c.ProviderID]; !ok || newer(c, old) {
			s.latest[c.ProviderID] = c
		}
	}
	for id, cs := range in.Checks {
		cs = append([]store.Check(nil), cs...)
		sort.Slice(cs, func(i, j int) bool { return newer(cs[j], cs[i]) })
		s.checks[id] = cs
	}
	for _, d := range in.Daily {
		m := s.daily[d.ProviderID]
		if m == nil {
			m = map[string]store.DayCount{}
			s.daily[d.ProviderID] = m
		}
		m[d.Day] = d
	}
	s.changes = append([]store.StatusChange(nil), in.Changes...)
	sort.SliceStable(s.changes, func(i, j int) bool {
		a, b := s.changes[i], s.changes[j]
		if !a.ChangedAt.Equal(b.ChangedAt) {
			return a.ChangedAt.After(b.ChangedAt)
		}
		if a.ProviderID != b.ProviderID {
			return a.ProviderID < b.ProviderID
		}
		return a.ID > b.ID
	})
	s.incidents = append([]store.Incident(nil), in.Incidents...)
	sort.SliceStable(s.incidents, func(i, j int) bool {
		a, b := s.incidents[i], s.incidents[j]
		if !a.StartedAt.Equal(b.StartedAt) {
			return a.StartedAt.After(b.StartedAt)
		}
		if a.ProviderID != b.ProviderID {
			return a.ProviderID < b.ProviderID
		}
		return a.ID < b.ID
	})
	return s
}

// At is the time the snapshot was loaded for (the now given to Refresh); zero for an empty snapshot.
func (s *Snapshot) At() time.Time { return s.at }

// Providers is the registry the snapshot answers for.
func (s *Snapshot) Providers() *seeds.Registry { return s.reg }

// newer orders checks by time, then by ID.
func newer(a, b store.Check) bool {
	if !a.CheckedAt.Equal(b.CheckedAt) {
		return a.CheckedAt.After(b.CheckedAt)
	}
	return a.ID > b.ID
}

// checksIn returns the provider's kept checks with since <= checked_at <= now, oldest first.
func (s *Snapshot) checksIn(id string, since, now time.Time) []store.Check {
	cs := s.checks[id]
	hi := sort.Search(len(cs), func(i int) bool { return cs[i].CheckedAt.After(now) })
	lo := sort.Search(hi, func(i int) bool { return !cs[i].CheckedAt.Before(since) })
	return cs[lo:hi]
}

// lastSamples returns the latency samples of up to n of the provider's latest kept checks at or before now that
// carry one, oldest first.
func (s *Snapshot) lastSamples(id string, now time.Time, n int) []float64 {
	cs := s.checksIn(id, time.Time{}, now)
	out := make([]float64, 0, n)
	for i := len(cs) - 1; i >= 0 && len(out) < n; i-- {
		if v, ok := sample(cs[i]); ok {
			out = append(out, v)
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

func (s *Snapshot) known(id string) error {
	if !s.reg.Known(id) {
		return &errs.UnknownProviderError{ID: id}
	}
	return nil
}

func dayStart(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}
