package webhooks

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
)

// The headers of a delivery.
const (
	HeaderEvent     = "X-Service-Event"
	HeaderSignature = "X-Service-Signature"
	HeaderID        = "webhook-id"        // Standard Webhooks: the same on every retry of one delivery
	HeaderTimestamp = "webhook-timestamp" // Standard Webhooks: Unix seconds of the attempt
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

// MessageID is the webhook-id of the delivery of event eventID to subscription subscriptionID. It is derived
// from the pair, so it is the same on every retry, after a restart and on every replica, and unique per
// delivery (subscription IDs are random UUIDs).
func MessageID(subscriptionID string, eventID int64) string {
	sum := sha256.Sum256([]byte(subscriptionID + "/" + strconv.FormatInt(eventID, 10)))
	return "msg_" + hex.EncodeToString(sum[:16])
}
