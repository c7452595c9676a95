package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/switchboard/switchboard/gen/litedb"
)

// liteTx runs the writes of RecordCheckResult inside one SQLite transaction.
type liteTx struct {
	q  *litedb.Queries
	tx *sql.Tx
}

func (t liteTx) insertCheck(ctx context.Context, c Check) (int64, error) {
	return t.q.InsertCheck(ctx, t.tx, litedb.InsertCheckParams{
		ProviderID: c.ProviderID, CheckedAt: c.CheckedAt, Outcome: string(c.Outcome), FailureKind: c.FailureKind,
		ResponseTimeMs: c.ResponseTimeMs, HttpStatus: c.HTTPStatus, Detail: c.Detail,
	})
}

func (t liteTx) upsertState(ctx context.Context, s ProviderState) error {
	return t.q.UpsertProviderState(ctx, t.tx, litedb.UpsertProviderStateParams{
		ProviderID: s.ProviderID, LastStatus: string(s.LastStatus), LastObservedAt: s.LastObservedAt, OpenIncidentID: s.OpenIncidentID,
	})
}

func (t liteTx) insertChange(ctx context.Context, c StatusChange) error {
	return t.q.InsertStatusChange(ctx, t.tx, litedb.InsertStatusChangeParams{
		ProviderID: c.ProviderID, ChangedAt: c.ChangedAt, FromStatus: string(c.From), ToStatus: string(c.To), CheckID: c.CheckID,
	})
}

func (t liteTx) insertIncident(ctx context.Context, i Incident) error {
	return t.q.InsertIncident(ctx, t.tx, litedb.InsertIncidentParams{
		ID: i.ID, ProviderID: i.ProviderID, Severity: string(i.Severity), StartedAt: i.StartedAt, EndedAt: i.EndedAt, Description: i.Description,
	})
}

func (t liteTx) updateIncident(ctx context.Context, i Incident) error {
	return t.q.UpdateIncident(ctx, t.tx, litedb.UpdateIncidentParams{ID: i.ID, Severity: string(i.Severity), EndedAt: i.EndedAt, Description: i.Description})
}

func (t liteTx) insertEvent(ctx context.Context, e OutboxEvent) error {
	return t.q.InsertOutboxEvent(ctx, t.tx, litedb.InsertOutboxEventParams{
		EventType: e.Type, ProviderID: e.ProviderID, Payload: string(e.Payload), CreatedAt: e.CreatedAt, CheckID: e.CheckID,
	})
}

func (s *sqliteStore) RecordCheckResult(ctx context.Context, r CheckResult) (Check, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Check{}, fmt.Errorf("recording check: %w", err)
	}
	defer tx.Rollback() // a no-op after Commit
	c, err := writeCheckResult(ctx, liteTx{q: s.q, tx: tx}, r)
	if err != nil {
		return Check{}, err
	}
	if err := tx.Commit(); err != nil {
		return Check{}, fmt.Errorf("recording check of %s: %w", r.Check.ProviderID, err)
	}
	return c, nil
}

func (s *sqliteStore) ProviderStates(ctx context.Context) ([]ProviderState, error) {
	rows, err := s.q.GetProviderStates(ctx, s.db)
	if err != nil {
		return nil, fmt.Errorf("reading provider states: %w", err)
	}
	return convertRows(rows, func(r litedb.ProviderState) ProviderState { return stateRow(r).state() }), nil
}

func (s *sqliteStore) StatusChangesSince(ctx context.Context, since time.Time, limit int) ([]StatusChange, error) {
	rows, err := s.q.StatusChangesSince(ctx, s.db, litedb.StatusChangesSinceParams{Since: normTime(since), MaxRows: int64(clampLimit(limit))})
	if err != nil {
		return nil, fmt.Errorf("reading the changelog: %w", err)
	}
	return convertRows(rows, func(r litedb.StatusChange) StatusChange { return changeRow(r).change() }), nil
}

func (s *sqliteStore) IncidentsSince(ctx context.Context, since time.Time, limit int) ([]Incident, error) {
	rows, err := s.q.IncidentsSince(ctx, s.db, litedb.IncidentsSinceParams{Since: normTime(since), MaxRows: int64(clampLimit(limit))})
	if err != nil {
		return nil, fmt.Errorf("reading incidents: %w", err)
	}
	return convertRows(rows, func(r litedb.Incident) Incident { return incidentRow(r).incident() }), nil
}

func (s *sqliteStore) GetIncident(ctx context.Context, id string) (Incident, error) {
	row, err := s.q.GetIncident(ctx, s.db, id)
	if errors.Is(err, sql.ErrNoRows) {
		return Incident{}, ErrNotFound
	}
	if err != nil {
		return Incident{}, fmt.Errorf("reading incident: %w", err)
	}
	return incidentRow(row).incident(), nil
}

func (s *sqliteStore) OutboxAfter(ctx context.Context, afterID int64, limit int) ([]OutboxEvent, error) {
	rows, err := s.q.OutboxAfter(ctx, s.db, litedb.OutboxAfterParams{AfterID: afterID, MaxRows: int64(clampLimit(limit))})
	if err != nil {
		return nil, fmt.Errorf("reading the outbox: %w", err)
	}
	return convertRows(rows, func(r litedb.Outbox) OutboxEvent { return outboxRow(r).event() }), nil
}

func (s *sqliteStore) DailyCheckCounts(ctx context.Context, since time.Time) ([]DayCount, error) {
	rows, err := s.q.DailyCheckCounts(ctx, s.db, normTime(since))
	if err != nil {
		return nil, fmt.Errorf("counting checks per day: %w", err)
	}
	return convertRows(rows, func(r litedb.DailyCheckCountsRow) DayCount { return dayRow(r).count() }), nil
}

func (s *sqliteStore) TryPollerLock(context.Context) (*Lease, error) { return heldForever(), nil }
