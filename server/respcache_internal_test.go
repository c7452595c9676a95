package server

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"
)

// TestAnswerCache: a catalog answer is made once and replayed, with its headers but not the request's own; a
// conditional request gets 304 from the kept ETag; answers that are not catalogs, or not 200, are made each time;
// the next day makes the answer again.
func TestAnswerCache(t *testing.T) {
	calls := map[string]int{}
	day := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	h := answerCache(func() time.Time { return day })(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
