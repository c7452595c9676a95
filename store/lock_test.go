package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/switchboard/switchboard/dbtest"
	"github.com/switchboard/switchboard/store"
)

// postgresOnly returns the PostgreSQL engine, or skips.
func postgresOnly(t *testing.T) dbtest.Engine {
	t.Helper()
	for _, e := range dbtest.Engines(t) {
		if e.Name == "postgres" {
			return e
		}
	}
	t.Skip("TEST_DATABASE_URL is not set: the lock tests need PostgreSQL")
	return dbtest.Engine{}
}

func openWith(t *testing.T, u string, o store.Options) store.Store {
	t.Helper()
	s, err := store.Open(context.Background(), u, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestLocksArePerSchema: two stores in one schema exclude each other; a store in another schema of the same
// database takes its own lock (advisory locks are database-wide, so test runs and deployments sharing a
// database used to take each other's).
func TestLocksArePerSchema(t *testing.T) {
	e := postgresOnly(t)
	ctx := context.Background()
	_, u := e.Open(t)
	_, other := e.Open(t)
	a, b, c := openWith(t, u, store.Options{}), openWith(t, u, store.Options{}), openWith(t, other, store.Options{})
	for _, lock := range []struct {
		name string
		try  func(store.Store) (*store.Lease, error)
	}{
		{"poller", func(s store.Store) (*store.Lease, error) { return s.TryPollerLock(ctx) }},
		{"catalog", func(s store.Store) (*store.Lease, error) { return s.TryCatalogLock(ctx) }},
	} {
		la, err := lock.try(a)
		if err != nil || la == nil {
			t.Fatalf("%s: first holder: %v %v", lock.name, la, err)
		}
		if lb, err := lock.try(b); err != nil || lb != nil {
			t.Errorf("%s: a second store in the same schema took the lock (%v)", lock.name, err)
		}
		lc, err := lock.try(c)
		if err != nil || lc == nil {
			t.Errorf("%s: a store in another schema did not get its own lock (%v)", lock.name, err)
		} else {
			lc.Release()
		}
		la.Release()
		la.Release() // twice is harmless
		lb, err := lock.try(b)
		if err != nil || lb == nil {
			t.Fatalf("%s: not free after release: %v", lock.name, err)
		}
		lb.Release()
	}
}

// TestLeaseLostWithItsConnection: when PostgreSQL ends the session a lock lives on, the holder's lease says
// so within the check interval, and another store takes the lock.
func TestLeaseLostWithItsConnection(t *testing.T) {
	e := postgresOnly(t)
	ctx := context.Background()
	_, u := e.Open(t)
	const check = 50 * time.Millisecond
	a, b := openWith(t, u, store.Options{LockCheck: check}), openWith(t, u, store.Options{LockCheck: check})
	for _, lock := range []struct {
		key int64
		try func(store.Store) (*store.Lease, error)
	}{
		{store.PollerLockKey, func(s store.Store) (*store.Lease, error) { return s.TryPollerLock(ctx) }},
		{store.CatalogLockKey, func(s store.Store) (*store.Lease, error) { return s.TryCatalogLock(ctx) }},
	} {
		la, err := lock.try(a)
		if err != nil || la == nil {
			t.Fatalf("first holder: %v %v", la, err)
		}
		select {
		case <-la.Lost():
			t.Fatal("a held lease reads lost")
		case <-time.After(5 * check):
		}
		if n := dbtest.TerminateLockHolder(t, u, lock.key); n != 1 {
			t.Fatalf("terminated %d sessions, want the holder's", n)
		}
		select {
		case <-la.Lost():
		case <-time.After(10 * time.Second): // liveness bound; it comes within one check
			t.Fatal("the lease did not notice its connection was gone")
		}
		la.Release() // closes the dead connection rather than pooling it
		lb, err := lock.try(b)
		if err != nil || lb == nil {
			t.Fatalf("the lock was not free after its holder's session ended: %v %v", lb, err)
		}
		lb.Release()
		// The pool of the store that lost its lock still works.
		if err := a.Ping(ctx); err != nil {
			t.Errorf("the store that lost its lock: %v", err)
		}
	}
}

// TestLeaseSurvivesASlowCheck: the watchdog's check is bounded apart from its interval, so a check slower than
// the interval (here every one: the interval is a microsecond) does not read as a lost lock; and a store closed
// while it holds a lease releases it instead of waiting for it (the pool's Close waits for acquired connections).
func TestLeaseSurvivesASlowCheck(t *testing.T) {
	e := postgresOnly(t)
	ctx := context.Background()
	_, u := e.Open(t)
	a := openWith(t, u, store.Options{LockCheck: time.Microsecond})
	b := openWith(t, u, store.Options{})
	la, err := a.TryPollerLock(ctx)
	if err != nil || la == nil {
		t.Fatalf("first holder: %v %v", la, err)
	}
	select {
	case <-la.Lost():
		t.Fatal("a held lease read lost when its check took longer than the interval")
	case <-time.After(200 * time.Millisecond):
	}
	closed := make(chan struct{})
	go func() { a.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second): // liveness bound
		t.Fatal("Close waited for a lease nobody released")
	}
	lb, err := b.TryPollerLock(ctx)
	if err != nil || lb == nil {
		t.Fatalf("the lock was not free after its holder's store closed: %v %v", lb, err)
	}
	lb.Release()
}
