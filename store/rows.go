package store

import "time"

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
