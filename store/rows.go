package store

import (
	"encoding/json"
	"time"
)

// checkRow and trustRow have the same fields as the sqlc models of both engines (pgdb.Check, litedb.Check, ...),
// so a row of either converts with a plain type conversion and one function turns it into the store's type.
// If the two engines' schemas ever drift apart, that conversion stops compiling: a free drift check.
type checkRow struct {
	ID             int64
	ProviderID     string
	CheckedAt      time.Time
	Outcome        string
	FailureKind    *string
	ResponseTimeMs *float64
	HttpStatus     *int64
	Detail         *string
}

func (r checkRow) check() Check {
	return Check{
		ID: r.ID, ProviderID: r.ProviderID, CheckedAt: r.CheckedAt.UTC(), Outcome: Outcome(r.Outcome),
		FailureKind: r.FailureKind, ResponseTimeMs: r.ResponseTimeMs, HTTPStatus: r.HttpStatus, Detail: r.Detail,
	}
}

type trustRow struct {
	ID          string
	Kind        string
	CreatedAt   time.Time
	ProviderID  *string
	Model       *string
	PayloadHash *string
	AgentID     *string
	FromAgent   *string
	ToAgent     *string
	TaskID      *string
	ContextHash *string
}

func (r trustRow) record() TrustRecord {
	return TrustRecord{
		ID: r.ID, Kind: TrustKind(r.Kind), CreatedAt: r.CreatedAt.UTC(), ProviderID: r.ProviderID, Model: r.Model,
		PayloadHash: r.PayloadHash, AgentID: r.AgentID, FromAgent: r.FromAgent, ToAgent: r.ToAgent,
		TaskID: r.TaskID, ContextHash: r.ContextHash,
	}
}

func convertRows[R any, T any](rows []R, conv func(R) T) []T {
	out := make([]T, len(rows))
	for i, r := range rows {
		out[i] = conv(r)
	}
	return out
}

func validateCheck(c Check) error {
	if c.ProviderID == "" {
		return errorf("check without provider ID")
	}
	if !c.Outcome.Valid() {
		return errorf("check of %s has invalid outcome %q", c.ProviderID, c.Outcome)
	}
	if c.CheckedAt.IsZero() {
		return errorf("check of %s has no time", c.ProviderID)
	}
	return nil
}

func validateTrust(r TrustRecord) error {
	if r.ID == "" || (r.Kind != TrustAttestation && r.Kind != TrustHandoff) || r.CreatedAt.IsZero() {
		return errorf("trust record needs an ID, a kind and a time")
	}
	return nil
}

// MaxRows bounds every list read, whatever the caller asks for.
const MaxRows = 100_000

func clampLimit(limit int) int {
	if limit <= 0 || limit > MaxRows {
		return MaxRows
	}
	return limit
}

type stateRow struct {
	ProviderID     string
	LastStatus     string
	LastObservedAt time.Time
	OpenIncidentID *string
}

func (r stateRow) state() ProviderState {
	return ProviderState{ProviderID: r.ProviderID, LastStatus: Outcome(r.LastStatus), LastObservedAt: r.LastObservedAt.UTC(), OpenIncidentID: r.OpenIncidentID}
}

type changeRow struct {
	ID         int64
	ProviderID string
	ChangedAt  time.Time
	FromStatus string
	ToStatus   string
	CheckID    int64
}

func (r changeRow) change() StatusChange {
	return StatusChange{ID: r.ID, ProviderID: r.ProviderID, ChangedAt: r.ChangedAt.UTC(), From: Outcome(r.FromStatus), To: Outcome(r.ToStatus), CheckID: r.CheckID}
}

type incidentRow struct {
	ID          string
	ProviderID  string
	Severity    string
	StartedAt   time.Time
	EndedAt     *time.Time
	Description string
}

func (r incidentRow) incident() Incident {
	return Incident{ID: r.ID, ProviderID: r.ProviderID, Severity: Outcome(r.Severity), StartedAt: r.StartedAt.UTC(), EndedAt: normPtrTime(r.EndedAt), Description: r.Description}
}

type outboxRow struct {
	ID         int64
	EventType  string
	ProviderID string
	Payload    string
	CreatedAt  time.Time
	CheckID    int64
}

func (r outboxRow) event() OutboxEvent {
	return OutboxEvent{ID: r.ID, Type: r.EventType, ProviderID: r.ProviderID, Payload: json.RawMessage(r.Payload), CreatedAt: r.CreatedAt.UTC(), CheckID: r.CheckID}
}

type dayRow struct {
	ProviderID string
	Day        string
	Observed   int64
	Outages    int64
	Degraded   int64
}

func (r dayRow) count() DayCount { return DayCount(r) }

type catalogEventRow struct {
	ID         int64
	BuildID    int64
	EventType  string
	ProviderID string
	ModelID    string
	Payload    string
	CreatedAt  time.Time
}

func (r catalogEventRow) event() CatalogEvent {
	return CatalogEvent{ID: r.ID, BuildID: r.BuildID, Type: r.EventType, ProviderID: r.ProviderID, ModelID: r.ModelID, Payload: json.RawMessage(r.Payload), CreatedAt: r.CreatedAt.UTC()}
}
