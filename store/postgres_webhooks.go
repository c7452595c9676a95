package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/switchboard/switchboard/gen/pgdb"
)

// pgWebhookTx runs the webhook writes inside one PostgreSQL transaction.
type pgWebhookTx struct {
	q  *pgdb.Queries
	tx pgx.Tx
}

func (s *postgresStore) inTx(ctx context.Context, what string, fn func(tx pgx.Tx) error) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) // a no-op after Commit
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

func (t pgWebhookTx) lockCursor(ctx context.Context) (int64, bool, error) {
	rows, err := t.q.LockWebhookCursor(ctx, t.tx)
	if err != nil || len(rows) == 0 {
		return 0, false, err
	}
	return rows[0], true, nil
}

func (t pgWebhookTx) setCursor(ctx context.Context, id int64) error {
	return t.q.SetWebhookCursor(ctx, t.tx, id)
}

func (t pgWebhookTx) unfannedEvents(ctx context.Context, after int64, limit int) ([]OutboxEvent, error) {
	rows, err := t.q.UnfannedOutboxEvents(ctx, t.tx, pgdb.UnfannedOutboxEventsParams{AfterID: after, MaxRows: int32(limit)})
	if err != nil {
		return nil, err
	}
	return convertRows(rows, func(r pgdb.Outbox) OutboxEvent { return outboxRow(r).event() }), nil
}

func (t pgWebhookTx) insertDeliveries(ctx context.Context, e OutboxEvent, now time.Time, priority int64) (int64, error) {
	return t.q.InsertWebhookDeliveries(ctx, t.tx, pgdb.InsertWebhookDeliveriesParams{
		EventID: e.ID, Now: now, Priority: priority, EventCreatedAt: normTime(e.CreatedAt), EventNeedle: needle(e.Type), ProviderNeedle: needle(e.ProviderID),
	})
}

func (t pgWebhookTx) markFanned(ctx context.Context, eventID int64, at time.Time) error {
	return t.q.MarkWebhookEventFanned(ctx, t.tx, pgdb.MarkWebhookEventFannedParams{EventID: eventID, FannedAt: at})
}

func (t pgWebhookTx) fannedAfter(ctx context.Context, after int64, limit int) ([]fannedEvent, error) {
	rows, err := t.q.FannedWebhookEventsAfter(ctx, t.tx, pgdb.FannedWebhookEventsAfterParams{AfterID: after, MaxRows: int32(limit)})
	if err != nil {
		return nil, err
	}
	return convertRows(rows, func(r pgdb.WebhookFannedEvent) fannedEvent { return fannedEvent{r.EventID, r.FannedAt.UTC()} }), nil
}

func (t pgWebhookTx) deleteFannedThrough(ctx context.Context, id int64) error {
	return t.q.DeleteFannedWebhookEvents(ctx, t.tx, id)
}

// A run of successes is two statements whatever its length: outcomes of thousands of deliveries finish in a
// few round trips.
func (t pgWebhookTx) markSucceeded(ctx context.Context, as []WebhookAttempt) error {
	p := pgdb.MarkWebhookDeliveriesSucceededParams{Ids: make([]int64, len(as)), Ats: make([]time.Time, len(as)), Statuses: make([]int64, len(as))}
	for i, a := range as {
		p.Ids[i], p.Ats[i] = a.DeliveryID, a.At
		if a.HTTPStatus != nil {
			p.Statuses[i] = *a.HTTPStatus
		}
	}
	return t.q.MarkWebhookDeliveriesSucceeded(ctx, t.tx, p)
}

func (t pgWebhookTx) countSuccesses(ctx context.Context, runs []successRun) error {
	p := pgdb.CountWebhookSuccessesParams{Ids: make([]string, len(runs)), Counts: make([]int64, len(runs)), Ats: make([]time.Time, len(runs))}
	for i, r := range runs {
		p.Ids[i], p.Counts[i], p.Ats[i] = r.SubscriptionID, r.Count, r.Last
	}
	return t.q.CountWebhookSuccesses(ctx, t.tx, p)
}

func (t pgWebhookTx) markFailed(ctx context.Context, a WebhookAttempt) error {
	status, next, finished := failedStatus(a)
	return t.q.MarkWebhookDeliveryFailed(ctx, t.tx, pgdb.MarkWebhookDeliveryFailedParams{
		Status: string(status), At: &a.At, NextAttemptAt: next, FinishedAt: finished, LastError: &a.Error,
		LastStatus: a.HTTPStatus, ID: a.DeliveryID,
	})
}

func (t pgWebhookTx) countFailure(ctx context.Context, a WebhookAttempt) (int64, SubscriptionStatus, error) {
	r, err := t.q.CountWebhookFailure(ctx, t.tx, pgdb.CountWebhookFailureParams{LastError: &a.Error, At: &a.At, ID: a.SubscriptionID})
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, "", ErrNotFound
	}
	return r.ConsecutiveFailures, SubscriptionStatus(r.Status), err
}

func (t pgWebhookTx) deactivate(ctx context.Context, id string, reason DeactivationReason, at time.Time) (bool, error) {
	r := string(reason)
	n, err := t.q.DeactivateWebhookSubscription(ctx, t.tx, pgdb.DeactivateWebhookSubscriptionParams{Reason: &r, At: &at, ID: id})
	return n > 0, err
}

func (t pgWebhookTx) cancelDeliveries(ctx context.Context, ids []string, at time.Time) error {
	_, err := t.q.CancelWebhookDeliveries(ctx, t.tx, pgdb.CancelWebhookDeliveriesParams{At: &at, SubscriptionIds: ids})
	return err
}

func (t pgWebhookTx) markVerified(ctx context.Context, id string, at time.Time) error {
	_, err := t.q.MarkWebhookVerified(ctx, t.tx, pgdb.MarkWebhookVerifiedParams{At: &at, ID: id})
	return err
}

func (t pgWebhookTx) markVerifyFailed(ctx context.Context, id, msg string, next *time.Time) (int64, error) {
	return t.q.MarkWebhookVerifyFailed(ctx, t.tx, pgdb.MarkWebhookVerifyFailedParams{NextAt: next, LastError: &msg, ID: id})
}

func (t pgWebhookTx) countForLimits(ctx context.Context, creator *string, host string, l SubscriptionLimits) (byCreator, onHost, total int64, err error) {
	if l.MaxPerCreator > 0 && creator != nil {
		if byCreator, err = t.q.CountWebhookSubscriptionsByCreator(ctx, t.tx, pgdb.CountWebhookSubscriptionsByCreatorParams{Creator: *creator, Since: normTime(l.CreatorSince)}); err != nil {
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

// subscriptionCreationLockKey is the transaction advisory-lock key creations take turns on ("WhSubs" in ASCII).
const subscriptionCreationLockKey = 0x576853756273

func (s *postgresStore) CreateWebhookSubscription(ctx context.Context, sub WebhookSubscription, limits SubscriptionLimits) error {
	c, err := validateSubscription(sub)
	if err != nil {
		return err
	}
	return s.inTx(ctx, "storing webhook subscription", func(tx pgx.Tx) error {
		if limits != (SubscriptionLimits{}) {
			if err := s.q.LockWebhookSubscriptionCreation(ctx, tx, subscriptionCreationLockKey); err != nil {
				return fmt.Errorf("waiting for the webhook creation lock: %w", err)
			}
			if err := checkLimits(ctx, pgWebhookTx{s.q, tx}, sub, c.host, limits); err != nil {
				return err
			}
		}
		err := s.q.InsertWebhookSubscription(ctx, tx, pgdb.InsertWebhookSubscriptionParams{
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

func (s *postgresStore) GetWebhookSubscription(ctx context.Context, id string) (WebhookSubscription, error) {
	return s.getSubscription(ctx, s.pool, id)
}

func (s *postgresStore) getSubscription(ctx context.Context, db pgdb.DBTX, id string) (WebhookSubscription, error) {
	row, err := s.q.GetWebhookSubscription(ctx, db, id)
	if errors.Is(err, pgx.ErrNoRows) {
		return WebhookSubscription{}, ErrNotFound
	}
	if err != nil {
		return WebhookSubscription{}, fmt.Errorf("reading webhook subscription: %w", err)
	}
	return subscriptionRow(row).subscription()
}

func (s *postgresStore) DeactivateWebhookSubscription(ctx context.Context, id string, reason DeactivationReason, at time.Time) (WebhookSubscription, error) {
	var out WebhookSubscription
	err := s.inTx(ctx, "deactivating webhook subscription", func(tx pgx.Tx) error {
		if _, err := deactivate(ctx, pgWebhookTx{s.q, tx}, id, reason, at); err != nil {
			return err
		}
		var err error
		out, err = s.getSubscription(ctx, tx, id)
		return err
	})
	return out, err
}

func (s *postgresStore) ExpireWebhookSubscriptions(ctx context.Context, now time.Time, limit int) ([]string, error) {
	var ids []string
	err := s.inTx(ctx, "expiring webhook subscriptions", func(tx pgx.Tx) error {
		n := normTime(now)
		var err error
		ids, err = s.q.ExpireWebhookSubscriptions(ctx, tx, pgdb.ExpireWebhookSubscriptionsParams{Now: &n, MaxRows: int32(clampLimit(limit))})
		if err != nil {
			return fmt.Errorf("expiring webhook subscriptions: %w", err)
		}
		if len(ids) == 0 {
			return nil
		}
		if err := (pgWebhookTx{s.q, tx}).cancelDeliveries(ctx, ids, n); err != nil {
			return fmt.Errorf("cancelling deliveries of expired subscriptions: %w", err)
		}
		return nil
	})
	return ids, err
}

func (s *postgresStore) FanOutWebhookEvents(ctx context.Context, now time.Time, opts FanOutOptions) (FanOutResult, error) {
	var res FanOutResult
	err := s.inTx(ctx, "fanning out webhook events", func(tx pgx.Tx) error {
		var err error
		res, err = fanOut(ctx, pgWebhookTx{s.q, tx}, now, opts)
		return err
	})
	return res, err
}

func (s *postgresStore) ClaimWebhookDeliveries(ctx context.Context, now, leaseUntil time.Time, limit int, opts ClaimOptions) ([]WebhookSend, error) {
	limit, perHost := clampLimit(limit), max(opts.PerHost, 1)
	rows, err := s.q.ClaimWebhookDeliveries(ctx, s.pool, pgdb.ClaimWebhookDeliveriesParams{
		Now: normTime(now), ExcludeHosts: excludeList(opts.ExcludeHosts), ScanRows: int32(claimScanRows(limit, perHost)),
		PerHost: int64(perHost), MaxRows: int32(limit), LockedUntil: normTime(leaseUntil),
	})
	if err != nil {
		return nil, fmt.Errorf("claiming webhook deliveries: %w", err)
	}
	return convertRows(rows, func(r pgdb.ClaimWebhookDeliveriesRow) WebhookSend { return sendRow(r).send() }), nil
}

func (s *postgresStore) ClaimWebhookVerifications(ctx context.Context, now, leaseUntil time.Time, limit int, excludeHosts []string) ([]WebhookVerification, error) {
	limit = clampLimit(limit)
	rows, err := s.q.ClaimWebhookVerifications(ctx, s.pool, pgdb.ClaimWebhookVerificationsParams{
		LeaseUntil: normTime(leaseUntil), Now: normTime(now), ExcludeHosts: excludeList(excludeHosts),
		ScanRows: int32(claimScanRows(limit, 1)), MaxRows: int32(limit),
	})
	if err != nil {
		return nil, fmt.Errorf("claiming webhook verifications: %w", err)
	}
	return convertRows(rows, func(r pgdb.ClaimWebhookVerificationsRow) WebhookVerification {
		return WebhookVerification{SubscriptionID: r.ID, CallbackURL: r.CallbackUrl, CallbackHost: r.CallbackHost, Secret: r.Secret, Attempts: r.VerifyAttempts}
	}), nil
}

func (s *postgresStore) RecordWebhookVerification(ctx context.Context, r WebhookVerificationResult) (bool, error) {
	var done bool
	err := s.inTx(ctx, "recording a webhook verification", func(tx pgx.Tx) error {
		var err error
		done, err = recordVerification(ctx, pgWebhookTx{s.q, tx}, r)
		return err
	})
	return done, err
}

func (s *postgresStore) RecordWebhookAttempts(ctx context.Context, attempts []WebhookAttempt) ([]WebhookAttemptResult, error) {
	if len(attempts) == 0 {
		return nil, nil
	}
	var out []WebhookAttemptResult
	err := s.inTx(ctx, "recording webhook attempts", func(tx pgx.Tx) error {
		var err error
		out, err = recordAttempts(ctx, pgWebhookTx{s.q, tx}, attempts)
		return err
	})
	return out, err
}

func (s *postgresStore) WebhookDeliveries(ctx context.Context, subscriptionID string, limit int) ([]WebhookDelivery, error) {
	rows, err := s.q.ListWebhookDeliveries(ctx, s.pool, pgdb.ListWebhookDeliveriesParams{SubscriptionID: subscriptionID, MaxRows: int32(clampLimit(limit))})
	if err != nil {
		return nil, fmt.Errorf("reading webhook deliveries: %w", err)
	}
	return convertRows(rows, func(r pgdb.WebhookDelivery) WebhookDelivery { return deliveryRow(r).delivery() }), nil
}

func (s *postgresStore) PruneWebhookDeliveries(ctx context.Context, before time.Time, limit int) (int64, error) {
	b := normTime(before)
	n, err := s.q.PruneWebhookDeliveries(ctx, s.pool, pgdb.PruneWebhookDeliveriesParams{Before: &b, MaxRows: int32(clampLimit(limit))})
	if err != nil {
		return 0, fmt.Errorf("pruning webhook deliveries: %w", err)
	}
	return n, nil
}

func (s *postgresStore) SealWebhookSecrets(ctx context.Context, seal func(id, secret string) (string, error), limit int) (int, error) {
	var n int
	err := s.inTx(ctx, "sealing webhook secrets", func(tx pgx.Tx) error {
		rows, err := s.q.PlainWebhookSecrets(ctx, tx, int32(clampLimit(limit)))
		if err != nil {
			return fmt.Errorf("reading webhook secrets: %w", err)
		}
		n, err = sealSecrets(convertRows(rows, func(r pgdb.PlainWebhookSecretsRow) secretToSeal { return secretToSeal(r) }), seal,
			func(id string, sealed, plain *string) (int64, error) {
				return s.q.ReplaceWebhookSecret(ctx, tx, pgdb.ReplaceWebhookSecretParams{Sealed: sealed, ID: id, Plain: plain})
			})
		return err
	})
	return n, err
}
