package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/switchboard/switchboard/openapi"
)

// TestAnswerCache: a catalog answer is made once and replayed, with its headers but not the request's own; a
// conditional request gets 304 from the kept ETag; answers that are not catalogs, or not 200, are made each time;
// the next day makes the answer again.
func TestAnswerCache(t *testing.T) {
	calls := map[string]int{}
	day := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	h := answerCache(nil, nil, func() time.Time { return day })(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls[r.URL.Path]++
		switch r.URL.Path {
		case "/api/v1/pricing":
			w.Header().Set("Cache-Control", CatalogCacheControl)
			w.Header().Set("ETag", `"abc"`)
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"n":` + strconv.Itoa(calls[r.URL.Path]) + `}`))
		case "/api/v1/pick":
			w.Header().Set("Cache-Control", "no-cache")
			_, _ = w.Write([]byte(`{}`))
		default:
			w.Header().Set("Cache-Control", CatalogCacheControl)
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	get := func(path, inm, id string) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		w.Header().Set("X-Request-Id", id) // set by the request log, outside
		r := httptest.NewRequest(http.MethodGet, path, nil)
		if inm != "" {
			r.Header.Set("If-None-Match", inm)
		}
		h.ServeHTTP(w, r)
		return w
	}
	first, second := get("/api/v1/pricing", "", "1"), get("/api/v1/pricing", "", "2")
	if calls["/api/v1/pricing"] != 1 || second.Body.String() != `{"n":1}` || second.Header().Get("ETag") != `"abc"` ||
		second.Header().Get("X-Request-Id") != "2" || first.Body.String() != second.Body.String() {
		t.Errorf("replay: %d calls, %q, headers %v", calls["/api/v1/pricing"], second.Body.String(), second.Header())
	}
	if w := get("/api/v1/pricing", `"abc"`, "3"); w.Code != http.StatusNotModified || w.Body.Len() != 0 || calls["/api/v1/pricing"] != 1 {
		t.Errorf("conditional: %d %q", w.Code, w.Body.String())
	}
	for _, p := range []string{"/api/v1/pick", "/api/v1/nothing"} {
		get(p, "", "4")
		get(p, "", "5")
		if calls[p] != 2 {
			t.Errorf("%s made %d times for 2 requests", p, calls[p])
		}
	}
	day = day.Add(24 * time.Hour)
	if w := get("/api/v1/pricing", "", "6"); w.Body.String() != `{"n":2}` {
		t.Errorf("next day: %q", w.Body.String())
	}
}

// fakeEpoch is a LiveEpocher whose snapshot and second the test moves.
type fakeEpoch struct {
	snapshot uint64
	second   int64
	ok       bool
}

func (f *fakeEpoch) LiveEpoch(context.Context) (uint64, int64, bool) {
	return f.snapshot, f.second, f.ok
}

// TestAnswerCacheLive: an x-answer-reuse answer is made once per snapshot and second, whatever its
// Cache-Control, and made each time when the API names no moment; a path marked never is never kept.
func TestAnswerCacheLive(t *testing.T) {
	calls := map[string]int{}
	epoch := &fakeEpoch{snapshot: 1, second: 100, ok: true}
	paths := map[string]reuse{"/api/v1/health": reuseSecond, "/api/v1/pick": reuseNever}
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls[r.URL.Path]++
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write([]byte(`{"n":` + strconv.Itoa(calls[r.URL.Path]) + `}`))
	})
	h := answerCache(paths, epoch, time.Now)(handler)
	get := func(path string) string {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		return w.Body.String()
	}
	if a, b := get("/api/v1/health"), get("/api/v1/health"); a != `{"n":1}` || b != a {
		t.Errorf("same second: %s then %s", a, b)
	}
	epoch.second++
	if got := get("/api/v1/health"); got != `{"n":2}` {
		t.Errorf("next second: %s", got)
	}
	epoch.snapshot++
	if got := get("/api/v1/health"); got != `{"n":3}` {
		t.Errorf("new snapshot: %s", got)
	}
	epoch.ok = false
	get("/api/v1/health")
	get("/api/v1/health")
	if calls["/api/v1/health"] != 5 {
		t.Errorf("no moment named: %d calls, want 5", calls["/api/v1/health"])
	}
	get("/api/v1/pick")
	get("/api/v1/pick")
	if calls["/api/v1/pick"] != 2 {
		t.Errorf("never kept: %d calls, want 2", calls["/api/v1/pick"])
	}
	// Many seconds of live answers do not push a catalog answer out.
	paths["/api/v1/pricing"] = reuseDaily
	catalog := answerCache(paths, epoch, time.Now)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls[r.URL.Path]++
		w.Header().Set("Cache-Control", CatalogCacheControl)
		_, _ = w.Write([]byte(`{}`))
	}))
	epoch.ok = true
	serve := func(path string) {
		catalog.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, path, nil))
	}
	serve("/api/v1/pricing")
	for range 2 * answerCacheEntries {
		epoch.second++
		serve("/api/v1/health")
	}
	serve("/api/v1/pricing")
	if calls["/api/v1/pricing"] != 1 {
		t.Errorf("the catalog answer was made %d times around %d live answers, want once", calls["/api/v1/pricing"], 2*answerCacheEntries)
	}
	// Without an epocher the live path is made each time.
	calls = map[string]int{}
	h = answerCache(paths, nil, time.Now)(handler)
	get("/api/v1/health")
	get("/api/v1/health")
	if calls["/api/v1/health"] != 2 {
		t.Errorf("without an epocher: %d calls, want 2", calls["/api/v1/health"])
	}
}

// TestAnswerReuseFromDocument: the document marks /health and /pick per second, the catalogs daily, the other live
// decisions never.
func TestAnswerReuseFromDocument(t *testing.T) {
	doc, err := openapi.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := answerReuse(doc)
	for path, want := range map[string]reuse{"/api/v1/health": reuseSecond, "/api/v1/pick": reuseSecond, "/api/v1/pricing": reuseDaily, "/api/v1/failover": reuseNever} {
		if got[path] != want {
			t.Errorf("%s: %d, want %d", path, got[path], want)
		}
	}
	if _, ok := got["/api/v1/validate/{id}"]; ok {
		t.Error("a templated path has a fixed reuse")
	}
}
