package poller_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard/switchboard/dbtest"
	"github.com/switchboard/switchboard/netguard"
	"github.com/switchboard/switchboard/poller"
	"github.com/switchboard/switchboard/seeds"
	"github.com/switchboard/switchboard/store"
)

const allClear = `{"page":{"id":"p1","name":"Example","url":"https://status.example.com","updated_at":"2026-11-20T10:00:00Z"},
"status":{"indicator":"none","description":"All Systems Operational"},
"components":[{"id":"c1","name":"API","status":"operational"}],"incidents":[],"scheduled_maintenances":[]}`

const apiOutage = `{"page":{"id":"p1","name":"Example","url":"https://status.example.com","updated_at":"2026-11-20T10:00:00Z"},
"status":{"indicator":"critical","description":"Major System Outage"},
"components":[{"id":"c1","name":"API","status":"major_outage"}],
"incidents":[{"id":"i1","name":"API unavailable","status":"investigating","impact":"critical"}],"scheduled_maintenances":[]}`

// pages serves one behaviour per provider ID, like a misbehaving internet.
type pages struct {
	mu        sync.Mutex
	agents    []string
	notMod    int
	outage    bool
	hangUntil chan struct{}
}

func (pg *pages) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	pg.mu.Lock()
	pg.agents = append(pg.agents, r.UserAgent())
	outage := pg.outage
	pg.mu.Unlock()
	id := strings.Split(strings.TrimPrefix(r.URL.Path, "/"), "/")[0]
	switch id {
	case "ok", "flaky":
		body, etag := allClear, `"v1"`
		if outage && id == "flaky" {
			body, etag = apiOutage, `"v2"`
		}
		if r.Header.Get("If-None-Match") == etag {
			pg.mu.Lock()
			pg.notMod++
			pg.mu.Unlock()
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", etag)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, body)
	case "hang":
		select {
		case <-r.Context().Done():
		case <-pg.hangUntil:
		}
	case "big":
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, bigPage)
	case "redirect":
		n := len(r.URL.Query().Get("n"))
		http.Redirect(w, r, r.URL.Path+"?n="+strings.Repeat("x", n+1), http.StatusFound)
	case "html":
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<!doctype html><html><body>Just a moment...</body></html>")
	case "error":
		http.Error(w, "bad gateway", http.StatusBadGateway)
	case "slow":
		time.Sleep(slowThreshold + 300*time.Millisecond)
		io.WriteString(w, allClear)
	default:
		http.NotFound(w, r)
	}
}

// bigPage is a page over the fetcher's body limit, made once: building it per request is slow under -race, and a
// loaded machine could then time the fetch out before the limit is seen.
var bigPage = `{"page":{"id":"x"},"filler":"` + strings.Repeat("a", 6<<20) + `"}`

func providers(ids ...string) []seeds.Provider {
	var out []seeds.Provider
	for _, id := range ids {
		out = append(out, seeds.Provider{ID: id, Name: strings.ToUpper(id), Format: "statuspage", StatusAPIURL: "https://status.example.com/api/v2/summary.json"})
	}
	return out
}

// slowThreshold is the pollers' bound for a slow page: well above a loopback fetch on a loaded machine under
// -race (at 100 ms, a plain page read degraded there), well below the timeouts.
const slowThreshold = 400 * time.Millisecond

// loopback lets the poller reach the test servers (SWITCHBOARD_OUTBOUND_ALLOW_LOOPBACK in the service).
var loopback = netguard.Options{AllowLoopback: true}

func newPoller(t *testing.T, st store.Store, base string, provs []seeds.Provider, timeout time.Duration) *poller.Poller {
	t.Helper()
	p, err := poller.New(poller.Config{Timeout: timeout, SlowThreshold: slowThreshold, StatusBaseURL: base, Outbound: loopback},
		st, provs, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	return p
}

func latest(t *testing.T, st store.Store) map[string]store.Check {
	t.Helper()
	cs, err := st.LatestChecks(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]store.Check{}
	for _, c := range cs {
		out[c.ProviderID] = c
	}
	return out
}

func TestCycleFailuresAreNeverOutages(t *testing.T) {
	pg := &pages{hangUntil: make(chan struct{})}
	defer close(pg.hangUntil)
	srv := httptest.NewServer(pg)
	defer srv.Close()
	st, _ := dbtest.Engines(t)[0].Open(t)
	// Long enough to read 5 MiB on a loaded machine, short enough to keep the test quick.
	const timeout = 1500 * time.Millisecond
	p := newPoller(t, st, srv.URL, providers("ok", "hang", "big", "redirect", "html", "error", "slow"), timeout)

	start := time.Now()
	rep := p.RunCycle(context.Background())
	if d := time.Since(start); d > timeout+2*time.Second {
		t.Errorf("the cycle took %v with a hanging page, more than timeout + 2 s", d)
	}
	if rep.Checks != 7 {
		t.Fatalf("report = %+v", rep)
	}
	got := latest(t, st)
	want := map[string]struct {
		outcome store.Outcome
		kind    string
	}{
		"ok": {store.OutcomeOperational, ""}, "slow": {store.OutcomeDegraded, ""},
		"hang": {store.OutcomeFailed, poller.FailTimeout}, "big": {store.OutcomeFailed, poller.FailBodyTooLarge},
		"redirect": {store.OutcomeFailed, poller.FailRedirects}, "html": {store.OutcomeFailed, poller.FailParse},
		"error": {store.OutcomeFailed, poller.FailHTTPStatus},
	}
	for id, w := range want {
		c := got[id]
		kind := ""
		if c.FailureKind != nil {
			kind = *c.FailureKind
		}
		if c.Outcome != w.outcome || kind != w.kind {
			t.Errorf("%s: %s/%s, want %s/%s (detail %v)", id, c.Outcome, kind, w.outcome, w.kind, c.Detail)
		}
	}
	if c := got["ok"]; c.ResponseTimeMs == nil || c.HTTPStatus == nil || *c.HTTPStatus != 200 {
		t.Errorf("ok check lacks its time or status: %+v", c)
	}
	if c := got["slow"]; c.Detail == nil || !strings.Contains(*c.Detail, "slowly") {
		t.Errorf("slow check detail = %v", c.Detail)
	}
	if c := got["hang"]; c.ResponseTimeMs != nil {
		t.Errorf("a timed-out fetch has a response time: %v", *c.ResponseTimeMs)
	}
	pg.mu.Lock() // a request the cycle gave up on may still be arriving
	agents := append([]string(nil), pg.agents...)
	pg.mu.Unlock()
	for _, ua := range agents {
		if !strings.HasPrefix(ua, "Switchboard") {
			t.Fatalf("User-Agent %q does not name the service", ua)
		}
	}
	// No failure made an incident: only the slow page did (degraded).
	incs, _ := st.IncidentsSince(context.Background(), time.Now().Add(-time.Hour), 0)
	if len(incs) != 1 || incs[0].ProviderID != "slow" || incs[0].Severity != store.OutcomeDegraded {
		t.Errorf("incidents = %+v", incs)
	}
}

func TestConditionalRequestsAndTransitions(t *testing.T) {
	pg := &pages{hangUntil: make(chan struct{})}
	srv := httptest.NewServer(pg)
	defer srv.Close()
	for _, e := range dbtest.Engines(t) {
		t.Run(e.Name, func(t *testing.T) {
			pg.mu.Lock()
			pg.outage, pg.notMod = false, 0
			pg.mu.Unlock()
			st, u := e.Open(t)
			p := newPoller(t, st, srv.URL, providers("ok", "flaky"), time.Second)
			p.RunCycle(context.Background())
			p.RunCycle(context.Background()) // unchanged pages answer 304 and still count as observed
			if pg.notMod != 2 {
				t.Errorf("%d conditional 304s, want 2", pg.notMod)
			}
			pg.mu.Lock()
			pg.outage = true
			pg.mu.Unlock()
			p.RunCycle(context.Background())

			// A restart in the middle: a new poller over the same database, loading its state.
			p2 := newPoller(t, dbtest.OpenStore(t, u), srv.URL, providers("ok", "flaky"), time.Second)
			p2.RunCycle(context.Background()) // still outage: no new change, no new event
			pg.mu.Lock()
			pg.outage = false
			pg.mu.Unlock()
			p2.RunCycle(context.Background())

			if c := latest(t, st)["ok"]; c.Outcome != store.OutcomeOperational {
				t.Errorf("ok = %s", c.Outcome)
			}
			changes, _ := st.StatusChangesSince(context.Background(), time.Now().Add(-time.Hour), 0)
			if len(changes) != 2 || changes[1].To != store.OutcomeOutage || changes[0].To != store.OutcomeOperational {
				t.Errorf("changes = %+v", changes)
			}
			events, _ := st.OutboxAfter(context.Background(), 0, 0)
			var types []string
			for _, ev := range events {
				types = append(types, ev.Type)
			}
			if strings.Join(types, ",") != "provider.down,incident.new,provider.up,incident.resolved" {
				t.Errorf("events = %v", types)
			}
			incs, _ := st.IncidentsSince(context.Background(), time.Now().Add(-time.Hour), 0)
			if len(incs) != 1 || incs[0].EndedAt == nil || incs[0].Description != "API unavailable" {
				t.Errorf("incidents = %+v", incs)
			}
		})
	}
}

func TestPageURL(t *testing.T) {
	p := seeds.Provider{ID: "openai", StatusAPIURL: "https://status.openai.com/api/v2/summary.json"}
	if got := poller.PageURL(p, ""); got != p.StatusAPIURL {
		t.Errorf("no base: %s", got)
	}
	if got := poller.PageURL(p, "http://127.0.0.1:9000"); got != "http://127.0.0.1:9000/openai/api/v2/summary.json" {
		t.Errorf("with base: %s", got)
	}
	q := seeds.Provider{ID: "aws-bedrock", StatusAPIURL: "https://status.aws.amazon.com/rss/bedrock-us-east-1.rss?x=1"}
	if got := poller.PageURL(q, "http://h"); got != "http://h/aws-bedrock/rss/bedrock-us-east-1.rss?x=1" {
		t.Errorf("with query: %s", got)
	}
}

// TestShutdownRecordsNothingItCutOff: a fetch cut off by shutdown says nothing about the provider, so it is not
// recorded as a failed check; a fetch that completed before is.
func TestShutdownRecordsNothingItCutOff(t *testing.T) {
	pg := &pages{hangUntil: make(chan struct{})}
	defer close(pg.hangUntil)
	srv := httptest.NewServer(pg)
	defer srv.Close()
	st, _ := dbtest.Engines(t)[0].Open(t)
	p := newPoller(t, st, srv.URL, providers("ok", "hang"), 5*time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	rep := p.RunCycle(ctx)
	if rep.Cancelled != 1 || rep.Checks != 1 {
		t.Errorf("report = %+v, want 1 check and 1 cancelled", rep)
	}
	got := latest(t, st)
	if _, ok := got["hang"]; ok || got["ok"].Outcome != store.OutcomeOperational {
		t.Errorf("checks = %+v", got)
	}
}

// TestPollerRefusesRedirectToInternalAddress reproduces the finding: a status page that redirects to the cloud
// metadata path (or to plain http) is not followed, and a poller without the loopback setting never reaches a
// page on loopback. The failure is a kind of its own, not a network failure and never an outage.
func TestPollerRefusesRedirectToInternalAddress(t *testing.T) {
	t.Parallel()
	var hits sync.Map
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := strings.Split(strings.TrimPrefix(r.URL.Path, "/"), "/")[0]
		hits.Store(id, true)
		switch id {
		case "meta", "meta-listed":
			http.Redirect(w, r, "https://169.254.169.254/latest/meta-data/iam/security-credentials/", http.StatusFound)
		case "plain":
			http.Redirect(w, r, "http://status.example.com/api/v2/summary.json", http.StatusMovedPermanently)
		default:
			io.WriteString(w, allClear)
		}
	}))
	defer srv.Close()
	st, _ := dbtest.Engines(t)[0].Open(t)
	guard := netguard.Options{AllowLoopback: true, RedirectHosts: []string{"169.254.169.254"}}
	p, err := poller.New(poller.Config{Timeout: 2 * time.Second, StatusBaseURL: srv.URL, Outbound: guard},
		st, providers("meta-listed", "plain"), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	p.RunCycle(context.Background())
	// Without a listed host the redirect is refused before any address is judged.
	p2, err := poller.New(poller.Config{Timeout: 2 * time.Second, StatusBaseURL: srv.URL, Outbound: loopback},
		st, providers("meta"), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	p2.RunCycle(context.Background())
	// Loopback is refused by default: the page is never asked.
	p3, err := poller.New(poller.Config{Timeout: 2 * time.Second, StatusBaseURL: srv.URL},
		st, providers("local"), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	p3.RunCycle(context.Background())

	got := latest(t, st)
	for id, want := range map[string]string{
		"meta-listed": poller.FailRefusedAddress, "plain": poller.FailRedirectRefused,
		"meta": poller.FailRedirectRefused, "local": poller.FailRefusedAddress,
	} {
		c := got[id]
		if c.Outcome != store.OutcomeFailed || c.FailureKind == nil || *c.FailureKind != want {
			t.Errorf("%s: %s/%v, want failed/%s (detail %v)", id, c.Outcome, c.FailureKind, want, c.Detail)
		}
		if store.IsNetworkFailure(want) {
			t.Errorf("%s counts as a network failure", want)
		}
	}
	if _, asked := hits.Load("local"); asked {
		t.Error("the poller without the loopback setting reached a loopback page")
	}
}
