package web_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard/switchboard/health"
	"github.com/switchboard/switchboard/seeds"
	"github.com/switchboard/switchboard/store"
	"github.com/switchboard/switchboard/web"
)

var now = time.Date(2026, 11, 10, 12, 0, 0, 0, time.UTC)

func f(v float64) *float64 { return &v }

type fixed struct{ s *health.Snapshot }

func (x fixed) Current(context.Context) (*health.Snapshot, error) { return x.s, nil }

// history: openai in an ongoing outage since 30 minutes, anthropic operational with a resolved incident
// yesterday, two days of daily counts for openai; every other provider never checked.
func history() *health.Snapshot {
	end := now.Add(-20 * time.Hour)
	in := health.Input{
		States: []store.ProviderState{
			{ProviderID: "openai", LastStatus: store.OutcomeOutage, LastObservedAt: now.Add(-time.Minute)},
			{ProviderID: "anthropic", LastStatus: store.OutcomeOperational, LastObservedAt: now.Add(-time.Minute)},
		},
		Latest: []store.Check{
			{ProviderID: "openai", CheckedAt: now.Add(-time.Minute), Outcome: store.OutcomeOutage, ResponseTimeMs: f(812)},
			{ProviderID: "anthropic", CheckedAt: now.Add(-time.Minute), Outcome: store.OutcomeOperational, ResponseTimeMs: f(120)},
		},
		Checks: map[string][]store.Check{"openai": {
			{ID: 1, ProviderID: "openai", CheckedAt: now.Add(-2 * time.Hour), Outcome: store.OutcomeOperational, ResponseTimeMs: f(100)},
			{ID: 2, ProviderID: "openai", CheckedAt: now.Add(-30 * time.Minute), Outcome: store.OutcomeOutage, ResponseTimeMs: f(300)},
			{ID: 3, ProviderID: "openai", CheckedAt: now.Add(-time.Minute), Outcome: store.OutcomeOutage, ResponseTimeMs: f(812)},
		}},
		Daily: []store.DayCount{
			{ProviderID: "openai", Day: "2026-11-10", Observed: 4, Outages: 2},
			{ProviderID: "openai", Day: "2026-11-09", Observed: 144},
		},
		Incidents: []store.Incident{
			{ID: "i1", ProviderID: "openai", Severity: store.OutcomeOutage, StartedAt: now.Add(-30 * time.Minute), Description: "API down"},
			{ID: "i2", ProviderID: "anthropic", Severity: store.OutcomeDegraded, StartedAt: now.Add(-22 * time.Hour), EndedAt: &end, Description: "slow"},
		},
	}
	return health.NewSnapshot(now, in, health.Options{})
}

// TestDashboardSaysWhenCatalogsAreStale: the dashboard lists the catalogs whose newest source is older than 45
// days at its clock, and none on the day the sources were read.
func TestDashboardSaysWhenCatalogsAreStale(t *testing.T) {
	dates, err := seeds.CatalogSourceDates()
	if err != nil {
		t.Fatal(err)
	}
	// latest is the newest source date of all; earliest the oldest catalog's newest source: nothing is stale then.
	newest := map[string]time.Time{}
	var latest time.Time
	for _, d := range dates {
		if d.AsOf.After(newest[d.Catalog]) {
			newest[d.Catalog] = d.AsOf
		}
		if d.AsOf.After(latest) {
			latest = d.AsOf
		}
	}
	earliest := latest
	for _, d := range newest {
		if d.Before(earliest) {
			earliest = d
		}
	}
	fresh, err := web.BuildDashboard(history(), earliest, 15*time.Second)
	if err != nil || len(fresh.Stale) != 0 {
		t.Errorf("on the sources' day: %v %v", fresh.Stale, err)
	}
	old, err := web.BuildDashboard(history(), latest.Add(seeds.StaleAfter+48*time.Hour), 15*time.Second)
	if err != nil || len(old.Stale) == 0 {
		t.Fatalf("47 days later: %v %v", old.Stale, err)
	}
	later := latest.Add(seeds.StaleAfter + 48*time.Hour)
	h, err := web.New(web.Options{Health: fixed{history()}, Clock: func() time.Time { return later }})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	_, page := get(t, srv.URL+"/")
	if !strings.Contains(page, `id="stale-catalogs"`) || !strings.Contains(page, old.Stale[0].Catalog) {
		t.Error("the dashboard page does not show the stale catalogs")
	}
	h, _ = web.New(web.Options{Health: fixed{history()}, Clock: func() time.Time { return earliest }})
	srv2 := httptest.NewServer(h)
	defer srv2.Close()
	if _, page := get(t, srv2.URL+"/"); strings.Contains(page, `id="stale-catalogs"`) {
		t.Error("the dashboard warns of stale catalogs on the day their sources were read")
	}
}

func TestBuildDashboard(t *testing.T) {
	d, err := web.BuildDashboard(history(), now, 15*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if d.Total != 52 || len(d.Providers) != 52 || d.RefreshMs != 15000 {
		t.Fatalf("total %d, rows %d, refresh %d", d.Total, len(d.Providers), d.RefreshMs)
	}
	if d.Summary.Outage != 1 || d.Summary.Operational != 1 || d.Summary.Unknown != 50 {
		t.Errorf("summary %+v", d.Summary)
	}
	var openai web.ProviderRow
	for _, p := range d.Providers {
		if p.ID == "openai" {
			openai = p
		}
	}
	if openai.Status != health.StatusOutage || openai.ResponseMs != "812 ms" || openai.LastChecked != "2026-11-10T11:59:00Z" {
		t.Errorf("openai row %+v", openai)
	}
	if len(openai.Days) != 90 {
		t.Fatalf("%d days", len(openai.Days))
	}
	today, yesterday, first := openai.Days[89], openai.Days[88], openai.Days[0]
	if today.Date != "2026-11-10" || today.Class != "u-red" || today.Title != "2026-11-10: 50% uptime, 4 checks, 2 outage" {
		t.Errorf("today %+v", today)
	}
	if yesterday.Class != "u-green" || first.Class != "u-none" || first.Title != first.Date+": no checks" || first.Date != "2026-08-13" {
		t.Errorf("yesterday %+v, first %+v", yesterday, first)
	}
	if len(d.Open) != 1 || d.Open[0].ProviderID != "openai" || d.Open[0].ProviderName != "OpenAI" || !d.Open[0].Ongoing {
		t.Errorf("open %+v", d.Open)
	}
	if len(d.Recent) != 1 || d.Recent[0].ProviderID != "anthropic" || d.Recent[0].Duration != "2h0m0s" {
		t.Errorf("recent %+v", d.Recent)
	}
}

func TestBuildProviderPage(t *testing.T) {
	p, err := web.BuildProviderPage(history(), "openai", now)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Latency) != 2 || p.Latency[0].Window != "1h" || p.Latency[0].TotalChecks != 2 || p.Latency[1].TotalChecks != 3 {
		t.Errorf("latency %+v", p.Latency)
	}
	if p.Latency[1].P50Ms == nil || *p.Latency[1].P50Ms != 300 {
		t.Errorf("24h p50 %v", p.Latency[1].P50Ms)
	}
	for _, want := range []string{"/api/v1/pricing?provider=openai", "/api/v1/models?provider=openai", "/api/v1/rate-limits?provider=openai", "/api/v1/uptime-history?provider=openai&period=90d"} {
		found := false
		for _, l := range p.Links {
			found = found || l.URL == want
		}
		if !found {
			t.Errorf("no link %s in %+v", want, p.Links)
		}
	}
	checkXML(t, string(p.Chart24h))
	if n := strings.Count(string(p.Chart24h), "<circle"); n != 2 {
		t.Errorf("%d outage marks in the 24h chart, want 2", n)
	}
	if !strings.Contains(string(p.Chart24h), "<polyline") {
		t.Error("no line in the 24h chart")
	}
	if _, err := web.BuildProviderPage(history(), "nope", now); err == nil {
		t.Error("unknown provider built a page")
	}
	empty, err := web.BuildProviderPage(history(), "groq", now)
	if err != nil {
		t.Fatal(err)
	}
	checkXML(t, string(empty.Chart7d))
	if !strings.Contains(string(empty.Chart7d), "no response times") || strings.Contains(string(empty.Chart7d), "<polyline") {
		t.Errorf("empty chart: %s", empty.Chart7d)
	}
}

type svgDoc struct {
	XMLName xml.Name `xml:"svg"`
	Width   int      `xml:"width,attr"`
	Rects   []struct {
		Fill string `xml:"fill,attr"`
	} `xml:"g>rect"`
	Texts []string `xml:"g>text"`
}

func checkXML(t *testing.T, s string) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(s))
	for {
		if _, err := d.Token(); errors.Is(err, io.EOF) {
			return
		} else if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, s)
		}
	}
}

func parseBadge(t *testing.T, b []byte) svgDoc {
	t.Helper()
	checkXML(t, string(b))
	var d svgDoc
	if err := xml.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Rects) != 3 || len(d.Texts) != 4 {
		t.Fatalf("badge shape: %+v", d)
	}
	return d
}

func TestBadges(t *testing.T) {
	for _, c := range []struct {
		svg          []byte
		label, value string
		color        string
	}{
		{web.StatusBadge("OpenAI", health.StatusOutage), "OpenAI", "outage", web.ColorRed},
		{web.StatusBadge("Anthropic", health.StatusOperational), "Anthropic", "operational", web.ColorGreen},
		{web.StatusBadge("Groq", health.StatusDegraded), "Groq", "degraded", web.ColorYellow},
		{web.StatusBadge("A & B <x>", health.StatusUnknown), "A & B <x>", "unknown", web.ColorGrey},
		{web.UptimeBadge("30d", f(99.95)), "uptime 30d", "99.95%", web.ColorGreen},
		{web.UptimeBadge("7d", f(99.5)), "uptime 7d", "99.5%", web.ColorLightGreen},
		{web.UptimeBadge("90d", f(96)), "uptime 90d", "96%", web.ColorYellow},
		{web.UptimeBadge("90d", f(92)), "uptime 90d", "92%", web.ColorOrange},
		{web.UptimeBadge("90d", f(50)), "uptime 90d", "50%", web.ColorRed},
		{web.UptimeBadge("30d", nil), "uptime 30d", "no data", web.ColorGrey},
	} {
		d := parseBadge(t, c.svg)
		if d.Rects[1].Fill != c.color || d.Texts[1] != c.label || d.Texts[3] != c.value {
			t.Errorf("badge %s/%s: fill %s, texts %q", c.label, c.value, d.Rects[1].Fill, d.Texts)
		}
	}
	// A longer value makes a wider badge.
	if a, b := parseBadge(t, web.Badge("x", "ok", "#000")), parseBadge(t, web.Badge("x", "operational", "#000")); a.Width >= b.Width {
		t.Errorf("widths %d >= %d", a.Width, b.Width)
	}
}

func newServer(t *testing.T) *httptest.Server {
	h, err := web.New(web.Options{Health: fixed{history()}, Clock: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s
}

func get(t *testing.T, url string) (*http.Response, string) {
	t.Helper()
	r, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	return r, string(b)
}

func TestHandlers(t *testing.T) {
	s := newServer(t)
	for _, c := range []struct {
		path   string
		status int
		ctype  string
		has    []string
	}{
		{"/", 200, "text/html", []string{`data-provider="openai" data-status="outage"`, `data-refresh-ms="15000"`, `title="2026-11-10: 50% uptime, 4 checks, 2 outage"`, "API down"}},
		{"/?refresh=1", 200, "text/html", []string{`data-refresh-ms="1000"`}},
		{"/?refresh=0", 400, "text/html", []string{"refresh must be"}},
		{"/providers/openai", 200, "text/html", []string{"<svg", "/api/v1/pricing?provider=openai", "OpenAI"}},
		{"/providers/nope", 404, "text/html", []string{"Unknown provider", `&#34;nope&#34;`}},
		{"/badge/openai.svg", 200, "image/svg+xml", []string{">outage<", web.ColorRed}},
		{"/badge/nope.svg", 404, "image/svg+xml", []string{"not found"}},
		{"/badge/openai", 404, "text/html", nil},
		{"/badge/openai/uptime.svg", 200, "image/svg+xml", []string{"uptime 30d", "98.65%"}},
		{"/badge/openai/uptime.svg?period=7d", 200, "image/svg+xml", []string{"uptime 7d"}},
		{"/badge/openai/uptime.svg?period=1y", 400, "image/svg+xml", nil},
		{"/badge/nope/uptime.svg", 404, "image/svg+xml", nil},
		{"/docs", 200, "text/html", []string{"/assets/swagger/swagger-ui-bundle.js", "/api/v1/openapi.json"}},
		{"/assets/style.css", 200, "text/css", nil},
		{"/assets/swagger/swagger-ui-bundle.js", 200, "javascript", nil},
		{"/assets/", 404, "", nil},
		{"/elsewhere", 404, "text/html", nil},
	} {
		r, body := get(t, s.URL+c.path)
		if r.StatusCode != c.status || !strings.Contains(r.Header.Get("Content-Type"), c.ctype) {
			t.Errorf("%s: %d %s, want %d %s", c.path, r.StatusCode, r.Header.Get("Content-Type"), c.status, c.ctype)
		}
		for _, h := range c.has {
			if !strings.Contains(body, h) {
				t.Errorf("%s: no %q in %.300s", c.path, h, body)
			}
		}
		if strings.HasPrefix(c.path, "/badge/") && c.status == 200 {
			if cc := r.Header.Get("Cache-Control"); cc != "public, max-age=60" {
				t.Errorf("%s: Cache-Control %q", c.path, cc)
			}
			parseBadge(t, []byte(body))
		}
	}
	_, page := get(t, s.URL+"/")
	if n := strings.Count(page, "<tr data-provider="); n != 52 {
		t.Errorf("%d provider rows", n)
	}
}

// TestSwaggerAssets checks that the committed Swagger UI files are the ones npm installed (make docs-assets
// copies them again after an upgrade).
func TestSwaggerAssets(t *testing.T) {
	src := filepath.Join("..", "node_modules", "swagger-ui-dist")
	if _, err := os.Stat(src); err != nil {
		t.Skip("node_modules/swagger-ui-dist is not installed")
	}
	for _, name := range []string{"swagger-ui-bundle.js", "swagger-ui.css", "LICENSE", "NOTICE"} {
		want, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join("assets", "swagger", name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("web/assets/swagger/%s differs from node_modules: run make docs-assets", name)
		}
	}
}

// TestDashboardBannerWithoutNetwork: when most providers' latest fetches failed for network reasons, the page
// says so in a banner with the way to get data; with observations it shows none.
func TestDashboardBannerWithoutNetwork(t *testing.T) {
	timeout := "connection"
	var latest []store.Check
	for _, p := range seeds.Providers().All() {
		latest = append(latest, store.Check{ProviderID: p.ID, CheckedAt: now.Add(-time.Minute), Outcome: store.OutcomeFailed, FailureKind: &timeout})
	}
	offline := health.NewSnapshot(now, health.Input{Latest: latest}, health.Options{})
	for _, c := range []struct {
		name   string
		snap   *health.Snapshot
		banner bool
	}{{"offline", offline, true}, {"observed", history(), false}} {
		h, err := web.New(web.Options{Health: fixed{c.snap}, Clock: func() time.Time { return now }})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(h)
		_, page := get(t, srv.URL+"/")
		srv.Close()
		got := strings.Contains(page, `id="poller-state"`) && strings.Contains(page, "SWITCHBOARD_STATUS_BASE_URL")
		if got != c.banner {
			t.Errorf("%s: banner shown %v, want %v", c.name, got, c.banner)
		}
	}
}

// TestPagesRunNoInlineScript: every page's policy allows scripts from the service's own files only, and no
// page carries a script in its text, so markup injected into a page (a provider's incident title, say) cannot
// run even if escaping failed.
func TestPagesRunNoInlineScript(t *testing.T) {
	srv := newServer(t)
	for _, path := range []string{"/", "/providers/openai", "/docs", "/no-such-page"} {
		resp, body := get(t, srv.URL+path)
		csp := resp.Header.Get("Content-Security-Policy")
		scripts := ""
		for _, d := range strings.Split(csp, ";") {
			if d = strings.TrimSpace(d); strings.HasPrefix(d, "script-src ") {
				scripts = d
			}
		}
		if scripts != "script-src 'self'" {
			t.Errorf("%s: Content-Security-Policy %q, want script-src 'self' alone", path, csp)
		}
		if resp.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: no nosniff", path)
		}
		for rest := body; ; {
			i := strings.Index(rest, "<script")
			if i < 0 {
				break
			}
			tag := rest[i : i+strings.IndexByte(rest[i:], '>')+1]
			if !strings.Contains(tag, " src=") {
				t.Errorf("%s: an inline script: %.80s", path, rest[i:])
			}
			rest = rest[i+len(tag):]
		}
	}
	for _, asset := range []string{"/assets/dashboard.js", "/assets/docs.js"} {
		if resp, _ := get(t, srv.URL+asset); resp.StatusCode != http.StatusOK {
			t.Errorf("%s: %d", asset, resp.StatusCode)
		}
	}
}
