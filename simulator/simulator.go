// Package simulator serves the status page of every monitored provider in that provider's own format
// (docs/statuspage-formats.md), with a JSON control API to change what each page says. The real pages
// are unreachable from test machines; the poller fetches from the simulator instead (SWITCHBOARD_STATUS_BASE_URL).
//
// Each provider's page lives at PagePath(p): "/" + the provider ID + the path of its status_api_url. What the page
// says follows the provider's Scenario: a status (operational, degraded, outage, maintenance), a delay before the
// answer and a failure mode (timeout, HTTP 500, garbage, connection reset). Pages are rendered once per status
// change, so their ETag and Last-Modified headers change only when what they say changes, and the times inside
// them (incident start, page updated_at) are anchored to the moment the status was set.
//
// The control API:
//
//	GET    /_control                all scenarios: {"providers": {id: Scenario}}
//	DELETE /_control                reset every provider to operational; answers all scenarios
//	GET    /_control/{provider_id}  one scenario
//	PUT    /_control/{provider_id}  set one scenario (a Scenario body; missing fields take their defaults)
//	DELETE /_control/{provider_id}  reset one provider to operational
//
// Errors are {"error": "..."}: 400 naming the bad field, 404 for an unknown provider or path, 405 for a wrong
// method, 413 for a body over 64 KiB.
package simulator

import (
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/switchboard/switchboard/seeds"
)

// The statuses a page can be told to report.
const (
	StatusOperational = "operational"
	StatusDegraded    = "degraded"
	StatusOutage      = "outage"
	StatusMaintenance = "maintenance"
)

// The failure modes of a page. Any mode but FailNone overrides the status rendering.
const (
	FailNone    = "none"    // answer normally
	FailTimeout = "timeout" // hold the request until the client goes away (or the hold limit passes)
	FailHTTP500 = "http500" // 500 with a short HTML body
	FailGarbage = "garbage" // 200, Content-Type application/json, a body of truncated HTML
	FailReset   = "reset"   // close the connection without answering
)

// MaxDelayMS is the largest accepted Scenario.DelayMS (one minute).
const MaxDelayMS = 60000

// DefaultHoldLimit is how long a FailTimeout request is held when the client stays.
const DefaultHoldLimit = 120 * time.Second

// UpdateInterval is how often a page whose status is not operational posts a new update while the status stays:
// a real page posts updates to an open incident, and the parsers of feed-like formats ignore open entries that
// have had no news for a day or more. Between updates (and always while operational) the page, its ETag and its
// Last-Modified do not change.
const UpdateInterval = 6 * time.Hour

// Statuses and FailModes list the accepted values, in documentation order.
var (
	Statuses  = []string{StatusOperational, StatusDegraded, StatusOutage, StatusMaintenance}
	FailModes = []string{FailNone, FailTimeout, FailHTTP500, FailGarbage, FailReset}
)

// Scenario is what one provider's page does.
type Scenario struct {
	Status  string `json:"status"`   // "operational" | "degraded" | "outage" | "maintenance"
	DelayMS int    `json:"delay_ms"` // wait before answering, 0..60000
	Fail    string `json:"fail"`     // "none" | "timeout" | "http500" | "garbage" | "reset"
}

// DefaultScenario is where every provider starts: operational, no delay, no failure.
func DefaultScenario() Scenario {
	return Scenario{Status: StatusOperational, Fail: FailNone}
}

// ErrUnknownProvider is returned (wrapped) by Set for a provider the simulator does not serve.
var ErrUnknownProvider = errors.New("unknown provider")

// FieldError is a Scenario value that is not accepted; Field is its JSON name.
type FieldError struct {
	Field string
	Msg   string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

// Validate reports the first field of sc that is not accepted, as a *FieldError. Empty strings are not accepted
// here; Set fills them with the defaults before validating.
func (sc Scenario) Validate() error {
	if !contains(Statuses, sc.Status) {
		return &FieldError{Field: "status", Msg: fmt.Sprintf("%q is not one of %s", sc.Status, strings.Join(Statuses, ", "))}
	}
	if sc.DelayMS < 0 || sc.DelayMS > MaxDelayMS {
		return &FieldError{Field: "delay_ms", Msg: fmt.Sprintf("%d is not between 0 and %d", sc.DelayMS, MaxDelayMS)}
	}
	if !contains(FailModes, sc.Fail) {
		return &FieldError{Field: "fail", Msg: fmt.Sprintf("%q is not one of %s", sc.Fail, strings.Join(FailModes, ", "))}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// Option configures a Simulator.
type Option func(*Simulator)

// WithClock sets the clock used for the times written into pages (default time.Now). Delays and holds always use
// real time.
func WithClock(now func() time.Time) Option {
	return func(s *Simulator) {
		if now != nil {
			s.now = now
		}
	}
}

// WithHoldLimit sets how long a FailTimeout request is held when the client does not go away first (default
// DefaultHoldLimit). The request is then answered 504.
func WithHoldLimit(d time.Duration) Option {
	return func(s *Simulator) {
		if d > 0 {
			s.holdLimit = d
		}
	}
}

// Simulator serves the simulated status pages and the control API. It is safe for concurrent use.
type Simulator struct {
	now       func() time.Time
	holdLimit time.Duration

	providers []seeds.Provider           // in the order given, duplicates dropped
	byID      map[string]*seeds.Provider // provider ID -> provider
	byPath    map[string]string          // unescaped page path -> provider ID

	mu    sync.RWMutex
	state map[string]*state

	done      chan struct{} // closed by Close: held and delayed requests are released
	closeOnce sync.Once
	waiting   atomic.Int64 // requests currently delayed or held (for tests and diagnostics)
}

// state is one provider's scenario and its rendered page. A state and its page are immutable once stored.
type state struct {
	sc    Scenario
	since time.Time // when the status last changed: the anchor of the times inside the page
	epoch int       // how many UpdateIntervals after since the page was rendered
	page  *page
}

// epochAt is the update epoch of a status set at since, at now: 0 for operational pages and during the first
// UpdateInterval.
func epochAt(status string, since, now time.Time) int {
	if status == StatusOperational || !now.After(since) {
		return 0
	}
	return int(now.Sub(since) / UpdateInterval)
}

// New returns a simulator serving the given providers, all operational, with no delay and no failure. A
// provider listed twice is served once (the first wins).
func New(providers []seeds.Provider, opts ...Option) *Simulator {
	s := &Simulator{
		now:       time.Now,
		holdLimit: DefaultHoldLimit,
		byID:      make(map[string]*seeds.Provider, len(providers)),
		byPath:    make(map[string]string, len(providers)),
		state:     make(map[string]*state, len(providers)),
		done:      make(chan struct{}),
	}
	for _, o := range opts {
		o(s)
	}
	seen := make(map[string]bool, len(providers))
	for _, p := range providers {
		if seen[p.ID] || p.ID == "" {
			continue
		}
		seen[p.ID] = true
		s.providers = append(s.providers, p)
	}
	now := s.now()
	for i := range s.providers {
		p := &s.providers[i]
		s.byID[p.ID] = p
		s.byPath[pagePathUnescaped(*p)] = p.ID
		sc := DefaultScenario()
		s.state[p.ID] = &state{sc: sc, since: now, page: renderPage(*p, sc.Status, now, now, nil)}
	}
	return s
}

// Close releases every request being delayed or held (they are answered 503) and makes later delays and holds
// return at once. The handler keeps serving pages.
func (s *Simulator) Close() {
	s.closeOnce.Do(func() { close(s.done) })
}

// Providers returns the served providers, in the order given to New.
func (s *Simulator) Providers() []seeds.Provider {
	return append([]seeds.Provider(nil), s.providers...)
}

// Set changes the scenario of one provider. Empty Status and Fail mean their defaults. It returns an error
// wrapping ErrUnknownProvider for a provider the simulator does not serve, and a *FieldError for a bad value.
func (s *Simulator) Set(providerID string, sc Scenario) error {
	p, ok := s.byID[providerID]
	if !ok {
		return fmt.Errorf("provider %q: %w", providerID, ErrUnknownProvider)
	}
	if sc.Status == "" {
		sc.Status = StatusOperational
	}
	if sc.Fail == "" {
		sc.Fail = FailNone
	}
	if err := sc.Validate(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.setLocked(p, sc)
	return nil
}

// setLocked stores sc, rendering the page anew when the status changes. The caller holds s.mu.
func (s *Simulator) setLocked(p *seeds.Provider, sc Scenario) {
	st := s.state[p.ID]
	if st.sc.Status != sc.Status {
		now := s.now()
		s.state[p.ID] = &state{sc: sc, since: now, page: renderPage(*p, sc.Status, now, now, st.page)}
		return
	}
	s.state[p.ID] = &state{sc: sc, since: st.since, epoch: st.epoch, page: st.page}
}

// Scenario returns the scenario of one provider.
func (s *Simulator) Scenario(providerID string) (Scenario, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	st, ok := s.state[providerID]
	if !ok {
		return Scenario{}, false
	}
	return st.sc, true
}

// Scenarios returns every provider's scenario, keyed by provider ID. The map is a copy.
func (s *Simulator) Scenarios() map[string]Scenario {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make(map[string]Scenario, len(s.state))
	for id, st := range s.state {
		out[id] = st.sc
	}
	return out
}

// Reset sets every provider back to the default scenario (operational, no delay, no failure).
func (s *Simulator) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.providers {
		s.setLocked(&s.providers[i], DefaultScenario())
	}
}

// snapshot returns the current state of one provider, first posting the update that is due when a status has
// been held for another UpdateInterval.
func (s *Simulator) snapshot(id string) *state {
	now := s.now()
	s.mu.RLock()
	st := s.state[id]
	s.mu.RUnlock()
	if epochAt(st.sc.Status, st.since, now) <= st.epoch {
		return st
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st = s.state[id]
	if e := epochAt(st.sc.Status, st.since, now); e > st.epoch {
		p := s.byID[id]
		update := st.since.Add(time.Duration(e) * UpdateInterval)
		st = &state{sc: st.sc, since: st.since, epoch: e,
			page: renderPage(*p, st.sc.Status, st.since, update, st.page)}
		s.state[id] = st
	}
	return st
}

// PagePath is where the simulator serves a provider's page: "/" + the provider ID + the path (and query, if
// any) of its status_api_url, for example "/openai/api/v2/summary.json". A URL without a path gives "/{id}/".
func PagePath(p seeds.Provider) string {
	u, err := url.Parse(p.StatusAPIURL)
	if err != nil {
		return "/" + p.ID + "/"
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	out := "/" + p.ID + path
	if u.RawQuery != "" {
		out += "?" + u.RawQuery
	}
	return out
}

// pagePathUnescaped is the path part of PagePath, unescaped, as found in a request's URL.Path.
func pagePathUnescaped(p seeds.Provider) string {
	u, err := url.Parse(p.StatusAPIURL)
	if err != nil || u.Path == "" {
		return "/" + p.ID + "/"
	}
	return "/" + p.ID + u.Path
}

// sortedIDs returns the keys of m in order.
func sortedIDs[V any](m map[string]V) []string {
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}
