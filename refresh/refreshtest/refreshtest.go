// Package refreshtest serves fake upstream catalog sources on loopback for the tests of the run-time catalog
// refresh (package refresh and the end-to-end tests of the binary).
package refreshtest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
)

// The changes the fake sources make, on models whose price and lifecycle come from litellm alone.
const (
	Provider        = "mistral"
	ChangedModel    = "ministral-3-8b-2512" // input 0.15 -> 0.30 USD per 1M tokens
	OldInputPrice   = 0.15
	NewInputPrice   = 0.3
	DeprecatedModel = "ministral-3-3b-2512" // gets a litellm deprecation_date
	SunsetDay       = "2027-03-31"
)

// SourceHost serves the two upstream files of the build at the paths of their real URLs: the repository's
// litellm snapshot with ChangedModel's input price raised to NewInputPrice and DeprecatedModel given SunsetDay as
// its deprecation date, and the models.dev snapshot's providers as models.dev's api.json. While Broken is set,
// every answer is a 500.
type SourceHost struct {
	*httptest.Server
	Broken atomic.Bool
}

// NewSourceHost starts the host over the snapshots in upstreamDir (the repository's sources/upstream); it stops
// with the test.
func NewSourceHost(t testing.TB, upstreamDir string) *SourceHost {
	t.Helper()
	var lm map[string]map[string]any
	readJSON(t, filepath.Join(upstreamDir, "litellm-model-prices.json"), &lm)
	lm[Provider+"/"+ChangedModel]["input_cost_per_token"] = NewInputPrice / 1e6
	lm[Provider+"/"+DeprecatedModel]["deprecation_date"] = SunsetDay
	litellm, err := json.Marshal(lm)
	if err != nil {
		t.Fatal(err)
	}
	var md struct {
		Providers json.RawMessage `json:"providers"`
	}
	readJSON(t, filepath.Join(upstreamDir, "models-dev.json"), &md)
	h := &SourceHost{}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h.Broken.Load() {
			http.Error(w, "upstream is down", http.StatusInternalServerError)
			return
		}
		switch r.URL.Path {
		case "/BerriAI/litellm/main/model_prices_and_context_window.json":
			w.Write(litellm)
		case "/api.json":
			w.Write(md.Providers)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(h.Close)
	return h
}

func readJSON(t testing.TB, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}
