// Package refresh rebuilds the reference catalogs while the service runs: it fetches the upstream sources the
// build uses, runs the same build and checks as `make catalogs` (catalogbuild/pipeline) over the sources embedded
// in the binary, and installs the result atomically (seeds.Install). A failed fetch or build keeps the catalogs in
// service and says so in the logs and /health. What changed becomes catalog events in the change feed and the
// webhook outbox. Among replicas sharing PostgreSQL one refreshes (an advisory lock, as the poller) and the
// others load its build from the store.
package refresh

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/switchboard/switchboard/catalogbuild"
	"github.com/switchboard/switchboard/catalogbuild/pipeline"
	"github.com/switchboard/switchboard/netguard"
	"github.com/switchboard/switchboard/seeds"
	"github.com/switchboard/switchboard/sources"
	"github.com/switchboard/switchboard/store"
)

// Options configure a Refresher.
type Options struct {
	// Interval between refreshes; the service's setting SWITCHBOARD_CATALOG_REFRESH (0: off).
	Interval time.Duration
	// SourcesBaseURL replaces the scheme and host of every upstream URL (SWITCHBOARD_CATALOG_SOURCES_URL), so
	// that tests and mirrors serve the sources.
	SourcesBaseURL string
	// NPMRegistry is the registry of the npm snapshots (SWITCHBOARD_CATALOG_NPM_REGISTRY); "" (the default)
	// skips them. A release is read as data, never run, and only one the embedded manifest accepts is taken.
	NPMRegistry string
	Store       store.Store
	Logger      *slog.Logger
	Now         func() time.Time
	// Client makes the downloads; each is bounded by FetchTimeout and MaxFetchBytes whatever the client. By
	// default the guarded client of package netguard, configured by Outbound.
	Client *http.Client
	// Outbound guards the default client: loopback, private and metadata addresses refused unless allowed
	// (SWITCHBOARD_OUTBOUND_*), redirects only to https on the same or a listed host.
	Outbound netguard.Options
	// FetchTimeout bounds the downloads and the build of one refresh (default 5 minutes): the build stops with it.
	FetchTimeout time.Duration
	// MaxFetchBytes bounds each download (catalogbuild.DefaultMaxFetchBytes when 0).
	MaxFetchBytes int64
	// OnInstall is called after a new set is in service (the server wakes the webhook worker with it).
	OnInstall func(*seeds.Set)
	// Build runs the catalog build over the fetched sources in data into out, which holds the catalogs to
	// complete, and returns every catalog built, by name. By default pipeline.Run, in this process; the race
	// tests run the same build in a child process compiled without the detector (refreshtest.Build), since it is
	// one goroutine's data work that the detector only slows.
	Build func(ctx context.Context, data, out string) (map[string][]byte, error)
}

// buildInProcess is the default Options.Build.
func buildInProcess(ctx context.Context, data, out string) (map[string][]byte, error) {
	res, err := pipeline.Run(ctx, data, out)
	return res.Files, err
}

// State is what /health says of the catalogs.
type State struct {
	// Mode is "off" (no refresh configured), "ok" (the last attempt succeeded or nothing was due yet),
	// "failing" (the last attempt failed: the catalogs in service are the last good ones) or "held" (a build
	// waits for an operator: Held).
	Mode string
	// Held is the build waiting for an operator, as the store last said (every replica reads it); nil when none.
	Held *HeldBuild
	// HeldBuilds counts the builds this process held.
	HeldBuilds int64
	// Origin ("embedded", "refresh" or "store") and Digest are those of the catalog set in service.
	Origin      string
	Digest      string
	LastAttempt *time.Time
	LastSuccess *time.Time
	// LastError is the class of the last failure (ErrorClass), never its text: that may name an internal URL
	// or quote a source, and stays in the logs.
	LastError string
	// LastEvents is the number of events the last installed refresh recorded.
	LastEvents int
}

// HeldBuild is a build the check held whole, and what it counted.
type HeldBuild struct {
	Digest  string
	BuiltAt time.Time
	Hold    Hold
}

// Refresher runs the refresh loop.
type Refresher struct {
	o        Options
	embedded *seeds.Set
	mu       sync.Mutex
	state    State
}

// New returns a refresher; Run starts it.
func New(o Options) (*Refresher, error) {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Client == nil {
		g := o.Outbound
		g.Timeout = 2 * time.Minute
		o.Client = netguard.NewClient(g)
	}
	if o.FetchTimeout <= 0 {
		o.FetchTimeout = 5 * time.Minute
	}
	if o.Build == nil {
		o.Build = buildInProcess
	}
	emb, err := seeds.Embedded()
	if err != nil {
		return nil, err
	}
	mode := "ok"
	if o.Interval <= 0 {
		mode = "off"
	}
	return &Refresher{o: o, embedded: emb, state: State{Mode: mode}}, nil
}

// State returns what /health shows.
func (r *Refresher) State() State {
	r.mu.Lock()
	st := r.state
	r.mu.Unlock()
	set, err := seeds.Current()
	if err != nil {
		set = r.embedded // Current fails only when the embedded set does, which New has already read
	}
	st.Origin, st.Digest = set.Origin(), set.Digest()
	if st.Held != nil {
		st.Mode = "held"
	}
	return st
}

// syncEvery is how often a replica that does not hold the lock looks for a build another one made (or the
// refresh interval, when shorter).
const syncEvery = time.Minute

// retryAfterFailure is how soon a failed refresh is tried again (or one interval, when shorter).
const retryAfterFailure = time.Hour

// Run loads the newest stored build made from this binary's catalogs, then, when an interval is set, takes the
// refresh lock and refreshes whenever one is due, until ctx ends. Like the poller, one replica holds the lock for
// as long as it runs; the others look for its builds in the store and load them, and take the lock over when the
// holder goes.
func (r *Refresher) Run(ctx context.Context) {
	if err := r.loadStored(ctx); err != nil && ctx.Err() == nil {
		r.o.Logger.Warn("catalog refresh: could not load the stored catalogs; serving the embedded ones", "err", err)
	}
	if r.o.Interval <= 0 {
		return
	}
	tick := min(syncEvery, r.o.Interval)
	// The first refresh is due one interval after the newest stored build of these catalogs, or now.
	next := r.o.Now()
	if last, err := r.o.Store.LatestCatalogBuild(ctx); err == nil && last.Base == r.embedded.Digest() {
		next = last.CreatedAt.Add(r.o.Interval)
	}
	var lease *store.Lease
	defer func() {
		if lease != nil {
			lease.Release()
		}
	}()
	for {
		if lease != nil && lease.IsLost() {
			// The lock went with its connection: another replica may refresh now. Step down; try again later.
			r.o.Logger.Warn("catalog refresh: the lock was lost with its database connection; stepping down")
			lease.Release()
			lease = nil
		}
		if lease == nil {
			l, err := r.o.Store.TryCatalogLock(ctx)
			switch {
			case err != nil && ctx.Err() == nil:
				r.o.Logger.Warn("catalog refresh: taking the lock", "err", err)
			case l != nil:
				lease = l
			}
		}
		held := lease != nil
		if held && !r.o.Now().Before(next) {
			next = r.o.Now().Add(r.o.Interval)
			if _, err := r.onceHeld(ctx, lease); err != nil && ctx.Err() == nil {
				// A daily refresh that failed on a passing network fault is tried again within the hour.
				next = r.o.Now().Add(min(r.o.Interval, retryAfterFailure))
				r.o.Logger.Error("catalog refresh failed; the catalogs in service stay", "err", err, "next_attempt_in", min(r.o.Interval, retryAfterFailure).String())
			}
		} else if err := r.loadStored(ctx); err != nil && ctx.Err() == nil {
			// The lock holder looks too: an operator's approval reaches every replica through the store.
			r.o.Logger.Warn("catalog refresh: loading the stored catalogs", "err", err)
		}
		wait := tick
		if held {
			wait = max(0, min(tick, next.Sub(r.o.Now())))
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// onceHeld is Once, cancelled if lease is lost: a replica that no longer holds the lock must not store a build
// beside the one that took it over.
func (r *Refresher) onceHeld(ctx context.Context, lease *store.Lease) (Outcome, error) {
	ctx, cancel := lease.Bound(ctx)
	defer cancel()
	return r.Once(ctx)
}

// Outcome is what one refresh did.
type Outcome struct {
	Installed bool
	// Held: the build moved too much and waits for an operator; Hold says how much.
	Held   bool
	Hold   Hold
	Events int
	Digest string
	Took   time.Duration
}

// Once refreshes now: fetch, build, diff, store, install. On any error the catalogs in service stay.
func (r *Refresher) Once(ctx context.Context) (Outcome, error) {
	start := r.o.Now()
	r.mu.Lock()
	r.state.LastAttempt = &start
	r.mu.Unlock()
	out, err := r.once(ctx)
	out.Took = r.o.Now().Sub(start)
	if err != nil {
		r.fail(err)
		return out, err
	}
	r.mu.Lock()
	r.state.Mode, r.state.LastError = "ok", ""
	done := r.o.Now()
	r.state.LastSuccess = &done
	if out.Installed {
		r.state.LastEvents = out.Events
	}
	r.mu.Unlock()
	r.o.Logger.Info("catalog refresh done", "installed", out.Installed, "held", out.Held, "events", out.Events, "digest", out.Digest, "took", out.Took.Round(time.Millisecond).String())
	return out, nil
}

func (r *Refresher) fail(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.state.Mode != "off" {
		r.state.Mode = "failing"
	}
	r.state.LastError = ErrorClass(err)
}

// The classes of a failed refresh that ErrorClass returns besides netguard's transport classes (timeout,
// refused_address, redirect_refused, redirects, dns, tls, connection).
const (
	ClassHTTPStatus = "http_status" // a source answered other than 200
	ClassTooLarge   = "too_large"   // a source was over its size bound
	ClassDecode     = "decode"      // a source arrived but does not read as it should
	ClassStore      = "store"       // the database did not take the build
	ClassBuild      = "build"       // the build or its checks refused the sources
)

// ErrorClass is what /health says of a failed refresh: a class, never the error's text.
func ErrorClass(err error) string {
	var status *catalogbuild.HTTPStatusError
	var ue *url.Error
	switch {
	case errors.As(err, &status):
		return ClassHTTPStatus
	case errors.Is(err, catalogbuild.ErrTooLarge):
		return ClassTooLarge
	case errors.Is(err, catalogbuild.ErrMalformed):
		return ClassDecode
	case errors.As(err, &ue):
		return netguard.Class(err)
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return netguard.ClassTimeout
	case errors.Is(err, store.ErrUnavailable):
		return ClassStore
	}
	return ClassBuild
}

func (r *Refresher) once(ctx context.Context) (Outcome, error) {
	ctx, cancel := context.WithTimeout(ctx, r.o.FetchTimeout)
	defer cancel()
	tmp, err := os.MkdirTemp("", "switchboard-catalogs-")
	if err != nil {
		return Outcome{}, fmt.Errorf("making a build folder: %w", err)
	}
	defer os.RemoveAll(tmp)
	data, err := sources.Materialize(tmp)
	if err != nil {
		return Outcome{}, err
	}
	cur, err := seeds.Current()
	if err != nil {
		return Outcome{}, err
	}
	// The data in service is the floor: a source older than it is refused, never rolled back to.
	inService, err := catalogbuild.DatesInService(cur.Files())
	if err != nil {
		return Outcome{}, err
	}
	fo := catalogbuild.FetchOptions{Dir: data, BaseURL: r.o.SourcesBaseURL, Registry: r.o.NPMRegistry, Client: r.o.Client,
		MaxBytes: r.o.MaxFetchBytes, InService: inService, Now: r.o.Now, Log: io.Discard}
	if _, err := catalogbuild.Fetch(ctx, fo); err != nil {
		return Outcome{}, fmt.Errorf("fetching the upstream sources: %w", err)
	}
	if r.o.NPMRegistry != "" {
		if _, err := catalogbuild.FetchNPM(ctx, fo); err != nil {
			return Outcome{}, fmt.Errorf("fetching the npm sources: %w", err)
		}
	}
	out := filepath.Join(tmp, "catalogs")
	if err := os.MkdirAll(out, 0o755); err != nil {
		return Outcome{}, err
	}
	// The build completes the curated catalogs in place, so it starts from the embedded ones.
	for name, b := range r.embedded.Files() {
		if err := os.WriteFile(filepath.Join(out, name+".json"), b, 0o644); err != nil {
			return Outcome{}, err
		}
	}
	built, err := r.o.Build(ctx, data, out)
	if err != nil {
		return Outcome{}, fmt.Errorf("building the catalogs: %w", err)
	}
	set, err := seeds.NewSet(built, "refresh")
	if err != nil {
		return Outcome{}, fmt.Errorf("checking the built catalogs: %w", err)
	}
	return r.installChecked(ctx, cur, set)
}

// installChecked checks a build against the catalogs in service (cur), stores it and installs it, or holds it
// for an operator. A build with a malformed ID or a record outside its schema is refused; a price that moves
// too far on one source's word keeps its value in service; a build that moves too much as a whole is stored as
// held and not installed.
func (r *Refresher) installChecked(ctx context.Context, cur, set *seeds.Set) (Outcome, error) {
	if err := CheckRecords(set); err != nil {
		return Outcome{}, fmt.Errorf("checking the built catalogs: %w", err)
	}
	set, held, err := HoldPrices(cur, set)
	if err != nil {
		return Outcome{}, err
	}
	for i, h := range held {
		if i == 5 {
			r.o.Logger.Warn("catalog refresh: more prices kept at their value in service", "count", len(held)-5)
			break
		}
		r.o.Logger.Warn("catalog refresh: price kept at its value in service", "provider", h.ProviderID, "model", clip(h.Model), "field", h.Field, "old", h.Old, "new", h.New, "reason", h.Reason)
	}
	if set.Digest() == cur.Digest() {
		return Outcome{Digest: set.Digest()}, nil
	}
	switch prior, err := r.o.Store.CatalogBuildByDigest(ctx, set.Digest()); {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return Outcome{}, err
	case prior.State == store.BuildRejected:
		r.o.Logger.Warn("catalog refresh: the build is one an operator rejected; the catalogs in service stay", "digest", set.Digest())
		return Outcome{Digest: set.Digest()}, nil
	case prior.State == store.BuildHeld:
		return Outcome{Digest: set.Digest(), Held: true}, nil // still waiting for the operator
	}
	prob, err := NextProbation(cur, set, r.o.Now())
	if err != nil {
		return Outcome{}, err
	}
	set = set.WithProbation(prob)
	hold, err := Count(cur, set)
	if err != nil {
		return Outcome{}, fmt.Errorf("comparing the catalogs: %w", err)
	}
	hold.PricesHeld = len(held)
	events, err := Diff(cur, set)
	if err != nil {
		return Outcome{}, fmt.Errorf("comparing the catalogs: %w", err)
	}
	events, left := CapEvents(events)
	if len(left) > 0 {
		r.o.Logger.Warn("catalog refresh: more changes of a type than one build records; the rest are counted, not listed", "left_out", left)
	}
	summary, err := Summary(set.Digest(), events, left)
	if err != nil {
		return Outcome{}, err
	}
	files, err := pack(set.Files())
	if err != nil {
		return Outcome{}, err
	}
	b := store.CatalogBuild{Digest: set.Digest(), Base: r.embedded.Digest(), Files: files, CreatedAt: r.o.Now(), Summary: summary}
	if b.Hold, err = json.Marshal(hold); err != nil {
		return Outcome{}, err
	}
	if b.Probation, err = json.Marshal(prob); err != nil {
		return Outcome{}, err
	}
	if hold.Held() {
		b.State = store.BuildHeld
	}
	id, err := r.o.Store.SaveCatalogBuild(ctx, b, events)
	if err != nil {
		return Outcome{}, fmt.Errorf("storing the catalog build: %w", err)
	}
	if hold.Held() {
		r.mu.Lock()
		r.state.Held = &HeldBuild{Digest: set.Digest(), BuiltAt: normUTC(b.CreatedAt), Hold: hold}
		r.state.HeldBuilds++
		r.mu.Unlock()
		r.o.Logger.Warn("catalog build held: it moves too much; the catalogs in service stay until an operator runs switchboard catalogs approve or reject",
			"digest", set.Digest(), "build", id, "why", hold.Reasons(), "prices_changed", hold.PricesChanged, "prices_total", hold.PricesTotal,
			"records_removed", hold.RecordsRemoved, "records_total", hold.RecordsTotal, "shrunk_catalogs", len(hold.Shrunk), "events", len(events))
		return Outcome{Held: true, Hold: hold, Events: len(events), Digest: set.Digest()}, nil
	}
	r.install(set)
	r.mu.Lock()
	r.state.Held = nil // a newer build supersedes a held one
	r.mu.Unlock()
	r.o.Logger.Info("catalogs refreshed", "build", id, "events", len(events), "digest", set.Digest(), "on_probation", len(prob))
	return Outcome{Installed: true, Events: len(events), Digest: set.Digest(), Hold: hold}, nil
}

func normUTC(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

func (r *Refresher) install(set *seeds.Set) {
	seeds.Install(set)
	if r.o.OnInstall != nil {
		r.o.OnInstall(set)
	}
}

// loadStored installs the newest stored build when it was made from this binary's embedded catalogs and is not
// the set in service already.
func (r *Refresher) loadStored(ctx context.Context) error {
	if err := r.readHeld(ctx); err != nil {
		return err
	}
	head, err := r.o.Store.LatestCatalogBuild(ctx)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	cur, err := seeds.Current()
	if err != nil {
		return err
	}
	if head.Base != r.embedded.Digest() || head.Digest == cur.Digest() {
		return nil
	}
	b, err := r.o.Store.GetCatalogBuild(ctx, head.ID)
	if err != nil {
		return err
	}
	files, err := unpack(b.Files)
	if err != nil {
		return fmt.Errorf("catalog build %d: %w", b.ID, err)
	}
	set, err := seeds.NewSet(files, "store")
	if err != nil {
		return fmt.Errorf("catalog build %d: %w", b.ID, err)
	}
	if set.Digest() != b.Digest {
		return fmt.Errorf("catalog build %d: digest %s, stored as %s", b.ID, set.Digest(), b.Digest)
	}
	// The store is checked as a source is: a build written there by anything but a refresh is no exception.
	if err := CheckRecords(set); err != nil {
		return fmt.Errorf("catalog build %d: %w", b.ID, err)
	}
	var prob map[string]string
	if len(head.Probation) > 0 {
		if err := json.Unmarshal(head.Probation, &prob); err != nil {
			return fmt.Errorf("catalog build %d: probation: %w", b.ID, err)
		}
	}
	set = set.WithProbation(prob)
	r.install(set)
	r.o.Logger.Info("catalogs loaded from the store", "build", b.ID, "digest", b.Digest, "built_at", b.CreatedAt)
	return nil
}

// readHeld takes what the store says of a held build into the state /health shows: every replica shows the
// same, and an operator's decision clears it everywhere.
func (r *Refresher) readHeld(ctx context.Context) error {
	h, err := r.o.Store.HeldCatalogBuild(ctx)
	var held *HeldBuild
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return err
	case h.Base == r.embedded.Digest():
		held = &HeldBuild{Digest: h.Digest, BuiltAt: h.CreatedAt}
		if err := json.Unmarshal(h.Hold, &held.Hold); err != nil {
			return fmt.Errorf("held catalog build %d: %w", h.ID, err)
		}
	}
	r.mu.Lock()
	r.state.Held = held
	r.mu.Unlock()
	return nil
}

// maxUnpacked bounds a stored build once decompressed: today's catalogs are about 25 MB.
const maxUnpacked = 512 << 20

func pack(files map[string][]byte) ([]byte, error) {
	// As strings, not raw JSON: the encoder would compact raw JSON, and the files must come back byte for byte
	// (their digest is checked on load).
	raw := make(map[string]string, len(files))
	for k, v := range files {
		raw[k] = string(v)
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if err := json.NewEncoder(zw).Encode(raw); err != nil {
		return nil, fmt.Errorf("packing the catalogs: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("packing the catalogs: %w", err)
	}
	return buf.Bytes(), nil
}

func unpack(b []byte) (map[string][]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("unpacking the catalogs: %w", err)
	}
	defer zr.Close()
	var raw map[string]string
	if err := json.NewDecoder(io.LimitReader(zr, maxUnpacked)).Decode(&raw); err != nil {
		return nil, fmt.Errorf("unpacking the catalogs: %w", err)
	}
	out := make(map[string][]byte, len(raw))
	for k, v := range raw {
		out[k] = []byte(v)
	}
	return out, nil
}
