package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// ProviderState is the state machine's memory of one provider: its last observed status and open incident.
type ProviderState struct {
	ProviderID     string
	LastStatus     Outcome // never OutcomeFailed
	LastObservedAt time.Time
	OpenIncidentID *string
}

// StatusChange is one entry of the status changelog.
type StatusChange struct {
	ID         int64
	ProviderID string
	ChangedAt  time.Time
	From, To   Outcome
	CheckID    int64
}

// Incident is a maximal run of non-operational observations of one provider.
type Incident struct {
	ID          string
	ProviderID  string
	Severity    Outcome // degraded or outage: the worst seen
	StartedAt   time.Time
	EndedAt     *time.Time // nil while ongoing
	Description string
}

// OutboxEvent is a status event waiting for delivery.
type OutboxEvent struct {
	ID         int64
	Type       string
	ProviderID string
	Payload    json.RawMessage
	CreatedAt  time.Time
	CheckID    int64
}

// DayCount is one provider's checks on one UTC day.
type DayCount struct {
	ProviderID string
	Day        string // YYYY-MM-DD, UTC
	Observed   int64  // checks that observed a status (failed fetches excluded)
	Outages    int64
	Degraded   int64
}

// CheckResult is a check and everything it changed. RecordCheckResult writes it in one transaction, so the
// changelog, incidents and outbox never disagree with the checks, whatever stops the process.
type CheckResult struct {
	Check           Check
	State           *ProviderState // the state after this check; nil when the check observed nothing
	Change          *StatusChange  // CheckID is filled in
	NewIncident     *Incident
	UpdatedIncident *Incident // its severity, end or description changed
	Events          []OutboxEvent
}

// txOps are the writes of RecordCheckResult, implemented over each engine's generated queries inside a
// transaction; the sequence itself is written once, in writeCheckResult.
type txOps interface {
	insertCheck(ctx context.Context, c Check) (int64, error)
	upsertState(ctx context.Context, s ProviderState) error
	insertChange(ctx context.Context, c StatusChange) error
	insertIncident(ctx context.Context, i Incident) error
	updateIncident(ctx context.Context, i Incident) error
	insertEvent(ctx context.Context, e OutboxEvent) error
}

func writeCheckResult(ctx context.Context, ops txOps, r CheckResult) (Check, error) {
	c := r.Check
	if err := validateCheck(c); err != nil {
		return Check{}, err
	}
	c.CheckedAt = normTime(c.CheckedAt)
	id, err := ops.insertCheck(ctx, c)
	if err != nil {
		return Check{}, fmt.Errorf("recording check of %s: %w", c.ProviderID, err)
	}
	c.ID = id
	if r.NewIncident != nil {
		if err := ops.insertIncident(ctx, normIncident(*r.NewIncident)); err != nil {
			return Check{}, fmt.Errorf("opening incident of %s: %w", c.ProviderID, err)
		}
	}
	if r.UpdatedIncident != nil {
		if err := ops.updateIncident(ctx, normIncident(*r.UpdatedIncident)); err != nil {
			return Check{}, fmt.Errorf("updating incident of %s: %w", c.ProviderID, err)
		}
	}
	if r.Change != nil {
		ch := *r.Change
		ch.CheckID, ch.ChangedAt = id, normTime(ch.ChangedAt)
		if err := ops.insertChange(ctx, ch); err != nil {
			return Check{}, fmt.Errorf("recording status change of %s: %w", c.ProviderID, err)
		}
	}
	for _, e := range r.Events {
		e.CheckID, e.CreatedAt = id, normTime(e.CreatedAt)
		if err := ops.insertEvent(ctx, e); err != nil {
			return Check{}, fmt.Errorf("queueing %s of %s: %w", e.Type, c.ProviderID, err)
		}
	}
	if r.State != nil {
		st := *r.State
		st.LastObservedAt = normTime(st.LastObservedAt)
		if err := ops.upsertState(ctx, st); err != nil {
			return Check{}, fmt.Errorf("saving state of %s: %w", c.ProviderID, err)
		}
	}
	return c, nil
}

func normIncident(i Incident) Incident {
	i.StartedAt = normTime(i.StartedAt)
	if i.EndedAt != nil {
		t := normTime(*i.EndedAt)
		i.EndedAt = &t
	}
	return i
}

func normPtrTime(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
