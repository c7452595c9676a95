// Package dbtest holds the database fixtures of the tests: fresh, empty, migrated stores of every engine the
// machine has (SQLite always, PostgreSQL with TEST_DATABASE_URL), each isolated from the others, and a dump of
// their tables. The HTTP contract helpers are in apitest.
package dbtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
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

// OpenStore opens and migrates the store at u, closing it when t ends. A new SQLite file starts as a copy of one
// migrated once per test binary (SQLiteTemplate): store.Open still runs the migrations, and finds nothing to do.
func OpenStore(t testing.TB, u string) store.Store {
	t.Helper()
	if err := seedSQLite(u); err != nil {
		t.Fatalf("opening %s: %v", u, err)
	}
	s, err := store.Open(context.Background(), u, store.Options{Migrate: true})
	if err != nil {
		t.Fatalf("opening %s: %v", u, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// SQLiteTemplate is the bytes of an empty SQLite database with every migration applied, made once per process.
// Migrating a new file costs more than most tests that open one: under the race detector the SQLite engine (Go
// code, instrumented like the rest) parsing and running every migration was a sixteenth of the handler tests'
// time. Every migration still runs from an empty file once per process (making this template), and package
// store's file-mode and unavailable tests open fresh files without it.
var SQLiteTemplate = sync.OnceValues(func() ([]byte, error) {
	dir, err := os.MkdirTemp("", "switchboard-dbtest-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "template.db")
	s, err := store.Open(context.Background(), "sqlite://"+path, store.Options{Migrate: true})
	if err != nil {
		return nil, fmt.Errorf("migrating the template database: %w", err)
	}
	// Closing the last connection checkpoints the write-ahead log into the file and removes it.
	if err := s.Close(); err != nil {
		return nil, err
	}
	if _, err := os.Stat(path + "-wal"); err == nil {
		return nil, fmt.Errorf("the template database kept a write-ahead log")
	}
	return os.ReadFile(path)
})

// seedSQLite writes the migrated template at the path of a sqlite:// URL that names a plain file not there yet;
// other URLs (PostgreSQL, an existing file, file: URIs) are left as they are.
func seedSQLite(u string) error {
	engine, path, err := store.ParseURL(u)
	if err != nil || engine != "sqlite" || path == ":memory:" || strings.HasPrefix(path, "file:") {
		return nil
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	b, err := SQLiteTemplate()
	if err != nil {
		return err
	}
	// 0600, as the store makes its files: it holds webhook secrets.
	return os.WriteFile(path, b, 0o600)
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
