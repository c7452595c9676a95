package webhooks

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard/switchboard/store"
)

// Event is the body of a delivery: the OpenAPI document's WebhookEvent.
type Event struct {
	Event     string          `json:"event"`
	Timestamp time.Time       `json:"timestamp"` // when the event was emitted, UTC
	Payload   json.RawMessage `json:"payload"`   // ProviderEventPayload or IncidentEventPayload, as the poller wrote it
}

// Body returns the exact bytes delivered for e. They depend on the event only, so every retry sends, and signs,
// the same bytes.
func Body(e store.OutboxEvent) ([]byte, error) {
	if !json.Valid(e.Payload) {
		return nil, fmt.Errorf("event %d has a payload that is not JSON", e.ID)
	}
	return json.Marshal(Event{Event: e.Type, Timestamp: e.CreatedAt.UTC(), Payload: e.Payload})
}

// maxErrorLength bounds the last_error text kept for a subscription.
const maxErrorLength = 300

// attempt sends one delivery and returns its outcome, with the next attempt scheduled when it failed.
func (w *Worker) attempt(ctx context.Context, s store.WebhookSend) store.WebhookAttempt {
	start := w.cfg.Now().UTC()
	a := store.WebhookAttempt{
		DeliveryID: s.DeliveryID, SubscriptionID: s.SubscriptionID, At: start,
		MaxConsecutiveFailures: int64(w.cfg.MaxConsecutiveFailures),
	}
	w.stats.attempts.Add(1)
	status, retryAfter, err := w.send(ctx, s, start)
	if status != 0 {
		st := int64(status)
		a.HTTPStatus = &st
	}
	log := w.log.With("subscription_id", s.SubscriptionID, "delivery_id", s.DeliveryID, "event", s.Event.Type, "attempt", s.Attempts+1)
	if err == nil {
		a.Success = true
		log.Debug("webhook delivered", "status", status)
		return a
	}
	a.Error = truncate(err.Error(), maxErrorLength)
	if status == http.StatusGone {
		// The receiver says the endpoint is gone for good: stop now, whatever the schedule.
		a.Gone = true
		log.Info("webhook receiver answered 410 Gone")
		return a
	}
	// Attempt n (1-based) is followed by retry n, if the schedule has one.
	if n := int(s.Attempts) + 1; n <= len(w.cfg.Retries) {
		delay := w.cfg.Retries[n-1]
		if retryAfter > delay {
			delay = min(retryAfter, w.cfg.MaxRetryAfter)
		}
		next := w.cfg.Now().UTC().Add(delay)
		a.NextAttemptAt = &next
	}
	log.Info("webhook delivery failed", "error", a.Error, "retry_at", a.NextAttemptAt)
	return a
}

// send makes one POST. It returns the answer's status (0 when none came back), the wait a Retry-After header
// asked for, and an error unless the answer was 2xx. Errors never contain the URL or the secret.
func (w *Worker) send(ctx context.Context, s store.WebhookSend, now time.Time) (int, time.Duration, error) {
	body, err := Body(s.Event)
	if err != nil {
		return 0, 0, err
	}
	u, err := url.Parse(s.CallbackURL)
	if err != nil {
		return 0, 0, errors.New("callback_url does not parse")
	}
	// Checked at subscribe time too; checked again here because the setting may have changed since.
	if u.Scheme != "https" && !(u.Scheme == "http" && w.cfg.AllowLoopback && isLoopbackHost(u.Hostname())) {
		return 0, 0, errors.New("callback_url must use https")
	}
	ctx, cancel := context.WithTimeout(ctx, w.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.CallbackURL, bytes.NewReader(body))
	if err != nil {
		return 0, 0, errors.New("callback_url is not a valid request address")
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", w.cfg.UserAgent)
	req.Header.Set(HeaderEvent, s.Event.Type)
	// Lower-case names as Standard Webhooks writes them; HTTP header names are case-insensitive anyway.
	req.Header[HeaderID] = []string{MessageID(s.SubscriptionID, s.EventID)}
	req.Header[HeaderTimestamp] = []string{strconv.FormatInt(now.Unix(), 10)}
	if s.Secret != nil && *s.Secret != "" {
		req.Header.Set(HeaderSignature, Sign(*s.Secret, body))
	}
	res, err := w.cfg.Client.Do(req)
	if err != nil {
		return 0, 0, describeSendError(err, w.cfg.Timeout)
	}
	defer res.Body.Close()
	// Read a bounded part of the answer so the connection can be reused; a receiver that trickles it out is
	// cut off by the timeout, which covers the body too. The status alone decides the outcome.
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, w.cfg.MaxResponseBytes))
	switch {
	case res.StatusCode >= 200 && res.StatusCode < 300:
		return res.StatusCode, 0, nil
	case res.StatusCode >= 300 && res.StatusCode < 400:
		return res.StatusCode, 0, fmt.Errorf("HTTP %d: redirects are not followed", res.StatusCode)
	}
	return res.StatusCode, retryAfter(res.Header.Get("Retry-After"), w.cfg.Now()), fmt.Errorf("HTTP %d", res.StatusCode)
}

// describeSendError words a failed request without the URL (which url.Error repeats, query string included).
func describeSendError(err error, timeout time.Duration) error {
	if b, ok := isBlocked(err); ok {
		return fmt.Errorf("blocked: %w", b)
	}
	var netErr net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &netErr) && netErr.Timeout() {
		return fmt.Errorf("timeout after %s", timeout)
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		if dnsErr.IsNotFound {
			return fmt.Errorf("DNS: host %s not found", dnsErr.Name)
		}
		return fmt.Errorf("DNS: lookup of %s failed", dnsErr.Name)
	}
	var certErr *tls.CertificateVerificationError
	if errors.As(err, &certErr) {
		return errors.New("TLS: certificate not trusted")
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return errors.New(err.Error())
}

// retryAfter reads a Retry-After header: seconds, or an HTTP date. Zero when absent or unreadable.
func retryAfter(h string, now time.Time) time.Duration {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0
	}
	if secs, err := strconv.ParseInt(h, 10, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		// Bounded before converting, so a huge value cannot overflow.
		return time.Duration(min(secs, int64(365*24*3600))) * time.Second
	}
	if t, err := http.ParseTime(h); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	// Cut on a rune boundary.
	for n > 0 && (s[n]&0xC0) == 0x80 {
		n--
	}
	return s[:n] + "…"
}
