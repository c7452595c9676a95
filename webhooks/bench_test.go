package webhooks_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/switchboard/switchboard/dbtest"
	"github.com/switchboard/switchboard/store"
	"github.com/switchboard/switchboard/webhooks"
)

// BenchmarkFanOut10k: one status change reaches 10,000 subscriptions, each a signed POST to a receiver on
// loopback (allow-loopback on), through the worker's production loop with its default concurrency and
// timeout. Reported: the time from the event being written (with its check, as the poller does) to the last
// delivery recorded, and the peak Go heap during it (receivers included: they run in this process). BENCH_WEBHOOK_RECEIVERS sets how many receiver servers share the
// 10,000 callback URLs (default 100, so 100 paths each; 10000 gives every subscription its own host).
func BenchmarkFanOut10k(b *testing.B) {
	const subs = 10_000
	nrecv := 100
	if v, err := strconv.Atoi(os.Getenv("BENCH_WEBHOOK_RECEIVERS")); err == nil && v > 0 {
		nrecv = min(v, subs)
	}
	for _, e := range dbtest.Engines(b) {
		b.Run(e.Name, func(b *testing.B) {
			st, _ := e.Open(b)
			var got atomic.Int64
			handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				got.Add(1)
				w.WriteHeader(http.StatusNoContent)
			})
			// Each receiver on its own loopback address: a host name is a delivery lane (at most 2 in flight).
			urls := make([]string, nrecv)
			for i := range urls {
				urls[i] = loopbackServer(b, i, handler).URL
			}
			ctx := context.Background()
			created := time.Now().Add(-time.Minute)
			for i := range subs {
				err := st.CreateWebhookSubscription(ctx, store.WebhookSubscription{
					ID: uuid.NewString(), CallbackURL: fmt.Sprintf("%s/hook/%d", urls[i%nrecv], i),
					Events: []string{"provider.down", "provider.up"}, Secret: ptr(fmt.Sprintf("bench-secret-%08d", i)),
					Status: store.SubscriptionActive, CreatedAt: created, VerifiedAt: &created,
				}, store.SubscriptionLimits{})
				if err != nil {
					b.Fatal(err)
				}
			}
			// The production loop: Run in the background, woken by Notify as the poller does after a cycle.
			w, err := webhooks.New(webhooks.Config{AllowLoopback: true, Logger: slog.New(slog.DiscardHandler)}, st)
			if err != nil {
				b.Fatal(err)
			}
			if err := w.Start(ctx); err != nil {
				b.Fatal(err)
			}
			defer w.Stop(ctx)
			var worst time.Duration
			var peak uint64
			b.ResetTimer()
			for i := range b.N {
				b.StopTimer()
				kind, prev, cur := "provider.down", "operational", "outage"
				if i%2 == 1 {
					kind, prev, cur = "provider.up", "outage", "operational"
				}
				before, recorded := got.Load(), w.Stats().Delivered
				runtime.GC()
				stop := sampleHeap(&peak)
				b.StartTimer()
				start := time.Now()
				payload, _ := json.Marshal(map[string]string{"provider_id": "openai", "previous_status": prev, "current_status": cur, "description": "benchmark"})
				if _, err := st.RecordCheckResult(ctx, store.CheckResult{
					Check:  store.Check{ProviderID: "openai", CheckedAt: start, Outcome: store.Outcome(cur)},
					Events: []store.OutboxEvent{{Type: kind, ProviderID: "openai", Payload: payload, CreatedAt: start}},
				}); err != nil {
					b.Fatal(err)
				}
				w.Notify()
				deadline := time.Now().Add(2 * time.Minute)
				for got.Load()-before < subs || w.Stats().Delivered-recorded < subs {
					if time.Now().After(deadline) {
						b.Fatalf("after 2 min: %d deliveries arrived, %d recorded, want %d", got.Load()-before, w.Stats().Delivered-recorded, subs)
					}
					time.Sleep(2 * time.Millisecond)
				}
				took := time.Since(start)
				b.StopTimer()
				stop()
				if n := got.Load() - before; n != subs {
					b.Fatalf("%d deliveries arrived, want %d", n, subs)
				}
				worst = max(worst, took)
			}
			b.ReportMetric(worst.Seconds(), "s/10k-deliveries")
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
			b.Logf("%s: one event to %d subscriptions over %d receivers: slowest run %s, peak heap %.1f MiB",
				e.Name, subs, nrecv, worst.Round(time.Millisecond), float64(peak)/(1<<20))
		})
	}
}

// loopbackServer serves handler on the i-th loopback address of 127.10.0.0/16 (Linux answers on all of
// 127.0.0.0/8), so that receivers are distinct hosts, as on the internet.
func loopbackServer(tb testing.TB, i int, handler http.Handler) *httptest.Server {
	tb.Helper()
	return serveOn(tb, loopbackAddr(i), handler)
}

// serveOn serves handler on ip, a port of its own.
func serveOn(tb testing.TB, ip string, handler http.Handler) *httptest.Server {
	tb.Helper()
	l, err := net.Listen("tcp", ip+":0")
	if err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(handler)
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	tb.Cleanup(srv.Close)
	return srv
}

func loopbackAddr(i int) string { return fmt.Sprintf("127.10.%d.%d", i/250, i%250+1) }

// sampleHeap records the largest live heap seen until the returned function is called.
func sampleHeap(peak *uint64) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	go func() {
		defer close(finished)
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			*peak = max(*peak, sample[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done); <-finished }
}

// BenchmarkProviderDownBlackholed: 1,000 verified subscribers, each on a host of its own, 100 of them black-holed
// (they accept the connection and never answer), the worker with its production settings (256 in flight, 2 per
// host, 5 s per attempt, the breaker after 3). One provider.down is written as the poller writes it; reported:
// the time until the last honest subscriber has it (the target: within 5 s of the poll that sees the outage),
// and the median. In the first run the black holes are fresh (no breaker open yet): the worst case, which the
// reported maximum keeps.
func BenchmarkProviderDownBlackholed(b *testing.B) {
	const subs, holes = 1000, 100
	for _, e := range dbtest.Engines(b) {
		b.Run(e.Name, func(b *testing.B) {
			st, _ := e.Open(b)
			ctx := context.Background()
			created := time.Now().Add(-time.Minute)
			var mu sync.Mutex
			arrived := map[string]time.Time{} // honest receiver -> when its provider.down arrived
			urls := make([]string, subs)
			for i := range subs {
				if i%(subs/holes) == 0 { // every tenth subscriber is black-holed
					urls[i] = newBlackHole(b, loopbackAddr(i)).URL()
					continue
				}
				name := strconv.Itoa(i)
				urls[i] = loopbackServer(b, i, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					io.Copy(io.Discard, r.Body)
					if r.Header.Get(webhooks.HeaderEvent) == "provider.down" {
						mu.Lock()
						if _, ok := arrived[name]; !ok {
							arrived[name] = time.Now()
						}
						mu.Unlock()
					}
					w.WriteHeader(http.StatusNoContent)
				})).URL + "/hook"
			}
			for i, u := range urls {
				err := st.CreateWebhookSubscription(ctx, store.WebhookSubscription{
					ID: uuid.NewString(), CallbackURL: u, Events: []string{"provider.down", "provider.up"},
					Secret: ptr(fmt.Sprintf("bench-secret-%08d", i)), Status: store.SubscriptionActive,
					CreatedAt: created, VerifiedAt: &created,
				}, store.SubscriptionLimits{})
				if err != nil {
					b.Fatal(err)
				}
			}
			w, err := webhooks.New(webhooks.Config{AllowLoopback: true, Logger: slog.New(slog.DiscardHandler)}, st)
			if err != nil {
				b.Fatal(err)
			}
			if err := w.Start(ctx); err != nil {
				b.Fatal(err)
			}
			defer w.Stop(ctx)
			var worst, median time.Duration
			b.ResetTimer()
			for i := range b.N {
				mu.Lock()
				clear(arrived)
				mu.Unlock()
				kind, prev, cur := "provider.down", "operational", "outage"
				start := time.Now()
				payload, _ := json.Marshal(map[string]string{"provider_id": "openai", "previous_status": prev, "current_status": cur, "description": "benchmark"})
				if _, err := st.RecordCheckResult(ctx, store.CheckResult{
					Check:  store.Check{ProviderID: "openai", CheckedAt: start.Add(time.Duration(i) * time.Millisecond), Outcome: store.Outcome(cur)},
					Events: []store.OutboxEvent{{Type: kind, ProviderID: "openai", Payload: payload, CreatedAt: start}},
				}); err != nil {
					b.Fatal(err)
				}
				w.Notify() // as the poller does after a cycle
				deadline := start.Add(time.Minute)
				for {
					mu.Lock()
					n := len(arrived)
					mu.Unlock()
					if n == subs-holes {
						break
					}
					if time.Now().After(deadline) {
						b.Fatalf("after 1 min %d of %d honest subscribers had provider.down", n, subs-holes)
					}
					time.Sleep(time.Millisecond)
				}
				mu.Lock()
				times := make([]time.Duration, 0, len(arrived))
				for _, at := range arrived {
					times = append(times, at.Sub(start))
				}
				mu.Unlock()
				slices.Sort(times)
				worst, median = max(worst, times[len(times)-1]), times[len(times)/2]
			}
			b.StopTimer() // stopping waits for the black-holed attempts' timeouts
			b.ReportMetric(worst.Seconds(), "s/last-honest-provider.down")
			b.ReportMetric(median.Seconds(), "s/median-provider.down")
			b.Logf("%s: %d subscribers, %d black-holed: the last honest subscriber had provider.down after %s (median %s)",
				e.Name, subs, holes, worst.Round(time.Millisecond), median.Round(time.Millisecond))
		})
	}
}
