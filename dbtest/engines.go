// Package dbtest holds the database fixtures of the tests: fresh, empty, migrated stores of every engine the
// machine has (SQLite always, PostgreSQL with TEST_DATABASE_URL), each isolated from the others, and a dump of
// their tables. The HTTP contract helpers are in apitest.
package dbtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/switchboard/switchboard/store"
)

// Engine opens fresh, empty, migrated stores of one kind.
type Engine struct {
	Name string
	// Open returns a new store and the URL it was opened with; both are closed and removed when t ends.
	Open func(t testing.TB) (store.Store, string)
}

// Engines lists SQLite always, and PostgreSQL when TEST_DATABASE_URL is set. Each PostgreSQL store lives in a
// schema of its own (dropped afterwards), so tests in parallel, or runs side by side, never see each other's rows.
func Engines(t testing.TB) []Engine {
	es := []Engine{{Name: "sqlite", Open: func(t testing.TB) (store.Store, string) {
		u := "sqlite://" + filepath.Join(t.TempDir(), "test.db")
		return OpenStore(t, u), u
	}}}
	base := os.Getenv("TEST_DATABASE_URL")
	if base == "" {
		t.Log("TEST_DATABASE_URL is not set: PostgreSQL is skipped")
		return es
	}
	return append(es, Engine{Name: "postgres", Open: func(t testing.TB) (store.Store, string) {
		u := freshSchema(t, base)
		return OpenStore(t, u), u
	}})
}

// OpenStore opens and migrates the store at u, closing it when t ends.
func OpenStore(t testing.TB, u string) store.Store {
	t.Helper()
	s, err := store.Open(context.Background(), u, store.Options{Migrate: true})
	if err != nil {
		t.Fatalf("opening %s: %v", u, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// freshSchema creates a uniquely named schema and returns a URL whose search_path points at it.
func freshSchema(t testing.TB, base string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connecting to TEST_DATABASE_URL: %v", err)
	}
	defer conn.Close(ctx)
	b := make([]byte, 6)
	rand.Read(b)
	schema := "test_" + hex.EncodeToString(b)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("creating schema: %v", err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), base)
		if err == nil {
			c.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
			c.Close(context.Background())
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// DumpTables returns the text of every row of every table in the store at u (as opened by an Engine), for
// tests that must prove some text was never stored anywhere.
func DumpTables(t testing.TB, u string) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	engine, target, err := store.ParseURL(u)
	if err != nil {
		t.Fatal(err)
	}
	if engine == "postgres" {
		conn, err := pgx.Connect(ctx, target)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		rows, err := conn.Query(ctx, "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()")
		if err != nil {
			t.Fatal(err)
		}
		tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		for _, tb := range tables {
			var dump *string
			if err := conn.QueryRow(ctx, fmt.Sprintf("SELECT string_agg(t::text, E'\\n') FROM %s t", pgx.Identifier{tb}.Sanitize())).Scan(&dump); err != nil {
				t.Fatal(err)
			}
			if dump != nil {
				fmt.Fprintf(&b, "%s:\n%s\n", tb, *dump)
			}
		}
		return b.String()
	}
	db, err := sql.Open("sqlite", "file:"+target)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, "SELECT name FROM sqlite_master WHERE type = 'table'")
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var n string
		rows.Scan(&n)
		tables = append(tables, n)
	}
	rows.Close()
	for _, tb := range tables {
		r, err := db.QueryContext(ctx, fmt.Sprintf(`SELECT * FROM "%s"`, tb))
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := r.Columns()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		fmt.Fprintf(&b, "%s:\n", tb)
		for r.Next() {
			if err := r.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for _, v := range vals {
				fmt.Fprintf(&b, "%s|", v)
			}
			b.WriteString("\n")
		}
		r.Close()
	}
	return b.String()
}

// TerminateLockHolder ends, from the server's side (pg_terminate_backend), the PostgreSQL session holding the
// advisory lock key (store.PollerLockKey, store.CatalogLockKey) in the schema of u, as a database restart or a
// network cut would end it. It returns how many sessions it ended.
func TerminateLockHolder(t testing.TB, u string, key int64) int {
	t.Helper()
	return lockHolders(t, u, key, "count(pg_terminate_backend(pid))")
}

// LockHolders counts the sessions holding the advisory lock key in the schema of u.
func LockHolders(t testing.TB, u string, key int64) int {
	t.Helper()
	return lockHolders(t, u, key, "count(*)")
}

func lockHolders(t testing.TB, u string, key int64, what string) int {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatalf("connecting to look at the lock: %v", err)
	}
	defer conn.Close(ctx)
	var n int
	err = conn.QueryRow(ctx, `SELECT `+what+` FROM pg_locks
		WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid()
		AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
		AND ((classid::bigint << 32) | objid::bigint) = (`+store.SchemaLockKeySQL+`)`, key).Scan(&n)
	if err != nil {
		t.Fatalf("looking at the lock: %v", err)
	}
	return n
}
