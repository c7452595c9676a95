package store

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"github.com/switchboard/switchboard/gen/pgdb"
	"github.com/switchboard/switchboard/queries"
)

type postgresStore struct {
	pool      *pgxpool.Pool
	q         *pgdb.Queries
	lockCheck time.Duration
	// leases are the locks held now: Close releases them first, since the pool's Close waits for every acquired
	// connection, and a lease keeps one.
	leasesMu sync.Mutex
	leases   map[*Lease]struct{}
}

var _ Store = (*postgresStore)(nil)

func openPostgres(ctx context.Context, rawURL string, opts Options) (Store, error) {
	cfg, err := pgxpool.ParseConfig(rawURL)
	if err != nil {
		return nil, fmt.Errorf("parsing PostgreSQL URL %s: %w", redact(rawURL), err)
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = 10 * time.Second
	}
	// Sessions store and compare times in UTC, whatever the server's default.
	cfg.ConnConfig.RuntimeParams["timezone"] = "UTC"
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connecting to PostgreSQL %s: %w", redact(rawURL), err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("connecting to PostgreSQL %s: %w", redact(rawURL), err)
	}
	if opts.Migrate {
		// Replicas starting together take turns: goose holds a PostgreSQL advisory lock while it migrates.
		locker, err := lock.NewPostgresSessionLocker(lock.WithLockTimeout(1, 300))
		if err != nil {
			pool.Close()
			return nil, fmt.Errorf("preparing migration lock: %w", err)
		}
		db := stdlib.OpenDBFromPool(pool)
		err = migrate(ctx, goose.DialectPostgres, db, queries.PostgresMigrations, "postgres/schema", goose.WithSessionLocker(locker))
		db.Close()
		if err != nil {
			pool.Close()
			return nil, err
		}
	}
	return &postgresStore{pool: pool, q: pgdb.New(), lockCheck: cmp.Or(opts.LockCheck, DefaultLockCheck)}, nil
}

func (s *postgresStore) Engine() string                 { return "postgres" }
func (s *postgresStore) Ping(ctx context.Context) error { return s.pool.Ping(ctx) }

// Close releases the leases still held (their locks go with their connections anyway), then closes the pool.
func (s *postgresStore) Close() error {
	s.leasesMu.Lock()
	held := make([]*Lease, 0, len(s.leases))
	for l := range s.leases {
		held = append(held, l)
	}
	s.leasesMu.Unlock()
	for _, l := range held {
		l.Release()
	}
	s.pool.Close()
	return nil
}

func (s *postgresStore) RecordCheck(ctx context.Context, c Check) (Check, error) {
	return s.RecordCheckResult(ctx, CheckResult{Check: c})
}

func (s *postgresStore) LatestChecks(ctx context.Context) ([]Check, error) {
	rows, err := s.q.LatestCheckPerProvider(ctx, s.pool)
	if err != nil {
		return nil, fmt.Errorf("reading latest checks: %w", err)
	}
	return convertRows(rows, func(r pgdb.Check) Check { return checkRow(r).check() }), nil
}

func (s *postgresStore) ChecksSince(ctx context.Context, providerID string, since time.Time, limit int) ([]Check, error) {
	rows, err := s.q.ChecksSince(ctx, s.pool, pgdb.ChecksSinceParams{
		ProviderID: providerID, Since: normTime(since), MaxRows: int32(clampLimit(limit)),
	})
	if err != nil {
		return nil, fmt.Errorf("reading checks of %s: %w", providerID, err)
	}
	return convertRows(rows, func(r pgdb.Check) Check { return checkRow(r).check() }), nil
}

func (s *postgresStore) DeleteChecksBefore(ctx context.Context, before time.Time) (int64, error) {
	n, err := s.q.DeleteChecksBefore(ctx, s.pool, normTime(before))
	if err != nil {
		return 0, fmt.Errorf("deleting old checks: %w", err)
	}
	return n, nil
}

func (s *postgresStore) CreateTrustRecord(ctx context.Context, r TrustRecord) error {
	if err := validateTrust(r); err != nil {
		return err
	}
	err := s.q.InsertTrustRecord(ctx, s.pool, pgdb.InsertTrustRecordParams{
		ID: r.ID, Kind: string(r.Kind), CreatedAt: normTime(r.CreatedAt), ProviderID: r.ProviderID, Model: r.Model,
		PayloadHash: r.PayloadHash, AgentID: r.AgentID, FromAgent: r.FromAgent, ToAgent: r.ToAgent,
		TaskID: r.TaskID, ContextHash: r.ContextHash, Creator: r.Creator,
	})
	if err != nil {
		return fmt.Errorf("storing %s: %w", r.Kind, err)
	}
	return nil
}

func (s *postgresStore) GetTrustRecord(ctx context.Context, id string) (TrustRecord, error) {
	row, err := s.q.GetTrustRecord(ctx, s.pool, id)
	if errors.Is(err, pgx.ErrNoRows) {
		return TrustRecord{}, ErrNotFound
	}
	if err != nil {
		return TrustRecord{}, fmt.Errorf("reading trust record: %w", err)
	}
	return trustRow(row).record(), nil
}
