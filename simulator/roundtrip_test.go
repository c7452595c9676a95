package simulator

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/switchboard/switchboard/poller/parse"
	"github.com/switchboard/switchboard/seeds"
)

// expectation is what the parser of a format must read from a page rendered for a status.
type expectation struct {
	code        int // HTTP status of the page
	status      parse.Status
	maintenance bool
}

// noMaintenance lists the formats that cannot express an in-progress maintenance: their page reads operational
// in the maintenance scenario. Google Cloud's incidents.json, the AWS per-service RSS and the Azure status RSS
// carry incidents only; the reachability format reads nothing.
var noMaintenance = map[string]bool{"google-cloud": true, "aws-health": true, "azure-status": true, "http": true}

func expect(format, status string) expectation {
	if format == "http" {
		// Reachability only: a 200 is the page answering (operational), an outage is a 503 (a failed check).
		if status == StatusOutage {
			return expectation{code: http.StatusServiceUnavailable}
		}
		return expectation{code: http.StatusOK, status: parse.Operational}
	}
	switch status {
	case StatusDegraded:
		return expectation{code: http.StatusOK, status: parse.Degraded}
	case StatusOutage:
		return expectation{code: http.StatusOK, status: parse.Outage}
	case StatusMaintenance:
		if noMaintenance[format] {
			return expectation{code: http.StatusOK, status: parse.Operational}
		}
		return expectation{code: http.StatusOK, status: parse.Degraded, maintenance: true}
	}
	return expectation{code: http.StatusOK, status: parse.Operational}
}

// TestRoundTrip renders every seeded provider's page in every status and reads it back with the provider's
// parser: what the simulator says is what the poller reads.
func TestRoundTrip(t *testing.T) {
	roundTrip(t, seeds.Providers().All())
}

// TestRoundTripScoped does the same with API scopes on every provider (the seeds have none yet): the API
// component must be found by name, and entries for unrelated products (Google, Azure) must be skipped.
func TestRoundTripScoped(t *testing.T) {
	var list []seeds.Provider
	for _, p := range seeds.Providers().All() {
		p.Scope = scopeFor(p)
		list = append(list, p)
	}
	roundTrip(t, list)
}

// TestRoundTripScopedByID uses scopes that name the API component by its platform ID rather than its name.
func TestRoundTripScopedByID(t *testing.T) {
	ids := map[string][]string{
		"statuspage":  {"p7x2k9q1m3zz", "Embeddings"},
		"incidentio":  {"01JBBBBBBBBBBBBBBBBBBBBBBB"},
		"betterstack": {"7001"},
	}
	var list []seeds.Provider
	for _, p := range seeds.Providers().All() {
		if c, ok := ids[p.Format]; ok {
			p.Scope = seeds.Scope{Components: c}
			list = append(list, p)
		}
	}
	roundTrip(t, list)
}

func scopeFor(p seeds.Provider) seeds.Scope {
	switch p.Format {
	case "google-cloud":
		return seeds.Scope{Keywords: []string{"Vertex Gemini API", "Z0FZJAMvEB4j3NbCJs6B"}}
	case "aws-health":
		return seeds.Scope{Keywords: []string{"Bedrock"}}
	case "azure-status":
		return seeds.Scope{Keywords: []string{"Azure OpenAI", "Foundry"}}
	case "rss":
		return seeds.Scope{Keywords: []string{"Inference API"}}
	}
	return seeds.Scope{Components: []string{"Chat Completions API", "Embeddings API"}}
}

func roundTrip(t *testing.T, providers []seeds.Provider) {
	clock := newTestClock()
	sim, srv := newServer(t, providers, WithClock(clock.Now))
	for _, p := range providers {
		t.Run(p.ID, func(t *testing.T) {
			parser, ok := parse.Get(p.Format)
			if !ok {
				t.Fatalf("no parser registered for format %q (registered: %v)", p.Format, parse.Formats())
			}
			scope := parse.Scope{Components: p.Scope.Components, Keywords: p.Scope.Keywords, DisruptionTop: p.Scope.DisruptionTop}
			for _, status := range Statuses {
				if err := sim.Set(p.ID, Scenario{Status: status}); err != nil {
					t.Fatal(err)
				}
				clock.Advance(time.Minute)
				resp, body := fetch(t, srv.Client(), srv.URL+PagePath(p), nil)
				want := expect(p.Format, status)
				if resp.StatusCode != want.code {
					t.Errorf("%s: HTTP %d, want %d", status, resp.StatusCode, want.code)
					continue
				}
				if want.code != http.StatusOK {
					continue
				}
				// The poller reads the page a little after it changed.
				got, err := parser(body, scope, clock.Now().Add(2*time.Minute))
				if err != nil {
					t.Errorf("%s: parse: %v\n%s", status, err, body)
					continue
				}
				if got.Status != want.status || got.Maintenance != want.maintenance {
					t.Errorf("%s: read %s (maintenance %v, summary %q), want %s (maintenance %v)\n%s", status,
						got.Status, got.Maintenance, got.Summary, want.status, want.maintenance, body)
				}
				if got.Status != parse.Operational && got.Summary == "" && p.Format != "http" {
					t.Errorf("%s: reading has no summary", status)
				}
			}
		})
	}
}

// TestPagesLookReal checks the page-level fields and content types of each format, beyond what the parsers read.
func TestPagesLookReal(t *testing.T) {
	_, srv := newServer(t, seeds.Providers().All())
	ctypes := map[string]string{
		"statuspage": "application/json", "incidentio": "application/json", "instatus": "application/json",
		"betterstack": "application/json", "google-cloud": "application/json", "aws-health": "application/rss+xml",
		"azure-status": "application/rss+xml", "rss": "application/rss+xml", "http": "",
	}
	marks := map[string][]string{
		"statuspage":   {`"page": {`, `"time_zone": "Etc/UTC"`, `"updated_at"`, `"indicator": "none"`, `"group": true`, `"status": "scheduled"`},
		"incidentio":   {`"page": {`, `"incidents": null`, `"scheduled_maintenances": null`},
		"instatus":     {`"page": {`, `"status": "UP"`},
		"betterstack":  {`"type": "status_page"`, `"aggregate_state": "operational"`, `"type": "status_page_resource"`, `"aggregate_state": "resolved"`},
		"google-cloud": {`"end": "`, `"affected_products"`, `"status": "AVAILABLE"`},
		"aws-health":   {`<rss version="2.0">`, `[RESOLVED]`, `T</pubDate>`},
		"azure-status": {`<title>Azure Status</title>`},
		"rss":          {`<rss version="2.0"`, `esolved`},
		"http":         {`<!DOCTYPE html>`, `<title>`},
	}
	for _, p := range seeds.Providers().All() {
		resp, body := fetch(t, srv.Client(), srv.URL+PagePath(p), nil)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s: HTTP %d", p.ID, resp.StatusCode)
			continue
		}
		ct := resp.Header.Get("Content-Type")
		if want := ctypes[p.Format]; want != "" && !strings.HasPrefix(ct, want) {
			t.Errorf("%s: Content-Type %q, want %s", p.ID, ct, want)
		}
		if resp.Header.Get("ETag") == "" || resp.Header.Get("Last-Modified") == "" {
			t.Errorf("%s: no ETag or Last-Modified", p.ID)
		}
		ms := marks[p.Format]
		if p.Format == "http" && strings.HasSuffix(PagePath(p), ".json") {
			ms = []string{`"customDomain"`, `"components"`}
		}
		for _, m := range ms {
			if !strings.Contains(string(body), m) {
				t.Errorf("%s (%s): page lacks %s\n%s", p.ID, p.Format, m, body)
			}
		}
	}
}

// TestAtomFeeds covers the Atom flavour of the rss format (no seeded provider uses it yet).
func TestAtomFeeds(t *testing.T) {
	parser, ok := parse.Get("rss")
	if !ok {
		t.Skip("no rss parser registered yet")
	}
	p := seeds.Provider{ID: "example", Name: "Example Labs", Format: "rss", StatusAPIURL: "https://status.example-labs.test/history.atom"}
	clock := newTestClock()
	sim, srv := newServer(t, []seeds.Provider{p}, WithClock(clock.Now))
	for _, status := range Statuses {
		if err := sim.Set(p.ID, Scenario{Status: status}); err != nil {
			t.Fatal(err)
		}
		resp, body := fetch(t, srv.Client(), srv.URL+PagePath(p), nil)
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/atom+xml") {
			t.Errorf("%s: Content-Type %q", status, ct)
		}
		got, err := parser(body, parse.Scope{}, clock.Now().Add(time.Minute))
		want := expect("rss", status)
		if err != nil || got.Status != want.status || got.Maintenance != want.maintenance {
			t.Errorf("%s: read %+v, %v; want %s (maintenance %v)\n%s", status, got, err, want.status, want.maintenance, body)
		}
	}
}

// TestGarbageIsUnparseable checks that every parser rejects the garbage body as unparseable (the poller then
// records a failed check, never an outage). For the reachability format, the garbage is a Cloudflare challenge
// page, which its parser rejects too.
func TestGarbageIsUnparseable(t *testing.T) {
	sim, srv := newServer(t, oneOfEachFormat())
	for _, p := range sim.Providers() {
		if err := sim.Set(p.ID, Scenario{Fail: FailGarbage}); err != nil {
			t.Fatal(err)
		}
		resp, body := fetch(t, srv.Client(), srv.URL+PagePath(p), nil)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s: HTTP %d %q, want 200 application/json", p.ID, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		parser, ok := parse.Get(p.Format)
		if !ok {
			t.Errorf("%s: no parser registered for format %q", p.ID, p.Format)
			continue
		}
		got, err := parser(body, parse.Scope{}, time.Now())
		if !errors.Is(err, parse.ErrUnparseable) {
			t.Errorf("%s (%s): parser returned %+v, %v; want an error wrapping ErrUnparseable", p.ID, p.Format, got, err)
		}
	}
}

// TestPagePath checks the paths the simulator serves pages at.
func TestPagePath(t *testing.T) {
	for _, c := range []struct{ url, want string }{
		{"https://status.openai.com/api/v2/summary.json", "/openai/api/v2/summary.json"},
		{"https://status.mistral.ai/", "/openai/"},
		{"https://status.mistral.ai", "/openai/"},
		{"https://example.test/feed?lang=en&x=1", "/openai/feed?lang=en&x=1"},
		{"https://example.test/a%20b/feed.rss", "/openai/a%20b/feed.rss"},
	} {
		if got := PagePath(seeds.Provider{ID: "openai", StatusAPIURL: c.url}); got != c.want {
			t.Errorf("PagePath(%s) = %q, want %q", c.url, got, c.want)
		}
	}
	// Every seeded provider has a page of its own.
	seen := map[string]string{}
	for _, p := range seeds.Providers().All() {
		pp := PagePath(p)
		if other, dup := seen[pp]; dup {
			t.Errorf("%s and %s share the page path %s", p.ID, other, pp)
		}
		seen[pp] = p.ID
		if !strings.HasPrefix(pp, "/"+p.ID+"/") {
			t.Errorf("%s: page path %s", p.ID, pp)
		}
	}
	if got := PagePath(providerByID(t, "openai")); got != "/openai/api/v2/summary.json" {
		t.Errorf("openai: %s", got)
	}
}

// TestHeldStatusesStayRecent holds every non-operational status for days: the page posts an update every
// UpdateInterval, so age-based parsers keep reading it, and its ETag changes only at those updates. An
// operational page never changes.
func TestHeldStatusesStayRecent(t *testing.T) {
	clock := newTestClock()
	providers := seeds.Providers().All()
	sim, srv := newServer(t, providers, WithClock(clock.Now))
	offsets := []time.Duration{0, 3 * time.Hour, UpdateInterval - time.Minute, UpdateInterval, 30 * time.Hour, 8 * 24 * time.Hour}
	for _, p := range providers {
		parser, ok := parse.Get(p.Format)
		if !ok {
			t.Errorf("%s: no parser registered for format %q", p.ID, p.Format)
			continue
		}
		for _, status := range Statuses {
			start := clock.Now()
			if err := sim.Set(p.ID, Scenario{Status: status}); err != nil {
				t.Fatal(err)
			}
			var lastTag, lastLM string
			lastEpoch := -1
			for _, off := range offsets {
				clock.Advance(start.Add(off).Sub(clock.Now()))
				resp, body := fetch(t, srv.Client(), srv.URL+PagePath(p), nil)
				want := expect(p.Format, status)
				if resp.StatusCode != want.code {
					t.Errorf("%s %s +%v: HTTP %d, want %d", p.ID, status, off, resp.StatusCode, want.code)
					continue
				}
				if want.code != http.StatusOK {
					continue
				}
				epoch := epochAt(status, start, clock.Now())
				// The page changes only when an update is posted (not at all if the update shows nowhere on it);
				// Last-Modified moves with the ETag.
				tag, lm := resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
				if lastTag != "" && tag != lastTag && epoch == lastEpoch {
					t.Errorf("%s %s +%v: ETag %s (was %s) within epoch %d", p.ID, status, off, tag, lastTag, epoch)
				}
				if lastTag != "" && (tag != lastTag) != (lm != lastLM) {
					t.Errorf("%s %s +%v: ETag %s (was %s) but Last-Modified %s (was %s)", p.ID, status, off, tag, lastTag, lm, lastLM)
				}
				if p.Format == "rss" && status != StatusOperational && epoch != lastEpoch && tag == lastTag {
					t.Errorf("%s %s +%v: no update posted at epoch %d", p.ID, status, off, epoch)
				}
				lastTag, lastLM, lastEpoch = tag, lm, epoch
				got, err := parser(body, parse.Scope{Components: p.Scope.Components, Keywords: p.Scope.Keywords, DisruptionTop: p.Scope.DisruptionTop}, clock.Now())
				if err != nil || got.Status != want.status || got.Maintenance != want.maintenance {
					t.Errorf("%s %s +%v: read %+v, %v; want %s (maintenance %v)\n%s", p.ID, status, off, got, err,
						want.status, want.maintenance, body)
				}
			}
			clock.Advance(time.Minute)
		}
	}
}
