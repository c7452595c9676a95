package contractfuzz_test

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard/switchboard/apitest"
	"github.com/switchboard/switchboard/contractfuzz"
	"github.com/switchboard/switchboard/seeds"
)

// TestContract sends generated requests to every operation of the running service. Every answer must be a
// status the document lists for the operation with a body that validates against it (apitest.Check), never a
// 500, and must arrive within the client's timeout. SWITCHBOARD_FUZZ_REQUESTS sets how many (default 1,000: the
// short run of `make test`; `make fuzz` sends 100,000), SWITCHBOARD_FUZZ_SEED the seed (default: the clock; it is
// logged, so a failure can be replayed).
func TestContract(t *testing.T) {
	n := envInt(t, "SWITCHBOARD_FUZZ_REQUESTS", 1000)
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("SWITCHBOARD_FUZZ_SEED"); v != "" {
		var err error
		if seed, err = strconv.ParseUint(v, 10, 64); err != nil {
			t.Fatalf("SWITCHBOARD_FUZZ_SEED: %v", err)
		}
	}
	t.Logf("seed %d (replay with SWITCHBOARD_FUZZ_SEED=%d), %d requests", seed, seed, n)

	s := apitest.Start(t, apitest.Options{})
	var ids []string
	for _, p := range seeds.Providers().All() {
		ids = append(ids, p.ID)
	}
	g := contractfuzz.New(s.Doc, ids)
	ops := g.Operations()
	client := &http.Client{Timeout: 15 * time.Second}
	// The catalogs are decoded once, in the background, when the server starts; under -race on a busy CI machine
	// that took longer than the client's timeout, and every catalog request of the first seconds waited for it.
	// This test is about the contract, not start-up time: wait for them once.
	warm := &http.Client{Timeout: 2 * time.Minute}
	if res, err := warm.Get(s.URL + "/api/v1/pricing?limit=1"); err != nil {
		t.Fatalf("warming the catalogs: %v", err)
	} else {
		res.Body.Close()
	}

	const workers = 8
	var (
		mu       sync.Mutex
		byStatus = map[int]int{}
		byKind   = map[string]int{}
		failures []string
		wg       sync.WaitGroup
	)
	fail := func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		failures = append(failures, msg)
	}
	start := time.Now()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, uint64(w)))
			for i := w; i < n; i += workers {
				r := g.Make(rng, ops[i%len(ops)])
				status, err := send(client, s, r)
				mu.Lock()
				byStatus[status]++
				byKind[strings.Fields(r.Kind)[0]]++
				mu.Unlock()
				switch {
				case err != nil:
					fail(fmt.Sprintf("%s %.300s [%s]: %v", r.Method, r.Path, r.Kind, err))
				case status >= 500 && status != http.StatusNotImplemented && status != http.StatusServiceUnavailable:
					fail(fmt.Sprintf("%s %.300s [%s]: status %d", r.Method, r.Path, r.Kind, status))
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	t.Logf("%d requests in %v (%.0f/s)", n, elapsed.Round(time.Millisecond), float64(n)/elapsed.Seconds())
	t.Log("answers by status: " + counts(byStatus))
	t.Logf("requests by kind: valid %d, param mutations %d, body mutations %d", byKind["valid"], byKind["param"], byKind["body:"])
	if len(failures) > 0 {
		sort.Strings(failures)
		for i, f := range failures {
			if i == 25 {
				t.Errorf("... and %d more", len(failures)-25)
				break
			}
			t.Error(f)
		}
	}
	if byStatus[200] == 0 || byStatus[400] == 0 {
		t.Errorf("the run produced no 200 or no 400 (%s): the generator is broken", counts(byStatus))
	}
}

// send makes one request and checks the answer against the document.
func send(client *http.Client, s *apitest.Server, r contractfuzz.Request) (int, error) {
	req, err := http.NewRequest(r.Method, s.URL+r.Path, bytes.NewReader(r.Body))
	if err != nil {
		return 0, fmt.Errorf("building the request: %w", err)
	}
	for k, v := range r.Header {
		req.Header[k] = v
	}
	res, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return res.StatusCode, fmt.Errorf("reading the answer: %w", err)
	}
	if err := s.Check(req, &apitest.Response{Status: res.StatusCode, Header: res.Header, Body: body}); err != nil {
		return res.StatusCode, fmt.Errorf("answer %d does not follow the document: %w; body %.300s", res.StatusCode, err, body)
	}
	return res.StatusCode, nil
}

func counts(m map[int]int) string {
	var keys []int
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d: %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

func envInt(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive number", name, v)
	}
	return n
}
