package simulator

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/switchboard/switchboard/seeds"
)

// testClock is a settable clock.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func newTestClock() *testClock { return &testClock{t: time.Date(2026, 10, 2, 12, 0, 0, 0, time.UTC)} }

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// newServer starts a simulator of providers behind an httptest server; both are stopped at the end of the test.
func newServer(t *testing.T, providers []seeds.Provider, opts ...Option) (*Simulator, *httptest.Server) {
	t.Helper()
	sim := New(providers, opts...)
	srv := httptest.NewServer(sim.Handler())
	t.Cleanup(func() {
		sim.Close()
		srv.Close()
	})
	return sim, srv
}

// fetch GETs path with the given headers and returns the response with its body read.
func fetch(t *testing.T, client *http.Client, url string, header http.Header) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: reading the body: %v", url, err)
	}
	return resp, body
}

func providerByID(t *testing.T, id string) seeds.Provider {
	t.Helper()
	p, ok := seeds.Providers().Get(id)
	if !ok {
		t.Fatalf("no provider %q in seeds", id)
	}
	return p
}

// oneOfEachFormat picks the first seeded provider of every format.
func oneOfEachFormat() []seeds.Provider {
	seen := map[string]bool{}
	var out []seeds.Provider
	for _, p := range seeds.Providers().All() {
		if !seen[p.Format] {
			seen[p.Format] = true
			out = append(out, p)
		}
	}
	return out
}
