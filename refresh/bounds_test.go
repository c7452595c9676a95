package refresh_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard/switchboard/catalogbuild"
	"github.com/switchboard/switchboard/dbtest"
	"github.com/switchboard/switchboard/netguard"
	"github.com/switchboard/switchboard/refresh"
	"github.com/switchboard/switchboard/refresh/refreshtest"
	"github.com/switchboard/switchboard/seeds"
)

// These tests install catalog sets process-wide (seeds.Install), so they do not run in parallel.

var refreshNow = func() time.Time { return time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC) }

// sqliteStore is a fresh store for a refresh that is expected to stop before it stores anything.
func sqliteStore(t *testing.T) refresh.Options {
	st, _ := dbtest.Engines(t)[0].Open(t)
	// The sources are loopback stand-ins: the guarded client reaches them only with the setting.
	return refresh.Options{Interval: time.Hour, Store: st, Now: refreshNow, Outbound: netguard.Options{AllowLoopback: true}}
}

// maliciousTarball is an npm tarball whose dist/index.js runs a shell command when evaluated.
func maliciousTarball(t *testing.T, marker string) []byte {
	t.Helper()
	js := fmt.Sprintf("const E = (require(\"child_process\").execSync(\"touch %s\"), [{id: 'openai', models: []}]);\n", marker)
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	tw.WriteHeader(&tar.Header{Name: "package/dist/index.js", Mode: 0o644, Size: int64(len(js)), Typeflag: tar.TypeReg})
	tw.Write([]byte(js))
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

// TestRefreshNeverRunsDownloadedCode: the run-time refresh, pointed at a registry on loopback that serves a
// release whose code would run a shell command (under the version the binary accepts, with the registry's own
// integrity, and as a newer latest), refuses it without reading the tarball; nothing runs, the catalogs in
// service stay.
func TestRefreshNeverRunsDownloadedCode(t *testing.T) {
	t.Cleanup(func() { seeds.Install(nil) })
	seeds.Install(nil)
	marker := filepath.Join(t.TempDir(), "pwned")
	tgz := maliciousTarball(t, marker)
	sum := sha512.Sum512(tgz)
	integrity := "sha512-" + base64.StdEncoding.EncodeToString(sum[:])
	var tarballs atomic.Int32
	reg := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/@pydantic/genai-prices" {
			dist := map[string]string{"tarball": "https://registry.npmjs.org/@pydantic/genai-prices/-/genai-prices.tgz", "integrity": integrity}
			json.NewEncoder(w).Encode(map[string]any{
				"dist-tags": map[string]string{"latest": "0.1.9"},
				"versions":  map[string]any{"0.1.8": map[string]any{"dist": dist}, "0.1.9": map[string]any{"dist": dist}},
				"time":      map[string]string{"0.1.8": "2026-09-23T10:11:04.622Z", "0.1.9": "2026-10-01T00:00:00Z"},
			})
			return
		}
		tarballs.Add(1)
		w.Write(tgz)
	}))
	defer reg.Close()
	host := refreshtest.NewSourceHost(t, filepath.Join("..", "sources", "upstream"))
	o := sqliteStore(t)
	o.SourcesBaseURL, o.NPMRegistry = host.URL, reg.URL
	r, err := refresh.New(o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Once(context.Background()); err == nil || !strings.Contains(err.Error(), "npm") {
		t.Fatalf("a malicious npm release: %v", err)
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the downloaded code ran: %s exists", marker)
	}
	if n := tarballs.Load(); n != 0 {
		t.Errorf("the tarball of an unaccepted release was downloaded %d times", n)
	}
	if s := r.State(); s.Mode != "failing" || s.Origin != "embedded" {
		t.Errorf("state = %+v", s)
	}
}

// setWithLiteLLMDate is the core catalogs of the embedded set with the pricing catalog saying that its litellm data
// holds for day, as a set refreshed from a newer litellm would. The refresh reads the dates in service from the
// pricing catalog alone, and stops at the download, before anything else in the set is read: the other catalogs
// would only cost their parsing.
func setWithLiteLLMDate(t *testing.T, day string) *seeds.Set {
	t.Helper()
	emb, err := seeds.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, k := range seeds.CoreCatalogNames() {
		files[k] = emb.Files()[k]
	}
	var pricing map[string]any
	if err := json.Unmarshal(files["pricing"], &pricing); err != nil {
		t.Fatal(err)
	}
	for _, s := range pricing["sources"].([]any) {
		if s := s.(map[string]any); s["id"] == catalogbuild.SourceLiteLLM {
			s["as_of"] = day
		}
	}
	if files["pricing"], err = json.MarshalIndent(pricing, "", "  "); err != nil {
		t.Fatal(err)
	}
	set, err := seeds.NewSet(files, "refresh")
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// TestRefreshRefusesOlderThanInService: with catalogs in service built from litellm data of 2026-11-25, a
// source naming a commit of 2026-11-20 (newer than the embedded snapshot, older than what serves) is refused: a
// refresh never rolls the catalogs back.
func TestRefreshRefusesOlderThanInService(t *testing.T) {
	t.Cleanup(func() { seeds.Install(nil) })
	newer := setWithLiteLLMDate(t, "2026-11-25")
	seeds.Install(newer)
	host := refreshtest.NewSourceHost(t, filepath.Join("..", "sources", "upstream"))
	o := sqliteStore(t)
	o.SourcesBaseURL = host.URL
	r, err := refresh.New(o)
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Once(context.Background())
	if !errors.Is(err, catalogbuild.ErrOlderThanInService) {
		t.Fatalf("a source older than the data in service: %v", err)
	}
	if cur, _ := seeds.Current(); cur.Digest() != newer.Digest() {
		t.Error("the catalogs in service changed")
	}
}

// TestRefreshStopsWhenCancelled: a source that never finishes holds the refresh no longer than its timeout, and
// a shutdown (the context of Run) stops a refresh at once.
func TestRefreshStopsWhenCancelled(t *testing.T) {
	t.Cleanup(func() { seeds.Install(nil) })
	seeds.Install(nil)
	stall := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("["))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer stall.Close()
	o := sqliteStore(t)
	o.SourcesBaseURL, o.FetchTimeout = stall.URL, 200*time.Millisecond
	r, err := refresh.New(o)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := r.Once(context.Background()); err == nil || time.Since(start) > 2*time.Second {
		t.Fatalf("a stalled source with a 200ms timeout: %v after %s", err, time.Since(start))
	}

	o.FetchTimeout = time.Hour
	r, err = refresh.New(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.Run(ctx); close(done) }()
	time.Sleep(100 * time.Millisecond) // the first refresh is due at once and is now in its download
	start = time.Now()
	cancel()
	select {
	case <-done:
		t.Logf("Run returned %s after the shutdown", time.Since(start))
	case <-time.After(2 * time.Second):
		t.Fatal("a shutdown did not stop the refresh within 2s")
	}
}
