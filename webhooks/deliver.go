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
	res := w.send(ctx, s, start)
	w.releaseLane(s.CallbackHost, res.answered())
	if res.status != 0 {
		st := int64(res.status)
		a.HTTPStatus = &st
	}
	log := w.log.With("subscription_id", s.SubscriptionID, "delivery_id", s.DeliveryID, "event", s.Event.Type, "attempt", s.Attempts+1)
	if res.err == nil {
		a.Success = true
		log.Debug("webhook delivered", "status", res.status)
		return a
	}
	a.Error = truncate(res.err.Error(), maxErrorLength)
	if res.status == http.StatusGone {
		// The receiver says the endpoint is gone for good: stop now, whatever the schedule.
		a.Gone = true
		log.Info("webhook receiver answered 410 Gone")
		return a
	}
	// Attempt n (1-based) is followed by retry n, if the schedule has one.
	if n := int(s.Attempts) + 1; n <= len(w.cfg.Retries) {
		delay := w.cfg.Retries[n-1]
		if res.retryAfter > delay {
			delay = min(res.retryAfter, w.cfg.MaxRetryAfter)
		}
		next := w.cfg.Now().UTC().Add(delay)
		a.NextAttemptAt = &next
	}
	log.Info("webhook delivery failed", "error", a.Error, "retry_at", a.NextAttemptAt)
	return a
}

// postResult is what one POST to a callback got.
type postResult struct {
	status     int           // the answer's status; 0 when none came back
	retryAfter time.Duration // what a Retry-After header asked for
	body       []byte        // the first bytes of the answer, when asked for
	err        error         // nil for a 2xx answer; never contains the URL or the secret
	sent       bool          // a connection was attempted (false: refused before sending)
}

// answered reports whether the host answered at all: anything else counts towards its breaker.
func (r postResult) answered() bool { return r.status != 0 || !r.sent }

// send makes one delivery's POST.
func (w *Worker) send(ctx context.Context, s store.WebhookSend, now time.Time) postResult {
	body, err := Body(s.Event)
	if err != nil {
		return postResult{err: err}
	}
	return w.post(ctx, s.SubscriptionID, s.CallbackURL, s.Secret, MessageID(s.SubscriptionID, s.EventID), s.Event.Type, body, now, 0)
}

// post makes one signed POST of body to a subscription's callback. keep bytes of the answer are returned (the
// verification reads the echoed challenge); the rest, up to MaxResponseBytes, is read and dropped so the
// connection can be reused.
func (w *Worker) post(ctx context.Context, subID, callbackURL string, storedSecret *string, msgID, event string, body []byte, now time.Time, keep int64) postResult {
	u, err := url.Parse(callbackURL)
	if err != nil {
		return postResult{err: errors.New("callback_url does not parse")}
	}
	// Checked at subscribe time too; checked again here because the setting may have changed since.
	if u.Scheme != "https" && !(u.Scheme == "http" && w.cfg.AllowLoopback && isLoopbackHost(u.Hostname())) {
		return postResult{err: errors.New("callback_url must use https")}
	}
	var secret string
	if storedSecret != nil {
		if secret, err = w.cfg.Secrets.Open(subID, *storedSecret); err != nil {
			return postResult{err: err}
		}
	}
	ctx, cancel := context.WithTimeout(ctx, w.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, callbackURL, bytes.NewReader(body))
	if err != nil {
		return postResult{err: errors.New("callback_url is not a valid request address")}
	}
	ts := strconv.FormatInt(now.Unix(), 10)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", w.cfg.UserAgent)
	req.Header.Set(HeaderEvent, event)
	// Lower-case names as Standard Webhooks writes them; HTTP header names are case-insensitive anyway.
	req.Header[HeaderID] = []string{msgID}
	req.Header[HeaderTimestamp] = []string{ts}
	if secret != "" {
		req.Header.Set(HeaderSignature, Sign(secret, body))
		req.Header[HeaderStandardSignature] = []string{SignStandard(secret, msgID, now.Unix(), body)}
	}
	res, err := w.cfg.Client.Do(req)
	if err != nil {
		_, blocked := isBlocked(err)
		return postResult{err: describeSendError(err, w.cfg.Timeout), sent: !blocked}
	}
	defer res.Body.Close()
	out := postResult{status: res.StatusCode, sent: true}
	// Read a bounded part of the answer; a receiver that trickles it out is cut off by the timeout, which
	// covers the body too. The status alone decides a delivery's outcome.
	if keep > 0 {
		out.body, _ = io.ReadAll(io.LimitReader(res.Body, keep))
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, w.cfg.MaxResponseBytes))
	switch {
	case res.StatusCode >= 200 && res.StatusCode < 300:
		return out
	case res.StatusCode >= 300 && res.StatusCode < 400:
		out.err = fmt.Errorf("HTTP %d: redirects are not followed", res.StatusCode)
		return out
	}
	out.retryAfter = retryAfter(res.Header.Get("Retry-After"), w.cfg.Now())
	out.err = fmt.Errorf("HTTP %d", res.StatusCode)
	return out
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
