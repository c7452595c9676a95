package parse

import (
	"errors"
	"testing"
	"time"

	"github.com/switchboard/switchboard/seeds"
)

// Every format that providers.json uses has a parser.
func TestFormatsCoverProviders(t *testing.T) {
	have := map[string]bool{}
	for _, f := range Formats() {
		have[f] = true
	}
	for _, p := range seeds.Providers().All() {
		if !have[p.Format] {
			t.Errorf("%s: no parser for format %q", p.ID, p.Format)
		}
		if _, ok := Get(p.Format); !ok {
			t.Errorf("%s: Get(%q) fails", p.ID, p.Format)
		}
	}
	if _, ok := Get("no-such-format"); ok {
		t.Error("Get accepts an unknown format")
	}
}

// The scopes of seeds/api_scopes.json, applied to the fixtures: consumer-side trouble stays out of the API.
func TestSeedScopesWithFixtures(t *testing.T) {
	reg := seeds.Providers()
	cases := []struct {
		provider, format, file string
		want                   Status
	}{
		{"openai", "incidentio", "chatgpt_incident.json", Operational},
		{"openai", "incidentio", "api_degraded.json", Degraded},
		{"anthropic", "statuspage", "consumer_outage.json", Operational},
		{"anthropic", "statuspage", "major_with_major_outage.json", Outage},
		{"google-gemini", "google-cloud", "gemini_open.json", Degraded},
		{"google-gemini", "google-cloud", "other_product_open.json", Operational},
		{"google-gemini", "google-cloud", "gemini_apps_open.json", Operational},
		{"google-gemini", "google-cloud", "agent_platform_open.json", Degraded},
		{"google-vertex-ai", "google-cloud", "vertex_outage.json", Outage},
		{"google-vertex-ai", "google-cloud", "gemini_apps_open.json", Operational},
		{"google-vertex-ai", "google-cloud", "agent_platform_prediction_outage.json", Outage},
		{"aws-bedrock", "aws-health", "degradation.rss", Degraded},
		{"aws-bedrock", "aws-health", "currentevents_utf16le.json", Degraded},
		{"azure-openai", "azure-status", "openai_active.rss", Degraded},
		{"azure-openai", "azure-status", "other_service.rss", Operational},
		{"xai", "rss", "xai_open.xml", Degraded},
		{"xai", "rss", "xai_disruption.xml", Degraded},
		{"databricks", "rss", "statusio_disruption.rss", Outage},
		{"xai", "rss", "xai_mixed.xml", Operational},
		{"ibm-watsonx", "rss", "ibm_incident.rss", Degraded},
		{"ibm-watsonx", "rss", "ibm_other_service.rss", Operational},
	}
	for _, c := range cases {
		p, ok := reg.Get(c.provider)
		if !ok {
			t.Fatalf("no provider %s", c.provider)
		}
		if p.Format != c.format {
			t.Errorf("%s: format %s, the case assumes %s", c.provider, p.Format, c.format)
			continue
		}
		parser, _ := Get(p.Format)
		r, err := parser(readFixture(t, c.format, c.file), Scope{Components: p.Scope.Components, Keywords: p.Scope.Keywords,
			DisruptionTop: p.Scope.DisruptionTop}, fixtureNow)
		if err != nil {
			t.Errorf("%s on %s: %v", c.provider, c.file, err)
			continue
		}
		if r.Status != c.want {
			t.Errorf("%s on %s: %s (%q), want %s", c.provider, c.file, r.Status, r.Summary, c.want)
		}
	}
}

func TestWorst(t *testing.T) {
	if Worst(Operational, Degraded) != Degraded || Worst(Outage, Degraded) != Outage || Worst(Degraded, "") != Degraded {
		t.Error("Worst does not order operational < degraded < outage")
	}
}

// The panic guard every registered parser wears turns a panic into ErrUnparseable.
func TestSafe(t *testing.T) {
	p := safe("test", func([]byte, Scope, time.Time) (Reading, error) { panic("boom") })
	if _, err := p(nil, Scope{}, fixtureNow); !errors.Is(err, ErrUnparseable) {
		t.Fatalf("err = %v", err)
	}
}

func TestParseTime(t *testing.T) {
	utc := func(s string) time.Time {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			panic(err)
		}
		return t.UTC()
	}
	cases := map[string]time.Time{
		"2026-10-02T14:05:11.120Z":                                         utc("2026-10-02T14:05:11.12Z"),
		"2026-10-02T06:10:00+00:00":                                        utc("2026-10-02T06:10:00Z"),
		"2026-10-02T08:10:00+02:00":                                        utc("2026-10-02T06:10:00Z"),
		"2026-10-02T06:10:00+0000":                                         utc("2026-10-02T06:10:00Z"),
		"2026-10-02T06:10:00":                                              utc("2026-10-02T06:10:00Z"),
		"2026-10-02 06:10:00":                                              utc("2026-10-02T06:10:00Z"),
		"Thu, 02 Oct 2026 10:14:00 PDT":                                    utc("2026-10-02T17:14:00Z"),
		"Thu, 02 Oct 2026 10:14:00 PST":                                    utc("2026-10-02T18:14:00Z"),
		"Thu, 2 Oct 2026 10:14:00 EDT":                                     utc("2026-10-02T14:14:00Z"),
		"Thu, 02 Oct 2026 11:00:00 Z":                                      utc("2026-10-02T11:00:00Z"),
		"Thu, 02 Oct 2026 12:01:00 GMT":                                    utc("2026-10-02T12:01:00Z"),
		"Thu, 02 Oct 2026 13:00:00 +0200":                                  utc("2026-10-02T11:00:00Z"),
		"Sat Jun 11 2022 18:55:50 GMT+0000 (Coordinated Universal Time)":   utc("2022-06-11T18:55:50Z"),
		"Sat Jun 11 2022 20:55:50 GMT+0200 (Central European Summer Time)": utc("2022-06-11T18:55:50Z"),
		"1790950000":            time.Unix(1790950000, 0).UTC(),
		"1790950000000":         time.Unix(1790950000, 0).UTC(),
		"Oct 2, 2026 12:30 UTC": utc("2026-10-02T12:30:00Z"),
	}
	for in, want := range cases {
		got, ok := parseTime(in)
		if !ok || !got.Equal(want) {
			t.Errorf("parseTime(%q) = %v, %v; want %v", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", "soon", "12", "2026-13-45", "-1790950000", "99999999999999999999999"} {
		if got, ok := parseTime(bad); ok {
			t.Errorf("parseTime(%q) = %v, want failure", bad, got)
		}
	}
}

func TestTextHelpers(t *testing.T) {
	if got := cleanText("<p>Status: <b>MONITORING</b></p><div>A fix&nbsp;is <i>deployed</i>;\n latency &lt; 2s</div>"); got != "Status: MONITORING A fix is deployed ; latency < 2s" {
		t.Errorf("cleanText = %q", got)
	}
	if got := htmlToLines("<![CDATA[<p>one</p><p>two</p>]]>"); len(got) != 2 || got[0] != "one" || got[1] != "two" {
		t.Errorf("htmlToLines = %q", got)
	}
	if got := cleanText("a <script>var x = '<b>';</script>b <style>p{}</style>c"); got != "a b c" {
		t.Errorf("cleanText dropped too little: %q", got)
	}
	if got := cleanText("latency < 2s and x<y"); got != "latency < 2s and x<y" {
		t.Errorf("cleanText ate a lone '<': %q", got)
	}
	if !newKeywordScope(Scope{Keywords: []string{"machine-learning"}}).matches("Watson Machine Learning") {
		t.Error("keyword folding does not read '-' as a space")
	}
	if newKeywordScope(Scope{Keywords: []string{"", "  "}}).matches() != true {
		t.Error("blank keywords should mean every entry")
	}
	if !mentionsAny("Outage - Azure AI Foundry", []string{"outage"}) || mentionsAny("Partial outage - x", []string{"outage"}) ||
		mentionsAny("no outage expected", []string{"outage"}) || mentionsAny("outages-free", []string{"outage"}) {
		t.Error("mentionsAny qualifiers or word boundaries are wrong")
	}
	if got := utf8Body([]byte("\xff\xfe[\x00]\x00")); string(got) != "[]" {
		t.Errorf("utf8Body(UTF-16LE) = %q", got)
	}
	if got := utf8Body([]byte("\x00[\x00]")); string(got) != "[]" {
		t.Errorf("utf8Body(UTF-16BE without BOM) = %q", got)
	}
}

// The names the app rule (DESIGN 2026-11-28) reads: apps, consoles and websites are not the API, and a name that
// also names the API is the API's.
func TestIsAppName(t *testing.T) {
	for name, want := range map[string]bool{
		"ChatGPT":   true,
		"claude.ai": true,
		"platform.claude.com (formerly console.anthropic.com)": true,
		"Web Console":                            true,
		"Playground":                             true,
		"Microsoft Foundry portal":               true,
		"Le Chat":                                true,
		"Chat Completions":                       false,
		"Chat Completions API":                   false,
		"Console and API":                        false,
		"Realtime API":                           false,
		"Llama 3.3 70B":                          false,
		"Apps Script":                            true,
		"Application Load Balancer":              false,
		"Elevated errors on the API and the app": false,
	} {
		if got := isAppName(name); got != want {
			t.Errorf("isAppName(%q) = %v, want %v", name, got, want)
		}
	}
}
