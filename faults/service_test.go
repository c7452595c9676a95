package faults_test

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/switchboard/switchboard/seeds"
	"github.com/switchboard/switchboard/simulator"
	"github.com/switchboard/switchboard/testbin"
)

// binary is the service built once for the package's tests.
var binary string

func TestMain(m *testing.M) {
	flag.Parse()
	if !testing.Short() { // -short: start skips every test, nothing to build
		var err error
		if binary, err = testbin.Switchboard(); err != nil {
			fmt.Fprintln(os.Stderr, "building the service:", err)
			os.Exit(1)
		}
	}
	code := m.Run()
	testbin.Cleanup()
	os.Exit(code)
}

// service is one run of the binary.
type service struct {
	t    *testing.T
	cmd  *exec.Cmd
	URL  string
	logs *lockedBuffer
	done chan struct{}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// skipShort skips a fault test under -short: each runs the built binary and kills or starves it.
func skipShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: fault tests run the built service and kill, starve or restart it")
	}
}

// start runs `switchboard serve` with env (SWITCHBOARD_* variables) on a free loopback port and waits until it
// answers /readyz.
func start(t *testing.T, env map[string]string) *service {
	t.Helper()
	skipShort(t)
	cmd := exec.Command(binary, "serve", "--addr", "127.0.0.1:0", "--log-format", "json")
	cmd.Env = append(os.Environ(), "SWITCHBOARD_LOG_LEVEL=info")
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &service{t: t, cmd: cmd, logs: &lockedBuffer{}, done: make(chan struct{})}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			s.logs.Write([]byte(line + "\n"))
			var rec struct{ Msg, Addr string }
			if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "serving" {
				addr <- rec.Addr
			}
		}
		cmd.Wait()
		close(s.done)
	}()
	t.Cleanup(func() { s.kill() })
	select {
	case a := <-addr:
		s.URL = "http://" + a
	case <-s.done:
		t.Fatalf("the service exited before serving:\n%s", s.logs)
	case <-time.After(30 * time.Second):
		t.Fatalf("the service did not start:\n%s", s.logs)
	}
	waitFor(t, 10*time.Second, "/readyz", func() bool {
		res, err := http.Get(s.URL + "/readyz")
		if err == nil {
			res.Body.Close()
		}
		return err == nil && res.StatusCode == http.StatusOK
	})
	return s
}

// kill sends SIGKILL: no deferred function, no shutdown hook, no flush runs.
func (s *service) kill() {
	if s.cmd.Process != nil {
		s.cmd.Process.Signal(syscall.SIGKILL)
	}
	<-s.done
}

// stop sends SIGTERM and waits for the graceful exit.
func (s *service) stop() {
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		s.t.Errorf("the service did not stop within 30 s of SIGTERM")
		s.kill()
	}
}

func waitFor(t *testing.T, limit time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s", limit, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// startSimulator serves every provider's status page on loopback.
func startSimulator(t *testing.T) (*simulator.Simulator, string) {
	sim := simulator.New(seeds.Providers().All())
	srv := httptest.NewServer(sim.Handler())
	t.Cleanup(func() { srv.Close(); sim.Close() })
	return sim, srv.URL
}

// openDB opens the service's SQLite file read-write from the test (WAL lets it read while the service runs).
func openDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func count(t *testing.T, db *sql.DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRowContext(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

func integrityOK(t *testing.T, db *sql.DB) {
	t.Helper()
	var res string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&res); err != nil || res != "ok" {
		t.Fatalf("integrity_check: %q %v", res, err)
	}
}

func getJSON(t *testing.T, url string, v any) int {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if v != nil {
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("GET %s: %d %s: %v", url, res.StatusCode, b, err)
		}
	}
	return res.StatusCode
}

func jsonDecode(res *http.Response, v any) error {
	return json.NewDecoder(res.Body).Decode(v)
}
