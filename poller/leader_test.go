package poller_test

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/switchboard/switchboard/dbtest"
	"github.com/switchboard/switchboard/poller"
	"github.com/switchboard/switchboard/store"
)

// TestLeaderThatLosesItsLockStepsDown: two replicas poll one PostgreSQL schema; PostgreSQL ends the session the
// poller lock lives on (as a database restart or a network cut would). The holder notices and steps down,
// polling goes on within one interval under whichever replica takes the lock, and a status change that happens
// then is recorded once, not once per replica.
func TestLeaderThatLosesItsLockStepsDown(t *testing.T) {
	var pgEngine *dbtest.Engine
	for _, e := range dbtest.Engines(t) {
		if e.Name == "postgres" {
			pgEngine = &e
		}
	}
	if pgEngine == nil {
		t.Skip("TEST_DATABASE_URL is not set: the lock is PostgreSQL's")
	}
	pg := &pages{}
	srv := httptest.NewServer(pg)
	defer srv.Close()
	_, u := pgEngine.Open(t)
	const interval, check = 300 * time.Millisecond, 50 * time.Millisecond
	lockCheck := check // an hour here shows what happened before leaders watched their lock: a second record
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	var stores []store.Store
	for range 2 {
		st, err := store.Open(ctx, u, store.Options{LockCheck: lockCheck})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		stores = append(stores, st)
		p, err := poller.New(poller.Config{Interval: interval, Timeout: time.Second, SlowThreshold: slowThreshold,
			StatusBaseURL: srv.URL, Outbound: loopback}, st, providers("ok", "flaky"), slog.New(slog.NewTextHandler(io.Discard, nil)))
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() { defer wg.Done(); p.Run(ctx) }()
	}
	st := stores[0]
	checks := func() int {
		t.Helper()
		n, err := st.DailyCheckCounts(ctx, time.Now().Add(-time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		total := 0
		for _, d := range n {
			total += int(d.Observed)
		}
		return total
	}
	waitUntil := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if ok() {
				return
			}
		}
		t.Fatalf("%s: not within 20 s (a liveness bound)", what)
	}
	waitUntil("the first cycle", func() bool { return checks() >= 2 })

	if n := dbtest.TerminateLockHolder(t, u, store.PollerLockKey); n != 1 {
		t.Fatalf("terminated %d sessions, want the poller lock's holder", n)
	}
	// The lock is taken again (by either replica) within an interval; then flaky goes down. A replica that
	// missed the loss of its lock would go on polling beside the new holder and record the outage a second time.
	waitUntil("the lock taken again", func() bool { return dbtest.LockHolders(t, u, store.PollerLockKey) == 1 })
	time.Sleep(2 * check)
	pg.mu.Lock()
	pg.outage = true
	pg.mu.Unlock()
	before := checks()
	// Within one interval (plus the lock check and the cycle) polling goes on under a holder.
	waitUntil("polling after the lock's session ended", func() bool { return checks() >= before+2 })
	waitUntil("the outage recorded", func() bool { return len(outages(t, st)) > 0 })
	time.Sleep(3 * interval) // cycles of both replicas, had both kept polling
	if got := outages(t, st); len(got) != 1 {
		t.Errorf("the outage was recorded %d times, want once: %+v", len(got), got)
	}
}

// outages are flaky's status changes to an outage.
func outages(t *testing.T, st store.Store) []store.StatusChange {
	t.Helper()
	all, err := st.StatusChangesSince(context.Background(), time.Now().Add(-time.Hour), 100)
	if err != nil {
		t.Fatal(err)
	}
	var out []store.StatusChange
	for _, c := range all {
		if c.ProviderID == "flaky" && c.To == store.OutcomeOutage {
			out = append(out, c)
		}
	}
	return out
}
