package store

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
)

// WebhookStore holds webhook subscriptions and their deliveries, implemented in store/sqlite_webhooks.go and
// store/postgres_webhooks.go. Deliveries are rows, so that nothing is lost when a process stops at any moment:
// the fan-out of an outbox event, each attempt and its outcome are written in transactions, and a delivery a
// dead worker was sending comes back when its lease runs out.
type WebhookStore interface {
	// CreateWebhookSubscription stores a new active subscription, unless that would break one of limits: then
	// it stores nothing and returns a *LimitError. The counting and the insert are one transaction, and
	// creations take turns, so concurrent requests cannot pass a cap together.
	CreateWebhookSubscription(ctx context.Context, s WebhookSubscription, limits SubscriptionLimits) error
	// GetWebhookSubscription returns the subscription with that ID, or ErrNotFound.
	GetWebhookSubscription(ctx context.Context, id string) (WebhookSubscription, error)
	// DeactivateWebhookSubscription deactivates an active subscription for reason and cancels its pending
	// deliveries; a deactivated one keeps its first reason. It returns the subscription as it now is, or
	// ErrNotFound.
	DeactivateWebhookSubscription(ctx context.Context, id string, reason DeactivationReason, at time.Time) (WebhookSubscription, error)
	// ExpireWebhookSubscriptions deactivates (reason expired) at most limit active subscriptions whose expiry is
	// at or before now, cancels their pending deliveries, and returns their IDs.
	ExpireWebhookSubscriptions(ctx context.Context, now time.Time, limit int) ([]string, error)

	// FanOutWebhookEvents turns up to opts.MaxEvents outbox events not fanned out yet into one pending delivery
	// per matching subscription, and advances the durable fan-out cursor, in one transaction. With PostgreSQL
	// one replica fans out at a time; the others get a zero result at once.
	FanOutWebhookEvents(ctx context.Context, now time.Time, opts FanOutOptions) (FanOutResult, error)
	// ClaimWebhookDeliveries leases at most limit due deliveries of active, unexpired subscriptions until
	// leaseUntil: status events before catalog events, oldest due first, at most opts.PerHost per callback host
	// and none for opts.ExcludeHosts, round-robin over hosts. A leased delivery is claimed by nobody else until
	// its lease runs out (PostgreSQL replicas claim side by side with FOR UPDATE SKIP LOCKED).
	ClaimWebhookDeliveries(ctx context.Context, now, leaseUntil time.Time, limit int, opts ClaimOptions) ([]WebhookSend, error)
	// ClaimWebhookVerifications leases at most limit active subscriptions whose verification handshake is due
	// (one per creator, none for excludeHosts) until leaseUntil.
	ClaimWebhookVerifications(ctx context.Context, now, leaseUntil time.Time, limit int, excludeHosts []string) ([]WebhookVerification, error)
	// RecordWebhookVerification writes a handshake's outcome: verified, tried again at r.NextAt, or (NextAt nil)
	// given up, which deactivates the subscription (delivery_failures). It reports whether it deactivated it.
	RecordWebhookVerification(ctx context.Context, r WebhookVerificationResult) (bool, error)
	// SealWebhookSecrets replaces up to limit secrets stored as given (not starting "enc:v1:") with what seal
	// makes of them, each only if it is unchanged since it was read, and reports how many it replaced.
	SealWebhookSecrets(ctx context.Context, seal func(id, secret string) (string, error), limit int) (int, error)
	// RecordWebhookAttempts writes the outcome of attempts in one transaction: the deliveries, the
	// subscriptions' statistics, and deactivations (410 Gone, or MaxConsecutiveFailures failed attempts in a
	// row). It reports what each attempt changed, in the same order.
	RecordWebhookAttempts(ctx context.Context, attempts []WebhookAttempt) ([]WebhookAttemptResult, error)
	// WebhookDeliveries lists a subscription's deliveries, oldest first, at most limit (MaxRows when not
	// positive or larger).
	WebhookDeliveries(ctx context.Context, subscriptionID string, limit int) ([]WebhookDelivery, error)
	// PruneWebhookDeliveries deletes at most limit finished deliveries (delivered, failed, cancelled) that
	// finished before before, and reports how many went.
	PruneWebhookDeliveries(ctx context.Context, before time.Time, limit int) (int64, error)
}

// SubscriptionStatus is the state of a webhook subscription.
type SubscriptionStatus string

// The two states of a subscription: deactivation is for good.
const (
	SubscriptionActive      SubscriptionStatus = "active"
	SubscriptionDeactivated SubscriptionStatus = "deactivated"
)

// DeactivationReason says why a subscription was deactivated.
type DeactivationReason string

// The reasons of the contract.
const (
	ReasonUnsubscribed     DeactivationReason = "unsubscribed"
	ReasonExpired          DeactivationReason = "expired"
	ReasonDeliveryFailures DeactivationReason = "delivery_failures"
	ReasonGone             DeactivationReason = "gone"
)

// Valid reports whether r is one of the four reasons.
func (r DeactivationReason) Valid() bool {
	switch r {
	case ReasonUnsubscribed, ReasonExpired, ReasonDeliveryFailures, ReasonGone:
		return true
	}
	return false
}

// WebhookSubscription is a subscription with its delivery statistics.
type WebhookSubscription struct {
	ID          string
	CallbackURL string
	Events      []string
	Providers   []string // nil means every provider
	// Secret signs deliveries. It is stored because every delivery needs it, and never returned by the API.
	Secret            *string
	Metadata          json.RawMessage // nil when none was given
	Status            SubscriptionStatus
	DeactivatedReason *DeactivationReason
	DeactivatedAt     *time.Time
	CreatedAt         time.Time
	ExpiresAt         *time.Time

	FireCount           int64 // successful deliveries
	FailCount           int64 // failed attempts in total
	ConsecutiveFailures int64 // failed attempts since the last success
	LastError           *string
	LastDeliveryAt      *time.Time // time of the last attempt

	// CallbackHost is the lower-case host name of CallbackURL without port (CallbackHost(CallbackURL)); the
	// store fills it in when it is empty.
	CallbackHost string
	// Creator is an opaque key of the client that created the subscription, for the creation quota.
	Creator *string
	// ManageTokenHash is the hex SHA-256 of the token that unsubscribing needs; nil for subscriptions made
	// before tokens existed.
	ManageTokenHash *string
	// VerifiedAt is when the callback answered the verification challenge; nil until then, and events are
	// delivered to verified subscriptions only. A subscription stored with VerifiedAt set skips the handshake.
	VerifiedAt     *time.Time
	VerifyAttempts int64
}

// CallbackHost is the key of the per-host limits: the lower-case host name of a callback URL, without port or
// trailing dot ("" when the URL does not parse).
func CallbackHost(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
}

// SubscriptionLimits bound the creation of a subscription; a zero field is no limit.
type SubscriptionLimits struct {
	// MaxPerCreator subscriptions may be created by one Creator since CreatorSince (deactivated ones count).
	MaxPerCreator int
	CreatorSince  time.Time
	// MaxPerHost live (active) subscriptions may share one callback host.
	MaxPerHost int
	// MaxTotal live subscriptions may exist.
	MaxTotal int
}

// LimitError is a subscription refused by one of SubscriptionLimits.
type LimitError struct {
	Limit string // "creator", "host" or "total"
	Max   int
}

func (e *LimitError) Error() string {
	switch e.Limit {
	case "creator":
		return fmt.Sprintf("at most %d webhook subscriptions may be created per client in the quota window", e.Max)
	case "host":
		return fmt.Sprintf("at most %d live webhook subscriptions may share one callback host", e.Max)
	}
	return fmt.Sprintf("at most %d live webhook subscriptions may exist", e.Max)
}

// ClaimOptions shape a claim of deliveries.
type ClaimOptions struct {
	// ExcludeHosts get nothing (the worker's hosts at their in-flight bound or behind an open breaker).
	ExcludeHosts []string
	// PerHost deliveries at most go to one callback host; 1 when not positive.
	PerHost int
}

// WebhookVerification is a claimed verification handshake.
type WebhookVerification struct {
	SubscriptionID string
	CallbackURL    string
	CallbackHost   string
	Secret         *string
	Attempts       int64 // handshake attempts made before this one
}

// WebhookVerificationResult is the outcome of one handshake attempt.
type WebhookVerificationResult struct {
	SubscriptionID string
	At             time.Time
	OK             bool
	Error          string     // when !OK: short, without the URL or any secret
	NextAt         *time.Time // when !OK: the next attempt; nil gives up and deactivates the subscription
}

// DeliveryStatus is the state of one delivery.
type DeliveryStatus string

// A delivery is pending until it is delivered, given up (failed) or its subscription is deactivated (cancelled).
const (
	DeliveryPending   DeliveryStatus = "pending"
	DeliveryDelivered DeliveryStatus = "delivered"
	DeliveryFailed    DeliveryStatus = "failed"
	DeliveryCancelled DeliveryStatus = "cancelled"
)

// WebhookDelivery is one outbox event for one subscription, with its attempts so far.
type WebhookDelivery struct {
	ID             int64
	SubscriptionID string
	EventID        int64
	Status         DeliveryStatus
	Attempts       int64
	NextAttemptAt  time.Time
	LockedUntil    *time.Time
	LastAttemptAt  *time.Time
	LastError      *string
	LastStatus     *int64 // HTTP status of the last attempt, when one came back
	CreatedAt      time.Time
	FinishedAt     *time.Time
}

// WebhookSend is a claimed delivery with what sending it needs.
type WebhookSend struct {
	DeliveryID     int64
	SubscriptionID string
	EventID        int64
	Attempts       int64 // attempts made before this one
	CallbackURL    string
	CallbackHost   string
	Secret         *string
	Event          OutboxEvent
}

// FanOutOptions bound one fan-out transaction.
type FanOutOptions struct {
	// MaxEvents is how many outbox events one call fans out at most (each can make one row per subscription).
	MaxEvents int
	// GapGrace is how long the cursor waits at a hole in the outbox IDs before it moves past it. PostgreSQL
	// hands out IDs when rows are inserted, not when they commit, so a poll can see event 8 before a slower
	// transaction commits event 7; events in a hole are still fanned out when they appear (the cursor only
	// bounds the scan), so the grace must only outlast the longest transaction that writes the outbox.
	GapGrace time.Duration
}

// FanOutResult is what one FanOutWebhookEvents call did.
type FanOutResult struct {
	Events     int   // outbox events fanned out
	Deliveries int64 // delivery rows created
	Cursor     int64 // the cursor after the call
	Skipped    bool  // another replica was fanning out (PostgreSQL)
}

// WebhookAttempt is the outcome of one delivery attempt.
type WebhookAttempt struct {
	DeliveryID     int64
	SubscriptionID string
	At             time.Time
	Success        bool
	HTTPStatus     *int64 // nil when no answer came back (timeout, refused, blocked address)
	Error          string // set when !Success: short, without the URL or any secret
	// NextAttemptAt is when a failed delivery is tried again; nil gives it up (status failed).
	NextAttemptAt *time.Time
	// Gone deactivates the subscription at once (the receiver answered 410).
	Gone bool
	// MaxConsecutiveFailures deactivates the subscription when this failure makes that many in a row.
	MaxConsecutiveFailures int64
}

// WebhookAttemptResult is what recording one attempt changed.
type WebhookAttemptResult struct {
	ConsecutiveFailures int64
	// Deactivated is set when this attempt deactivated the subscription.
	Deactivated *DeactivationReason
}

// webhookTx is one engine's webhook writes inside a transaction; the sequences that use them are written once,
// below, like writeCheckResult.
type webhookTx interface {
	// lockCursor returns the fan-out cursor, or held=false when another transaction holds it.
	lockCursor(ctx context.Context) (cursor int64, held bool, err error)
	setCursor(ctx context.Context, id int64) error
	unfannedEvents(ctx context.Context, after int64, limit int) ([]OutboxEvent, error)
	insertDeliveries(ctx context.Context, e OutboxEvent, now time.Time, priority int64) (int64, error)
	markFanned(ctx context.Context, eventID int64, at time.Time) error
	fannedAfter(ctx context.Context, after int64, limit int) ([]fannedEvent, error)
	deleteFannedThrough(ctx context.Context, id int64) error

	// markSucceeded and countSuccesses take a run of successes at once (PostgreSQL: one statement each).
	markSucceeded(ctx context.Context, as []WebhookAttempt) error
	countSuccesses(ctx context.Context, runs []successRun) error
	markFailed(ctx context.Context, a WebhookAttempt) error
	countFailure(ctx context.Context, a WebhookAttempt) (consecutive int64, status SubscriptionStatus, err error)
	deactivate(ctx context.Context, id string, reason DeactivationReason, at time.Time) (bool, error)
	cancelDeliveries(ctx context.Context, subscriptionIDs []string, at time.Time) error

	markVerified(ctx context.Context, id string, at time.Time) error
	markVerifyFailed(ctx context.Context, id, msg string, next *time.Time) (int64, error)
	// countForLimits returns what the limits compare: subscriptions of creator since, live ones on host, live
	// ones in all. Only the counts a limit needs are read (the others are 0).
	countForLimits(ctx context.Context, creator *string, host string, l SubscriptionLimits) (byCreator, onHost, total int64, err error)
}

// checkLimits compares the counts of a new subscription's creator, host and the whole table with limits.
func checkLimits(ctx context.Context, tx webhookTx, s WebhookSubscription, host string, l SubscriptionLimits) error {
	byCreator, onHost, total, err := tx.countForLimits(ctx, s.Creator, host, l)
	if err != nil {
		return fmt.Errorf("counting webhook subscriptions: %w", err)
	}
	switch {
	case l.MaxPerCreator > 0 && s.Creator != nil && byCreator >= int64(l.MaxPerCreator):
		return &LimitError{Limit: "creator", Max: l.MaxPerCreator}
	case l.MaxPerHost > 0 && onHost >= int64(l.MaxPerHost):
		return &LimitError{Limit: "host", Max: l.MaxPerHost}
	case l.MaxTotal > 0 && total >= int64(l.MaxTotal):
		return &LimitError{Limit: "total", Max: l.MaxTotal}
	}
	return nil
}

type fannedEvent struct {
	EventID  int64
	FannedAt time.Time
}

// maxFannedScan bounds the list of events fanned out above the cursor that one call reads. Only holes younger
// than GapGrace keep events there, so it stays short; should it not, the cursor advances in steps.
const maxFannedScan = 10_000

func fanOut(ctx context.Context, tx webhookTx, now time.Time, opts FanOutOptions) (FanOutResult, error) {
	now = normTime(now)
	cursor, held, err := tx.lockCursor(ctx)
	if err != nil {
		return FanOutResult{}, fmt.Errorf("reading the fan-out cursor: %w", err)
	}
	if !held {
		return FanOutResult{Skipped: true}, nil
	}
	res := FanOutResult{Cursor: cursor}
	events, err := tx.unfannedEvents(ctx, cursor, max(opts.MaxEvents, 1))
	if err != nil {
		return FanOutResult{}, fmt.Errorf("reading outbox events to fan out: %w", err)
	}
	for _, e := range events {
		n, err := tx.insertDeliveries(ctx, e, now, EventPriority(e.Type))
		if err != nil {
			return FanOutResult{}, fmt.Errorf("fanning out event %d (%s): %w", e.ID, e.Type, err)
		}
		if err := tx.markFanned(ctx, e.ID, now); err != nil {
			return FanOutResult{}, fmt.Errorf("marking event %d fanned out: %w", e.ID, err)
		}
		res.Events++
		res.Deliveries += n
	}
	fanned, err := tx.fannedAfter(ctx, cursor, maxFannedScan)
	if err != nil {
		return FanOutResult{}, fmt.Errorf("reading fanned-out events: %w", err)
	}
	next := advanceCursor(cursor, fanned, now, opts.GapGrace)
	if next != cursor {
		if err := tx.deleteFannedThrough(ctx, next); err != nil {
			return FanOutResult{}, fmt.Errorf("forgetting fanned-out events: %w", err)
		}
		if err := tx.setCursor(ctx, next); err != nil {
			return FanOutResult{}, fmt.Errorf("moving the fan-out cursor: %w", err)
		}
	}
	res.Cursor = next
	return res, nil
}

// EventPriority is the claim order of an event's deliveries: status events (0) before catalog events (1).
func EventPriority(eventType string) int64 {
	if strings.HasPrefix(eventType, "catalog.") {
		return 1
	}
	return 0
}

// advanceCursor moves the cursor over the fanned-out events that follow it without a hole, and over a hole
// once the event after it was fanned out at least grace ago: by then whatever transaction held the missing IDs
// has committed (and its events were fanned out, they are not in the hole any more) or rolled back.
func advanceCursor(cursor int64, fanned []fannedEvent, now time.Time, grace time.Duration) int64 {
	next := cursor
	for _, f := range fanned {
		if f.EventID != next+1 && now.Sub(f.FannedAt) < grace {
			break
		}
		next = f.EventID
	}
	return next
}

// successRun is the successes of one subscription within a run of successful attempts.
type successRun struct {
	SubscriptionID string
	Count          int64
	Last           time.Time // the latest attempt
}

func recordAttempts(ctx context.Context, tx webhookTx, attempts []WebhookAttempt) ([]WebhookAttemptResult, error) {
	out := make([]WebhookAttemptResult, len(attempts))
	// Successes are applied in runs: within a run their order does not matter (each resets the failure count),
	// and a failure between two successes still sees the first and is seen by the second.
	var run []WebhookAttempt
	flush := func() error {
		if len(run) == 0 {
			return nil
		}
		if err := tx.markSucceeded(ctx, run); err != nil {
			return fmt.Errorf("recording %d delivered attempts: %w", len(run), err)
		}
		if err := tx.countSuccesses(ctx, groupSuccesses(run)); err != nil {
			return fmt.Errorf("counting %d delivered attempts: %w", len(run), err)
		}
		run = run[:0]
		return nil
	}
	for i, a := range attempts {
		a.At = normTime(a.At)
		if a.NextAttemptAt != nil {
			t := normTime(*a.NextAttemptAt)
			a.NextAttemptAt = &t
		}
		if a.Success {
			run = append(run, a)
			continue
		}
		if err := flush(); err != nil {
			return nil, err
		}
		if a.Error == "" {
			a.Error = "delivery failed"
		}
		if err := tx.markFailed(ctx, a); err != nil {
			return nil, fmt.Errorf("recording delivery %d: %w", a.DeliveryID, err)
		}
		n, status, err := tx.countFailure(ctx, a)
		if err != nil {
			return nil, fmt.Errorf("counting delivery %d: %w", a.DeliveryID, err)
		}
		out[i].ConsecutiveFailures = n
		if status != SubscriptionActive {
			continue
		}
		var reason DeactivationReason
		switch {
		case a.Gone:
			reason = ReasonGone
		case a.MaxConsecutiveFailures > 0 && n >= a.MaxConsecutiveFailures:
			reason = ReasonDeliveryFailures
		default:
			continue
		}
		done, err := deactivate(ctx, tx, a.SubscriptionID, reason, a.At)
		if err != nil {
			return nil, err
		}
		if done {
			out[i].Deactivated = &reason
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return out, nil
}

// groupSuccesses sums a run of successes per subscription, in the order subscriptions first appear.
func groupSuccesses(run []WebhookAttempt) []successRun {
	idx := map[string]int{}
	var out []successRun
	for _, a := range run {
		i, ok := idx[a.SubscriptionID]
		if !ok {
			i = len(out)
			idx[a.SubscriptionID] = i
			out = append(out, successRun{SubscriptionID: a.SubscriptionID})
		}
		out[i].Count++
		if a.At.After(out[i].Last) {
			out[i].Last = a.At
		}
	}
	return out
}

func deactivate(ctx context.Context, tx webhookTx, id string, reason DeactivationReason, at time.Time) (bool, error) {
	if !reason.Valid() {
		return false, errorf("unknown deactivation reason %q", reason)
	}
	done, err := tx.deactivate(ctx, id, reason, normTime(at))
	if err != nil {
		return false, fmt.Errorf("deactivating subscription %s: %w", id, err)
	}
	if !done {
		return false, nil
	}
	if err := tx.cancelDeliveries(ctx, []string{id}, normTime(at)); err != nil {
		return false, fmt.Errorf("cancelling deliveries of subscription %s: %w", id, err)
	}
	return true, nil
}

// subscriptionRow has the fields of both engines' webhook_subscriptions models (see rows.go).
type subscriptionRow struct {
	ID                  string
	CallbackUrl         string
	Events              string
	Providers           *string
	Secret              *string
	Metadata            *string
	Status              string
	DeactivatedReason   *string
	DeactivatedAt       *time.Time
	CreatedAt           time.Time
	ExpiresAt           *time.Time
	FireCount           int64
	FailCount           int64
	ConsecutiveFailures int64
	LastError           *string
	LastDeliveryAt      *time.Time
	CallbackHost        string
	Creator             *string
	ManageTokenHash     *string
	VerifiedAt          *time.Time
	VerifyAttempts      int64
	VerifyNextAt        *time.Time
}

func (r subscriptionRow) subscription() (WebhookSubscription, error) {
	s := WebhookSubscription{
		ID: r.ID, CallbackURL: r.CallbackUrl, Secret: r.Secret, Status: SubscriptionStatus(r.Status),
		DeactivatedAt: normPtrTime(r.DeactivatedAt), CreatedAt: r.CreatedAt.UTC(), ExpiresAt: normPtrTime(r.ExpiresAt),
		FireCount: r.FireCount, FailCount: r.FailCount, ConsecutiveFailures: r.ConsecutiveFailures,
		LastError: r.LastError, LastDeliveryAt: normPtrTime(r.LastDeliveryAt),
		CallbackHost: r.CallbackHost, Creator: r.Creator, ManageTokenHash: r.ManageTokenHash,
		VerifiedAt: normPtrTime(r.VerifiedAt), VerifyAttempts: r.VerifyAttempts,
	}
	if err := json.Unmarshal([]byte(r.Events), &s.Events); err != nil {
		return WebhookSubscription{}, fmt.Errorf("reading events of subscription %s: %w", r.ID, err)
	}
	if r.Providers != nil {
		if err := json.Unmarshal([]byte(*r.Providers), &s.Providers); err != nil {
			return WebhookSubscription{}, fmt.Errorf("reading providers of subscription %s: %w", r.ID, err)
		}
	}
	if r.Metadata != nil {
		s.Metadata = json.RawMessage(*r.Metadata)
	}
	if r.DeactivatedReason != nil {
		reason := DeactivationReason(*r.DeactivatedReason)
		s.DeactivatedReason = &reason
	}
	return s, nil
}

// subscriptionColumns is a subscription as its insert stores it: lists as JSON text.
type subscriptionColumns struct {
	events    string
	providers *string
	metadata  *string
	host      string
	// verifyNextAt is when the handshake is first due: at once, unless the subscription is verified already.
	verifyNextAt *time.Time
	verifiedAt   *time.Time
}

func validateSubscription(s WebhookSubscription) (subscriptionColumns, error) {
	if s.ID == "" || s.CallbackURL == "" || s.CreatedAt.IsZero() {
		return subscriptionColumns{}, errorf("subscription needs an ID, a callback URL and a time")
	}
	if len(s.Events) == 0 {
		return subscriptionColumns{}, errorf("subscription %s has no events", s.ID)
	}
	// The fan-out matches an event by looking for its quoted value in the JSON text: plain identifiers only.
	for _, v := range slices.Concat(s.Events, s.Providers) {
		if !plainIdentifier(v) {
			return subscriptionColumns{}, errorf("subscription %s: %q is not a plain identifier", s.ID, v)
		}
	}
	var c subscriptionColumns
	c.host = s.CallbackHost
	if c.host == "" {
		c.host = CallbackHost(s.CallbackURL)
	}
	if c.host == "" {
		return subscriptionColumns{}, errorf("subscription %s: callback URL has no host", s.ID)
	}
	if s.VerifiedAt != nil {
		c.verifiedAt = normTimePtr(s.VerifiedAt)
	} else {
		c.verifyNextAt = normTimePtr(&s.CreatedAt)
	}
	b, err := json.Marshal(s.Events)
	if err != nil {
		return subscriptionColumns{}, fmt.Errorf("encoding events: %w", err)
	}
	c.events = string(b)
	if s.Providers != nil {
		b, err := json.Marshal(s.Providers)
		if err != nil {
			return subscriptionColumns{}, fmt.Errorf("encoding providers: %w", err)
		}
		p := string(b)
		c.providers = &p
	}
	if s.Metadata != nil {
		if !json.Valid(s.Metadata) {
			return subscriptionColumns{}, errorf("subscription %s: metadata is not JSON", s.ID)
		}
		m := string(s.Metadata)
		c.metadata = &m
	}
	return c, nil
}

// plainIdentifier accepts what event types and provider IDs are made of: letters, digits, '.', '_' and '-'.
func plainIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
		default:
			return false
		}
	}
	return true
}

// needle is what the fan-out looks for in a JSON array of plain identifiers to find v.
func needle(v string) string { return `"` + v + `"` }

type deliveryRow struct {
	ID             int64
	SubscriptionID string
	EventID        int64
	Status         string
	Attempts       int64
	NextAttemptAt  time.Time
	LockedUntil    *time.Time
	LastAttemptAt  *time.Time
	LastError      *string
	LastStatus     *int64
	CreatedAt      time.Time
	FinishedAt     *time.Time
	Priority       int64
}

func (r deliveryRow) delivery() WebhookDelivery {
	return WebhookDelivery{
		ID: r.ID, SubscriptionID: r.SubscriptionID, EventID: r.EventID, Status: DeliveryStatus(r.Status),
		Attempts: r.Attempts, NextAttemptAt: r.NextAttemptAt.UTC(), LockedUntil: normPtrTime(r.LockedUntil),
		LastAttemptAt: normPtrTime(r.LastAttemptAt), LastError: r.LastError, LastStatus: r.LastStatus,
		CreatedAt: r.CreatedAt.UTC(), FinishedAt: normPtrTime(r.FinishedAt),
	}
}

type sendRow struct {
	ID             int64
	SubscriptionID string
	EventID        int64
	Attempts       int64
	CallbackUrl    string
	Secret         *string
	CallbackHost   string
	EventType      string
	ProviderID     string
	Payload        string
	EventCreatedAt time.Time
}

func (r sendRow) send() WebhookSend {
	return WebhookSend{
		DeliveryID: r.ID, SubscriptionID: r.SubscriptionID, EventID: r.EventID, Attempts: r.Attempts,
		CallbackURL: r.CallbackUrl, CallbackHost: r.CallbackHost, Secret: r.Secret,
		Event: OutboxEvent{ID: r.EventID, Type: r.EventType, ProviderID: r.ProviderID, Payload: json.RawMessage(r.Payload), CreatedAt: r.EventCreatedAt.UTC()},
	}
}

// failedStatus is the delivery status a failed attempt leaves, and when it finished (nil while pending).
func failedStatus(a WebhookAttempt) (DeliveryStatus, time.Time, *time.Time) {
	if a.NextAttemptAt != nil {
		return DeliveryPending, *a.NextAttemptAt, nil
	}
	at := a.At
	return DeliveryFailed, a.At, &at
}

// normTimePtr is normTime for an optional time.
func normTimePtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := normTime(*t)
	return &u
}

// Scan bounds of the claims: how many due rows one claim reads to pick from. The window must reach past one
// host's (or one creator's) backlog to the others', or sharing out would only be among the first few.
const (
	claimScanFactor = 4
	minClaimScan    = 1000
	maxClaimScan    = 5000
)

func claimScanRows(limit, perHost int) int {
	return min(max(limit*claimScanFactor, perHost*claimScanFactor, minClaimScan), maxClaimScan)
}

// excludeList is the hosts a PostgreSQL claim skips, never an empty array (no callback host is "").
func excludeList(hosts []string) []string {
	return append([]string{""}, hosts...)
}

// dueRow is a due delivery or handshake as the scan read it, in claim order, with the key it is shared out by
// (the callback host of a delivery, the creator of a handshake).
type dueRow[K any] struct {
	ID   K
	Host string
}

// pickRoundRobin keeps at most perHost rows per host, at most limit in all, in round-robin order over hosts:
// each host's first row (in scan order) before any host's second. The scan order (priority, due time) decides
// among hosts within a round.
func pickRoundRobin[K any](rows []dueRow[K], perHost, limit int) []K {
	perHost = cmp.Or(max(perHost, 0), 1)
	rank := make(map[string]int, len(rows))
	rounds := make([][]K, perHost)
	for _, r := range rows {
		n := rank[r.Host]
		if n >= perHost {
			continue
		}
		rank[r.Host] = n + 1
		rounds[n] = append(rounds[n], r.ID)
	}
	var out []K
	for _, round := range rounds {
		for _, id := range round {
			if len(out) == limit {
				return out
			}
			out = append(out, id)
		}
	}
	return out
}

// recordVerification writes a handshake outcome inside a transaction.
func recordVerification(ctx context.Context, tx webhookTx, r WebhookVerificationResult) (bool, error) {
	at := normTime(r.At)
	if r.OK {
		return false, tx.markVerified(ctx, r.SubscriptionID, at)
	}
	msg := cmp.Or(r.Error, "verification failed")
	n, err := tx.markVerifyFailed(ctx, r.SubscriptionID, msg, normTimePtr(r.NextAt))
	if err != nil || n == 0 || r.NextAt != nil {
		return false, err
	}
	return deactivate(ctx, tx, r.SubscriptionID, ReasonDeliveryFailures, at)
}

// secretToSeal is a secret stored as given.
type secretToSeal struct {
	ID     string
	Secret *string
}

// sealSecrets seals each secret of rows with seal and stores it through replace.
func sealSecrets(rows []secretToSeal, seal func(id, secret string) (string, error), replace func(id string, sealed, plain *string) (int64, error)) (int, error) {
	n := 0
	for _, r := range rows {
		if r.Secret == nil {
			continue
		}
		sealed, err := seal(r.ID, *r.Secret)
		if err != nil {
			return n, fmt.Errorf("sealing the secret of subscription %s: %w", r.ID, err)
		}
		done, err := replace(r.ID, &sealed, r.Secret)
		if err != nil {
			return n, fmt.Errorf("storing the sealed secret of subscription %s: %w", r.ID, err)
		}
		n += int(done)
	}
	return n, nil
}
