package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/switchboard/switchboard/config"
	"github.com/switchboard/switchboard/store"
	"github.com/switchboard/switchboard/testbin"
)

// TestServeAndShutdown starts the real server on a loopback port, checks it answers, then cancels its context
// as SIGTERM does and expects a clean return.
func TestServeAndShutdown(t *testing.T) {
	db := "sqlite://" + filepath.Join(t.TempDir(), "sb.db")
	free, err := net.Listen("tcp", "127.0.0.1:0") // a free port for the metrics listener
	if err != nil {
		t.Fatal(err)
	}
	metricsAddr := free.Addr().String()
	free.Close()
	st, err := config.Load("serve", []string{"--addr", "127.0.0.1:0", "--database-url", db, "--poll=false", "--metrics-addr", metricsAddr}, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- serve(ctx, st, slog.New(slog.NewJSONHandler(&logs, nil)), ready) }()
	var addr string
	select {
	case addr = <-ready:
	case err := <-done:
		t.Fatalf("serve returned early: %v", err)
	case <-time.After(60 * time.Second): // a liveness bound, not a speed target: start-up under -race on a busy machine
		t.Fatal("server not ready after 60s")
	}
	for _, p := range []string{"/readyz", "/api/v1/openapi.json"} {
		res, err := http.Get("http://" + addr + p)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Errorf("%s = %d", p, res.StatusCode)
		}
	}
	// Metrics are on their own listener only; the public one answers 404 there.
	if res, err := http.Get("http://" + addr + "/metrics"); err != nil || res.StatusCode != http.StatusNotFound {
		t.Errorf("/metrics on the public listener: %v %v, want 404", res, err)
	}
	if res, err := http.Get("http://" + metricsAddr + "/metrics"); err != nil || res.StatusCode != 200 || res.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("/metrics on %s: %v %v", metricsAddr, res, err)
	} else {
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if !strings.Contains(string(b), "switchboard_http_saturation") {
			t.Error("no saturation gauge in /metrics")
		}
	}
	// Bound to loopback, a foreign Host is refused by the whole API (DNS rebinding).
	req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/api/v1/health", nil)
	req.Host = "rebind.example.com"
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != http.StatusMisdirectedRequest || res.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("a foreign Host on loopback: %v %v, want 421 with nosniff", res, err)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("shutdown: %v", err)
		}
	case <-time.After(25 * time.Second):
		t.Fatal("server did not stop")
	}
	if !strings.Contains(logs.String(), `"msg":"stopped"`) {
		t.Errorf("no shutdown line in the log:\n%s", logs.String())
	}
	if _, err := http.Get("http://" + addr + "/healthz"); err == nil {
		t.Error("the server still answers after shutdown")
	}
}

func TestCommands(t *testing.T) {
	db := "sqlite://" + filepath.Join(t.TempDir(), "m.db")
	env := func(k string) string {
		if k == "DATABASE_URL" {
			return db
		}
		return ""
	}
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"migrate"}, env, &out, &errOut); err != nil {
		t.Fatalf("migrate: %v\n%s", err, errOut.String())
	}
	s, err := store.Open(context.Background(), db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.LatestChecks(context.Background()); err != nil {
		t.Errorf("after migrate, the tables are not there: %v", err)
	}
	if err := run(context.Background(), []string{"version"}, env, &out, &errOut); err != nil || !strings.HasPrefix(out.String(), "switchboard ") {
		t.Errorf("version: %v %q", err, out.String())
	}
	if err := run(context.Background(), []string{"frobnicate"}, env, &out, &errOut); err == nil {
		t.Error("an unknown command was accepted")
	}
	if err := run(context.Background(), []string{"serve", "--poll-interval", "1s"}, env, &out, &errOut); err == nil || !strings.Contains(err.Error(), "-poll-interval") {
		t.Errorf("bad setting: %v", err)
	}
}

// TestServerCarriesNoCatalogBuild: the server embeds and serves the built catalogs; the conversion code
// (catalogbuild and its derivers) belongs to cmd/catalogbuild and to the run-time refresh (package refresh),
// never to the packages that answer requests.
func TestServerCarriesNoCatalogBuild(t *testing.T) {
	for _, pkg := range []string{"../../impl", "../../server", "../../web", "../../decide", "../../health", "../../seeds"} {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			if strings.Contains(dep, "/switchboard/catalogbuild") {
				t.Errorf("%s imports %s", pkg, dep)
			}
		}
	}
}

// TestCLIThroughTheBinary runs the built binary as a user would: -h answers 0 with the command's own typed
// flags, version names the commit, and a bad flag ends in one JSON log line that names the flag, exit 2.
func TestCLIThroughTheBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the built binary and the demo script")
	}
	bin, err := testbin.Switchboard()
	if err != nil {
		t.Fatal(err)
	}
	defer testbin.Cleanup()
	runBin := func(args ...string) (string, string, int) {
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(bin, args...)
		cmd.Env = []string{"PATH=/usr/bin:/bin"}
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return stdout.String(), stderr.String(), code
	}
	_, help, code := runBin("serve", "--help")
	if code != 0 || !strings.Contains(help, "-poll-interval duration") || !strings.Contains(help, "-max-in-flight int") {
		t.Errorf("serve --help: exit %d\n%s", code, help)
	}
	_, help, code = runBin("migrate", "-h")
	if code != 0 || !strings.Contains(help, "-database-url") || strings.Contains(help, "-poll-interval") || strings.Contains(help, "-addr") {
		t.Errorf("migrate -h: exit %d\n%s", code, help)
	}
	out, _, code := runBin("version")
	if code != 0 || !strings.HasPrefix(out, "switchboard ") || !strings.Contains(out, "commit ") || !strings.Contains(out, "built ") {
		t.Errorf("version: exit %d %q", code, out)
	}
	// make demo names a port already taken, and the setting that moves it, before it starts anything.
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	port := strconv.Itoa(taken.Addr().(*net.TCPAddr).Port)
	demo := exec.Command("bash", "../../scripts/demo.sh", bin)
	demo.Env = []string{"PATH=" + os.Getenv("PATH"), "DEMO_SIM_PORT=" + port}
	if out, err := demo.CombinedOutput(); err == nil || !strings.Contains(string(out), "port "+port) || !strings.Contains(string(out), "DEMO_SIM_PORT=") {
		t.Errorf("make demo on a taken port: %v\n%s", err, out)
	}
	_, logs, code := runBin("serve", "--poll-interval", "1s")
	var line struct {
		Level, Msg, Error string
	}
	if code != 2 || strings.Count(strings.TrimSpace(logs), "\n") != 0 || json.Unmarshal([]byte(logs), &line) != nil ||
		line.Level != "ERROR" || !strings.Contains(line.Error, "-poll-interval") || strings.Contains(line.Error, "SWITCHBOARD_") {
		t.Errorf("bad flag: exit %d, stderr %q", code, logs)
	}
}
