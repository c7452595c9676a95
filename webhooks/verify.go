package webhooks

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"github.com/switchboard/switchboard/store"
)

// The verification handshake. A subscription receives no event until its callback has shown that it wants
// them: the worker POSTs a challenge, signed like a delivery, and the callback must answer 2xx with the
// challenge echoed, as JSON {"challenge": "<challenge>"} or as the bare text. This is the shape of Slack's
// url_verification and of the challenges of WebSub and Zoom: an address that never asked for events (a victim
// named by someone else) does not echo a random value it has never seen, so a subscription cannot be used to
// aim traffic at it. A receiver that never answers gets len(VerifySchedule)+1 attempts, then the subscription
// is deactivated (delivery_failures).

// VerifyEvent is the X-Service-Event and event of a verification request.
const VerifyEvent = "webhook.verify"

// VerificationRequest is the body of a verification request.
type VerificationRequest struct {
	Event     string              `json:"event"` // always webhook.verify
	Timestamp time.Time           `json:"timestamp"`
	Payload   VerificationPayload `json:"payload"`
}

// VerificationPayload names the subscription and carries the challenge to echo.
type VerificationPayload struct {
	SubscriptionID string `json:"subscription_id"`
	Challenge      string `json:"challenge"`
}

// maxChallengeAnswer bounds the part of a verification answer that is read.
const maxChallengeAnswer = 4 << 10

// DefaultVerifySchedule is the wait before each retry of a failed handshake: 1 min, 5 min, 30 min.
var DefaultVerifySchedule = []time.Duration{time.Minute, 5 * time.Minute, 30 * time.Minute}

// verify runs one handshake attempt and returns its outcome.
func (w *Worker) verify(ctx context.Context, v store.WebhookVerification) store.WebhookVerificationResult {
	now := w.cfg.Now().UTC()
	res := store.WebhookVerificationResult{SubscriptionID: v.SubscriptionID, At: now}
	challenge, err := newChallenge()
	if err != nil {
		res.Error = err.Error()
		return w.verifyFailed(res, v)
	}
	body, err := json.Marshal(VerificationRequest{Event: VerifyEvent, Timestamp: now,
		Payload: VerificationPayload{SubscriptionID: v.SubscriptionID, Challenge: challenge}})
	if err != nil {
		res.Error = err.Error()
		return w.verifyFailed(res, v)
	}
	sum := sha256.Sum256([]byte(v.SubscriptionID + "/verify/" + strconv.FormatInt(v.Attempts, 10)))
	r := w.post(ctx, v.SubscriptionID, v.CallbackURL, v.Secret, "vrf_"+hex.EncodeToString(sum[:16]), VerifyEvent, body, now, maxChallengeAnswer)
	w.releaseLane(v.CallbackHost, r.answered())
	switch {
	case r.err != nil:
		res.Error = "verification: " + truncate(r.err.Error(), maxErrorLength)
	case !echoes(r.body, challenge):
		res.Error = "verification: the answer did not echo the challenge"
	default:
		res.OK = true
		w.log.Info("webhook subscription verified", "subscription_id", v.SubscriptionID)
		return res
	}
	return w.verifyFailed(res, v)
}

// verifyFailed schedules the next handshake attempt, or none after the last.
func (w *Worker) verifyFailed(res store.WebhookVerificationResult, v store.WebhookVerification) store.WebhookVerificationResult {
	if n := int(v.Attempts) + 1; n <= len(w.cfg.VerifySchedule) {
		next := res.At.Add(w.cfg.VerifySchedule[n-1])
		res.NextAt = &next
	}
	w.log.Info("webhook verification failed", "subscription_id", v.SubscriptionID, "attempt", v.Attempts+1,
		"error", res.Error, "retry_at", res.NextAt)
	return res
}

// echoes reports whether a verification answer carries the challenge: JSON {"challenge": ...} or the bare text.
func echoes(answer []byte, challenge string) bool {
	answer = bytes.TrimSpace(answer)
	if string(answer) == challenge {
		return true
	}
	var v struct {
		Challenge string `json:"challenge"`
	}
	return json.Unmarshal(answer, &v) == nil && v.Challenge == challenge
}

func newChallenge() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", errors.New("making a challenge failed")
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}
