package simulator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard/switchboard/seeds"
)

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestFailTimeout(t *testing.T) {
	p := providerByID(t, "openai")
	sim, srv := newServer(t, []seeds.Provider{p})
	if err := sim.Set(p.ID, Scenario{Status: StatusOutage, Fail: FailTimeout}); err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Timeout: 200 * time.Millisecond}
	start := time.Now()
	resp, err := client.Get(srv.URL + PagePath(p))
	if err == nil {
		resp.Body.Close()
		t.Fatalf("got HTTP %d, want a timeout", resp.StatusCode)
	}
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("error %v is not a timeout", err)
	}
	if el := time.Since(start); el < 200*time.Millisecond || el > 5*time.Second {
		t.Errorf("timed out after %v", el)
	}
	// The client went away: the held request ends on the server side too.
	waitFor(t, "the held request to end", 5*time.Second, func() bool { return sim.waiting.Load() == 0 })
}

func TestFailTimeoutHoldLimit(t *testing.T) {
	p := providerByID(t, "anthropic")
	sim, srv := newServer(t, []seeds.Provider{p}, WithHoldLimit(100*time.Millisecond))
	if err := sim.Set(p.ID, Scenario{Fail: FailTimeout}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	resp, _ := fetch(t, srv.Client(), srv.URL+PagePath(p), nil)
	if resp.StatusCode != http.StatusGatewayTimeout || time.Since(start) < 100*time.Millisecond {
		t.Errorf("HTTP %d after %v, want 504 after the hold limit", resp.StatusCode, time.Since(start))
	}
	if sim.waiting.Load() != 0 {
		t.Error("a request is still held")
	}
}

func TestCloseReleasesHeldRequests(t *testing.T) {
	p := providerByID(t, "anthropic")
	sim, srv := newServer(t, []seeds.Provider{p})
	if err := sim.Set(p.ID, Scenario{Fail: FailTimeout}); err != nil {
		t.Fatal(err)
	}
	done := make(chan int, 1)
	go func() {
		resp, err := srv.Client().Get(srv.URL + PagePath(p))
		if err != nil {
			done <- -1
			return
		}
		resp.Body.Close()
		done <- resp.StatusCode
	}()
	waitFor(t, "the request to be held", 5*time.Second, func() bool { return sim.waiting.Load() == 1 })
	sim.Close()
	select {
	case code := <-done:
		if code != http.StatusServiceUnavailable {
			t.Errorf("released request got %d, want 503", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not release the held request")
	}
}

func TestFailHTTP500(t *testing.T) {
	for _, p := range oneOfEachFormat() {
		sim, srv := newServer(t, []seeds.Provider{p})
		if err := sim.Set(p.ID, Scenario{Status: StatusDegraded, Fail: FailHTTP500}); err != nil {
			t.Fatal(err)
		}
		resp, body := fetch(t, srv.Client(), srv.URL+PagePath(p), nil)
		if resp.StatusCode != http.StatusInternalServerError || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") ||
			!strings.Contains(string(body), "500 Internal Server Error") || len(body) > 1024 {
			t.Errorf("%s: HTTP %d %q %q, want a short 500 HTML page", p.ID, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
		if resp.Header.Get("ETag") != "" {
			t.Errorf("%s: a 500 carries an ETag", p.ID)
		}
	}
}

func TestFailGarbage(t *testing.T) {
	for _, p := range oneOfEachFormat() {
		sim, srv := newServer(t, []seeds.Provider{p})
		if err := sim.Set(p.ID, Scenario{Fail: FailGarbage}); err != nil {
			t.Fatal(err)
		}
		resp, body := fetch(t, srv.Client(), srv.URL+PagePath(p), nil)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s: HTTP %d %q, want 200 application/json", p.ID, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		if json.Valid(body) {
			t.Errorf("%s: garbage is valid JSON", p.ID)
		}
		if !strings.HasPrefix(string(body), "<!DOCTYPE html>") {
			t.Errorf("%s: garbage is not HTML junk: %q", p.ID, body)
		}
	}
}

func TestFailReset(t *testing.T) {
	p := providerByID(t, "groq")
	sim, srv := newServer(t, []seeds.Provider{p})
	if err := sim.Set(p.ID, Scenario{Status: StatusOutage, Fail: FailReset}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ { // on fresh and on reused connections
		resp, err := srv.Client().Get(srv.URL + PagePath(p))
		if err == nil {
			resp.Body.Close()
			t.Fatalf("got HTTP %d, want a connection error", resp.StatusCode)
		}
		if errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("got a timeout, want a connection error: %v", err)
		}
	}
	// The server is still fine afterwards.
	if err := sim.Set(p.ID, Scenario{}); err != nil {
		t.Fatal(err)
	}
	if resp, _ := fetch(t, srv.Client(), srv.URL+PagePath(p), nil); resp.StatusCode != http.StatusOK {
		t.Errorf("after reset mode: HTTP %d", resp.StatusCode)
	}
}

func TestDelay(t *testing.T) {
	p := providerByID(t, "fal")
	sim, srv := newServer(t, []seeds.Provider{p})
	if err := sim.Set(p.ID, Scenario{Status: StatusDegraded, DelayMS: 300}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	resp, body := fetch(t, srv.Client(), srv.URL+PagePath(p), nil)
	if el := time.Since(start); el < 300*time.Millisecond {
		t.Errorf("answered after %v, want at least 300ms", el)
	}
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "HASISSUES") {
		t.Errorf("HTTP %d %s", resp.StatusCode, body)
	}

	// The delay applies to failures too, and a client that gives up ends it.
	if err := sim.Set(p.ID, Scenario{DelayMS: 5000, Fail: FailHTTP500}); err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Timeout: 150 * time.Millisecond}
	if resp, err := client.Get(srv.URL + PagePath(p)); err == nil {
		resp.Body.Close()
		t.Fatalf("got HTTP %d during a 5 s delay", resp.StatusCode)
	}
	waitFor(t, "the delayed request to end", 5*time.Second, func() bool { return sim.waiting.Load() == 0 })
}

func TestConditionalRequests(t *testing.T) {
	p := providerByID(t, "openai")
	clock := newTestClock()
	sim, srv := newServer(t, []seeds.Provider{p}, WithClock(clock.Now))
	url := srv.URL + PagePath(p)

	resp, body := fetch(t, srv.Client(), url, nil)
	etag, lm := resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
	if resp.StatusCode != http.StatusOK || etag == "" || lm == "" || len(body) == 0 {
		t.Fatalf("first fetch: HTTP %d, ETag %q, Last-Modified %q", resp.StatusCode, etag, lm)
	}
	// The page does not change with time alone.
	clock.Advance(time.Hour)
	resp, body2 := fetch(t, srv.Client(), url, nil)
	if resp.Header.Get("ETag") != etag || string(body2) != string(body) {
		t.Error("the page changed without a scenario change")
	}

	resp, body = fetch(t, srv.Client(), url, http.Header{"If-None-Match": {etag}})
	if resp.StatusCode != http.StatusNotModified || len(body) != 0 || resp.Header.Get("ETag") != etag {
		t.Errorf("If-None-Match: HTTP %d, %d bytes, ETag %q; want 304", resp.StatusCode, len(body), resp.Header.Get("ETag"))
	}
	resp, _ = fetch(t, srv.Client(), url, http.Header{"If-None-Match": {`"other", W/` + etag}})
	if resp.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match list with a weak match: HTTP %d, want 304", resp.StatusCode)
	}
	resp, _ = fetch(t, srv.Client(), url, http.Header{"If-Modified-Since": {lm}})
	if resp.StatusCode != http.StatusNotModified {
		t.Errorf("If-Modified-Since: HTTP %d, want 304", resp.StatusCode)
	}
	// A delay or failure mode that changes nothing on the page keeps its validators.
	if err := sim.Set(p.ID, Scenario{DelayMS: 10}); err != nil {
		t.Fatal(err)
	}
	resp, _ = fetch(t, srv.Client(), url, http.Header{"If-None-Match": {etag}})
	if resp.StatusCode != http.StatusNotModified {
		t.Errorf("after a delay-only change: HTTP %d, want 304", resp.StatusCode)
	}

	// A status change: a new page with new validators, even within the same second.
	if err := sim.Set(p.ID, Scenario{Status: StatusDegraded}); err != nil {
		t.Fatal(err)
	}
	resp, body = fetch(t, srv.Client(), url, http.Header{"If-None-Match": {etag}})
	etag2, lm2 := resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
	if resp.StatusCode != http.StatusOK || etag2 == "" || etag2 == etag || len(body) == 0 {
		t.Fatalf("after Set: HTTP %d, ETag %q (was %q)", resp.StatusCode, etag2, etag)
	}
	if t1, t2 := mustHTTPTime(t, lm), mustHTTPTime(t, lm2); !t2.After(t1) {
		t.Errorf("Last-Modified %s is not after %s", lm2, lm)
	}
	resp, _ = fetch(t, srv.Client(), url, http.Header{"If-Modified-Since": {lm}})
	if resp.StatusCode != http.StatusOK {
		t.Errorf("If-Modified-Since the old page: HTTP %d, want 200", resp.StatusCode)
	}
	// Back to operational within the same second: yet another page.
	if err := sim.Set(p.ID, Scenario{}); err != nil {
		t.Fatal(err)
	}
	resp, _ = fetch(t, srv.Client(), url, http.Header{"If-Modified-Since": {lm2}, "If-None-Match": {etag2}})
	if resp.StatusCode != http.StatusOK || resp.Header.Get("ETag") == etag || resp.Header.Get("ETag") == etag2 {
		t.Errorf("after a second change: HTTP %d ETag %q", resp.StatusCode, resp.Header.Get("ETag"))
	}
}

func mustHTTPTime(t *testing.T, s string) time.Time {
	t.Helper()
	tm, err := http.ParseTime(s)
	if err != nil {
		t.Fatalf("Last-Modified %q: %v", s, err)
	}
	return tm
}

func TestHeadAndMethods(t *testing.T) {
	p := providerByID(t, "openai")
	_, srv := newServer(t, []seeds.Provider{p})
	resp, err := srv.Client().Head(srv.URL + PagePath(p))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("ETag") == "" || resp.ContentLength <= 0 {
		t.Errorf("HEAD: HTTP %d, ETag %q, length %d", resp.StatusCode, resp.Header.Get("ETag"), resp.ContentLength)
	}
	resp, err = srv.Client().Post(srv.URL+PagePath(p), "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") == "" {
		t.Errorf("POST on a page: HTTP %d, Allow %q", resp.StatusCode, resp.Header.Get("Allow"))
	}
}

func TestRootPageWithoutSlash(t *testing.T) {
	p := providerByID(t, "mistral")
	if PagePath(p) != "/mistral/" {
		t.Fatalf("PagePath = %s", PagePath(p))
	}
	_, srv := newServer(t, []seeds.Provider{p})
	for _, path := range []string{"/mistral/", "/mistral"} {
		if resp, body := fetch(t, srv.Client(), srv.URL+path, nil); resp.StatusCode != http.StatusOK ||
			!strings.Contains(string(body), "Mistral AI Status") {
			t.Errorf("%s: HTTP %d", path, resp.StatusCode)
		}
	}
}

func TestQueryInStatusURL(t *testing.T) {
	p := seeds.Provider{ID: "example", Name: "Example", Format: "rss", StatusAPIURL: "https://example.test/status/feed?format=rss"}
	_, srv := newServer(t, []seeds.Provider{p})
	resp, body := fetch(t, srv.Client(), srv.URL+PagePath(p), nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "<rss") {
		t.Errorf("HTTP %d %s", resp.StatusCode, body)
	}
}

// TestConcurrentFetchesAndChanges hammers pages while scenarios change (run with -race), then checks that no
// goroutine is left behind.
func TestConcurrentFetchesAndChanges(t *testing.T) {
	before := runtime.NumGoroutine()
	providers := seeds.Providers().All()
	sim := New(providers)
	srv := httptest.NewServer(sim.Handler())
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 16}}

	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 40; i++ {
				p := providers[(w*40+i)%len(providers)]
				resp, err := client.Get(srv.URL + PagePath(p))
				if err != nil {
					errs <- err
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusServiceUnavailable {
					errs <- fmt.Errorf("%s: HTTP %d", p.ID, resp.StatusCode)
					return
				}
			}
		}(w)
	}
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				p := providers[(w*7+i)%len(providers)]
				if err := sim.Set(p.ID, Scenario{Status: Statuses[(i+w)%len(Statuses)]}); err != nil {
					errs <- err
					return
				}
				_ = sim.Scenarios()
				if i%25 == 0 {
					sim.Reset()
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	sim.Close()
	srv.Close()
	client.CloseIdleConnections()
	waitFor(t, "goroutines to finish", 5*time.Second, func() bool { return runtime.NumGoroutine() <= before })
}
