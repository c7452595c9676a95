package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pressly/goose/v3"
	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver (pure Go)

	"github.com/switchboard/switchboard/gen/litedb"
	"github.com/switchboard/switchboard/queries"
)

type sqliteStore struct {
	db *sql.DB
	q  *litedb.Queries
}

var _ Store = (*sqliteStore)(nil)

// sqliteDSN turns a file path into a modernc DSN: WAL so readers never block the writer, a busy timeout so
// concurrent writers wait instead of failing, immediate transactions so a read-then-write never deadlocks,
// and a fixed time format so stored times sort as text.
func sqliteDSN(path string) string {
	v := url.Values{}
	v.Add("_pragma", "journal_mode(WAL)")
	v.Add("_pragma", "busy_timeout(5000)")
	v.Add("_pragma", "foreign_keys(ON)")
	v.Add("_pragma", "synchronous(NORMAL)")
	v.Set("_txlock", "immediate")
	v.Set("_time_format", "sqlite")
	return "file:" + path + "?" + v.Encode()
}

func openSQLite(ctx context.Context, path string, opts Options) (Store, error) {
	if err := privateFile(path); err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", sqliteDSN(path))
	if err != nil {
		return nil, fmt.Errorf("opening SQLite %s: %w", path, err)
	}
	// SQLite has one writer at a time; a small pool keeps readers concurrent without piling up waiting writers.
	db.SetMaxOpenConns(8)
	db.SetConnMaxIdleTime(5 * time.Minute)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("opening SQLite %s: %w%s", path, err, writableHint(path))
	}
	if opts.Migrate {
		if err := migrate(ctx, goose.DialectSQLite3, db, queries.SQLiteMigrations, "sqlite/schema"); err != nil {
			db.Close()
			return nil, err
		}
	}
	return &sqliteStore{db: db, q: litedb.New()}, nil
}

func (s *sqliteStore) Engine() string                 { return "sqlite" }
func (s *sqliteStore) Ping(ctx context.Context) error { return s.db.PingContext(ctx) }
func (s *sqliteStore) Close() error                   { return s.db.Close() }

func (s *sqliteStore) RecordCheck(ctx context.Context, c Check) (Check, error) {
	return s.RecordCheckResult(ctx, CheckResult{Check: c})
}

func (s *sqliteStore) LatestChecks(ctx context.Context) ([]Check, error) {
	rows, err := s.q.LatestCheckPerProvider(ctx, s.db)
	if err != nil {
		return nil, fmt.Errorf("reading latest checks: %w", err)
	}
	return convertRows(rows, func(r litedb.Check) Check { return checkRow(r).check() }), nil
}

func (s *sqliteStore) ChecksSince(ctx context.Context, providerID string, since time.Time, limit int) ([]Check, error) {
	rows, err := s.q.ChecksSince(ctx, s.db, litedb.ChecksSinceParams{
		ProviderID: providerID, Since: normTime(since), MaxRows: int64(clampLimit(limit)),
	})
	if err != nil {
		return nil, fmt.Errorf("reading checks of %s: %w", providerID, err)
	}
	return convertRows(rows, func(r litedb.Check) Check { return checkRow(r).check() }), nil
}

func (s *sqliteStore) DeleteChecksBefore(ctx context.Context, before time.Time) (int64, error) {
	n, err := s.q.DeleteChecksBefore(ctx, s.db, normTime(before))
	if err != nil {
		return 0, fmt.Errorf("deleting old checks: %w", err)
	}
	return n, nil
}

func (s *sqliteStore) CreateTrustRecord(ctx context.Context, r TrustRecord) error {
	if err := validateTrust(r); err != nil {
		return err
	}
	err := s.q.InsertTrustRecord(ctx, s.db, litedb.InsertTrustRecordParams{
		ID: r.ID, Kind: string(r.Kind), CreatedAt: normTime(r.CreatedAt), ProviderID: r.ProviderID, Model: r.Model,
		PayloadHash: r.PayloadHash, AgentID: r.AgentID, FromAgent: r.FromAgent, ToAgent: r.ToAgent,
		TaskID: r.TaskID, ContextHash: r.ContextHash, Creator: r.Creator,
	})
	if err != nil {
		return fmt.Errorf("storing %s: %w", r.Kind, err)
	}
	return nil
}

func (s *sqliteStore) GetTrustRecord(ctx context.Context, id string) (TrustRecord, error) {
	row, err := s.q.GetTrustRecord(ctx, s.db, id)
	if errors.Is(err, sql.ErrNoRows) {
		return TrustRecord{}, ErrNotFound
	}
	if err != nil {
		return TrustRecord{}, fmt.Errorf("reading trust record: %w", err)
	}
	return trustRow(row).record(), nil
}

// migrate applies the embedded migrations in dir of fsys with goose.
func migrate(ctx context.Context, dialect goose.Dialect, db *sql.DB, fsys fs.FS, dir string, opts ...goose.ProviderOption) error {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		return fmt.Errorf("reading embedded migrations: %w", err)
	}
	p, err := goose.NewProvider(dialect, db, sub, opts...)
	if err != nil {
		return fmt.Errorf("preparing migrations: %w", err)
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("applying migrations: %w", err)
	}
	return nil
}

// privateFile makes the database file readable by the service's user only: it holds the webhook secrets (sealed
// when SWITCHBOARD_WEBHOOK_SECRET_KEY is set, as given otherwise). A new file is created 0600 before SQLite
// opens it; SQLite gives its -wal and -shm files the mode of the database file. An existing file that others
// may read loses those permissions.
func privateFile(path string) error {
	if path == ":memory:" || strings.HasPrefix(path, "file:") {
		return nil
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	switch {
	case err == nil:
		return f.Close()
	case !errors.Is(err, fs.ErrExist):
		return fmt.Errorf("creating SQLite %s: %w%s", path, err, writableHint(path))
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		if err != nil || fi.Mode().Perm()&0o077 == 0 {
			continue
		}
		if err := os.Chmod(p, fi.Mode().Perm()&0o700); err != nil {
			return fmt.Errorf("making SQLite %s private (mode %v): %w", p, fi.Mode().Perm(), err)
		}
	}
	return nil
}

// writableHint explains the usual cause when SQLite cannot open its file: the service writes the database and,
// in WAL mode, its -wal and -shm files beside it, so both the file and its folder must be writable.
func writableHint(path string) string {
	dir := filepath.Dir(path)
	probe, err := os.CreateTemp(dir, ".switchboard-write-check-*")
	if err != nil {
		return " (the folder " + dir + " is not writable: the service needs to write the database and its -wal and -shm files there)"
	}
	probe.Close()
	os.Remove(probe.Name())
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return " (the file cannot be opened for writing: " + err.Error() + ")"
	}
	if err == nil {
		f.Close()
	}
	return ""
}
