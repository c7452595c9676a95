package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/switchboard/switchboard/store"
)

// retention purges what clients created once it is past its retention: attestations and handoffs
// (SWITCHBOARD_TRUST_RETENTION) and webhook subscriptions deactivated long ago, with their deliveries
// (SWITCHBOARD_WEBHOOK_RETENTION). Every replica may run it: the deletes are idempotent.
type retention struct {
	store           store.Store
	trust, webhooks time.Duration
	log             *slog.Logger
}

// purgeBatches bounds one run: at most that many statements of store.MaxPurge rows per kind, so a backlog (a
// first run over a large table) is worked off over several runs instead of holding the database.
const purgeBatches = 100

// retentionEvery is the time between runs.
const retentionEvery = time.Hour

// once runs one purge at now and reports how many records of each kind went.
func (r retention) once(ctx context.Context, now time.Time) (trust, subscriptions int64, err error) {
	if trust, err = purge(ctx, r.store.DeleteTrustRecordsBefore, now.Add(-r.trust)); err != nil {
		return trust, 0, fmt.Errorf("purging attestations and handoffs: %w", err)
	}
	if subscriptions, err = purge(ctx, r.store.DeleteDeactivatedSubscriptionsBefore, now.Add(-r.webhooks)); err != nil {
		return trust, subscriptions, fmt.Errorf("purging deactivated webhook subscriptions: %w", err)
	}
	return trust, subscriptions, nil
}

func purge(ctx context.Context, del func(context.Context, time.Time, int) (int64, error), before time.Time) (int64, error) {
	var total int64
	for range purgeBatches {
		n, err := del(ctx, before, store.MaxPurge)
		total += n
		if err != nil || n < store.MaxPurge {
			return total, err
		}
	}
	return total, nil
}

// run purges at once and then every retentionEvery until ctx ends.
func (r retention) run(ctx context.Context) {
	t := time.NewTicker(retentionEvery)
	defer t.Stop()
	for {
		trust, subs, err := r.once(ctx, time.Now())
		switch {
		case err != nil && ctx.Err() == nil:
			r.log.Error("retention", "error", err)
		case trust+subs > 0:
			r.log.Info("retention: old records purged", "trust_records", trust, "webhook_subscriptions", subs)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
