// Package refreshtest serves fake upstream catalog sources on loopback for the tests of the run-time catalog
// refresh (package refresh and the end-to-end tests of the binary).
package refreshtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// The changes the fake sources make, on models whose price and lifecycle come from litellm alone.
const (
	Provider        = "deepinfra"
	ChangedModel    = "Gryphe/MythoMax-L2-13b" // input 0.08 -> 0.16 USD per 1M tokens
	OldInputPrice   = 0.08
	NewInputPrice   = 0.16
	DeprecatedModel = "Qwen/QwQ-32B" // gets a litellm deprecation_date
	SunsetDay       = "2027-03-31"
	// Commit is the litellm commit GitHub's API names, of CommitDate; models.dev's newest model says CommitDate
	// too (a download of today has such dates), so that both are newer than the data in service.
	Commit     = "5b1e7f0c9d2a4e6b8f0a1c3e5d7b9f1a3c5e7d90"
	CommitDate = "2026-11-20"
)

// SourceHost serves the two upstream files of the build at the paths of their real URLs: GitHub's API naming
// Commit as the newest of litellm's price file, the repository's litellm snapshot at that commit with
// ChangedModel's input price raised to NewInputPrice and DeprecatedModel given SunsetDay as its deprecation date,
// and the models.dev snapshot's providers as models.dev's api.json. While Broken is set, every answer is a 500.
type SourceHost struct {
	*httptest.Server
	Broken atomic.Bool
}

// NewSourceHost starts the host over the snapshots in upstreamDir (the repository's sources/upstream); it stops
// with the test.
func NewSourceHost(t testing.TB, upstreamDir string) *SourceHost {
	t.Helper()
	f, err := served(upstreamDir)
	if err != nil {
		t.Fatal(err)
	}
	litellm, modelsDev := f.litellm, f.modelsDev
	h := &SourceHost{}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h.Broken.Load() {
			http.Error(w, "upstream is down", http.StatusInternalServerError)
			return
		}
		switch r.URL.Path {
		case "/repos/BerriAI/litellm/commits":
			fmt.Fprintf(w, `[{"sha": %q, "commit": {"committer": {"date": "%sT08:00:00Z"}}}]`, Commit, CommitDate)
		case "/BerriAI/litellm/" + Commit + "/model_prices_and_context_window.json":
			w.Write(litellm)
		case "/api.json":
			w.Write(modelsDev)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(h.Close)
	return h
}

// files are the two answers a host serves, made once per process and folder: several tests start a host, and
// decoding and encoding the snapshots (megabytes of JSON) is most of what a host costs under the race detector.
// Each host serves them read-only.
type files struct{ litellm, modelsDev []byte }

var (
	filesMu sync.Mutex
	made    = map[string]files{}
)

func served(upstreamDir string) (files, error) {
	filesMu.Lock()
	defer filesMu.Unlock()
	if f, ok := made[upstreamDir]; ok {
		return f, nil
	}
	var lm map[string]map[string]any
	if err := readJSON(filepath.Join(upstreamDir, "litellm-model-prices.json"), &lm); err != nil {
		return files{}, err
	}
	lm[Provider+"/"+ChangedModel]["input_cost_per_token"] = NewInputPrice / 1e6
	lm[Provider+"/"+DeprecatedModel]["deprecation_date"] = SunsetDay
	litellm, err := json.Marshal(lm)
	if err != nil {
		return files{}, err
	}
	var md struct {
		Providers map[string]map[string]any `json:"providers"`
	}
	if err := readJSON(filepath.Join(upstreamDir, "models-dev.json"), &md); err != nil {
		return files{}, err
	}
	models, _ := md.Providers[Provider]["models"].(map[string]any)
	for _, m := range models { // any one model: the build does not read last_updated, the refresh dates by it
		if m, ok := m.(map[string]any); ok {
			m["last_updated"] = CommitDate
			break
		}
	}
	modelsDev, err := json.Marshal(md.Providers)
	if err != nil {
		return files{}, err
	}
	f := files{litellm: litellm, modelsDev: modelsDev}
	made[upstreamDir] = f
	return f, nil
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// BuilderEnv names the catalogbuild binary, compiled without the race detector, that Build runs (make test
// builds it and sets the variable).
const BuilderEnv = "SWITCHBOARD_CATALOGBUILD_BINARY"

// Build is a refresh.Options.Build that runs the catalog build in a child process of the binary BuilderEnv
// names, or nil (the refresher's default, the build in this process) when it is unset. Under the race detector
// the whole build, one goroutine's data work, takes a minute of CPU in-process and a few seconds in a plain
// binary; the code it runs is the same (cmd/catalogbuild calls pipeline.Run), and the refresh around it, whose
// goroutines do meet, stays in the test binary.
func Build() func(ctx context.Context, data, out string) (map[string][]byte, error) {
	bin := os.Getenv(BuilderEnv)
	if bin == "" {
		return nil
	}
	return func(ctx context.Context, data, out string) (map[string][]byte, error) {
		var stderr bytes.Buffer
		cmd := exec.CommandContext(ctx, bin, "-data", data, "-out", out)
		cmd.Stdout, cmd.Stderr = io.Discard, &stderr
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("%s: %w: %s", bin, err, bytes.TrimSpace(stderr.Bytes()))
		}
		// The build writes every catalog it returns into out, which held nothing else.
		paths, err := filepath.Glob(filepath.Join(out, "*.json"))
		if err != nil {
			return nil, err
		}
		built := make(map[string][]byte, len(paths))
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				return nil, err
			}
			built[strings.TrimSuffix(filepath.Base(p), ".json")] = b
		}
		return built, nil
	}
}
