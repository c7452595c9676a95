// Package poller fetches the 52 status pages every poll interval, turns each into a check, runs the status
// state machine, and writes the check with its changelog entry, incident changes and outbox events in one
// transaction. The derived views read what it wrote.
package poller

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/switchboard/switchboard/netguard"
	"github.com/switchboard/switchboard/poller/parse"
	"github.com/switchboard/switchboard/seeds"
	"github.com/switchboard/switchboard/store"
)

// Config tunes the poller. Zero values take the defaults.
type Config struct {
	Interval      time.Duration // time between cycles; default 10 min
	Timeout       time.Duration // per fetch; default 10 s
	MaxBody       int64         // per page; default 5 MiB
	MaxRedirects  int           // default 3
	Concurrency   int           // fetches at once; default 64 (more than the 52 providers, so all start at once)
	SlowThreshold time.Duration // an operational page fetched slower than this reads degraded; default 3 s
	Retention     time.Duration // raw checks older than this are deleted; default 90 days
	StatusBaseURL string        // when set, every page is fetched from this host (the simulator)
	UserAgent     string
	// Outbound guards the fetches (netguard): loopback, private and metadata addresses are refused unless it
	// allows them (the simulator and tests set AllowLoopback). Its Timeout and MaxRedirects are the ones above.
	Outbound netguard.Options
	// Now is the clock; time.Now by default. Tests set it.
	Now func() time.Time
	// AfterCycle runs after every cycle (and on replicas that do not poll, every interval): the views refresh.
	AfterCycle func(ctx context.Context)
	// OnCycle, when set, receives every cycle's report as RunCycle returns it (metrics record it).
	OnCycle func(Report)
}

func (c Config) withDefaults() Config {
	c.Interval = cmp.Or(c.Interval, 10*time.Minute)
	c.Timeout = cmp.Or(c.Timeout, 10*time.Second)
	c.MaxBody = cmp.Or(c.MaxBody, 5<<20)
	c.MaxRedirects = cmp.Or(c.MaxRedirects, 3)
	c.Concurrency = cmp.Or(c.Concurrency, 64)
	c.SlowThreshold = cmp.Or(c.SlowThreshold, 3*time.Second)
	c.Retention = cmp.Or(c.Retention, 90*24*time.Hour)
	c.UserAgent = cmp.Or(c.UserAgent, "Switchboard-status-poller/1 (+https://github.com/switchboard/switchboard)")
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// Poller runs poll cycles. Its in-memory state mirrors the store's provider_state and open incidents, and only
// changes after the store accepted a write, so a failed write is retried from the same state next cycle.
type Poller struct {
	cfg       Config
	store     store.Store
	providers []seeds.Provider
	fetcher   *fetcher
	log       *slog.Logger

	// hintOnce says once, in plain words, how to get data when the status pages cannot be reached.
	hintOnce sync.Once

	mu    sync.Mutex
	state map[string]*store.ProviderState
	open  map[string]*store.Incident
}

// New returns a poller over the given providers. Call Load before the first cycle.
func New(cfg Config, st store.Store, providers []seeds.Provider, log *slog.Logger) (*Poller, error) {
	cfg = cfg.withDefaults()
	if cfg.StatusBaseURL != "" {
		if _, err := url.Parse(cfg.StatusBaseURL); err != nil {
			return nil, fmt.Errorf("status base URL: %w", err)
		}
	}
	return &Poller{
		cfg: cfg, store: st, providers: providers, log: log,
		fetcher: newFetcher(cfg.Timeout, cfg.MaxBody, cfg.MaxRedirects, cfg.UserAgent, cfg.Outbound, providers),
		state:   map[string]*store.ProviderState{}, open: map[string]*store.Incident{},
	}, nil
}

// Load restores the state machine's memory from the store, so a restart continues where it stopped.
func (p *Poller) Load(ctx context.Context) error {
	states, err := p.store.ProviderStates(ctx)
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := range states {
		st := states[i]
		p.state[st.ProviderID] = &st
		if st.OpenIncidentID != nil {
			inc, err := p.store.GetIncident(ctx, *st.OpenIncidentID)
			if err != nil {
				return fmt.Errorf("loading the open incident of %s: %w", st.ProviderID, err)
			}
			p.open[st.ProviderID] = &inc
		}
	}
	return nil
}

// PageURL is where the poller fetches a provider's page: its official URL, or with a status base URL the same
// path under that host, prefixed by the provider ID (the simulator's layout).
func PageURL(p seeds.Provider, statusBase string) string {
	if statusBase == "" {
		return p.StatusAPIURL
	}
	u, err := url.Parse(p.StatusAPIURL)
	if err != nil {
		return statusBase + "/" + p.ID
	}
	path := "/" + p.ID + u.EscapedPath()
	if u.RawQuery != "" {
		path += "?" + u.RawQuery
	}
	return statusBase + path
}

// Report sums up one cycle.
type Report struct {
	Started, Ended   time.Time
	Checks           int            // recorded
	Observed         int            // checks that read a status
	Failed           map[string]int // by failure kind
	NotStarted       int            // fetches the cycle deadline cut off before they began
	Cancelled        int            // fetches cut off by shutdown, not recorded
	WriteErrors      int
	NetworkSuspected bool
}

// RunCycle fetches every provider once, at most Concurrency at a time, and records the checks. The whole cycle
// ends within Timeout + 2 s however many pages hang: fetches are cancelled at that deadline.
func (p *Poller) RunCycle(ctx context.Context) Report {
	rep := Report{Started: p.cfg.Now(), Failed: map[string]int{}}
	cctx, cancel := context.WithTimeout(ctx, p.cfg.Timeout+2*time.Second)
	defer cancel()
	sem := make(chan struct{}, p.cfg.Concurrency)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, prov := range p.providers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
				defer func() { <-sem }()
			case <-cctx.Done():
				mu.Lock()
				rep.NotStarted++
				mu.Unlock()
				return
			}
			res := p.fetcher.fetch(cctx, PageURL(prov, p.cfg.StatusBaseURL), prov, p.cfg.Now())
			if res.failure != "" && ctx.Err() != nil {
				// Cut off by shutdown, not by the page: that says nothing about the provider.
				mu.Lock()
				rep.Cancelled++
				mu.Unlock()
				return
			}
			// Writes outlive the fetch deadline: a check that was made is never lost to it.
			wctx, wcancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			err := p.record(wctx, prov, res)
			wcancel()
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				rep.WriteErrors++
				p.log.Error("recording a check failed", "provider", prov.ID, "error", err)
				return
			}
			rep.Checks++
			if res.failure == "" {
				rep.Observed++
			} else {
				rep.Failed[res.failure]++
			}
		}()
	}
	wg.Wait()
	rep.Ended = p.cfg.Now()

	network := 0
	for kind, n := range rep.Failed {
		if store.IsNetworkFailure(kind) {
			network += n
		}
	}
	if attempted := rep.Checks + rep.NotStarted; attempted > 0 && network*2 > attempted {
		// Most pages failing at once says more about this machine's network than about 52 providers.
		// Failed checks never read as outage, so nothing is wrongly reported; say it loudly.
		rep.NetworkSuspected = true
		p.log.Error("most status pages failed for network reasons: the poller's own network is suspect",
			"network_failures", network, "attempted", attempted)
		p.hintOnce.Do(func() { p.log.Warn(noNetworkHint) })
	}
	p.log.Info("poll cycle done", "checks", rep.Checks, "observed", rep.Observed, "failed", rep.Failed,
		"not_started", rep.NotStarted, "write_errors", rep.WriteErrors, "duration_ms", rep.Ended.Sub(rep.Started).Milliseconds())
	if p.cfg.OnCycle != nil {
		p.cfg.OnCycle(rep)
	}
	return rep
}

// noNetworkHint is logged once when a cycle finds no network: a first run without internet should say how to
// get data, not only that nothing works.
const noNetworkHint = "No status page could be reached, so every provider stays unknown. To get data: give this " +
	"machine internet access; or run the simulator (switchboard simulate --addr 127.0.0.1:8090) and restart with " +
	"SWITCHBOARD_STATUS_BASE_URL=http://127.0.0.1:8090 SWITCHBOARD_OUTBOUND_ALLOW_LOOPBACK=true; or run make demo, which does both."

// record turns a fetch into a check, steps the state machine, and writes both.
func (p *Poller) record(ctx context.Context, prov seeds.Provider, res fetchResult) error {
	now := p.cfg.Now().UTC()
	c := store.Check{ProviderID: prov.ID, CheckedAt: now}
	if res.elapsed > 0 {
		ms := float64(res.elapsed.Microseconds()) / 1000
		c.ResponseTimeMs = &ms
	}
	if res.httpStatus != 0 {
		hs := int64(res.httpStatus)
		c.HTTPStatus = &hs
	}
	obs := Observation{ProviderID: prov.ID, ProviderName: prov.Name, At: now}
	if res.failure != "" {
		c.Outcome = store.OutcomeFailed
		kind := res.failure
		c.FailureKind = &kind
	} else {
		reading := res.reading
		if reading.Status == parse.Operational && res.elapsed > p.cfg.SlowThreshold {
			reading.Status = parse.Degraded
			reading.Summary = fmt.Sprintf("status page answered slowly (%.1f s)", res.elapsed.Seconds())
		}
		c.Outcome = store.Outcome(reading.Status)
		obs.Status, obs.Summary = reading.Status, reading.Summary
		res.detail = reading.Summary
	}
	if res.detail != "" {
		d := res.detail
		c.Detail = &d
	}

	p.mu.Lock()
	prev, open := p.state[prov.ID], p.open[prov.ID]
	p.mu.Unlock()
	fx := Step(prev, open, obs, uuid.NewString)
	if _, err := p.store.RecordCheckResult(ctx, store.CheckResult{
		Check: c, State: fx.State, Change: fx.Change, NewIncident: fx.NewIncident, UpdatedIncident: fx.UpdatedIncident, Events: fx.Events,
	}); err != nil {
		return err
	}
	if fx.State == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.state[prov.ID] = fx.State
	switch {
	case fx.NewIncident != nil:
		p.open[prov.ID] = fx.NewIncident
	case fx.UpdatedIncident != nil && fx.UpdatedIncident.EndedAt != nil:
		delete(p.open, prov.ID)
	case fx.UpdatedIncident != nil:
		p.open[prov.ID] = fx.UpdatedIncident
	}
	return nil
}

// Run polls until ctx ends: a cycle at once, then one every Interval, when this replica holds the poller
// lock. Replicas without it only run AfterCycle, so their views follow the store. Retention runs after each
// cycle.
func (p *Poller) Run(ctx context.Context) error {
	var lease *store.Lease
	defer func() {
		if lease != nil {
			lease.Release()
		}
	}()
	t := time.NewTicker(p.cfg.Interval)
	defer t.Stop()
	for {
		if lease != nil && lease.IsLost() {
			// The lock went with its connection: another replica may hold it now. Stop acting as the poller;
			// the next tick tries again, and loads the state afresh if it gets the lock back.
			p.log.Warn("the poller lock was lost with its database connection; stepping down")
			lease.Release()
			lease = nil
		}
		if lease == nil {
			var err error
			lease, err = p.store.TryPollerLock(ctx)
			if err != nil && !errors.Is(err, context.Canceled) {
				p.log.Error("taking the poller lock", "error", err)
			}
			if lease != nil {
				if err := p.Load(ctx); err != nil {
					p.log.Error("loading poller state", "error", err)
				}
			}
		}
		if lease != nil {
			p.runHeld(ctx, lease)
			if n, err := p.store.DeleteChecksBefore(ctx, p.cfg.Now().Add(-p.cfg.Retention)); err != nil && ctx.Err() == nil {
				p.log.Error("deleting old checks", "error", err)
			} else if n > 0 {
				p.log.Info("deleted checks past retention", "rows", n)
			}
		}
		if p.cfg.AfterCycle != nil && ctx.Err() == nil {
			p.cfg.AfterCycle(ctx)
		}
		var gone <-chan struct{}
		if lease != nil {
			gone = lease.Lost()
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		case <-gone: // step down at once, not a whole interval later
		}
	}
}

// runHeld runs one cycle while lease holds, cancelled if the lease is lost.
func (p *Poller) runHeld(ctx context.Context, lease *store.Lease) {
	ctx, cancel := lease.Bound(ctx)
	defer cancel()
	p.RunCycle(ctx)
}
