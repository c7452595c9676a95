package webhooks

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"
)

// The headers of a delivery.
const (
	HeaderEvent     = "X-Service-Event"
	HeaderSignature = "X-Service-Signature" // the contract's: hex HMAC-SHA256 of the body alone
	HeaderID        = "webhook-id"          // Standard Webhooks: the same on every retry of one delivery
	HeaderTimestamp = "webhook-timestamp"   // Standard Webhooks: Unix seconds of the attempt
	// HeaderStandardSignature is Standard Webhooks' signature: "v1," + base64 HMAC-SHA256 of
	// "<webhook-id>.<webhook-timestamp>.<body>". It covers the id and the time, so a receiver that checks the
	// timestamp's age and remembers ids can refuse a replayed delivery; X-Service-Signature alone cannot.
	HeaderStandardSignature = "webhook-signature"
)

// Sign returns the hex HMAC-SHA256 of body keyed with secret: the X-Service-Signature of a delivery.
func Sign(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// Verify reports whether signature (hex, any case) is the HMAC-SHA256 of body keyed with secret. It compares
// in constant time: a receiver must never let the time of a comparison tell how much of a guess was right.
func Verify(secret string, body []byte, signature string) bool {
	got, err := hex.DecodeString(strings.TrimSpace(signature))
	if err != nil {
		return false
	}
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return hmac.Equal(got, m.Sum(nil))
}

// standardKey is the HMAC key Standard Webhooks derives from a secret: the base64-decoded part after "whsec_"
// for secrets of that form (so the official libraries verify with the secret as given), the secret's own bytes
// otherwise.
func standardKey(secret string) []byte {
	if rest, ok := strings.CutPrefix(secret, "whsec_"); ok {
		if k, err := base64.StdEncoding.DecodeString(rest); err == nil && len(k) > 0 {
			return k
		}
	}
	return []byte(secret)
}

func standardMAC(secret, msgID, timestamp string, body []byte) []byte {
	m := hmac.New(sha256.New, standardKey(secret))
	m.Write([]byte(msgID))
	m.Write([]byte{'.'})
	m.Write([]byte(timestamp))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}

// SignStandard returns the webhook-signature header of a delivery: "v1," + base64 HMAC-SHA256 of
// "msgID.timestamp.body" (Standard Webhooks).
func SignStandard(secret, msgID string, timestamp int64, body []byte) string {
	return "v1," + base64.StdEncoding.EncodeToString(standardMAC(secret, msgID, strconv.FormatInt(timestamp, 10), body))
}

// Errors of VerifyStandard.
var (
	ErrStaleTimestamp = errors.New("webhook-timestamp missing or outside the tolerance")
	ErrBadSignature   = errors.New("no webhook-signature matches")
)

// VerifyStandard checks a delivery as a Standard Webhooks receiver does: the timestamp within tolerance of now
// (either way), and one of the space-separated "v1,<base64>" signatures the HMAC of "msgID.timestamp.body".
// Receivers should also remember msgIDs they have handled: a replay inside the tolerance carries a known id.
func VerifyStandard(secret, msgID, timestamp, signatures string, body []byte, now time.Time, tolerance time.Duration) error {
	ts, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil {
		return ErrStaleTimestamp
	}
	if d := now.Sub(time.Unix(ts, 0)); d > tolerance || d < -tolerance {
		return ErrStaleTimestamp
	}
	want := standardMAC(secret, msgID, timestamp, body)
	for _, s := range strings.Fields(signatures) {
		v, sig, ok := strings.Cut(s, ",")
		if !ok || v != "v1" {
			continue
		}
		if got, err := base64.StdEncoding.DecodeString(sig); err == nil && hmac.Equal(got, want) {
			return nil
		}
	}
	return ErrBadSignature
}

// MessageID is the webhook-id of the delivery of event eventID to subscription subscriptionID. It is derived
// from the pair, so it is the same on every retry, after a restart and on every replica, and unique per
// delivery (subscription IDs are random UUIDs).
func MessageID(subscriptionID string, eventID int64) string {
	sum := sha256.Sum256([]byte(subscriptionID + "/" + strconv.FormatInt(eventID, 10)))
	return "msg_" + hex.EncodeToString(sum[:16])
}
