package faults_test

import (
	"bytes"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// smallDisk mounts a tmpfs of size bytes at a temporary folder, or skips the test where mounting is not allowed.
func smallDisk(t *testing.T, size string) string {
	t.Helper()
	skipShort(t)
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small tmpfs here (%v: %s): the full-disk and read-only cases need it", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
	return dir
}

func remount(t *testing.T, dir, mode string) {
	t.Helper()
	if out, err := exec.Command("mount", "-o", "remount,"+mode, dir).CombinedOutput(); err != nil {
		t.Fatalf("remount %s: %v: %s", mode, err, out)
	}
}

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	res, err := http.Post(url, "application/json", bytes.NewReader([]byte(body)))
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	res.Body.Close()
	return res
}

// fill writes a file until the disk is full.
func fill(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 64<<10)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("filling the disk: %v", err)
			}
			return
		}
	}
}

const attestBody = `{"provider": "openai", "model": "gpt-4o", "output": "disk test"}`

// TestSQLiteDiskFull runs the service on an SQLite file on a small disk, then fills the disk. Writes then fail
// cleanly (503 with Retry-After, logged as the database being unavailable), reads served from memory keep
// answering, the process stays up, and it recovers by itself when space comes back. The file is intact at the
// end and keeps every record written before. (A disk cannot be made read-only under a process that holds files
// open for writing; the read-only case is the start below.)
func TestSQLiteDiskFull(t *testing.T) {
	t.Parallel()
	dir := smallDisk(t, "8M")
	path := filepath.Join(dir, "full.db")
	svc := start(t, map[string]string{"DATABASE_URL": "sqlite://" + path, "SWITCHBOARD_POLL": "false"})
	before := 0
	for range 5 {
		if res := post(t, svc.URL+"/api/v1/attest", attestBody); res.StatusCode != http.StatusOK {
			t.Fatalf("attest on a healthy disk: %d", res.StatusCode)
		}
		before++
	}
	wantRefused := func(what string) {
		t.Helper()
		res := post(t, svc.URL+"/api/v1/attest", strings.Replace(attestBody, "disk test", strings.Repeat("x", 200_000), 1))
		if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" {
			t.Errorf("a write with the disk %s: %d Retry-After=%q, want 503 with Retry-After", what, res.StatusCode, res.Header.Get("Retry-After"))
		}
		if code := getJSON(t, svc.URL+"/api/v1/models?provider=openai", nil); code != http.StatusOK {
			t.Errorf("a catalog read with the disk %s: %d", what, code)
		}
		select {
		case <-svc.done:
			t.Fatalf("the service exited with the disk %s:\n%s", what, svc.logs)
		default:
		}
	}
	recovers := func(what string) {
		t.Helper()
		waitFor(t, 15*time.Second, "writes to work again after "+what, func() bool {
			return post(t, svc.URL+"/api/v1/attest", attestBody).StatusCode == http.StatusOK
		})
		before++
	}

	filler := filepath.Join(dir, "filler")
	fill(t, filler)
	wantRefused("full")
	if !strings.Contains(svc.logs.String(), "database unavailable") {
		t.Errorf("the full disk is not logged as the database being unavailable:\n%s", svc.logs)
	}
	os.Remove(filler)
	recovers("the disk had space again")
	svc.stop()

	db := openDB(t, path)
	integrityOK(t, db)
	if n := count(t, db, "SELECT count(*) FROM trust_records"); n != before {
		t.Errorf("trust_records: %d, want the %d accepted writes", n, before)
	}
}

// TestSQLiteReadOnlyAtStart starts the service on a database it cannot write: it must refuse to start with an
// error that says so, not serve a service whose every write fails.
func TestSQLiteReadOnlyAtStart(t *testing.T) {
	t.Parallel()
	dir := smallDisk(t, "8M")
	path := filepath.Join(dir, "ro.db")
	svc := start(t, map[string]string{"DATABASE_URL": "sqlite://" + path, "SWITCHBOARD_POLL": "false"})
	svc.stop()
	remount(t, dir, "ro")
	cmd := exec.Command(binary, "serve", "--addr", "127.0.0.1:0", "--log-format", "text")
	cmd.Env = append(os.Environ(), "DATABASE_URL=sqlite://"+path, "SWITCHBOARD_POLL=false")
	done := make(chan struct{})
	var out []byte
	go func() { out, _ = cmd.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("the service started on a read-only database and kept running:\n%s", out)
	}
	if cmd.ProcessState.ExitCode() == 0 || !strings.Contains(string(out), "is not writable") {
		t.Errorf("exit %d, output:\n%s\nwant a non-zero exit and an error naming the read-only database", cmd.ProcessState.ExitCode(), out)
	}
}
