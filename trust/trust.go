// Package trust records attestations (a provider and model produced some output) and handoffs (one agent passed
// a task to another), and checks a text or hash against them later. Only SHA-256 hashes of the submitted text
// are kept: the text itself never reaches the store, a log line or an error message. Agent IDs are
// self-declared; nothing here verifies them.
package trust

import (
	"cmp"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/switchboard/switchboard/errs"
	"github.com/switchboard/switchboard/store"
)

// ErrNotFound is returned for an id that names no record.
var ErrNotFound = store.ErrNotFound

var hexHash = regexp.MustCompile(`^[0-9a-fA-F]{64}$`)

// HashText returns the SHA-256 of the UTF-8 bytes of s, as lowercase hex.
func HashText(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// Service creates and reads trust records.
type Service struct {
	Store         store.Store
	KnownProvider func(id string) bool
	Now           func() time.Time // defaults to time.Now
	// Quota is how many records one client may create per QuotaWindow (DefaultQuotaWindow when not positive);
	// 0 is no quota. Records made without a creator (in process) count against nobody.
	Quota       int
	QuotaWindow time.Duration
}

// Defaults of the creation quota.
const (
	DefaultQuota       = 1000
	DefaultQuotaWindow = 24 * time.Hour
)

// QuotaError is a record refused because its creator made Max records in the last Window.
type QuotaError struct {
	Max    int
	Window time.Duration
}

func (e *QuotaError) Error() string {
	return fmt.Sprintf("quota exceeded: at most %d attestations and handoffs per client in %s", e.Max, e.Window)
}

// create stores rec after checking its creator's quota. Count then insert is not one atomic step: concurrent
// requests of one client can pass the count together, at most the server's per-client bound on requests at
// once (SWITCHBOARD_MAX_PER_CLIENT) beyond the quota.
func (s *Service) create(ctx context.Context, rec store.TrustRecord, creator string) error {
	if creator != "" {
		rec.Creator = &creator
		if s.Quota > 0 {
			window := cmp.Or(s.QuotaWindow, DefaultQuotaWindow)
			n, err := s.Store.CountTrustRecordsByCreator(ctx, creator, rec.CreatedAt.Add(-window))
			if err != nil {
				return fmt.Errorf("counting the client's records: %w", err)
			}
			if n >= int64(s.Quota) {
				return &QuotaError{Max: s.Quota, Window: window}
			}
		}
	}
	return s.Store.CreateTrustRecord(ctx, rec)
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// AttestInput is what a caller attests to.
type AttestInput struct {
	Provider    string
	Model       string
	Output      *string // hashed here; exactly one of Output and PayloadHash
	PayloadHash *string // 64 hex characters, stored lower-cased
	AgentID     *string // self-declared
	Creator     string  // the client's opaque key, for the quota; "" for none
}

// Attest stores an attestation and returns the record.
func (s *Service) Attest(ctx context.Context, in AttestInput) (store.TrustRecord, error) {
	if strings.TrimSpace(in.Model) == "" {
		return store.TrustRecord{}, &errs.InputError{Msg: "body field model: must not be empty"}
	}
	var hash string
	switch {
	case in.Output != nil && in.PayloadHash != nil:
		return store.TrustRecord{}, &errs.InputError{Msg: "request body: give exactly one of output and payload_hash, not both"}
	case in.Output != nil:
		hash = HashText(*in.Output)
	case in.PayloadHash != nil:
		if !hexHash.MatchString(*in.PayloadHash) {
			return store.TrustRecord{}, &errs.InputError{Msg: "body field payload_hash: must be 64 hexadecimal characters (a SHA-256)"}
		}
		hash = strings.ToLower(*in.PayloadHash)
	default:
		return store.TrustRecord{}, &errs.InputError{Msg: "request body: give exactly one of output and payload_hash"}
	}
	// Checked after the body's own shape, so a malformed request is a 400 whatever provider it names.
	if !s.KnownProvider(in.Provider) {
		return store.TrustRecord{}, &errs.UnknownProviderError{ID: in.Provider}
	}
	rec := store.TrustRecord{
		ID: uuid.NewString(), Kind: store.TrustAttestation, CreatedAt: s.now().UTC().Truncate(time.Microsecond),
		ProviderID: &in.Provider, Model: &in.Model, PayloadHash: &hash, AgentID: in.AgentID,
	}
	if err := s.create(ctx, rec, in.Creator); err != nil {
		return store.TrustRecord{}, fmt.Errorf("recording attestation: %w", err)
	}
	return rec, nil
}

// HandoffInput is a task passed from one agent to another.
type HandoffInput struct {
	FromAgent, ToAgent string
	TaskID             *string
	Context            *string // hashed here, never stored
	Creator            string  // the client's opaque key, for the quota; "" for none
}

// Handoff stores a handoff and returns the record.
func (s *Service) Handoff(ctx context.Context, in HandoffInput) (store.TrustRecord, error) {
	if strings.TrimSpace(in.FromAgent) == "" {
		return store.TrustRecord{}, &errs.InputError{Msg: "body field from_agent: must not be empty"}
	}
	if strings.TrimSpace(in.ToAgent) == "" {
		return store.TrustRecord{}, &errs.InputError{Msg: "body field to_agent: must not be empty"}
	}
	rec := store.TrustRecord{
		ID: uuid.NewString(), Kind: store.TrustHandoff, CreatedAt: s.now().UTC().Truncate(time.Microsecond),
		FromAgent: &in.FromAgent, ToAgent: &in.ToAgent, TaskID: in.TaskID,
	}
	if in.Context != nil {
		h := HashText(*in.Context)
		rec.ContextHash = &h
	}
	if err := s.create(ctx, rec, in.Creator); err != nil {
		return store.TrustRecord{}, fmt.Errorf("recording handoff: %w", err)
	}
	return rec, nil
}

// Get returns the record with that id, or ErrNotFound.
func (s *Service) Get(ctx context.Context, id string) (store.TrustRecord, error) {
	rec, err := s.Store.GetTrustRecord(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return store.TrustRecord{}, ErrNotFound
	}
	return rec, err
}

// StoredHash is the hash a record vouches for: the output's for an attestation, the context's for a handoff
// (nil when the handoff carried no context).
func StoredHash(rec store.TrustRecord) *string {
	if rec.Kind == store.TrustAttestation {
		return rec.PayloadHash
	}
	return rec.ContextHash
}

// Candidate turns what a caller wants checked (an output text, or a hash) into the hash to compare. It returns
// nil when neither was given, and an InputError when both were or the hash is malformed.
func Candidate(output, hash *string) (*string, error) {
	switch {
	case output != nil && hash != nil:
		return nil, &errs.InputError{Msg: "parameters output and hash: give at most one"}
	case output != nil:
		h := HashText(*output)
		return &h, nil
	case hash != nil:
		if !hexHash.MatchString(*hash) {
			return nil, &errs.InputError{Msg: "parameter hash: must be 64 hexadecimal characters (a SHA-256)"}
		}
		h := strings.ToLower(*hash)
		return &h, nil
	}
	return nil, nil
}

// Matches answers whether candidate is the hash rec vouches for; nil when there is no candidate. A handoff
// without context matches nothing.
func Matches(rec store.TrustRecord, candidate *string) *bool {
	if candidate == nil {
		return nil
	}
	stored := StoredHash(rec)
	ok := stored != nil && subtle.ConstantTimeCompare([]byte(*stored), []byte(*candidate)) == 1
	return &ok
}
