package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/switchboard/switchboard/errs"
)

// ErrUnavailable is the database failing to serve right now (PostgreSQL down or restarting, an SQLite disk full
// or read-only): the error vocabulary's kind, so the server's one mapping answers 503 with Retry-After.
var ErrUnavailable = errs.ErrUnavailable

// atEdge is the error a caller of the store sees: the store's own sentinels, a caller's context ending and the
// store's input errors as they are; a database that cannot serve as ErrUnavailable; anything else from a driver
// as text only. Nothing outside the store sees a driver's error type.
func atEdge(err error) error {
	switch {
	case err == nil, errors.Is(err, ErrNotFound), errors.Is(err, ErrNonceUsed), errors.Is(err, context.Canceled),
		errors.Is(err, context.DeadlineExceeded), errors.Is(err, ErrUnavailable):
		return err
	case IsUnavailable(err):
		return fmt.Errorf("%w: %v", ErrUnavailable, err) //nolint:errorlint // only the driver's text passes the edge, not its type
	case errors.As(err, new(*inputError)), errors.As(err, new(*LimitError)):
		return err
	}
	return fmt.Errorf("database: %v", err) //nolint:errorlint // only the driver's text passes the edge, not its type
}

// edge wraps an engine so that every error it returns passes atEdge (Open returns it).
type edge struct{ s Store }

var _ Store = edge{}

func (e edge) Engine() string { return e.s.Engine() }

func (e edge) Ping(ctx context.Context) error { return atEdge(e.s.Ping(ctx)) }

func (e edge) Close() error { return atEdge(e.s.Close()) }

func (e edge) RecordCheck(ctx context.Context, c Check) (Check, error) {
	v, err := e.s.RecordCheck(ctx, c)
	return v, atEdge(err)
}

func (e edge) LatestChecks(ctx context.Context) ([]Check, error) {
	v, err := e.s.LatestChecks(ctx)
	return v, atEdge(err)
}

func (e edge) ChecksSince(ctx context.Context, providerID string, since time.Time, limit int) ([]Check, error) {
	v, err := e.s.ChecksSince(ctx, providerID, since, limit)
	return v, atEdge(err)
}

func (e edge) DeleteChecksBefore(ctx context.Context, before time.Time) (int64, error) {
	v, err := e.s.DeleteChecksBefore(ctx, before)
	return v, atEdge(err)
}

func (e edge) RecordCheckResult(ctx context.Context, r CheckResult) (Check, error) {
	v, err := e.s.RecordCheckResult(ctx, r)
	return v, atEdge(err)
}

func (e edge) ProviderStates(ctx context.Context) ([]ProviderState, error) {
	v, err := e.s.ProviderStates(ctx)
	return v, atEdge(err)
}

func (e edge) StatusChangesSince(ctx context.Context, since time.Time, limit int) ([]StatusChange, error) {
	v, err := e.s.StatusChangesSince(ctx, since, limit)
	return v, atEdge(err)
}

func (e edge) IncidentsSince(ctx context.Context, since time.Time, limit int) ([]Incident, error) {
	v, err := e.s.IncidentsSince(ctx, since, limit)
	return v, atEdge(err)
}

func (e edge) GetIncident(ctx context.Context, id string) (Incident, error) {
	v, err := e.s.GetIncident(ctx, id)
	return v, atEdge(err)
}

func (e edge) OutboxAfter(ctx context.Context, afterID int64, limit int) ([]OutboxEvent, error) {
	v, err := e.s.OutboxAfter(ctx, afterID, limit)
	return v, atEdge(err)
}

func (e edge) DailyCheckCounts(ctx context.Context, since time.Time) ([]DayCount, error) {
	v, err := e.s.DailyCheckCounts(ctx, since)
	return v, atEdge(err)
}

func (e edge) TryPollerLock(ctx context.Context) (*Lease, error) {
	l, err := e.s.TryPollerLock(ctx)
	return l, atEdge(err)
}

func (e edge) TryCatalogLock(ctx context.Context) (*Lease, error) {
	l, err := e.s.TryCatalogLock(ctx)
	return l, atEdge(err)
}

func (e edge) SaveCatalogBuild(ctx context.Context, b CatalogBuild, events []CatalogEvent) (int64, error) {
	v, err := e.s.SaveCatalogBuild(ctx, b, events)
	return v, atEdge(err)
}

func (e edge) LatestCatalogBuild(ctx context.Context) (CatalogBuild, error) {
	v, err := e.s.LatestCatalogBuild(ctx)
	return v, atEdge(err)
}

func (e edge) HeldCatalogBuild(ctx context.Context) (CatalogBuild, error) {
	v, err := e.s.HeldCatalogBuild(ctx)
	return v, atEdge(err)
}

func (e edge) CatalogBuildByDigest(ctx context.Context, digest string) (CatalogBuild, error) {
	v, err := e.s.CatalogBuildByDigest(ctx, digest)
	return v, atEdge(err)
}

func (e edge) DecideCatalogBuild(ctx context.Context, digest string, approve bool, now time.Time) (CatalogBuild, error) {
	v, err := e.s.DecideCatalogBuild(ctx, digest, approve, now)
	return v, atEdge(err)
}

func (e edge) GetCatalogBuild(ctx context.Context, id int64) (CatalogBuild, error) {
	v, err := e.s.GetCatalogBuild(ctx, id)
	return v, atEdge(err)
}

func (e edge) CatalogEventsSince(ctx context.Context, since time.Time, limit int) ([]CatalogEvent, error) {
	v, err := e.s.CatalogEventsSince(ctx, since, limit)
	return v, atEdge(err)
}

func (e edge) CreateTrustRecord(ctx context.Context, r TrustRecord) error {
	return atEdge(e.s.CreateTrustRecord(ctx, r))
}

func (e edge) GetTrustRecord(ctx context.Context, id string) (TrustRecord, error) {
	v, err := e.s.GetTrustRecord(ctx, id)
	return v, atEdge(err)
}

func (e edge) CreateWebhookSubscription(ctx context.Context, s WebhookSubscription, l SubscriptionLimits) error {
	return atEdge(e.s.CreateWebhookSubscription(ctx, s, l))
}

func (e edge) GetWebhookSubscription(ctx context.Context, id string) (WebhookSubscription, error) {
	v, err := e.s.GetWebhookSubscription(ctx, id)
	return v, atEdge(err)
}

func (e edge) DeactivateWebhookSubscription(ctx context.Context, id string, reason DeactivationReason, at time.Time) (WebhookSubscription, error) {
	v, err := e.s.DeactivateWebhookSubscription(ctx, id, reason, at)
	return v, atEdge(err)
}

func (e edge) ExpireWebhookSubscriptions(ctx context.Context, now time.Time, limit int) ([]string, error) {
	v, err := e.s.ExpireWebhookSubscriptions(ctx, now, limit)
	return v, atEdge(err)
}

func (e edge) FanOutWebhookEvents(ctx context.Context, now time.Time, opts FanOutOptions) (FanOutResult, error) {
	v, err := e.s.FanOutWebhookEvents(ctx, now, opts)
	return v, atEdge(err)
}

func (e edge) ClaimWebhookDeliveries(ctx context.Context, now, leaseUntil time.Time, limit int, opts ClaimOptions) ([]WebhookSend, error) {
	v, err := e.s.ClaimWebhookDeliveries(ctx, now, leaseUntil, limit, opts)
	return v, atEdge(err)
}

func (e edge) ClaimWebhookVerifications(ctx context.Context, now, leaseUntil time.Time, limit int, excludeHosts []string) ([]WebhookVerification, error) {
	v, err := e.s.ClaimWebhookVerifications(ctx, now, leaseUntil, limit, excludeHosts)
	return v, atEdge(err)
}

func (e edge) SealWebhookSecrets(ctx context.Context, seal func(id, secret string) (string, error), limit int) (int, error) {
	v, err := e.s.SealWebhookSecrets(ctx, seal, limit)
	return v, atEdge(err)
}

func (e edge) RecordWebhookVerification(ctx context.Context, r WebhookVerificationResult) (bool, error) {
	v, err := e.s.RecordWebhookVerification(ctx, r)
	return v, atEdge(err)
}

func (e edge) RecordWebhookAttempts(ctx context.Context, attempts []WebhookAttempt) ([]WebhookAttemptResult, error) {
	v, err := e.s.RecordWebhookAttempts(ctx, attempts)
	return v, atEdge(err)
}

func (e edge) WebhookDeliveries(ctx context.Context, subscriptionID string, limit int) ([]WebhookDelivery, error) {
	v, err := e.s.WebhookDeliveries(ctx, subscriptionID, limit)
	return v, atEdge(err)
}

func (e edge) PruneWebhookDeliveries(ctx context.Context, before time.Time, limit int) (int64, error) {
	v, err := e.s.PruneWebhookDeliveries(ctx, before, limit)
	return v, atEdge(err)
}

func (e edge) ClaimPayment(ctx context.Context, p Payment) error {
	return atEdge(e.s.ClaimPayment(ctx, p))
}

func (e edge) ReleasePayment(ctx context.Context, nonce string) error {
	return atEdge(e.s.ReleasePayment(ctx, nonce))
}

func (e edge) FinishPayment(ctx context.Context, nonce string, state PaymentState, tx *string, at time.Time) error {
	return atEdge(e.s.FinishPayment(ctx, nonce, state, tx, at))
}

func (e edge) GetPayment(ctx context.Context, nonce string) (Payment, error) {
	v, err := e.s.GetPayment(ctx, nonce)
	return v, atEdge(err)
}
