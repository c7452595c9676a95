package poller_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/switchboard/switchboard/netguard"
	"github.com/switchboard/switchboard/poller"
	"github.com/switchboard/switchboard/seeds"
	"github.com/switchboard/switchboard/simulator"
	"github.com/switchboard/switchboard/store"
)

func benchStore(b *testing.B) store.Store {
	s, err := store.Open(context.Background(), "sqlite://"+filepath.Join(b.TempDir(), "bench.db"), store.Options{Migrate: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

// BenchmarkCycle52With10Hanging: the 52 providers, 10 of whose pages never answer. The cycle must end about one
// fetch timeout after it starts (here 2 s), not 10 timeouts later.
func BenchmarkCycle52With10Hanging(b *testing.B) {
	provs := seeds.Providers().All()
	sim := simulator.New(provs)
	srv := httptest.NewServer(sim.Handler())
	defer srv.Close()
	defer sim.Close()
	for _, p := range provs[:10] {
		sim.Set(p.ID, simulator.Scenario{Status: "operational", Fail: "timeout"})
	}
	p, err := poller.New(poller.Config{Timeout: 2 * time.Second, StatusBaseURL: srv.URL, Outbound: netguard.Options{AllowLoopback: true}}, benchStore(b), provs, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		rep := p.RunCycle(context.Background())
		if rep.Checks != 52 || rep.Failed[poller.FailTimeout] != 10 {
			b.Fatalf("report %+v", rep)
		}
	}
}

// BenchmarkCycle5000Pages: 5,000 simulated pages (the 52 formats repeated) in one cycle, recorded in SQLite.
// Reports the cycle time and the peak heap seen while it ran.
func BenchmarkCycle5000Pages(b *testing.B) {
	base := seeds.Providers().All()
	provs := make([]seeds.Provider, 0, 5000)
	for i := range 5000 {
		p := base[i%len(base)]
		p.ID = fmt.Sprintf("%s-%04d", p.ID, i)
		provs = append(provs, p)
	}
	sim := simulator.New(provs)
	srv := httptest.NewServer(sim.Handler())
	defer srv.Close()
	defer sim.Close()
	p, err := poller.New(poller.Config{Timeout: 50 * time.Second, StatusBaseURL: srv.URL, Outbound: netguard.Options{AllowLoopback: true}}, benchStore(b), provs, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		b.Fatal(err)
	}
	var peak uint64
	done := make(chan struct{})
	go func() {
		var m runtime.MemStats
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				runtime.ReadMemStats(&m)
				peak = max(peak, m.HeapInuse)
			}
		}
	}()
	b.ResetTimer()
	for b.Loop() {
		rep := p.RunCycle(context.Background())
		if rep.Checks != 5000 || rep.Observed != 5000 {
			b.Fatalf("report: checks %d observed %d failed %v not started %d", rep.Checks, rep.Observed, rep.Failed, rep.NotStarted)
		}
	}
	b.StopTimer()
	close(done)
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
}
