package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/switchboard/switchboard/impl"
	"github.com/switchboard/switchboard/server"
	"github.com/switchboard/switchboard/store"
)

// limitedServer serves the whole handler with o's limits on loopback; pages answers "/" (the pages are
// guarded like the API, which makes them a convenient slow endpoint).
func limitedServer(t *testing.T, o server.Options, pages http.Handler) *httptest.Server {
	t.Helper()
	s, err := store.Open(context.Background(), "sqlite://"+filepath.Join(t.TempDir(), "l.db"), store.Options{Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	o.API, o.Store, o.Logger, o.Pages = impl.New(impl.Deps{Store: s, Logger: log}), s, log, pages
	h, err := server.NewHandler(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, url string, hdr map[string]string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var e struct{ Error string }
	_ = json.Unmarshal(b, &e)
	return resp, e.Error
}

func TestInFlightBound(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{}, 1)
	pages := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered <- struct{}{}
		<-release
	})
	srv := limitedServer(t, server.Options{MaxInFlight: 1, QueueWait: 50 * time.Millisecond}, pages)
	// A catalog answer kept by the answer cache is replayed without a slot.
	if resp, _ := get(t, srv.URL+"/api/v1/sla", nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("/sla: %d", resp.StatusCode)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		resp, err := http.Get(srv.URL + "/")
		if err == nil {
			resp.Body.Close()
		}
	}()
	<-entered
	resp, msg := get(t, srv.URL+"/api/v1/health", nil)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || msg == "" {
		t.Errorf("with the only slot taken: %d Retry-After=%q error=%q, want 503 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"), msg)
	}
	if resp, _ := get(t, srv.URL+"/api/v1/sla", nil); resp.StatusCode != http.StatusOK {
		t.Errorf("a kept catalog answer with the only slot taken: %d, want 200 (a replay holds no slot)", resp.StatusCode)
	}
	// Probes are outside the bound: an orchestrator still sees the service alive.
	if resp, _ := get(t, srv.URL+"/healthz", nil); resp.StatusCode != http.StatusOK {
		t.Errorf("/healthz with the slot taken: %d", resp.StatusCode)
	}
	close(release)
	<-done
	if resp, _ := get(t, srv.URL+"/api/v1/health", nil); resp.StatusCode != http.StatusOK {
		t.Errorf("after the slot was freed: %d", resp.StatusCode)
	}
}

func TestRequestDeadline(t *testing.T) {
	got := make(chan error, 1)
	pages := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
		got <- r.Context().Err()
	})
	srv := limitedServer(t, server.Options{RequestTimeout: 50 * time.Millisecond}, pages)
	start := time.Now()
	resp, err := http.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if err := <-got; !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("the handler's context ended with %v, want the deadline", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("the request took %v", time.Since(start))
	}
}

func TestRateLimitPerClient(t *testing.T) {
	srv := limitedServer(t, server.Options{RateLimitPerMinute: 3, TrustedProxies: []string{"127.0.0.0/8"}}, nil)
	path := srv.URL + "/api/v1/health"
	a := map[string]string{"X-Forwarded-For": "203.0.113.7"}
	for i := 0; i < 3; i++ {
		if resp, _ := get(t, path, a); resp.StatusCode != http.StatusOK {
			t.Fatalf("request %d of 3: %d", i+1, resp.StatusCode)
		}
	}
	resp, msg := get(t, path, a)
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" || msg == "" {
		t.Fatalf("4th request: %d Retry-After=%q error=%q, want 429 with Retry-After and an error", resp.StatusCode, resp.Header.Get("Retry-After"), msg)
	}
	// Another client behind the same trusted proxy has its own quota.
	if resp, _ := get(t, path, map[string]string{"X-Forwarded-For": "203.0.113.8"}); resp.StatusCode != http.StatusOK {
		t.Errorf("another client: %d", resp.StatusCode)
	}
	if resp, _ := get(t, srv.URL+"/healthz", a); resp.StatusCode != http.StatusOK {
		t.Errorf("/healthz is rate limited: %d", resp.StatusCode)
	}
}

func TestRateLimitIgnoresUntrustedForwardedFor(t *testing.T) {
	srv := limitedServer(t, server.Options{RateLimitPerMinute: 2}, nil)
	path := srv.URL + "/api/v1/health"
	codes := []int{}
	for _, ip := range []string{"198.51.100.1", "198.51.100.2", "198.51.100.3"} {
		resp, _ := get(t, path, map[string]string{"X-Forwarded-For": ip})
		codes = append(codes, resp.StatusCode)
	}
	// Without trusted proxies every request comes from 127.0.0.1, whatever the header claims.
	if codes[0] != 200 || codes[1] != 200 || codes[2] != http.StatusTooManyRequests {
		t.Errorf("statuses %v, want [200 200 429]", codes)
	}
}

func TestLimitsOffByDefault(t *testing.T) {
	srv := limitedServer(t, server.Options{}, nil)
	for i := 0; i < 50; i++ {
		if resp, _ := get(t, srv.URL+"/api/v1/health", nil); resp.StatusCode != http.StatusOK {
			t.Fatalf("request %d: %d", i, resp.StatusCode)
		}
	}
}
