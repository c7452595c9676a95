// Package webhooks pushes status events to subscribers: subscriptions (validation, creation, reads and
// unsubscribing), the delivery worker that drains the durable outbox into signed HTTP POSTs with retries, and the
// HTTP client that refuses to reach internal addresses.
//
// The flow: the poller writes events into the outbox in the same transaction as the check that caused them. The
// worker fans each event out into one delivery row per matching subscription (a unique key makes that
// idempotent, a cursor in the database makes it resumable), then claims due deliveries under a lease, sends
// them with bounded concurrency and records each outcome. Every step is a database transaction, so stopping the
// process at any moment loses nothing: at worst a delivery is sent again, with the same webhook-id.
package webhooks

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/switchboard/switchboard/errs"
	"github.com/switchboard/switchboard/store"
)

// The event types of the contract.
var EventTypes = []string{"provider.down", "provider.up", "provider.degraded", "incident.new", "incident.resolved",
	"catalog.price_changed", "catalog.model_added", "catalog.model_deprecated", "catalog.model_sunset", "catalog.model_removed",
	"catalog.changed"}

// Limits of a subscription, as the OpenAPI document states them.
const (
	MaxCallbackURLLength = 2048
	MinSecretLength      = 16
	MaxSecretLength      = 256
	MaxExpiresInHours    = 8760
	MaxMetadataBytes     = 16 << 10
)

// ErrNotFound is returned for an id that names no subscription.
var ErrNotFound = store.ErrNotFound

// ErrBadToken is an unsubscribe whose token is not the one shown when the subscription was created.
var ErrBadToken = errors.New("token does not match this subscription")

// Defaults of Limits: what keeps one client from making the service flood a host (one client made 300
// subscriptions to one URL in 5 s, so that each event became 306 requests there).
const (
	DefaultPerClient       = 10
	DefaultPerClientWindow = time.Hour
	DefaultPerHost         = 10
	DefaultTotal           = 10_000
)

// Limits bound subscriptions. Zero fields take the defaults.
type Limits struct {
	// PerClient subscriptions may be created by one client (its address as the server resolves it) per
	// PerClientWindow, deactivated ones included (SWITCHBOARD_WEBHOOK_MAX_PER_CLIENT, per hour).
	PerClient       int
	PerClientWindow time.Duration
	// PerHost live subscriptions may share one callback host name (SWITCHBOARD_WEBHOOK_MAX_PER_HOST).
	PerHost int
	// Total live subscriptions may exist (SWITCHBOARD_WEBHOOK_MAX_TOTAL).
	Total int
}

func (l Limits) withDefaults() Limits {
	l.PerClient = cmp.Or(l.PerClient, DefaultPerClient)
	l.PerClientWindow = cmp.Or(l.PerClientWindow, DefaultPerClientWindow)
	l.PerHost = cmp.Or(l.PerHost, DefaultPerHost)
	l.Total = cmp.Or(l.Total, DefaultTotal)
	return l
}

// Service creates, reads and deactivates subscriptions.
type Service struct {
	Store         store.Store
	KnownProvider func(id string) bool
	// AllowLoopback lets callbacks reach this machine (127.0.0.0/8, ::1, localhost), also over plain http.
	AllowLoopback bool
	Now           func() time.Time // defaults to time.Now
	Limits        Limits
	// Secrets seals subscription secrets before they are stored; nil stores them as given.
	Secrets *SecretBox
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

// CreateInput is a subscription request.
type CreateInput struct {
	CallbackURL    string
	Events         []string
	Providers      *[]string // nil or absent: every provider
	Secret         *string
	ExpiresInHours *float64
	// Metadata is the decoded JSON value; nil when none was given.
	Metadata any
	// Client names who asks (the address the server resolved), for the creation quota; only a hash of it is
	// stored.
	Client string
}

// Created is a new subscription with the token that unsubscribing needs: it is shown once, here, and only its
// hash is stored.
type Created struct {
	Subscription store.WebhookSubscription
	ManageToken  string
}

// LimitError is a subscription refused by a limit; RetryAfter is set for the per-client quota.
type LimitError struct {
	Msg        string
	RetryAfter time.Duration
}

func (e *LimitError) Error() string { return e.Msg }

// Create validates in and stores a new active subscription. It receives events once its callback has answered
// the verification challenge (the worker sends it at once).
func (s *Service) Create(ctx context.Context, in CreateInput) (Created, error) {
	sub, token, err := s.create(ctx, in)
	if err != nil {
		return Created{}, err
	}
	return Created{Subscription: sub, ManageToken: token}, nil
}

func (s *Service) create(ctx context.Context, in CreateInput) (store.WebhookSubscription, string, error) {
	if err := CheckCallbackURL(in.CallbackURL, s.AllowLoopback); err != nil {
		return store.WebhookSubscription{}, "", err
	}
	events, err := checkEvents(in.Events)
	if err != nil {
		return store.WebhookSubscription{}, "", err
	}
	var providers []string
	if in.Providers != nil {
		if providers, err = s.checkProviders(*in.Providers); err != nil {
			return store.WebhookSubscription{}, "", err
		}
	}
	if in.Secret != nil {
		if n := len([]rune(*in.Secret)); n < MinSecretLength || n > MaxSecretLength {
			return store.WebhookSubscription{}, "", &errs.InputError{Msg: fmt.Sprintf("body field secret: must be %d to %d characters", MinSecretLength, MaxSecretLength)}
		}
	}
	now := s.now()
	token, tokenHash, err := newManageToken()
	if err != nil {
		return store.WebhookSubscription{}, "", err
	}
	creator := CreatorKey(in.Client)
	sub := store.WebhookSubscription{
		ID: uuid.NewString(), CallbackURL: in.CallbackURL, Events: events, Providers: providers,
		Status: store.SubscriptionActive, CreatedAt: now, CallbackHost: store.CallbackHost(in.CallbackURL),
		Creator: &creator, ManageTokenHash: &tokenHash,
	}
	if in.Secret != nil {
		sealed, err := s.Secrets.Seal(sub.ID, *in.Secret)
		if err != nil {
			return store.WebhookSubscription{}, "", err
		}
		sub.Secret = &sealed
	}
	if h := in.ExpiresInHours; h != nil {
		if math.IsNaN(*h) || *h <= 0 || *h > MaxExpiresInHours {
			return store.WebhookSubscription{}, "", &errs.InputError{Msg: fmt.Sprintf("body field expires_in_hours: must be greater than 0 and at most %d", MaxExpiresInHours)}
		}
		exp := now.Add(time.Duration(*h * float64(time.Hour)))
		sub.ExpiresAt = &exp
	}
	if in.Metadata != nil {
		b, err := json.Marshal(in.Metadata)
		if err != nil {
			return store.WebhookSubscription{}, "", &errs.InputError{Msg: "body field metadata: not a JSON value"}
		}
		if len(b) > MaxMetadataBytes {
			return store.WebhookSubscription{}, "", &errs.InputError{Msg: fmt.Sprintf("body field metadata: must be at most %d bytes when serialised", MaxMetadataBytes)}
		}
		sub.Metadata = b
	}
	lim := s.Limits.withDefaults()
	err = s.Store.CreateWebhookSubscription(ctx, sub, store.SubscriptionLimits{
		MaxPerCreator: lim.PerClient, CreatorSince: now.Add(-lim.PerClientWindow), MaxPerHost: lim.PerHost, MaxTotal: lim.Total,
	})
	var le *store.LimitError
	if errors.As(err, &le) {
		out := &LimitError{Msg: le.Error()}
		if le.Limit == "creator" {
			out.RetryAfter = lim.PerClientWindow
		}
		return store.WebhookSubscription{}, "", out
	}
	if err != nil {
		return store.WebhookSubscription{}, "", fmt.Errorf("creating webhook subscription: %w", err)
	}
	// Read back what was stored, so the answer is exactly what later reads return (times truncated the same way).
	stored, err := s.Store.GetWebhookSubscription(ctx, sub.ID)
	return stored, token, err
}

// CreatorKey is what is stored of a client's address for the quota: a hash, so the table holds no addresses.
// IPv6 clients count per /64, as the rate limit counts them: one host usually holds a whole /64 and could
// otherwise take a fresh address for every subscription.
func CreatorKey(client string) string {
	if a, err := netip.ParseAddr(client); err == nil && a.Unmap().Is6() {
		if p, err := a.WithZone("").Prefix(64); err == nil {
			client = p.String()
		}
	}
	sum := sha256.Sum256([]byte("switchboard webhook creator\x00" + client))
	return hex.EncodeToString(sum[:16])
}

// newManageToken returns a random unsubscribe token and the hash that is stored of it.
func newManageToken() (token, hash string, err error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", "", fmt.Errorf("making a manage token: %w", err)
	}
	token = "whm_" + base64.RawURLEncoding.EncodeToString(b)
	return token, tokenHash(token), nil
}

func tokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// tokenMatches compares in constant time; a subscription made before tokens existed has none and matches none
// (its receiver can still stop deliveries by answering 410 Gone).
func tokenMatches(stored *string, token string) bool {
	if stored == nil || token == "" {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(*stored), []byte(tokenHash(token))) == 1
}

// Get returns a subscription with its statistics, or ErrNotFound. A subscription whose expiry has passed reads
// deactivated (expired) even before the worker has got to it: it is deactivated here and then.
func (s *Service) Get(ctx context.Context, id string) (store.WebhookSubscription, error) {
	sub, err := s.Store.GetWebhookSubscription(ctx, id)
	if err != nil {
		return store.WebhookSubscription{}, err
	}
	if sub.Status == store.SubscriptionActive && sub.ExpiresAt != nil && !sub.ExpiresAt.After(s.now()) {
		return s.Store.DeactivateWebhookSubscription(ctx, id, store.ReasonExpired, *sub.ExpiresAt)
	}
	return sub, nil
}

// Unsubscribe deactivates a subscription (reason unsubscribed) and returns it, or ErrNotFound, or ErrBadToken
// when token is not the one shown at creation. An already deactivated subscription keeps its reason; an expired
// one reads expired.
func (s *Service) Unsubscribe(ctx context.Context, id, token string) (store.WebhookSubscription, error) {
	sub, err := s.Get(ctx, id)
	if err != nil {
		return sub, err
	}
	if !tokenMatches(sub.ManageTokenHash, token) {
		return store.WebhookSubscription{}, ErrBadToken
	}
	if sub.Status != store.SubscriptionActive {
		return sub, nil
	}
	return s.Store.DeactivateWebhookSubscription(ctx, id, store.ReasonUnsubscribed, s.now())
}

// CheckCallbackURL judges a callback address at subscribe time: an absolute https URL (or, with allowLoopback,
// http to this machine), without credentials, whose host, when it is an IP literal, is allowed. Host names are
// judged again on every connection, on the IP actually dialled.
func CheckCallbackURL(raw string, allowLoopback bool) error {
	const field = "body field callback_url: "
	if raw == "" || len(raw) > MaxCallbackURLLength {
		return &errs.InputError{Msg: fmt.Sprintf(field+"must be 1 to %d characters", MaxCallbackURLLength)}
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Opaque != "" || u.Hostname() == "" {
		return &errs.InputError{Msg: field + "must be an absolute URL with a host"}
	}
	if u.User != nil {
		return &errs.InputError{Msg: field + "must not contain credentials; use secret to authenticate deliveries"}
	}
	host := u.Hostname()
	loopback := isLoopbackHost(host)
	switch u.Scheme {
	case "https":
	case "http":
		if !allowLoopback {
			return &errs.InputError{Msg: field + "must use https"}
		}
		if !loopback {
			return &errs.InputError{Msg: field + "must use https (plain http is allowed for loopback hosts only)"}
		}
	default:
		return &errs.InputError{Msg: field + "must use https"}
	}
	if loopback && !allowLoopback {
		return &errs.InputError{Msg: field + "must not point at this machine (loopback)"}
	}
	var blocked *BlockedAddressError
	if errors.As(checkHostLiteral(strings.TrimSuffix(host, "."), allowLoopback), &blocked) {
		return &errs.InputError{Msg: field + "must not point at a " + blocked.Reason + " address"}
	}
	return nil
}

func checkEvents(events []string) ([]string, error) {
	if len(events) == 0 {
		return nil, &errs.InputError{Msg: "body field events: must have at least 1 item"}
	}
	out := make([]string, 0, len(events))
	for _, e := range events {
		if !slices.Contains(EventTypes, e) {
			return nil, &errs.InputError{Msg: "body field events: must be one of " + strings.Join(EventTypes, ", ")}
		}
		if slices.Contains(out, e) {
			return nil, &errs.InputError{Msg: "body field events: must not repeat an item"}
		}
		out = append(out, e)
	}
	return out, nil
}

func (s *Service) checkProviders(ids []string) ([]string, error) {
	if len(ids) == 0 {
		return nil, &errs.InputError{Msg: "body field providers: must have at least 1 item (or be null for every provider)"}
	}
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if s.KnownProvider == nil || !s.KnownProvider(id) {
			return nil, &errs.UnknownProviderError{ID: id}
		}
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out, nil
}
