package webhooks

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/switchboard/switchboard/store"
)

// Defaults of Config.
const (
	// DefaultTimeout bounds a whole attempt; DefaultConnectTimeout the connection and TLS handshake within it.
	DefaultTimeout        = 5 * time.Second
	DefaultConnectTimeout = 3 * time.Second
	DefaultPollInterval   = time.Second
	// DefaultConcurrency bounds the attempts in flight. With at most DefaultInFlightPerHost per host, a host that never
	// answers holds at most that many for at most DefaultTimeout; its breaker then keeps it off the slots.
	DefaultConcurrency            = 256
	DefaultInFlightPerHost        = 2
	DefaultBreakerThreshold       = 3
	DefaultBreakerCooldown        = time.Minute
	DefaultMaxConsecutiveFailures = 10
	DefaultMaxRetryAfter          = 24 * time.Hour
	DefaultFanOutBatch            = 10
	DefaultGapGrace               = 2 * time.Minute
	DefaultRetention              = 7 * 24 * time.Hour
	DefaultMaxResponseBytes       = 64 << 10
)

// DefaultRetrySchedule is the wait before each retry after a failed attempt: the first retry at once, then 5 s,
// 5 min, 30 min, 2 h, 5 h and 10 h. A delivery is given up after 1 + len(schedule) attempts.
var DefaultRetrySchedule = []time.Duration{0, 5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour}

// Config tunes the worker. Zero values take the defaults.
type Config struct {
	// PollInterval is how often the outbox and due deliveries are looked at; Notify wakes the worker sooner.
	PollInterval time.Duration
	// Concurrency bounds the deliveries in flight (and so the connections open to receivers). Default 256.
	Concurrency int
	// VerifyConcurrency bounds the verification handshakes in flight, apart from the deliveries' slots, so
	// new subscriptions never hold events back. Default Concurrency/4.
	VerifyConcurrency int
	// PerHost bounds the attempts in flight to one callback host (round-robin over hosts). Default 2; a host
	// whose last attempt got no answer gets one.
	PerHost int
	// BreakerThreshold attempts in a row without an answer (timeout, refused) open a host's breaker for
	// BreakerCooldown: its deliveries wait, then one attempt probes it. Defaults 3 and 1 min.
	BreakerThreshold int
	BreakerCooldown  time.Duration
	// Timeout bounds one attempt: connecting, sending, the answer and its body. Default 5 s.
	Timeout time.Duration
	// ConnectTimeout bounds connecting and the TLS handshake. Default 3 s (at most Timeout).
	ConnectTimeout time.Duration
	// VerifySchedule is the wait before each retry of a failed verification handshake (DefaultVerifySchedule).
	VerifySchedule []time.Duration
	// Secrets opens the subscription secrets sealed at rest; nil reads them as stored.
	Secrets *SecretBox
	// Retries is the wait before each retry (DefaultRetrySchedule).
	Retries []time.Duration
	// MaxRetryAfter caps how long a receiver's Retry-After may push a retry out. Default 24 h.
	MaxRetryAfter time.Duration
	// MaxConsecutiveFailures failed attempts in a row deactivate a subscription. Default 10.
	MaxConsecutiveFailures int
	// Lease is how long a claimed delivery is kept from other workers: it must outlast an attempt and the
	// writing of its outcome. Default Timeout + 1 min.
	Lease time.Duration
	// FanOutBatch is how many outbox events one fan-out transaction takes. Default 10.
	FanOutBatch int
	// GapGrace is how long the fan-out cursor waits at a hole in the outbox IDs (store.FanOutOptions).
	GapGrace time.Duration
	// Retention is how long finished deliveries are kept. Default 7 days.
	Retention time.Duration
	// MaxResponseBytes of a receiver's answer are read (then the connection is reused); the rest is dropped.
	MaxResponseBytes int64
	// AllowLoopback lets callbacks reach 127.0.0.0/8 and ::1 (SWITCHBOARD_WEBHOOK_ALLOW_LOOPBACK).
	AllowLoopback bool
	UserAgent     string
	// Now is the clock of attempts, schedules, leases and expiry; time.Now by default. Tests set it.
	Now func() time.Time
	// Client sends deliveries; NewClient(Timeout, AllowLoopback) by default. Tests may give their own.
	Client *http.Client
	Logger *slog.Logger
}

func (c Config) withDefaults() Config {
	c.PollInterval = cmp.Or(c.PollInterval, DefaultPollInterval)
	c.Concurrency = cmp.Or(c.Concurrency, DefaultConcurrency)
	c.VerifyConcurrency = cmp.Or(c.VerifyConcurrency, max(c.Concurrency/4, 1))
	c.PerHost = cmp.Or(c.PerHost, DefaultInFlightPerHost)
	c.BreakerThreshold = cmp.Or(c.BreakerThreshold, DefaultBreakerThreshold)
	c.BreakerCooldown = cmp.Or(c.BreakerCooldown, DefaultBreakerCooldown)
	c.Timeout = cmp.Or(c.Timeout, DefaultTimeout)
	c.ConnectTimeout = min(cmp.Or(c.ConnectTimeout, DefaultConnectTimeout), c.Timeout)
	if c.VerifySchedule == nil {
		c.VerifySchedule = DefaultVerifySchedule
	}
	if c.Retries == nil {
		c.Retries = DefaultRetrySchedule
	}
	c.MaxRetryAfter = cmp.Or(c.MaxRetryAfter, DefaultMaxRetryAfter)
	c.MaxConsecutiveFailures = cmp.Or(c.MaxConsecutiveFailures, DefaultMaxConsecutiveFailures)
	c.Lease = cmp.Or(c.Lease, c.Timeout+time.Minute)
	c.FanOutBatch = cmp.Or(c.FanOutBatch, DefaultFanOutBatch)
	c.GapGrace = cmp.Or(c.GapGrace, DefaultGapGrace)
	c.Retention = cmp.Or(c.Retention, DefaultRetention)
	c.MaxResponseBytes = cmp.Or(c.MaxResponseBytes, DefaultMaxResponseBytes)
	c.UserAgent = cmp.Or(c.UserAgent, "Switchboard-Webhooks/1 (+https://github.com/switchboard/switchboard)")
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Client == nil {
		c.Client = NewClient(ClientOptions{Timeout: c.Timeout, ConnectTimeout: c.ConnectTimeout, AllowLoopback: c.AllowLoopback})
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}

func (c Config) validate() error {
	switch {
	case c.PollInterval < 10*time.Millisecond:
		return fmt.Errorf("webhooks: poll interval %s is too short", c.PollInterval)
	case c.Concurrency < 1 || c.Concurrency > 4096:
		return fmt.Errorf("webhooks: concurrency %d is out of 1..4096", c.Concurrency)
	case c.Timeout <= 0 || c.Timeout > 5*time.Minute:
		return fmt.Errorf("webhooks: timeout %s is out of (0, 5m]", c.Timeout)
	case c.VerifyConcurrency < 1 || c.VerifyConcurrency > 4096:
		return fmt.Errorf("webhooks: verify concurrency %d is out of 1..4096", c.VerifyConcurrency)
	case c.PerHost < 1 || c.PerHost > 64:
		return fmt.Errorf("webhooks: per-host bound %d is out of 1..64", c.PerHost)
	case c.BreakerThreshold < 1 || c.BreakerCooldown <= 0:
		return fmt.Errorf("webhooks: breaker threshold %d and cooldown %s must be positive", c.BreakerThreshold, c.BreakerCooldown)
	case c.Lease <= c.Timeout:
		return fmt.Errorf("webhooks: lease %s must outlast the timeout %s", c.Lease, c.Timeout)
	case c.MaxConsecutiveFailures < 1:
		return fmt.Errorf("webhooks: max consecutive failures %d must be positive", c.MaxConsecutiveFailures)
	case c.FanOutBatch < 1 || c.FanOutBatch > 1000:
		return fmt.Errorf("webhooks: fan-out batch %d is out of 1..1000", c.FanOutBatch)
	}
	for _, d := range c.Retries {
		if d < 0 {
			return fmt.Errorf("webhooks: negative retry delay %s", d)
		}
	}
	return nil
}

// Stats counts what a worker did.
type Stats struct {
	EventsFannedOut  int64 // outbox events fanned out
	DeliveriesQueued int64 // delivery rows created by the fan-out
	Attempts         int64 // attempts made
	Delivered        int64 // attempts that succeeded
	Failed           int64 // attempts that failed
	Deactivated      int64 // subscriptions deactivated by an attempt (410 or too many failures) or by expiry
	Verified         int64 // subscriptions whose callback echoed the verification challenge
	VerifyFailed     int64 // verification attempts that failed
	BreakersOpened   int64 // per-host breakers opened after attempts without an answer
}

func (s Stats) sub(o Stats) Stats {
	return Stats{
		EventsFannedOut: s.EventsFannedOut - o.EventsFannedOut, DeliveriesQueued: s.DeliveriesQueued - o.DeliveriesQueued,
		Attempts: s.Attempts - o.Attempts, Delivered: s.Delivered - o.Delivered, Failed: s.Failed - o.Failed,
		Deactivated: s.Deactivated - o.Deactivated, Verified: s.Verified - o.Verified,
		VerifyFailed: s.VerifyFailed - o.VerifyFailed, BreakersOpened: s.BreakersOpened - o.BreakersOpened,
	}
}

type counters struct {
	fanned, queued, attempts, delivered, failed, deactivated atomic.Int64
	verified, verifyFailed, breakers                         atomic.Int64
}

func (c *counters) snapshot() Stats {
	return Stats{
		EventsFannedOut: c.fanned.Load(), DeliveriesQueued: c.queued.Load(), Attempts: c.attempts.Load(),
		Delivered: c.delivered.Load(), Failed: c.failed.Load(), Deactivated: c.deactivated.Load(),
		Verified: c.verified.Load(), VerifyFailed: c.verifyFailed.Load(), BreakersOpened: c.breakers.Load(),
	}
}

// Worker delivers the outbox to subscribers. Run it (or Start and Stop it) in one goroutine per process; with
// PostgreSQL, replicas each run one and share the work without ever sending one delivery twice at once.
type Worker struct {
	cfg   Config
	store store.Store
	log   *slog.Logger

	// slots holds one token per delivery in flight, from its claim until its outcome is written; vslots one
	// per verification handshake in flight.
	slots   chan struct{}
	vslots  chan struct{}
	lanes   *lanes
	results chan store.WebhookAttempt
	nudge   chan struct{}
	sending sync.WaitGroup
	stats   counters

	// Touched by the loop goroutine only.
	lastExpire, lastPrune time.Time
	fanCursor             int64
	fanCaughtUp           bool

	mu      sync.Mutex // guards cancel and done (Start, Stop)
	running bool
	cancel  context.CancelFunc
	done    chan error
}

// New returns a worker over st.
func New(cfg Config, st store.Store) (*Worker, error) {
	if st == nil {
		return nil, errors.New("webhooks: a store is required")
	}
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &Worker{
		cfg: cfg, store: st, log: cfg.Logger,
		slots:   make(chan struct{}, cfg.Concurrency),
		vslots:  make(chan struct{}, cfg.VerifyConcurrency),
		lanes:   newLanes(cfg.PerHost, cfg.BreakerThreshold, cfg.BreakerCooldown),
		results: make(chan store.WebhookAttempt, cfg.Concurrency),
		nudge:   make(chan struct{}, 1),
	}, nil
}

// Stats returns what the worker did since it was made.
func (w *Worker) Stats() Stats { return w.stats.snapshot() }

// Notify wakes the worker before its next poll (the poller calls it after a cycle that queued events).
func (w *Worker) Notify() {
	select {
	case w.nudge <- struct{}{}:
	default:
	}
}

// Start runs the worker in the background until Stop. ctx carries values only: cancelling it also stops the
// worker, but Stop is the way to wait for deliveries in flight.
func (w *Worker) Start(ctx context.Context) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.running {
		return errors.New("webhooks: worker already started")
	}
	ctx, cancel := context.WithCancel(ctx)
	w.running, w.cancel, w.done = true, cancel, make(chan error, 1)
	go func() { w.done <- w.Run(ctx) }()
	return nil
}

// Stop stops claiming, waits for the deliveries in flight (each ends within Timeout) and for their outcomes to
// be written, or for ctx to end. Deliveries abandoned then are not lost: their leases run out and they are
// sent again, with the same webhook-id.
func (w *Worker) Stop(ctx context.Context) error {
	w.mu.Lock()
	cancel, done, running := w.cancel, w.done, w.running
	w.mu.Unlock()
	if !running {
		return nil
	}
	cancel()
	select {
	case err := <-done:
		w.mu.Lock()
		w.running = false
		w.mu.Unlock()
		return err
	case <-ctx.Done():
		return fmt.Errorf("webhooks: stopping the worker: %w", ctx.Err())
	}
}

// SealStoredSecrets encrypts, with the operator key, the secrets stored as given before it was set, and
// reports how many. Without a key it does nothing. Run calls it at start.
func (w *Worker) SealStoredSecrets(ctx context.Context) (int, error) {
	if w.cfg.Secrets == nil {
		return 0, nil
	}
	const batch = 500
	total := 0
	for {
		n, err := w.store.SealWebhookSecrets(ctx, w.cfg.Secrets.Seal, batch)
		total += n
		if err != nil || n < batch {
			return total, err
		}
	}
}

// Run works until ctx ends, then lets the deliveries in flight finish and records them before it returns.
func (w *Worker) Run(ctx context.Context) error {
	if w.cfg.AllowLoopback {
		w.log.Warn("webhook callbacks may reach loopback addresses (SWITCHBOARD_WEBHOOK_ALLOW_LOOPBACK=true): for local use and tests only")
	}
	w.log.Info("webhook worker started", "concurrency", w.cfg.Concurrency, "timeout", w.cfg.Timeout.String())
	if n, err := w.SealStoredSecrets(ctx); err != nil {
		w.log.Error("sealing webhook secrets stored before the key was set", "sealed", n, "error", err)
	} else if n > 0 {
		w.log.Info("webhook secrets stored before the key was set are sealed now", "sealed", n)
	}
	stopRecording, recorded := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(recorded)
		w.recordLoop(stopRecording)
	}()
	ticker := time.NewTicker(w.cfg.PollInterval)
	defer ticker.Stop()
	for ctx.Err() == nil {
		more := w.step(ctx, false)
		if more && ctx.Err() == nil {
			continue
		}
		select {
		case <-ctx.Done():
		case <-ticker.C:
		case <-w.nudge:
		}
	}
	// Deliveries in flight run on their own timeout; their outcomes are written before Run returns.
	w.sending.Wait()
	close(stopRecording)
	<-recorded
	w.log.Info("webhook worker stopped")
	return nil
}

// Drain does all the work due at the current time and returns when none is left: expiry, fan-out, and every
// due delivery sent and recorded (an immediate retry included). It is Run without the waiting, for tests and
// benchmarks that control the clock; it must not run alongside Run.
func (w *Worker) Drain(ctx context.Context) (Stats, error) {
	before := w.stats.snapshot()
	for ctx.Err() == nil {
		more := w.step(ctx, true)
		w.sending.Wait()
		n := len(w.results)
		batch := make([]store.WebhookAttempt, 0, n)
		for range n {
			batch = append(batch, <-w.results)
		}
		if len(batch) > 0 {
			w.record(batch)
		}
		if !more && len(batch) == 0 {
			break
		}
	}
	return w.stats.snapshot().sub(before), ctx.Err()
}

// Limits of one step: how many fan-out transactions and expiry rounds it runs before delivering.
const (
	maxFanOutRounds = 20
	expireBatch     = 1000
	pruneBatch      = 10_000
	maxPruneRounds  = 100
)

// step does one round of work at the current time and reports whether more is waiting right now (a fan-out
// or claim that filled its batch). Deliveries it claims are sent in the background.
func (w *Worker) step(ctx context.Context, force bool) (more bool) {
	now := w.cfg.Now()
	if force || now.Sub(w.lastExpire) >= 10*time.Second || now.Before(w.lastExpire) {
		w.lastExpire = now
		w.expire(ctx, now)
	}
	if w.fanOut(ctx, now) {
		more = true
	}
	if w.verifications(ctx, now) {
		more = true
	}
	// Up to PerHost claims, each at most one delivery per host and none for the hosts at their bound: a host
	// fills its lane over the rounds, and every host's first delivery goes out before any host's second.
	for range w.cfg.PerHost {
		free := cap(w.slots) - len(w.slots)
		if free <= 0 {
			break
		}
		sends, err := w.store.ClaimWebhookDeliveries(ctx, now, now.Add(w.cfg.Lease), free,
			store.ClaimOptions{ExcludeHosts: w.lanes.excluded(now), PerHost: 1})
		if err != nil {
			if ctx.Err() == nil {
				w.log.Error("claiming webhook deliveries", "error", err)
			}
			return false
		}
		for _, s := range sends {
			w.slots <- struct{}{} // never blocks: only this goroutine takes slots, and free were free
			w.lanes.acquire(s.CallbackHost)
			w.sending.Add(1)
			go func() {
				defer w.sending.Done()
				// An attempt is not cut short by a stop: it ends on its own timeout and is recorded.
				w.results <- w.attempt(context.WithoutCancel(ctx), s)
			}()
		}
		if len(sends) == free {
			more = true
			break
		}
		if len(sends) == 0 {
			break
		}
	}
	if !force && now.Sub(w.lastPrune) >= time.Hour {
		w.lastPrune = now
		w.prune(ctx, now)
	}
	return more
}

// verifications claims the handshakes due and runs them in the background, each recording its own outcome. It
// reports whether it started any (their outcomes may make more work: a verified subscription's events).
func (w *Worker) verifications(ctx context.Context, now time.Time) bool {
	free := cap(w.vslots) - len(w.vslots)
	if free <= 0 {
		return false
	}
	vs, err := w.store.ClaimWebhookVerifications(ctx, now, now.Add(w.cfg.Lease), free, w.lanes.excluded(now))
	if err != nil {
		if ctx.Err() == nil {
			w.log.Error("claiming webhook verifications", "error", err)
		}
		return false
	}
	for _, v := range vs {
		w.vslots <- struct{}{}
		w.lanes.acquire(v.CallbackHost)
		w.sending.Add(1)
		go func() {
			defer w.sending.Done()
			defer func() { <-w.vslots }()
			res := w.verify(context.WithoutCancel(ctx), v)
			w.recordVerification(res)
		}()
	}
	return len(vs) > 0
}

// recordVerification writes a handshake's outcome. A write that fails loses nothing: the claim's lease runs
// out and the handshake is made again.
func (w *Worker) recordVerification(res store.WebhookVerificationResult) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	deactivated, err := w.store.RecordWebhookVerification(ctx, res)
	if err != nil {
		w.log.Error("recording a webhook verification failed; it is made again when its lease runs out",
			"subscription_id", res.SubscriptionID, "error", err)
		return
	}
	if res.OK {
		w.stats.verified.Add(1)
		w.Notify() // its events may be waiting
		return
	}
	w.stats.verifyFailed.Add(1)
	if deactivated {
		w.stats.deactivated.Add(1)
		w.log.Warn("webhook subscription deactivated: its callback never answered the verification challenge",
			"subscription_id", res.SubscriptionID, "last_error", res.Error)
	}
}

// releaseLane ends an attempt on host's lane and counts an opened breaker.
func (w *Worker) releaseLane(host string, answered bool) {
	if w.lanes.release(host, answered, w.cfg.Now()) {
		w.stats.breakers.Add(1)
		w.log.Warn("webhook host breaker opened: attempts got no answer; its deliveries wait",
			"host", host, "attempts", w.cfg.BreakerThreshold, "cooldown", w.cfg.BreakerCooldown.String())
	}
}

func (w *Worker) expire(ctx context.Context, now time.Time) {
	ids, err := w.store.ExpireWebhookSubscriptions(ctx, now, expireBatch)
	if err != nil {
		if ctx.Err() == nil {
			w.log.Error("expiring webhook subscriptions", "error", err)
		}
		return
	}
	for _, id := range ids {
		w.log.Info("webhook subscription expired", "subscription_id", id)
	}
	w.stats.deactivated.Add(int64(len(ids)))
}

// fanOut turns new outbox events into deliveries and reports whether more are waiting. When the cursor has
// caught up, a read-only look at the outbox decides whether a write transaction is needed at all.
func (w *Worker) fanOut(ctx context.Context, now time.Time) (more bool) {
	if w.fanCaughtUp {
		evs, err := w.store.OutboxAfter(ctx, w.fanCursor, 1)
		if err != nil {
			if ctx.Err() == nil {
				w.log.Error("reading the outbox", "error", err)
			}
			return false
		}
		if len(evs) == 0 {
			return false
		}
	}
	opts := store.FanOutOptions{MaxEvents: w.cfg.FanOutBatch, GapGrace: w.cfg.GapGrace}
	for range maxFanOutRounds {
		res, err := w.store.FanOutWebhookEvents(ctx, now, opts)
		if err != nil {
			if ctx.Err() == nil {
				w.log.Error("fanning out webhook events", "error", err)
			}
			w.fanCaughtUp = false
			return false
		}
		if res.Skipped {
			// Another replica is at it; look again next time.
			w.fanCaughtUp = false
			return false
		}
		w.stats.fanned.Add(int64(res.Events))
		w.stats.queued.Add(res.Deliveries)
		if res.Events > 0 {
			w.log.Debug("webhook events fanned out", "events", res.Events, "deliveries", res.Deliveries, "cursor", res.Cursor)
		}
		w.fanCursor = res.Cursor
		if res.Events < opts.MaxEvents {
			// Caught up unless the cursor waits at a hole: then keep running the full fan-out, which finds
			// events that show up in the hole.
			last, err := w.store.OutboxAfter(ctx, res.Cursor, 1)
			w.fanCaughtUp = err == nil && len(last) == 0
			return false
		}
	}
	w.fanCaughtUp = false
	return true
}

// recordLoop writes outcomes as they come, in batches: one transaction for many attempts keeps SQLite's single
// writer from becoming the bottleneck when thousands of deliveries finish at once. After stop it writes what is
// left and returns; stop is closed only once no delivery is in flight any more.
func (w *Worker) recordLoop(stop <-chan struct{}) {
	const maxBatch = 256
	for {
		var batch []store.WebhookAttempt
		select {
		case a := <-w.results:
			batch = append(batch, a)
		case <-stop:
			for len(w.results) > 0 {
				batch = append(batch, <-w.results)
			}
			if len(batch) > 0 {
				w.record(batch)
			}
			return
		}
	more:
		for len(batch) < maxBatch {
			select {
			case a := <-w.results:
				batch = append(batch, a)
			default:
				break more
			}
		}
		w.record(batch)
		w.Notify()
	}
}

// record writes a batch of outcomes and frees their slots. A write that keeps failing loses no delivery: the
// leases run out and the deliveries are sent again (same webhook-id); only the statistics miss these attempts.
func (w *Worker) record(batch []store.WebhookAttempt) {
	defer func() {
		for range batch {
			<-w.slots
		}
	}()
	var res []store.WebhookAttemptResult
	var err error
	for try := range 3 {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		res, err = w.store.RecordWebhookAttempts(ctx, batch)
		cancel()
		if err == nil {
			break
		}
		time.Sleep(time.Duration(try+1) * 200 * time.Millisecond)
	}
	if err != nil {
		w.log.Error("recording webhook attempts failed; the deliveries will be retried when their leases run out",
			"attempts", len(batch), "error", err)
		return
	}
	for i, a := range batch {
		if a.Success {
			w.stats.delivered.Add(1)
		} else {
			w.stats.failed.Add(1)
		}
		if r := res[i]; r.Deactivated != nil {
			w.stats.deactivated.Add(1)
			w.log.Warn("webhook subscription deactivated", "subscription_id", a.SubscriptionID, "reason", string(*r.Deactivated),
				"consecutive_failures", r.ConsecutiveFailures, "last_error", a.Error)
		}
	}
}

func (w *Worker) prune(ctx context.Context, now time.Time) {
	before := now.Add(-w.cfg.Retention)
	var total int64
	for range maxPruneRounds {
		n, err := w.store.PruneWebhookDeliveries(ctx, before, pruneBatch)
		if err != nil {
			if ctx.Err() == nil {
				w.log.Error("pruning webhook deliveries", "error", err)
			}
			return
		}
		total += n
		if n < pruneBatch {
			break
		}
	}
	if total > 0 {
		w.log.Info("old webhook deliveries pruned", "deleted", total)
	}
}
