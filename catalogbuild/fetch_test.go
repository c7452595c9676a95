package catalogbuild

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
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
			fmt.Fprintf(&b, `"m%d": {"id": "m%d", "last_updated": "2026-11-%02d", "cost": {"input": 1, "output": 2}}`, m, m, 1+m%20)
		}
		b.WriteString("}}")
	}
	b.WriteString("}")
	return b.String()
}

// testCommit is the commit GitHub's API names for litellm's price file in the tests.
const testCommit = "0123456789abcdef0123456789abcdef01234567"

// upstreamAt serves the two fetchable files at the paths of their real URLs, on loopback: GitHub's API naming
// litellm's newest commit (dated commitDate), the file at that commit (only there), and models.dev's api.json.
func upstreamAt(t *testing.T, commitDate, litellm, modelsDev string) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/repos/BerriAI/litellm/commits":
			if r.URL.Query().Get("path") != "model_prices_and_context_window.json" {
				http.NotFound(w, r)
				return
			}
			fmt.Fprintf(w, `[{"sha": %q, "commit": {"committer": {"date": "%sT10:00:00Z"}}}]`, testCommit, commitDate)
		case "/BerriAI/litellm/" + testCommit + "/model_prices_and_context_window.json":
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

func upstream(t *testing.T, litellm, modelsDev string) *httptest.Server {
	return upstreamAt(t, "2026-11-20", litellm, modelsDev)
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
		if m.UpstreamURL != f.URL {
			t.Errorf("%s manifest: %+v", f.File, m)
		}
	}
	// The data's own dates, not the day of the download: litellm's commit, models.dev's newest last_updated.
	if m, _ := ReadManifest(dir, snapLiteLLM.File); m.Date != "2026-11-20" || m.Commit == nil || *m.Commit != testCommit ||
		!strings.Contains(m.FetchedBy, "/BerriAI/litellm/"+testCommit+"/") {
		t.Errorf("litellm is not pinned to its commit: %+v", m)
	}
	if m, _ := ReadManifest(dir, snapModelsDev.File); m.Date != "2026-11-10" {
		t.Errorf("models.dev is not dated by its data: %+v", m)
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

// endless serves an endless body of zeros (with a Content-Length of length when length > 0, chunked otherwise)
// and counts what it wrote, until the client hangs up.
func endless(t *testing.T, length int64) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var wrote atomic.Int64
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if length > 0 {
			w.Header().Set("Content-Length", strconv.FormatInt(length, 10))
		}
		chunk := make([]byte, 32<<10)
		for length <= 0 || wrote.Load() < length {
			n, err := w.Write(chunk)
			wrote.Add(int64(n))
			if err != nil {
				return
			}
		}
	}))
	t.Cleanup(s.Close)
	return s, &wrote
}

// TestFetchRefusesOversizedSource: a source larger than the cap (the 63 MiB attack of issue 34) is refused
// quickly and cheaply: at once when its length is announced, after at most the cap when it is not. The default
// cap refuses a source just over it without reading it.
func TestFetchRefusesOversizedSource(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cases := []struct {
		name   string
		length int64 // 0: chunked, no length
		cap    int64 // 0: the default
	}{
		{"63 MiB announced, default cap", 63 << 20, 0},
		{"just over the default cap, announced", DefaultMaxFetchBytes + 1, 0},
		{"63 MiB unannounced, small cap", 0, 256 << 10},
		{"63 MiB unannounced, default cap", 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, wrote := endless(t, tc.length)
			o := FetchOptions{MaxBytes: tc.cap}.withDefaults()
			start := time.Now()
			_, err := o.download(ctx, s.URL+"/api.json", o.MaxBytes)
			if err == nil || !strings.Contains(err.Error(), "allowed") {
				t.Fatalf("an oversized source: %v", err)
			}
			// Refused at once when announced, or after a small cap; the default cap's 16 MiB take longer under -race,
			// and what they cost is bounded by the bytes checked below.
			if took := time.Since(start); (tc.length > 0 || tc.cap > 0) && took > 2*time.Second {
				t.Errorf("refusing took %s", took)
			}
			s.CloseClientConnections()
			// What the server managed to write before the refusal: socket buffers at most beside the cap.
			limit := o.MaxBytes + 8<<20 // an unannounced body is read up to the cap
			if tc.length > 0 {
				limit = 8 << 20 // an announced one not at all
			}
			if wrote.Load() > limit {
				t.Errorf("%d bytes were sent before the refusal", wrote.Load())
			}
		})
	}
	// Through Fetch: the oversized models.dev fails the refresh and the snapshots stay.
	dir := t.TempDir()
	big, _ := endless(t, 63<<20)
	if _, err := Fetch(ctx, FetchOptions{Dir: dir, BaseURL: big.URL}); err == nil {
		t.Error("Fetch accepted an oversized source")
	}
}

// TestFetchRefusesTooManyEntries: a source of more entries than a source may hold is refused.
func TestFetchRefusesTooManyEntries(t *testing.T) {
	t.Parallel()
	s := upstream(t, litellmFixture(maxSourceEntries+1, 2e-06), modelsDevFixture(12, 10))
	if _, err := Fetch(context.Background(), FetchOptions{Dir: t.TempDir(), BaseURL: s.URL, Now: testNow}); err == nil ||
		!strings.Contains(err.Error(), "more than the") {
		t.Fatalf("%d litellm entries: %v", maxSourceEntries+2, err)
	}
}

// TestFetchRefusesOlderThanInService: a download whose own date is older than the snapshot's manifest or than
// the data in service is refused and changes nothing (no rollback by a stale mirror or a replayed answer).
func TestFetchRefusesOlderThanInService(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := Fetch(ctx, FetchOptions{Dir: dir, BaseURL: upstreamAt(t, "2026-11-20", litellmFixture(150, 2e-06), modelsDevFixture(12, 10)).URL, Now: testNow}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(dir, snapLiteLLM.File))
	older := upstreamAt(t, "2026-11-01", litellmFixture(150, 9e-06), modelsDevFixture(12, 10))
	if _, err := Fetch(ctx, FetchOptions{Dir: dir, BaseURL: older.URL, Now: testNow}); !errors.Is(err, ErrOlderThanInService) {
		t.Errorf("an older litellm commit than the snapshot's: %v", err)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, snapLiteLLM.File)); !bytes.Equal(before, after) {
		t.Error("a refused download changed the snapshot")
	}
	// Against the set in service, with a fresh folder: models.dev's data (newest 2026-11-10) is older.
	same := upstreamAt(t, "2026-11-20", litellmFixture(150, 2e-06), modelsDevFixture(12, 10))
	_, err := Fetch(ctx, FetchOptions{Dir: t.TempDir(), BaseURL: same.URL, Now: testNow, InService: DataSetDates{SourceModelsDev: "2026-11-15"}})
	if !errors.Is(err, ErrOlderThanInService) || !strings.Contains(err.Error(), snapModelsDev.File) {
		t.Errorf("models.dev older than the data in service: %v", err)
	}
}

// TestFetchStopsWhenCancelled: a source that never finishes does not hold the refresh past its context.
func TestFetchStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	stall := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("{"))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(stall.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := Fetch(ctx, FetchOptions{Dir: t.TempDir(), BaseURL: stall.URL})
	if err == nil || time.Since(start) > time.Second {
		t.Fatalf("a stalled source: %v after %s", err, time.Since(start))
	}
}
