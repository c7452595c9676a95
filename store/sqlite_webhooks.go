package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/switchboard/switchboard/gen/litedb"
)

// liteWebhookTx runs the webhook writes inside one SQLite transaction. SQLite transactions here begin
// IMMEDIATE (see sqliteDSN), so a transaction holds the single write lock from its start: the fan-out cursor
// needs no lock of its own, and claims never overlap.
type liteWebhookTx struct {
	q  *litedb.Queries
	tx *sql.Tx
}

func (s *sqliteStore) inTx(ctx context.Context, what string, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	defer tx.Rollback() // a no-op after Commit
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

func (t liteWebhookTx) lockCursor(ctx context.Context) (int64, bool, error) {
	c, err := t.q.GetWebhookCursor(ctx, t.tx)
	return c, err == nil, err
}

func (t liteWebhookTx) setCursor(ctx context.Context, id int64) error {
	return t.q.SetWebhookCursor(ctx, t.tx, id)
}

func (t liteWebhookTx) unfannedEvents(ctx context.Context, after int64, limit int) ([]OutboxEvent, error) {
	rows, err := t.q.UnfannedOutboxEvents(ctx, t.tx, litedb.UnfannedOutboxEventsParams{AfterID: after, MaxRows: int64(limit)})
	if err != nil {
		return nil, err
	}
	return convertRows(rows, func(r litedb.Outbox) OutboxEvent { return outboxRow(r).event() }), nil
}

func (t liteWebhookTx) insertDeliveries(ctx context.Context, e OutboxEvent, now time.Time, priority int64) (int64, error) {
	return t.q.InsertWebhookDeliveries(ctx, t.tx, litedb.InsertWebhookDeliveriesParams{
		EventID: e.ID, Now: now, Priority: priority, EventCreatedAt: normTime(e.CreatedAt), EventNeedle: needle(e.Type), ProviderNeedle: needle(e.ProviderID),
	})
}

func (t liteWebhookTx) markFanned(ctx context.Context, eventID int64, at time.Time) error {
	return t.q.MarkWebhookEventFanned(ctx, t.tx, litedb.MarkWebhookEventFannedParams{EventID: eventID, FannedAt: at})
}

func (t liteWebhookTx) fannedAfter(ctx context.Context, after int64, limit int) ([]fannedEvent, error) {
	rows, err := t.q.FannedWebhookEventsAfter(ctx, t.tx, litedb.FannedWebhookEventsAfterParams{AfterID: after, MaxRows: int64(limit)})
	if err != nil {
		return nil, err
	}
	return convertRows(rows, func(r litedb.WebhookFannedEvent) fannedEvent { return fannedEvent{r.EventID, r.FannedAt.UTC()} }), nil
}

func (t liteWebhookTx) deleteFannedThrough(ctx context.Context, id int64) error {
	return t.q.DeleteFannedWebhookEvents(ctx, t.tx, id)
}

// SQLite runs in this process: a statement per row costs no round trip.
func (t liteWebhookTx) markSucceeded(ctx context.Context, as []WebhookAttempt) error {
	for _, a := range as {
		if err := t.q.MarkWebhookDeliverySucceeded(ctx, t.tx, litedb.MarkWebhookDeliverySucceededParams{At: &a.At, LastStatus: a.HTTPStatus, ID: a.DeliveryID}); err != nil {
			return err
		}
	}
	return nil
}

func (t liteWebhookTx) countSuccesses(ctx context.Context, runs []successRun) error {
	for _, r := range runs {
		if err := t.q.CountWebhookSuccess(ctx, t.tx, litedb.CountWebhookSuccessParams{N: r.Count, At: &r.Last, ID: r.SubscriptionID}); err != nil {
			return err
		}
	}
	return nil
}

func (t liteWebhookTx) markFailed(ctx context.Context, a WebhookAttempt) error {
	status, next, finished := failedStatus(a)
	return t.q.MarkWebhookDeliveryFailed(ctx, t.tx, litedb.MarkWebhookDeliveryFailedParams{
		Status: string(status), At: &a.At, NextAttemptAt: next, FinishedAt: finished, LastError: &a.Error,
		LastStatus: a.HTTPStatus, ID: a.DeliveryID,
	})
}

func (t liteWebhookTx) countFailure(ctx context.Context, a WebhookAttempt) (int64, SubscriptionStatus, error) {
	r, err := t.q.CountWebhookFailure(ctx, t.tx, litedb.CountWebhookFailureParams{LastError: &a.Error, At: &a.At, ID: a.SubscriptionID})
	if errors.Is(err, sql.ErrNoRows) {
		return 0, "", ErrNotFound
	}
	return r.ConsecutiveFailures, SubscriptionStatus(r.Status), err
}

func (t liteWebhookTx) deactivate(ctx context.Context, id string, reason DeactivationReason, at time.Time) (bool, error) {
	r := string(reason)
	n, err := t.q.DeactivateWebhookSubscription(ctx, t.tx, litedb.DeactivateWebhookSubscriptionParams{Reason: &r, At: &at, ID: id})
	return n > 0, err
}

func (t liteWebhookTx) cancelDeliveries(ctx context.Context, ids []string, at time.Time) error {
	_, err := t.q.CancelWebhookDeliveries(ctx, t.tx, litedb.CancelWebhookDeliveriesParams{At: &at, SubscriptionIds: ids})
	return err
}

func (t liteWebhookTx) markVerified(ctx context.Context, id string, at time.Time) error {
	_, err := t.q.MarkWebhookVerified(ctx, t.tx, litedb.MarkWebhookVerifiedParams{At: &at, ID: id})
	return err
}

func (t liteWebhookTx) markVerifyFailed(ctx context.Context, id, msg string, next *time.Time) (int64, error) {
	return t.q.MarkWebhookVerifyFailed(ctx, t.tx, litedb.MarkWebhookVerifyFailedParams{NextAt: next, LastError: &msg, ID: id})
}

func (t liteWebhookTx) countForLimits(ctx context.Context, creator *string, host string, l SubscriptionLimits) (byCreator, onHost, total int64, err error) {
	if l.MaxPerCreator > 0 && creator != nil {
		if byCreator, err = t.q.CountWebhookSubscriptionsByCreator(ctx, t.tx, litedb.CountWebhookSubscriptionsByCreatorParams{Creator: creator, Since: normTime(l.CreatorSince)}); err != nil {
			return 0, 0, 0, err
		}
	}
	if l.MaxPerHost > 0 {
		if onHost, err = t.q.CountLiveWebhookSubscriptionsForHost(ctx, t.tx, host); err != nil {
			return 0, 0, 0, err
		}
	}
	if l.MaxTotal > 0 {
		if total, err = t.q.CountLiveWebhookSubscriptions(ctx, t.tx); err != nil {
			return 0, 0, 0, err
		}
	}
	return byCreator, onHost, total, nil
}

// CreateWebhookSubscription counts and inserts in one IMMEDIATE transaction: SQLite's single writer makes
// creations take turns.
func (s *sqliteStore) CreateWebhookSubscription(ctx context.Context, sub WebhookSubscription, limits SubscriptionLimits) error {
	c, err := validateSubscription(sub)
	if err != nil {
		return err
	}
	return s.inTx(ctx, "storing webhook subscription", func(tx *sql.Tx) error {
		if err := checkLimits(ctx, liteWebhookTx{s.q, tx}, sub, c.host, limits); err != nil {
			return err
		}
		err := s.q.InsertWebhookSubscription(ctx, tx, litedb.InsertWebhookSubscriptionParams{
			ID: sub.ID, CallbackUrl: sub.CallbackURL, Events: c.events, Providers: c.providers, Secret: sub.Secret,
			Metadata: c.metadata, CreatedAt: normTime(sub.CreatedAt), ExpiresAt: normTimePtr(sub.ExpiresAt),
			CallbackHost: c.host, Creator: sub.Creator, ManageTokenHash: sub.ManageTokenHash,
			VerifiedAt: c.verifiedAt, VerifyNextAt: c.verifyNextAt,
		})
		if err != nil {
			return fmt.Errorf("storing webhook subscription: %w", err)
		}
		return nil
	})
}

func (s *sqliteStore) GetWebhookSubscription(ctx context.Context, id string) (WebhookSubscription, error) {
	return s.getSubscription(ctx, s.db, id)
}

func (s *sqliteStore) getSubscription(ctx context.Context, db litedb.DBTX, id string) (WebhookSubscription, error) {
	row, err := s.q.GetWebhookSubscription(ctx, db, id)
	if errors.Is(err, sql.ErrNoRows) {
		return WebhookSubscription{}, ErrNotFound
	}
	if err != nil {
		return WebhookSubscription{}, fmt.Errorf("reading webhook subscription: %w", err)
	}
	return subscriptionRow(row).subscription()
}

func (s *sqliteStore) DeactivateWebhookSubscription(ctx context.Context, id string, reason DeactivationReason, at time.Time) (WebhookSubscription, error) {
	var out WebhookSubscription
	err := s.inTx(ctx, "deactivating webhook subscription", func(tx *sql.Tx) error {
		if _, err := deactivate(ctx, liteWebhookTx{s.q, tx}, id, reason, at); err != nil {
			return err
		}
		var err error
		out, err = s.getSubscription(ctx, tx, id)
		return err
	})
	return out, err
}

func (s *sqliteStore) ExpireWebhookSubscriptions(ctx context.Context, now time.Time, limit int) ([]string, error) {
	var ids []string
	err := s.inTx(ctx, "expiring webhook subscriptions", func(tx *sql.Tx) error {
		n := normTime(now)
		var err error
		ids, err = s.q.ExpireWebhookSubscriptions(ctx, tx, litedb.ExpireWebhookSubscriptionsParams{Now: &n, MaxRows: int64(clampLimit(limit))})
		if err != nil {
			return fmt.Errorf("expiring webhook subscriptions: %w", err)
		}
		if len(ids) == 0 {
			return nil
		}
		if err := (liteWebhookTx{s.q, tx}).cancelDeliveries(ctx, ids, n); err != nil {
			return fmt.Errorf("cancelling deliveries of expired subscriptions: %w", err)
		}
		return nil
	})
	return ids, err
}

func (s *sqliteStore) FanOutWebhookEvents(ctx context.Context, now time.Time, opts FanOutOptions) (FanOutResult, error) {
	var res FanOutResult
	err := s.inTx(ctx, "fanning out webhook events", func(tx *sql.Tx) error {
		var err error
		res, err = fanOut(ctx, liteWebhookTx{s.q, tx}, now, opts)
		return err
	})
	return res, err
}

func (s *sqliteStore) ClaimWebhookDeliveries(ctx context.Context, now, leaseUntil time.Time, limit int, opts ClaimOptions) ([]WebhookSend, error) {
	var out []WebhookSend
	err := s.inTx(ctx, "claiming webhook deliveries", func(tx *sql.Tx) error {
		limit, perHost := clampLimit(limit), max(opts.PerHost, 1)
		due, err := s.q.DueWebhookDeliveries(ctx, tx, litedb.DueWebhookDeliveriesParams{
			Now: normTime(now), ExcludeHosts: jsonList(opts.ExcludeHosts), ScanRows: int64(claimScanRows(limit, perHost)),
		})
		if err != nil {
			return fmt.Errorf("reading due webhook deliveries: %w", err)
		}
		rows := make([]dueRow[int64], len(due))
		for i, d := range due {
			rows[i] = dueRow[int64]{d.ID, d.CallbackHost}
		}
		ids := pickRoundRobin(rows, perHost, limit)
		if len(ids) == 0 {
			return nil
		}
		until := normTime(leaseUntil)
		if err := s.q.LeaseWebhookDeliveries(ctx, tx, litedb.LeaseWebhookDeliveriesParams{LockedUntil: &until, Ids: ids}); err != nil {
			return fmt.Errorf("claiming webhook deliveries: %w", err)
		}
		sends, err := s.q.WebhookSendsByID(ctx, tx, ids)
		if err != nil {
			return fmt.Errorf("reading claimed webhook deliveries: %w", err)
		}
		out = convertRows(sends, func(r litedb.WebhookSendsByIDRow) WebhookSend { return sendRow(r).send() })
		return nil
	})
	return out, err
}

func (s *sqliteStore) ClaimWebhookVerifications(ctx context.Context, now, leaseUntil time.Time, limit int, excludeHosts []string) ([]WebhookVerification, error) {
	var out []WebhookVerification
	err := s.inTx(ctx, "claiming webhook verifications", func(tx *sql.Tx) error {
		limit = clampLimit(limit)
		n := normTime(now)
		due, err := s.q.DueWebhookVerifications(ctx, tx, litedb.DueWebhookVerificationsParams{
			Now: &n, ExcludeHosts: jsonList(excludeHosts), ScanRows: int64(claimScanRows(limit, 1)),
		})
		if err != nil {
			return fmt.Errorf("reading due webhook verifications: %w", err)
		}
		rows := make([]dueRow[string], len(due))
		for i, d := range due {
			rows[i] = dueRow[string]{d.ID, d.CreatorKey}
		}
		ids := pickRoundRobin(rows, 1, limit)
		if len(ids) == 0 {
			return nil
		}
		until := normTime(leaseUntil)
		leased, err := s.q.LeaseWebhookVerifications(ctx, tx, litedb.LeaseWebhookVerificationsParams{LeaseUntil: &until, Ids: ids})
		if err != nil {
			return fmt.Errorf("claiming webhook verifications: %w", err)
		}
		out = convertRows(leased, func(r litedb.LeaseWebhookVerificationsRow) WebhookVerification {
			return WebhookVerification{SubscriptionID: r.ID, CallbackURL: r.CallbackUrl, CallbackHost: r.CallbackHost, Secret: r.Secret, Attempts: r.VerifyAttempts}
		})
		return nil
	})
	return out, err
}

func (s *sqliteStore) RecordWebhookVerification(ctx context.Context, r WebhookVerificationResult) (bool, error) {
	var done bool
	err := s.inTx(ctx, "recording a webhook verification", func(tx *sql.Tx) error {
		var err error
		done, err = recordVerification(ctx, liteWebhookTx{s.q, tx}, r)
		return err
	})
	return done, err
}

func (s *sqliteStore) RecordWebhookAttempts(ctx context.Context, attempts []WebhookAttempt) ([]WebhookAttemptResult, error) {
	if len(attempts) == 0 {
		return nil, nil
	}
	var out []WebhookAttemptResult
	err := s.inTx(ctx, "recording webhook attempts", func(tx *sql.Tx) error {
		var err error
		out, err = recordAttempts(ctx, liteWebhookTx{s.q, tx}, attempts)
		return err
	})
	return out, err
}

func (s *sqliteStore) WebhookDeliveries(ctx context.Context, subscriptionID string, limit int) ([]WebhookDelivery, error) {
	rows, err := s.q.ListWebhookDeliveries(ctx, s.db, litedb.ListWebhookDeliveriesParams{SubscriptionID: subscriptionID, MaxRows: int64(clampLimit(limit))})
	if err != nil {
		return nil, fmt.Errorf("reading webhook deliveries: %w", err)
	}
	return convertRows(rows, func(r litedb.WebhookDelivery) WebhookDelivery { return deliveryRow(r).delivery() }), nil
}

func (s *sqliteStore) PruneWebhookDeliveries(ctx context.Context, before time.Time, limit int) (int64, error) {
	b := normTime(before)
	n, err := s.q.PruneWebhookDeliveries(ctx, s.db, litedb.PruneWebhookDeliveriesParams{Before: &b, MaxRows: int64(clampLimit(limit))})
	if err != nil {
		return 0, fmt.Errorf("pruning webhook deliveries: %w", err)
	}
	return n, nil
}

// jsonList is a list of hosts as the JSON array json_each reads: one parameter, however many hosts (a
// sqlc.slice would renumber the parameters after it).
func jsonList(hosts []string) string {
	b, _ := json.Marshal(append([]string{}, hosts...)) // never null
	return string(b)
}

func (s *sqliteStore) SealWebhookSecrets(ctx context.Context, seal func(id, secret string) (string, error), limit int) (int, error) {
	var n int
	err := s.inTx(ctx, "sealing webhook secrets", func(tx *sql.Tx) error {
		rows, err := s.q.PlainWebhookSecrets(ctx, tx, int64(clampLimit(limit)))
		if err != nil {
			return fmt.Errorf("reading webhook secrets: %w", err)
		}
		n, err = sealSecrets(convertRows(rows, func(r litedb.PlainWebhookSecretsRow) secretToSeal { return secretToSeal(r) }), seal,
			func(id string, sealed, plain *string) (int64, error) {
				return s.q.ReplaceWebhookSecret(ctx, tx, litedb.ReplaceWebhookSecretParams{Sealed: sealed, ID: id, Plain: plain})
			})
		return err
	})
	return n, err
}
