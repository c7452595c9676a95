package store_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/switchboard/switchboard/store"
)

func TestIsUnavailable(t *testing.T) {
	for name, c := range map[string]struct {
		err  error
		want bool
	}{
		"nil":                  {nil, false},
		"not found":            {store.ErrNotFound, false},
		"plain error":          {errors.New("boom"), false},
		"unexpected EOF":       {fmt.Errorf("reading: %w", io.ErrUnexpectedEOF), true},
		"admin shutdown":       {&pgconn.PgError{Code: "57P01"}, true},
		"connection failure":   {&pgconn.PgError{Code: "08006"}, true},
		"disk full":            {&pgconn.PgError{Code: "53100"}, true},
		"unique violation":     {&pgconn.PgError{Code: "23505"}, false},
		"wrapped admin":        {fmt.Errorf("insert: %w", &pgconn.PgError{Code: "57P01"}), true},
		"context deadline":     {context.DeadlineExceeded, false},
		"syntax error in code": {&pgconn.PgError{Code: "42601"}, false},
	} {
		if got := store.IsUnavailable(c.err); got != c.want {
			t.Errorf("%s: IsUnavailable = %v, want %v", name, got, c.want)
		}
	}
}

// A PostgreSQL that does not listen and an SQLite file that became read-only are unavailable, not bugs.
func TestIsUnavailableFromRealDrivers(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := store.Open(ctx, "postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=2", store.Options{Migrate: true})
	if err == nil || !store.IsUnavailable(err) {
		t.Errorf("opening PostgreSQL on a closed port: %v, IsUnavailable %v", err, store.IsUnavailable(err))
	}

	// A database the process may only read (opened read-only: as root, file permissions would not stop writes).
	path := filepath.Join(t.TempDir(), "ro.db")
	s, err := store.Open(ctx, "sqlite://"+path, store.Options{Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	ro, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	_, err = ro.ExecContext(ctx, "DELETE FROM checks")
	if err == nil || !store.IsUnavailable(err) {
		t.Errorf("writing a read-only SQLite database: %v, IsUnavailable %v", err, store.IsUnavailable(err))
	}
}
