package store

import (
	"cmp"
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
	TryCatalogLock(ctx context.Context) (*Lease, error)
	// SaveCatalogBuild stores a build with its events in one transaction: the events go to the change feed and
	// to the webhook outbox together, and events older than CatalogEventRetention go. It returns the build's ID.
	SaveCatalogBuild(ctx context.Context, b CatalogBuild, events []CatalogEvent) (int64, error)
	// LatestCatalogBuild returns the newest installed build without its files (with its probation), or
	// ErrNotFound when none was made.
	LatestCatalogBuild(ctx context.Context) (CatalogBuild, error)
	// HeldCatalogBuild returns the build waiting for an operator, without its files (with its hold counts), or
	// ErrNotFound when none waits.
	HeldCatalogBuild(ctx context.Context) (CatalogBuild, error)
	// CatalogBuildByDigest returns the newest build of a digest, whatever its state, without its files, or
	// ErrNotFound.
	CatalogBuildByDigest(ctx context.Context, digest string) (CatalogBuild, error)
	// DecideCatalogBuild approves or rejects the held build of a digest at now. Approving makes it the newest
	// installed build (every replica loads it) and records its events in the change feed and the outbox in the
	// same transaction; rejecting leaves the build in service. ErrNotFound when no build of that digest is held.
	DecideCatalogBuild(ctx context.Context, digest string, approve bool, now time.Time) (CatalogBuild, error)
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

// The states of a catalog build.
const (
	BuildInstalled  = "installed"
	BuildHeld       = "held"
	BuildRejected   = "rejected"
	BuildSuperseded = "superseded"
)

// CatalogBuild is one refreshed set of catalogs.
type CatalogBuild struct {
	ID int64
	// Digest is the set's digest (seeds.Set.Digest); Base the digest of the embedded set it was built from.
	Digest, Base string
	// Files is the gzip-compressed JSON object of every catalog file (name -> file); nil from LatestCatalogBuild.
	Files     []byte
	Events    int
	CreatedAt time.Time
	// State is BuildInstalled ("" when saving means installed), BuildHeld, BuildRejected or BuildSuperseded.
	State string
	// Hold is what the refresh's gate counted (JSON, opaque to the store): set on held builds.
	Hold json.RawMessage
	// Summary, when set, is the payload of the one catalog.changed outbox event sent instead of each event (the
	// change feed still records each).
	Summary json.RawMessage
	// Probation lists the models kept out of rankings (JSON, opaque to the store).
	Probation json.RawMessage
}

// EventCatalogChanged is the outbox event a build with many changes sends instead of one per change.
const EventCatalogChanged = "catalog.changed"

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

// catalogTx are the writes of SaveCatalogBuild and DecideCatalogBuild inside a transaction, per engine.
type catalogTx interface {
	insertBuild(ctx context.Context, b CatalogBuild, pending []byte) (int64, error)
	supersedeHeld(ctx context.Context, now time.Time) error
	buildByDigest(ctx context.Context, digest string) (CatalogBuild, []byte, error)
	setState(ctx context.Context, id int64, state string, now time.Time) error
	pruneBuilds(ctx context.Context) error
	insertCatalogEvent(ctx context.Context, e CatalogEvent) (int64, error)
	insertEvent(ctx context.Context, e OutboxEvent) error
	deleteCatalogEventsBefore(ctx context.Context, before time.Time) error
}

func writeCatalogBuild(ctx context.Context, tx catalogTx, b CatalogBuild, events []CatalogEvent) (int64, error) {
	if len(events) > MaxCatalogEvents {
		return 0, fmt.Errorf("%d catalog events in one build, at most %d", len(events), MaxCatalogEvents)
	}
	for _, e := range events {
		if !json.Valid(e.Payload) {
			return 0, fmt.Errorf("catalog event %s of %s: payload is not JSON", e.Type, e.ProviderID)
		}
	}
	if b.Summary != nil && !json.Valid(b.Summary) {
		return 0, fmt.Errorf("catalog build summary is not JSON")
	}
	b.State = cmp.Or(b.State, BuildInstalled)
	if b.State != BuildInstalled && b.State != BuildHeld {
		return 0, fmt.Errorf("saving a catalog build as %q", b.State)
	}
	b.CreatedAt = normTime(b.CreatedAt)
	b.Events = len(events)
	if len(b.Hold) == 0 {
		b.Hold = json.RawMessage("{}")
	}
	if len(b.Probation) == 0 {
		b.Probation = json.RawMessage("{}")
	}
	// A held build keeps its events until an operator decides: they are announced when it is installed.
	pending := []byte("[]")
	if b.State == BuildHeld {
		var err error
		if pending, err = json.Marshal(events); err != nil {
			return 0, fmt.Errorf("keeping the held build's events: %w", err)
		}
	}
	if err := tx.supersedeHeld(ctx, b.CreatedAt); err != nil {
		return 0, fmt.Errorf("superseding the held catalog build: %w", err)
	}
	id, err := tx.insertBuild(ctx, b, pending)
	if err != nil {
		return 0, fmt.Errorf("saving the catalog build: %w", err)
	}
	if b.State == BuildInstalled {
		if err := writeCatalogEvents(ctx, tx, id, b.CreatedAt, events, b.Summary); err != nil {
			return 0, err
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

// writeCatalogEvents records an installed build's events in the change feed and queues them for subscribers: each
// one, or the one summary when the build has one.
func writeCatalogEvents(ctx context.Context, tx catalogTx, buildID int64, at time.Time, events []CatalogEvent, summary json.RawMessage) error {
	for _, e := range events {
		e.BuildID, e.CreatedAt = buildID, at
		eid, err := tx.insertCatalogEvent(ctx, e)
		if err != nil {
			return fmt.Errorf("recording %s of %s/%s: %w", e.Type, e.ProviderID, e.ModelID, err)
		}
		if summary != nil {
			continue
		}
		// The outbox key (check_id, event_type) was made for checks; a negated catalog event ID is never a check's.
		if err := tx.insertEvent(ctx, OutboxEvent{Type: e.Type, ProviderID: e.ProviderID, Payload: e.Payload, CreatedAt: at, CheckID: -eid}); err != nil {
			return fmt.Errorf("queueing %s of %s/%s: %w", e.Type, e.ProviderID, e.ModelID, err)
		}
	}
	if summary != nil {
		// The negated build ID under its own event type: no catalog event or check shares the key.
		if err := tx.insertEvent(ctx, OutboxEvent{Type: EventCatalogChanged, Payload: summary, CreatedAt: at, CheckID: -buildID}); err != nil {
			return fmt.Errorf("queueing %s: %w", EventCatalogChanged, err)
		}
	}
	return nil
}

// decideCatalogBuild is DecideCatalogBuild inside a transaction.
func decideCatalogBuild(ctx context.Context, tx catalogTx, digest string, approve bool, now time.Time) (CatalogBuild, error) {
	b, pending, err := tx.buildByDigest(ctx, digest)
	if err != nil {
		return CatalogBuild{}, err
	}
	if b.State != BuildHeld {
		return CatalogBuild{}, fmt.Errorf("catalog build %s is %s, not held: %w", digest, b.State, ErrNotFound)
	}
	now = normTime(now)
	b.State = BuildRejected
	if approve {
		var events []CatalogEvent
		if err := json.Unmarshal(pending, &events); err != nil {
			return CatalogBuild{}, fmt.Errorf("reading the held build's events: %w", err)
		}
		if err := writeCatalogEvents(ctx, tx, b.ID, now, events, b.Summary); err != nil {
			return CatalogBuild{}, err
		}
		b.State = BuildInstalled
	}
	if err := tx.setState(ctx, b.ID, b.State, now); err != nil {
		return CatalogBuild{}, fmt.Errorf("deciding catalog build %s: %w", digest, err)
	}
	if err := tx.pruneBuilds(ctx); err != nil {
		return CatalogBuild{}, fmt.Errorf("pruning old catalog builds: %w", err)
	}
	return b, nil
}

// rawOrNil turns a nullable JSON column into a RawMessage.
func rawOrNil(s *string) json.RawMessage {
	if s == nil {
		return nil
	}
	return json.RawMessage(*s)
}

// nilOrString is the nullable column of a RawMessage.
func nilOrString(b json.RawMessage) *string {
	if b == nil {
		return nil
	}
	s := string(b)
	return &s
}
