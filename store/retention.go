package store

import (
	"context"
	"fmt"
	"time"

	"github.com/switchboard/switchboard/gen/litedb"
	"github.com/switchboard/switchboard/gen/pgdb"
)

// RetentionStore counts what a client created, for the creation quotas, and purges what is past its retention.
// Purges are bounded: one call deletes at most max rows, the oldest first, so a large backlog is worked off in
// short statements that never hold the database (SQLite's single writer above all) for long.
type RetentionStore interface {
	// CountTrustRecordsByCreator counts the attestations and handoffs creator made at or after since.
	CountTrustRecordsByCreator(ctx context.Context, creator string, since time.Time) (int64, error)
	// DeleteTrustRecordsBefore removes at most max attestations and handoffs created before before and reports
	// how many went.
	DeleteTrustRecordsBefore(ctx context.Context, before time.Time, max int) (int64, error)
	// DeleteDeactivatedSubscriptionsBefore removes at most max webhook subscriptions deactivated before before,
	// with their deliveries, and reports how many went. Active subscriptions are never touched.
	DeleteDeactivatedSubscriptionsBefore(ctx context.Context, before time.Time, max int) (int64, error)
}

// MaxPurge bounds one purge call when max is not positive or larger.
const MaxPurge = 1000

func purgeLimit(max int) int64 {
	if max <= 0 || max > MaxPurge {
		return MaxPurge
	}
	return int64(max)
}

func (s *sqliteStore) CountTrustRecordsByCreator(ctx context.Context, creator string, since time.Time) (int64, error) {
	n, err := s.q.CountTrustRecordsByCreator(ctx, s.db, litedb.CountTrustRecordsByCreatorParams{Creator: &creator, Since: normTime(since)})
	if err != nil {
		return 0, fmt.Errorf("counting a client's trust records: %w", err)
	}
	return n, nil
}

func (s *sqliteStore) DeleteTrustRecordsBefore(ctx context.Context, before time.Time, max int) (int64, error) {
	n, err := s.q.DeleteTrustRecordsBefore(ctx, s.db, litedb.DeleteTrustRecordsBeforeParams{Before: normTime(before), MaxRows: purgeLimit(max)})
	if err != nil {
		return 0, fmt.Errorf("purging old trust records: %w", err)
	}
	return n, nil
}

func (s *sqliteStore) DeleteDeactivatedSubscriptionsBefore(ctx context.Context, before time.Time, max int) (int64, error) {
	n, err := s.q.DeleteDeactivatedSubscriptionsBefore(ctx, s.db, litedb.DeleteDeactivatedSubscriptionsBeforeParams{Before: ptrTime(normTime(before)), MaxRows: purgeLimit(max)})
	if err != nil {
		return 0, fmt.Errorf("purging deactivated webhook subscriptions: %w", err)
	}
	return n, nil
}

func (s *postgresStore) CountTrustRecordsByCreator(ctx context.Context, creator string, since time.Time) (int64, error) {
	n, err := s.q.CountTrustRecordsByCreator(ctx, s.pool, pgdb.CountTrustRecordsByCreatorParams{Creator: &creator, Since: normTime(since)})
	if err != nil {
		return 0, fmt.Errorf("counting a client's trust records: %w", err)
	}
	return n, nil
}

func (s *postgresStore) DeleteTrustRecordsBefore(ctx context.Context, before time.Time, max int) (int64, error) {
	n, err := s.q.DeleteTrustRecordsBefore(ctx, s.pool, pgdb.DeleteTrustRecordsBeforeParams{Before: normTime(before), MaxRows: int32(purgeLimit(max))})
	if err != nil {
		return 0, fmt.Errorf("purging old trust records: %w", err)
	}
	return n, nil
}

func (s *postgresStore) DeleteDeactivatedSubscriptionsBefore(ctx context.Context, before time.Time, max int) (int64, error) {
	n, err := s.q.DeleteDeactivatedSubscriptionsBefore(ctx, s.pool, pgdb.DeleteDeactivatedSubscriptionsBeforeParams{Before: ptrTime(normTime(before)), MaxRows: int32(purgeLimit(max))})
	if err != nil {
		return 0, fmt.Errorf("purging deactivated webhook subscriptions: %w", err)
	}
	return n, nil
}

func ptrTime(t time.Time) *time.Time { return &t }

func (e edge) CountTrustRecordsByCreator(ctx context.Context, creator string, since time.Time) (int64, error) {
	v, err := e.s.CountTrustRecordsByCreator(ctx, creator, since)
	return v, atEdge(err)
}

func (e edge) DeleteTrustRecordsBefore(ctx context.Context, before time.Time, max int) (int64, error) {
	v, err := e.s.DeleteTrustRecordsBefore(ctx, before, max)
	return v, atEdge(err)
}

func (e edge) DeleteDeactivatedSubscriptionsBefore(ctx context.Context, before time.Time, max int) (int64, error) {
	v, err := e.s.DeleteDeactivatedSubscriptionsBefore(ctx, before, max)
	return v, atEdge(err)
}
