package parse

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// fixtureNow is the fetch time the fixtures were written for: their open incidents are minutes to hours old.
var fixtureNow = time.Date(2026, 10, 2, 14, 0, 0, 0, time.UTC)

// Scopes as api_scopes.json gives them (see TestSeedScopesWithFixtures for the real file).
var (
	anthropicScope = Scope{Components: []string{"Claude API (api.anthropic.com)", "k8w3r06qmzrp"}}
	openaiScope    = Scope{Components: []string{"01JMXBRMFE6N2NNT7DG6XZQ6PW", "01K5H8S53SY1KMS4GQMNMQM1K5"}}
	rotatedScope   = Scope{Components: []string{"zzzzzzzzzzzz", "No Such Component"}}
	geminiScope    = Scope{Keywords: []string{"Z0FZJAMvEB4j3NbCJs6B", "Vertex Gemini API", "Gemini on Agent Platform"}}
	vertexScope    = Scope{Keywords: []string{"Vertex", "Agent Platform", "Z0FZJAMvEB4j3NbCJs6B"}}
	bedrockScope   = Scope{Keywords: []string{"bedrock"}}
	azureScope     = Scope{Keywords: []string{"OpenAI", "Foundry", "Cognitive Services"}}
	xaiScope       = Scope{Keywords: []string{"api.x.ai"}}
	ibmScope       = Scope{Keywords: []string{"watsonx", "machine-learning"}}
)

// pcase is one parser test. Exactly one of file (under testdata/<format>/) and body gives the input.
type pcase struct {
	name    string
	file    string
	body    string
	scope   Scope
	now     time.Time // zero: fixtureNow
	want    Status
	maint   bool
	summary string // a substring the Summary must contain; "" with an operational want means Summary must be ""
	err     bool   // the body must be rejected with ErrUnparseable
}

func readFixture(t testing.TB, format, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", format, file))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func runCases(t *testing.T, format string, cases []pcase) {
	t.Helper()
	p, ok := Get(format)
	if !ok {
		t.Fatalf("format %q is not registered", format)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body := []byte(tc.body)
			if tc.file != "" {
				body = readFixture(t, format, tc.file)
			}
			now := tc.now
			if now.IsZero() {
				now = fixtureNow
			}
			r, err := p(body, tc.scope, now)
			if tc.err {
				if err == nil {
					t.Fatalf("accepted: %+v", r)
				}
				if !errors.Is(err, ErrUnparseable) {
					t.Fatalf("error %v does not wrap ErrUnparseable", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			checkReading(t, r)
			if r.Status != tc.want {
				t.Errorf("status = %s, want %s (summary %q)", r.Status, tc.want, r.Summary)
			}
			if r.Maintenance != tc.maint {
				t.Errorf("maintenance = %v, want %v", r.Maintenance, tc.maint)
			}
			switch {
			case tc.want == Operational && r.Summary != "":
				t.Errorf("summary = %q, want empty when all is clear", r.Summary)
			case tc.summary != "" && !strings.Contains(r.Summary, tc.summary):
				t.Errorf("summary = %q, want it to contain %q", r.Summary, tc.summary)
			}
		})
	}
}

// checkReading asserts what holds for every reading: one of the three statuses, a short valid summary, the
// maintenance flag only on a degraded reading.
func checkReading(t testing.TB, r Reading) {
	t.Helper()
	switch r.Status {
	case Operational, Degraded, Outage:
	default:
		t.Fatalf("status %q is not one of the three", r.Status)
	}
	if n := utf8.RuneCountInString(r.Summary); n > maxSummary {
		t.Fatalf("summary has %d characters", n)
	}
	if !utf8.ValidString(r.Summary) {
		t.Fatalf("summary is not valid UTF-8: %q", r.Summary)
	}
	if r.Maintenance && r.Status != Degraded {
		t.Fatalf("maintenance flag on a %s reading", r.Status)
	}
	if r.Status == Operational && r.Summary != "" {
		t.Fatalf("operational reading with summary %q", r.Summary)
	}
}

// fuzzParser is the body of every fuzz target: seeded with the format's fixtures (and a few hostile bodies), it
// calls the parser without the panic guard, so that a panic fails the target, and checks every reading.
func fuzzParser(f *testing.F, format string, p Parser) {
	entries, err := os.ReadDir(filepath.Join("testdata", format))
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		f.Add(readFixture(f, format, e.Name()))
	}
	for _, s := range []string{"", "null", "{}", "[]", "[null]", "<", "<rss><channel>", "\xff\xfe", "\xfe\xff\x00[", `{"status":{"indicator":"critical"}}`} {
		f.Add([]byte(s))
	}
	scopes := []Scope{{}, anthropicScope, openaiScope, {Components: []string{"API"}, Keywords: []string{"api"}}}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, sc := range scopes {
			r, err := p(body, sc, fixtureNow)
			if err != nil {
				if !errors.Is(err, ErrUnparseable) {
					t.Fatalf("error %v does not wrap ErrUnparseable", err)
				}
				continue
			}
			checkReading(t, r)
		}
	})
}
