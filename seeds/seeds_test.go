package seeds

import (
	"regexp"
	"testing"
)

func TestProviders(t *testing.T) {
	r := Providers()
	if n := len(r.All()); n != MonitoredProviders {
		t.Fatalf("%d providers, want %d", n, MonitoredProviders)
	}
	// The formats of ../shared/data/statuspage-formats.md; "http" is plain reachability.
	formats := map[string]bool{"statuspage": true, "incidentio": true, "instatus": true, "betterstack": true,
		"google-cloud": true, "aws-health": true, "azure-status": true, "rss": true, "http": true}
	id := regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)
	for _, p := range r.All() {
		if !id.MatchString(p.ID) || len(p.ID) > 64 {
			t.Errorf("provider ID %q is not a lowercase slug", p.ID)
		}
		if !formats[p.Format] {
			t.Errorf("%s: format %q is not one of the known formats", p.ID, p.Format)
		}
		if !r.Known(p.ID) {
			t.Errorf("Known(%q) = false", p.ID)
		}
	}
	if r.Known("not-a-provider") {
		t.Error("Known accepts an unknown ID")
	}
	if p, ok := r.Get("openai"); !ok || p.Name != "OpenAI" {
		t.Errorf("Get(openai) = %+v, %v", p, ok)
	}
}

func TestParseRejects(t *testing.T) {
	for name, in := range map[string]string{
		"not json":  `{`,
		"duplicate": `[{"id":"a","name":"A","status_api_url":"u","format":"rss"},{"id":"a","name":"A","status_api_url":"u","format":"rss"}]`,
		"no format": `[{"id":"a","name":"A","status_api_url":"u"}]`,
	} {
		if _, err := parseProviders([]byte(in)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
