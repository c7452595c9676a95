// Package store is the one storage interface the rest of Switchboard uses. It has two implementations over
// sqlc-generated code: embedded SQLite (the default, no server needed) and PostgreSQL (for several replicas).
// Rows and driver errors are translated at this edge (edge.go): callers see only this package's types,
// ErrNotFound, ErrNonceUsed and ErrUnavailable.
package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// ErrNotFound is returned when a requested row does not exist, whatever the engine.
var ErrNotFound = errors.New("not found")

// Outcome is what one status-page fetch produced.
type Outcome string

// The outcomes of a check. OutcomeFailed means no observation was made: it is never an outage.
const (
	OutcomeOperational Outcome = "operational"
	OutcomeDegraded    Outcome = "degraded"
	OutcomeOutage      Outcome = "outage"
	OutcomeFailed      Outcome = "failed"
)

// Valid reports whether o is one of the four outcomes.
func (o Outcome) Valid() bool {
	switch o {
	case OutcomeOperational, OutcomeDegraded, OutcomeOutage, OutcomeFailed:
		return true
	}
	return false
}

// Check is one status-page fetch of one provider.
type Check struct {
	ID             int64
	ProviderID     string
	CheckedAt      time.Time
	Outcome        Outcome
	FailureKind    *string  // set when Outcome is OutcomeFailed: timeout, dns, tls, http_status, parse, ...
	ResponseTimeMs *float64 // time to fetch the status page; nil when no time was obtained
	HTTPStatus     *int64
	Detail         *string
}

// The failure kinds that say more about the fetching machine's network than about the page (the poller records
// them; the health view reads them to tell a machine without network from pages that fail).
const (
	FailureTimeout    = "timeout"
	FailureDNS        = "dns"
	FailureTLS        = "tls"
	FailureConnection = "connection"
)

// IsNetworkFailure reports whether a failed check's kind is a network failure.
func IsNetworkFailure(kind string) bool {
	switch kind {
	case FailureTimeout, FailureDNS, FailureTLS, FailureConnection:
		return true
	}
	return false
}

// TrustKind tells an attestation from a handoff.
type TrustKind string

// The two kinds of trust record.
const (
	TrustAttestation TrustKind = "attestation"
	TrustHandoff     TrustKind = "handoff"
)

// TrustRecord is an attestation or a handoff. It holds hashes only, never the text they were made from.
type TrustRecord struct {
	ID          string
	Kind        TrustKind
	CreatedAt   time.Time
	ProviderID  *string
	Model       *string
	PayloadHash *string
	AgentID     *string
	FromAgent   *string
	ToAgent     *string
	TaskID      *string
	ContextHash *string
	// Creator is an opaque key of the client that made the record, for the creation quota; written, never read
	// back.
	Creator *string
}

// Store is the storage the service needs. Times go in and come out in UTC, truncated to microseconds so that
// both engines return exactly what was stored.
type Store interface {
	// WebhookStore holds webhook subscriptions and their deliveries (store/webhooks.go).
	WebhookStore
	// PaymentStore remembers x402 payment nonces (store/payments.go).
	PaymentStore
	// CatalogStore keeps refreshed catalog builds and the catalog change feed (store/catalogs.go).
	CatalogStore
	// RetentionStore counts and purges what clients create (store/retention.go).
	RetentionStore

	// Engine names the implementation: "sqlite" or "postgres".
	Engine() string
	// Ping checks that the database answers.
	Ping(ctx context.Context) error
	// Close releases the connections.
	Close() error

	// RecordCheck stores one check and returns it with its ID.
	RecordCheck(ctx context.Context, c Check) (Check, error)
	// LatestChecks returns the newest check of every provider that has one, ordered by provider ID.
	LatestChecks(ctx context.Context) ([]Check, error)
	// ChecksSince returns a provider's checks at or after since, newest first, at most limit of them
	// (MaxRows when limit is not positive or larger).
	ChecksSince(ctx context.Context, providerID string, since time.Time, limit int) ([]Check, error)
	// DeleteChecksBefore removes checks older than before (retention) and reports how many went.
	DeleteChecksBefore(ctx context.Context, before time.Time) (int64, error)

	// RecordCheckResult stores a check with the state, changelog entry, incident changes and outbox events it
	// caused, in one transaction. Replaying the same check cannot queue an event twice.
	RecordCheckResult(ctx context.Context, r CheckResult) (Check, error)
	// ProviderStates returns the state machine's memory of every provider that was ever observed.
	ProviderStates(ctx context.Context) ([]ProviderState, error)
	// StatusChangesSince returns changelog entries at or after since, newest first, at most limit.
	StatusChangesSince(ctx context.Context, since time.Time, limit int) ([]StatusChange, error)
	// IncidentsSince returns incidents that started at or after since or were open then, newest first.
	IncidentsSince(ctx context.Context, since time.Time, limit int) ([]Incident, error)
	// GetIncident returns one incident, or ErrNotFound.
	GetIncident(ctx context.Context, id string) (Incident, error)
	// OutboxAfter returns queued events with an ID above afterID, oldest first, at most limit.
	OutboxAfter(ctx context.Context, afterID int64, limit int) ([]OutboxEvent, error)
	// DailyCheckCounts returns per-provider, per-UTC-day check counts since a time.
	DailyCheckCounts(ctx context.Context, since time.Time) ([]DayCount, error)

	// TryPollerLock makes this process the one poller among replicas: a Lease when it holds the lock, nil when
	// another replica does. The lock also ends with the process. SQLite serves one process: always held.
	TryPollerLock(ctx context.Context) (*Lease, error)

	// CreateTrustRecord stores an attestation or handoff.
	CreateTrustRecord(ctx context.Context, r TrustRecord) error
	// GetTrustRecord returns the record with that ID, or ErrNotFound.
	GetTrustRecord(ctx context.Context, id string) (TrustRecord, error)
}

// normTime is how every time is stored: UTC, microsecond precision (PostgreSQL's).
func normTime(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// inputError is a caller's mistake (invalid input to the store), as opposed to a database failure; the edge
// passes it on as it is.
type inputError struct{ msg string }

func (e *inputError) Error() string { return e.msg }

// errorf makes an error for a caller's mistake.
func errorf(format string, args ...any) error {
	return &inputError{"store: " + fmt.Sprintf(format, args...)}
}

// A Lease is a lock this process holds among replicas (TryPollerLock, TryCatalogLock). The holder watches Lost:
// a lock lives on a database connection, and when that connection dies (a restart of the database, a network
// cut, pg_terminate_backend) the lock is gone and another replica may take it, so the holder must stop acting
// as the one.
type Lease struct {
	lost    <-chan struct{}
	release func()
	once    sync.Once
}

// heldForever is the lease of a store that serves one process (SQLite): never lost.
func heldForever() *Lease { return &Lease{release: func() {}} }

// Lost is closed when the lock is gone without Release. It is nil (never ready) for a lease that cannot be lost.
func (l *Lease) Lost() <-chan struct{} { return l.lost }

// IsLost reports whether the lock is gone (Lost is closed).
func (l *Lease) IsLost() bool {
	select {
	case <-l.lost:
		return true
	default:
		return false
	}
}

// Bound returns ctx cancelled as soon as the lock is lost: work done as the lock holder (a poll cycle, a
// catalog build) must stop before a replica that took the lock over sees this one's writes land after its own.
func (l *Lease) Bound(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	if l.lost != nil {
		go func() { // ends with ctx: the caller cancels when its work is done
			select {
			case <-l.lost:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	return ctx, cancel
}

// Release gives the lock up; it is safe to call more than once.
func (l *Lease) Release() { l.once.Do(l.release) }
