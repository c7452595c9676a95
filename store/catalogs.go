package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// CatalogStore keeps what the run-time catalog refresh makes: the newest catalog builds, which replicas load, and
// the change feed of catalog events, which is also queued for webhook subscribers.
type CatalogStore interface {
	// TryCatalogLock makes this process the one that refreshes the catalogs among replicas, as TryPollerLock
	// does for polling. SQLite serves one process: always held.
	TryCatalogLock(ctx context.Context) (held bool, release func(), err error)
	// SaveCatalogBuild stores a build with its events in one transaction: the events go to the change feed and
	// to the webhook outbox together, and events older than CatalogEventRetention go. It returns the build's ID.
	SaveCatalogBuild(ctx context.Context, b CatalogBuild, events []CatalogEvent) (int64, error)
	// LatestCatalogBuild returns the newest build without its files, or ErrNotFound when none was made.
	LatestCatalogBuild(ctx context.Context) (CatalogBuild, error)
	// GetCatalogBuild returns one build with its files, or ErrNotFound.
	GetCatalogBuild(ctx context.Context, id int64) (CatalogBuild, error)
	// CatalogEventsSince returns catalog events at or after since, newest first, at most limit.
	CatalogEventsSince(ctx context.Context, since time.Time, limit int) ([]CatalogEvent, error)
}

// CatalogEventRetention is how long catalog events are kept: longer than the longest window the change feed
// serves (90 days).
const CatalogEventRetention = 180 * 24 * time.Hour

// MaxCatalogEvents bounds the events of one build: a source that renames every model would otherwise flood the
// feed and every subscriber. The refresh keeps the first ones in its order and logs the rest as dropped.
const MaxCatalogEvents = 2000

// CatalogBuild is one refreshed set of catalogs.
type CatalogBuild struct {
	ID int64
	// Digest is the set's digest (seeds.Set.Digest); Base the digest of the embedded set it was built from.
	Digest, Base string
	// Files is the gzip-compressed JSON object of every catalog file (name -> file); nil from LatestCatalogBuild.
	Files     []byte
	Events    int
	CreatedAt time.Time
}

// CatalogEvent is one change a refresh found.
type CatalogEvent struct {
	ID         int64
	BuildID    int64
	Type       string
	ProviderID string
	ModelID    string
	Payload    json.RawMessage
	CreatedAt  time.Time
}

// catalogTx are the writes of SaveCatalogBuild inside a transaction, per engine.
type catalogTx interface {
	insertBuild(ctx context.Context, b CatalogBuild) (int64, error)
	pruneBuilds(ctx context.Context) error
	insertCatalogEvent(ctx context.Context, e CatalogEvent) (int64, error)
	insertEvent(ctx context.Context, e OutboxEvent) error
	deleteCatalogEventsBefore(ctx context.Context, before time.Time) error
}

func writeCatalogBuild(ctx context.Context, tx catalogTx, b CatalogBuild, events []CatalogEvent) (int64, error) {
	if len(events) > MaxCatalogEvents {
		return 0, fmt.Errorf("%d catalog events in one build, at most %d", len(events), MaxCatalogEvents)
	}
	b.CreatedAt = normTime(b.CreatedAt)
	b.Events = len(events)
	id, err := tx.insertBuild(ctx, b)
	if err != nil {
		return 0, fmt.Errorf("saving the catalog build: %w", err)
	}
	for _, e := range events {
		e.BuildID, e.CreatedAt = id, b.CreatedAt
		if !json.Valid(e.Payload) {
			return 0, fmt.Errorf("catalog event %s of %s: payload is not JSON", e.Type, e.ProviderID)
		}
		eid, err := tx.insertCatalogEvent(ctx, e)
		if err != nil {
			return 0, fmt.Errorf("recording %s of %s/%s: %w", e.Type, e.ProviderID, e.ModelID, err)
		}
		// The outbox key (check_id, event_type) was made for checks; a negated catalog event ID is never a check's.
		if err := tx.insertEvent(ctx, OutboxEvent{Type: e.Type, ProviderID: e.ProviderID, Payload: e.Payload, CreatedAt: b.CreatedAt, CheckID: -eid}); err != nil {
			return 0, fmt.Errorf("queueing %s of %s/%s: %w", e.Type, e.ProviderID, e.ModelID, err)
		}
	}
	if err := tx.pruneBuilds(ctx); err != nil {
		return 0, fmt.Errorf("pruning old catalog builds: %w", err)
	}
	if err := tx.deleteCatalogEventsBefore(ctx, b.CreatedAt.Add(-CatalogEventRetention)); err != nil {
		return 0, fmt.Errorf("pruning old catalog events: %w", err)
	}
	return id, nil
}
