package faults_test

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"
)

// cluster is a private PostgreSQL server the test may stop and start at will (the shared one of the machine
// must not be restarted under other tests).
type cluster struct {
	t        *testing.T
	bin, dir string
	port     int
	asUser   []string // runuser prefix when the test runs as root (PostgreSQL refuses to run as root)
}

// newCluster initialises a cluster in a temporary folder; it skips the test when PostgreSQL's server programs
// are not installed.
func newCluster(t *testing.T) *cluster {
	t.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(bins) == 0 {
		t.Skip("PostgreSQL's server programs (initdb, pg_ctl) are not installed")
	}
	sort.Strings(bins)
	c := &cluster{t: t, bin: filepath.Dir(bins[len(bins)-1])}
	dir, err := os.MkdirTemp("", "switchboard-pg")
	if err != nil {
		t.Fatal(err)
	}
	c.dir = dir
	t.Cleanup(func() {
		c.run("pg_ctl", "-D", c.dir, "-m", "immediate", "stop")
		os.RemoveAll(dir)
	})
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Skip("running as root without a postgres user to run PostgreSQL as")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
		c.asUser = []string{"runuser", "-u", "postgres", "--"}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c.port = ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	if out, err := c.run("initdb", "-D", dir, "-A", "trust", "-U", "postgres", "--no-sync"); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	return c
}

func (c *cluster) run(prog string, args ...string) ([]byte, error) {
	argv := append(append(append([]string{}, c.asUser...), filepath.Join(c.bin, prog)), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.Bytes(), err
}

func (c *cluster) start() {
	c.t.Helper()
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off", c.port, c.dir)
	if out, err := c.run("pg_ctl", "-D", c.dir, "-o", opts, "-l", filepath.Join(c.dir, "log"), "-w", "start"); err != nil {
		c.t.Fatalf("pg_ctl start: %v\n%s", err, out)
	}
}

// crash stops the server the way a crash or an OOM kill would: no checkpoint, clients cut off.
func (c *cluster) crash() {
	c.t.Helper()
	if out, err := c.run("pg_ctl", "-D", c.dir, "-m", "immediate", "-w", "stop"); err != nil {
		c.t.Fatalf("pg_ctl stop: %v\n%s", err, out)
	}
}

func (c *cluster) url() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable&connect_timeout=3", c.port)
}

// TestPostgresRestartUnderTheService crashes PostgreSQL under a running service: while it is down, requests that
// need the database fail cleanly (503 with Retry-After, /readyz 503), requests served from memory still answer,
// and the process stays up; once PostgreSQL is back the service recovers by itself, with no restart, and the
// record written before the crash is still there.
func TestPostgresRestartUnderTheService(t *testing.T) {
	t.Parallel()
	pg := newCluster(t)
	pg.start()
	svc := start(t, map[string]string{"DATABASE_URL": pg.url(), "SWITCHBOARD_POLL": "false"})
	attest := func() (int, string) {
		body := []byte(`{"provider": "openai", "model": "gpt-4o", "output": "fault test"}`)
		res, err := http.Post(svc.URL+"/api/v1/attest", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatalf("attest: %v", err)
		}
		defer res.Body.Close()
		var a struct {
			ID string `json:"attestation_id"`
		}
		_ = jsonDecode(res, &a)
		return res.StatusCode, a.ID
	}
	code, id := attest()
	if code != http.StatusOK || id == "" {
		t.Fatalf("attest with the database up: %d %q", code, id)
	}

	pg.crash()
	if code := getJSON(t, svc.URL+"/readyz", nil); code != http.StatusServiceUnavailable {
		t.Errorf("/readyz with the database down: %d, want 503", code)
	}
	res, err := http.Post(svc.URL+"/api/v1/attest", "application/json", bytes.NewReader([]byte(`{"provider": "openai", "model": "gpt-4o", "output": "x"}`)))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" {
		t.Errorf("a write with the database down: %d Retry-After=%q, want 503 with Retry-After", res.StatusCode, res.Header.Get("Retry-After"))
	}
	if code := getJSON(t, svc.URL+"/api/v1/pricing?provider=openai", nil); code != http.StatusOK {
		t.Errorf("a catalog (served from memory) with the database down: %d, want 200", code)
	}
	select {
	case <-svc.done:
		t.Fatalf("the service exited when the database went away:\n%s", svc.logs)
	default:
	}

	pg.start()
	waitFor(t, 30*time.Second, "the service to recover by itself", func() bool {
		code, _ := attest()
		return code == http.StatusOK
	})
	if code := getJSON(t, svc.URL+"/api/v1/validate/"+id, nil); code != http.StatusOK {
		t.Errorf("the attestation written before the crash: %d, want 200", code)
	}
}
