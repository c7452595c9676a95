package catalogbuild

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// litellmFixture is a price map of n models (litellm's shape), with gpt-x priced at in per token.
func litellmFixture(n int, in float64) string {
	var b strings.Builder
	b.WriteString(`{"sample_spec": {"mode": "chat"}`)
	for i := range n {
		fmt.Fprintf(&b, `, "m%d": {"litellm_provider": "openai", "mode": "chat", "input_cost_per_token": 1e-06}`, i)
	}
	fmt.Fprintf(&b, `, "gpt-x": {"litellm_provider": "openai", "mode": "chat", "input_cost_per_token": %g}}`, in)
	return b.String()
}

func modelsDevFixture(providers, models int) string {
	var b strings.Builder
	b.WriteString("{")
	for p := range providers {
		if p > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"p%d": {"id": "p%d", "models": {`, p, p)
		for m := range models {
			if m > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `"m%d": {"id": "m%d", "cost": {"input": 1, "output": 2}}`, m, m)
		}
		b.WriteString("}}")
	}
	b.WriteString("}")
	return b.String()
}

// upstream serves the two fetchable files at the paths of their real URLs, on loopback.
func upstream(t *testing.T, litellm, modelsDev string) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/BerriAI/litellm/main/model_prices_and_context_window.json":
			fmt.Fprint(w, litellm)
		case "/api.json":
			fmt.Fprint(w, modelsDev)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func TestFetchWritesSnapshotsAndManifests(t *testing.T) {
	dir := t.TempDir()
	now := func() time.Time { return time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC) }
	s := upstream(t, litellmFixture(150, 2e-06), modelsDevFixture(12, 10))
	res, err := Fetch(context.Background(), FetchOptions{Dir: dir, BaseURL: s.URL, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 || res[0].Unchanged || len(res[0].Added) != 151 {
		t.Fatalf("first fetch: %+v", res)
	}
	for _, f := range Fetchables {
		m, err := ReadManifest(dir, f.File) // checks the sha256 against the bytes
		if err != nil {
			t.Fatal(err)
		}
		if m.Date != "2026-11-24" || m.UpstreamURL != f.URL {
			t.Errorf("%s manifest: %+v", f.File, m)
		}
	}
	// A price change upstream shows in the summary.
	s2 := upstream(t, litellmFixture(150, 3e-06), modelsDevFixture(12, 10))
	res, err = Fetch(context.Background(), FetchOptions{Dir: dir, BaseURL: s2.URL, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if len(res[0].Changed) != 1 || !strings.HasPrefix(res[0].Changed[0], "gpt-x: in=2e-06") || !res[1].Unchanged {
		t.Errorf("second fetch: %+v", res)
	}
}

func TestFetchKeepsOldFilesOnBadUpstream(t *testing.T) {
	dir := t.TempDir()
	good := upstream(t, litellmFixture(150, 2e-06), modelsDevFixture(12, 10))
	if _, err := Fetch(context.Background(), FetchOptions{Dir: dir, BaseURL: good.URL}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(dir, snapLiteLLM.File))
	for name, bad := range map[string]*httptest.Server{
		"models.dev not JSON": upstream(t, litellmFixture(150, 9e-06), "<html>maintenance</html>"),
		"litellm too small":   upstream(t, litellmFixture(3, 9e-06), modelsDevFixture(12, 10)),
	} {
		if _, err := Fetch(context.Background(), FetchOptions{Dir: dir, BaseURL: bad.URL}); err == nil {
			t.Errorf("%s: accepted", name)
		}
		after, _ := os.ReadFile(filepath.Join(dir, snapLiteLLM.File))
		if string(after) != string(before) {
			t.Errorf("%s: a failed refresh changed litellm's snapshot", name)
		}
	}
	missing := httptest.NewServer(http.NotFoundHandler())
	defer missing.Close()
	if _, err := Fetch(context.Background(), FetchOptions{Dir: dir, BaseURL: missing.URL}); err == nil {
		t.Error("a 404 upstream was accepted")
	}
}
