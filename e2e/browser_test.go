package e2e

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard/switchboard/apitest"
	"github.com/switchboard/switchboard/dbtest"
	"github.com/switchboard/switchboard/health"
	"github.com/switchboard/switchboard/impl"
	"github.com/switchboard/switchboard/netguard"
	"github.com/switchboard/switchboard/poller"
	"github.com/switchboard/switchboard/seeds"
	"github.com/switchboard/switchboard/simulator"
	"github.com/switchboard/switchboard/web"
)

// chromium finds the browser: SWITCHBOARD_CHROMIUM when set (make test sets it to the one it found), else a
// Chromium or Chrome on PATH.
func chromium() (string, error) {
	if p := os.Getenv("SWITCHBOARD_CHROMIUM"); p != "" {
		return exec.LookPath(p)
	}
	var err error
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		var p string
		if p, err = exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", err
}

// TestDashboardInBrowser runs e2e/browser/dashboard.mjs (playwright-core over Chromium) against the service
// fed by the simulator: the dashboard lists 52 providers without console errors, an OpenAI outage taken through
// the simulator and one poll cycle turns its row red without a reload, and the provider and docs pages load.
// Screenshots go to e2e/browser/artifacts; SWITCHBOARD_UPDATE_SCREENSHOT=1 also writes docs/dashboard.png.
func TestDashboardInBrowser(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: the browser test needs Chromium and node")
	}
	browser, err := chromium()
	if err != nil {
		if os.Getenv("SWITCHBOARD_REQUIRE_BROWSER") != "" {
			t.Fatalf("no Chromium found (install Debian's chromium, or set SWITCHBOARD_CHROMIUM): %v", err)
		}
		t.Skipf("no Chromium found: %v", err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not installed")
	}
	if _, err := os.Stat(filepath.Join("..", "node_modules", "playwright-core")); err != nil {
		if os.Getenv("SWITCHBOARD_REQUIRE_NODE") != "" || os.Getenv("SWITCHBOARD_REQUIRE_BROWSER") != "" {
			t.Fatalf("playwright-core is not installed (run npm ci): %v", err)
		}
		t.Skip("playwright-core is not installed; run `make test` or npm ci")
	}

	reg := seeds.Providers()
	sim := simulator.New(reg.All())
	simSrv := httptest.NewServer(sim.Handler())
	defer simSrv.Close()
	defer sim.Close()

	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	st, _ := dbtest.Engines(t)[0].Open(t)
	p, err := poller.New(poller.Config{Timeout: 2 * time.Second, StatusBaseURL: simSrv.URL, Outbound: netguard.Options{AllowLoopback: true}, SlowThreshold: 5 * time.Second}, st, reg.All(), log)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := p.Load(ctx); err != nil {
		t.Fatal(err)
	}
	view := health.New(st, health.Options{Providers: reg})
	var mu sync.Mutex // one cycle at a time: the control endpoint may be called while the test's own cycle runs
	cycle := func() (poller.Report, error) {
		mu.Lock()
		defer mu.Unlock()
		rep := p.RunCycle(ctx)
		return rep, view.Refresh(ctx, time.Now())
	}
	if rep, err := cycle(); err != nil || rep.Observed != 52 {
		t.Fatalf("first cycle: %+v, %v", rep, err)
	}
	pages, err := web.New(web.Options{Health: view, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	s := apitest.Start(t, apitest.Options{Store: st, Pages: pages,
		API: impl.New(impl.Deps{Store: st, Providers: reg, Health: view, Logger: log})})

	control := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/outage" {
			http.NotFound(w, r)
			return
		}
		sim.Set("openai", simulator.Scenario{Status: "outage"})
		if rep, err := cycle(); err != nil || rep.Observed != 52 {
			t.Errorf("outage cycle: %+v, %v", rep, err)
			http.Error(w, "cycle failed", http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer control.Close()

	artifacts, err := filepath.Abs(filepath.Join("browser", "artifacts"))
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"dashboard.mjs", s.URL, control.URL, artifacts}
	if os.Getenv("SWITCHBOARD_UPDATE_SCREENSHOT") == "1" {
		shot, err := filepath.Abs(filepath.Join("..", "docs", "dashboard.png"))
		if err != nil {
			t.Fatal(err)
		}
		args = append(args, shot)
	}
	dir, _ := filepath.Abs("browser")
	out := runEnv(t, dir, []string{"SWITCHBOARD_CHROMIUM=" + browser}, node, args...) // dashboard.mjs launches this one
	if !strings.Contains(out, "dashboard browser test: ok") {
		t.Fatalf("browser script output: %s", out)
	}
	t.Logf("screenshots in %s", artifacts)
}
