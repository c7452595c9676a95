package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/switchboard/switchboard/gen/pgdb"
)

// pgTx runs the writes of RecordCheckResult inside one PostgreSQL transaction.
type pgTx struct {
	q  *pgdb.Queries
	tx pgx.Tx
}

func (t pgTx) insertCheck(ctx context.Context, c Check) (int64, error) {
	return t.q.InsertCheck(ctx, t.tx, pgdb.InsertCheckParams{
		ProviderID: c.ProviderID, CheckedAt: c.CheckedAt, Outcome: string(c.Outcome), FailureKind: c.FailureKind,
		ResponseTimeMs: c.ResponseTimeMs, HttpStatus: c.HTTPStatus, Detail: c.Detail,
	})
}

func (t pgTx) upsertState(ctx context.Context, s ProviderState) error {
	return t.q.UpsertProviderState(ctx, t.tx, pgdb.UpsertProviderStateParams{
		ProviderID: s.ProviderID, LastStatus: string(s.LastStatus), LastObservedAt: s.LastObservedAt, OpenIncidentID: s.OpenIncidentID,
	})
}

func (t pgTx) insertChange(ctx context.Context, c StatusChange) error {
	return t.q.InsertStatusChange(ctx, t.tx, pgdb.InsertStatusChangeParams{
		ProviderID: c.ProviderID, ChangedAt: c.ChangedAt, FromStatus: string(c.From), ToStatus: string(c.To), CheckID: c.CheckID,
	})
}

func (t pgTx) insertIncident(ctx context.Context, i Incident) error {
	return t.q.InsertIncident(ctx, t.tx, pgdb.InsertIncidentParams{
		ID: i.ID, ProviderID: i.ProviderID, Severity: string(i.Severity), StartedAt: i.StartedAt, EndedAt: i.EndedAt, Description: i.Description,
	})
}

func (t pgTx) updateIncident(ctx context.Context, i Incident) error {
	return t.q.UpdateIncident(ctx, t.tx, pgdb.UpdateIncidentParams{ID: i.ID, Severity: string(i.Severity), EndedAt: i.EndedAt, Description: i.Description})
}

func (t pgTx) insertEvent(ctx context.Context, e OutboxEvent) error {
	return t.q.InsertOutboxEvent(ctx, t.tx, pgdb.InsertOutboxEventParams{
		EventType: e.Type, ProviderID: e.ProviderID, Payload: string(e.Payload), CreatedAt: e.CreatedAt, CheckID: e.CheckID,
	})
}

func (s *postgresStore) RecordCheckResult(ctx context.Context, r CheckResult) (Check, error) {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return Check{}, fmt.Errorf("recording check: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	c, err := writeCheckResult(ctx, pgTx{q: s.q, tx: tx}, r)
	if err != nil {
		return Check{}, err
	}
	if err := tx.Commit(ctx); err != nil {
		return Check{}, fmt.Errorf("recording check of %s: %w", r.Check.ProviderID, err)
	}
	return c, nil
}

func (s *postgresStore) ProviderStates(ctx context.Context) ([]ProviderState, error) {
	rows, err := s.q.GetProviderStates(ctx, s.pool)
	if err != nil {
		return nil, fmt.Errorf("reading provider states: %w", err)
	}
	return convertRows(rows, func(r pgdb.ProviderState) ProviderState { return stateRow(r).state() }), nil
}

func (s *postgresStore) StatusChangesSince(ctx context.Context, since time.Time, limit int) ([]StatusChange, error) {
	rows, err := s.q.StatusChangesSince(ctx, s.pool, pgdb.StatusChangesSinceParams{Since: normTime(since), MaxRows: int32(clampLimit(limit))})
	if err != nil {
		return nil, fmt.Errorf("reading the changelog: %w", err)
	}
	return convertRows(rows, func(r pgdb.StatusChange) StatusChange { return changeRow(r).change() }), nil
}

func (s *postgresStore) IncidentsSince(ctx context.Context, since time.Time, limit int) ([]Incident, error) {
	rows, err := s.q.IncidentsSince(ctx, s.pool, pgdb.IncidentsSinceParams{Since: normTime(since), MaxRows: int32(clampLimit(limit))})
	if err != nil {
		return nil, fmt.Errorf("reading incidents: %w", err)
	}
	return convertRows(rows, func(r pgdb.Incident) Incident { return incidentRow(r).incident() }), nil
}

func (s *postgresStore) GetIncident(ctx context.Context, id string) (Incident, error) {
	row, err := s.q.GetIncident(ctx, s.pool, id)
	if errors.Is(err, pgx.ErrNoRows) {
		return Incident{}, ErrNotFound
	}
	if err != nil {
		return Incident{}, fmt.Errorf("reading incident: %w", err)
	}
	return incidentRow(row).incident(), nil
}

func (s *postgresStore) OutboxAfter(ctx context.Context, afterID int64, limit int) ([]OutboxEvent, error) {
	rows, err := s.q.OutboxAfter(ctx, s.pool, pgdb.OutboxAfterParams{AfterID: afterID, MaxRows: int32(clampLimit(limit))})
	if err != nil {
		return nil, fmt.Errorf("reading the outbox: %w", err)
	}
	return convertRows(rows, func(r pgdb.Outbox) OutboxEvent { return outboxRow(r).event() }), nil
}

func (s *postgresStore) DailyCheckCounts(ctx context.Context, since time.Time) ([]DayCount, error) {
	rows, err := s.q.DailyCheckCounts(ctx, s.pool, normTime(since))
	if err != nil {
		return nil, fmt.Errorf("counting checks per day: %w", err)
	}
	return convertRows(rows, func(r pgdb.DailyCheckCountsRow) DayCount { return dayRow(r).count() }), nil
}

// PollerLockKey is the advisory-lock key of the poller ("Switch" in ASCII) in the schema public; in another
// schema it is combined with the schema's name (SchemaLockKeySQL). Operators find the holder in pg_locks.
const PollerLockKey = 0x537769746368

func (s *postgresStore) TryPollerLock(ctx context.Context) (*Lease, error) {
	return s.tryAdvisoryLock(ctx, PollerLockKey, "poller")
}

// CatalogLockKey is the advisory-lock key of the catalog refresh ("Catalg" in ASCII), as PollerLockKey.
const CatalogLockKey = 0x436174616c67

func (s *postgresStore) TryCatalogLock(ctx context.Context) (*Lease, error) {
	return s.tryAdvisoryLock(ctx, CatalogLockKey, "catalog refresh")
}

// SchemaLockKeySQL is the advisory-lock key of $1 for the schema the store works in. Advisory locks are
// database-wide: without the schema in the key, services (or test runs) sharing a database in separate schemas
// would take each other's poller and refresh locks. The default schema keeps the key as it was, so replicas of
// an older version and this one still exclude each other during a rolling upgrade.
const SchemaLockKeySQL = "CASE WHEN current_schema() = 'public' THEN $1::bigint ELSE $1::bigint # (hashtext(current_schema())::bigint << 16) END"

// tryAdvisoryLock takes a session advisory lock without waiting: the lock lives on one connection, kept out of
// the pool until release, and goes with the connection if the process dies. While it is held, a watchdog checks
// that connection every lockCheck and closes the lease's Lost when it no longer answers.
func (s *postgresStore) tryAdvisoryLock(ctx context.Context, key int64, what string) (*Lease, error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("taking the %s lock: %w", what, err)
	}
	var held bool
	if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock("+SchemaLockKeySQL+")", key).Scan(&held); err != nil {
		conn.Release()
		return nil, fmt.Errorf("taking the %s lock: %w", what, err)
	}
	if !held {
		conn.Release()
		return nil, nil
	}
	lost := make(chan struct{})
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(s.lockCheck)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			// The bound is not the check interval: a ping slower than a short interval (a loaded machine) is not a
			// lost connection. A ping that times out does end it (pgx closes a connection cancelled mid-query).
			ctx, cancel := context.WithTimeout(context.Background(), lockPingTimeout)
			_, err := conn.Exec(ctx, "SELECT 1")
			cancel()
			if err != nil {
				close(lost)
				return
			}
		}
	}()
	lease := &Lease{lost: lost}
	lease.release = func() {
		s.leasesMu.Lock()
		delete(s.leases, lease)
		s.leasesMu.Unlock()
		close(stop)
		<-done // the watchdog no longer uses the connection
		select {
		case <-lost:
			// The connection is gone, and the lock with it: it must not go back to the pool.
			_ = conn.Conn().Close(context.Background())
			conn.Release()
			return
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		// A failed unlock is no loss: the session's locks go with the connection, which is released next.
		_, _ = conn.Exec(ctx, "SELECT pg_advisory_unlock("+SchemaLockKeySQL+")", key)
		conn.Release()
	}
	s.leasesMu.Lock()
	if s.leases == nil {
		s.leases = map[*Lease]struct{}{}
	}
	s.leases[lease] = struct{}{}
	s.leasesMu.Unlock()
	return lease, nil
}

// lockPingTimeout bounds the watchdog's check of a held lock's connection.
const lockPingTimeout = 5 * time.Second
