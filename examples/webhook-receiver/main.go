// Command webhook-receiver is a small Switchboard webhook receiver: it checks the signature of each delivery
// and prints it. It is what `make demo` subscribes, and a starting point for a real receiver.
//
//	go run ./examples/webhook-receiver -addr 127.0.0.1:18095 -secret "$WEBHOOK_SECRET"
//
// A delivery is a POST of JSON {"event", "timestamp", "payload"} with the headers X-Service-Event,
// X-Service-Signature (hex HMAC-SHA256 of the raw body keyed with the subscription's secret), webhook-id (the
// same on every retry: use it to drop duplicates), webhook-timestamp (Unix seconds of the attempt) and
// webhook-signature ("v1," + base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>", Standard
// Webhooks). The last one is what this receiver checks: it covers the id and the time, so a captured delivery
// sent again is refused (too old, or an id already handled), where X-Service-Signature covers the body alone.
//
// Before the first event, the service sends a verification challenge (X-Service-Event: webhook.verify, body
// {"payload": {"challenge": ...}}); a subscription receives events only once the challenge has been echoed.
package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// verify is the whole of signature checking: HMAC-SHA256 over the raw body, compared in constant time.
func verify(secret string, body []byte, signature string) bool {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	got, err := hex.DecodeString(signature)
	return err == nil && hmac.Equal(got, mac.Sum(nil))
}

// verifyStandard checks webhook-signature as Standard Webhooks defines it: HMAC-SHA256 of
// "id.timestamp.body", keyed with the secret's bytes (the base64-decoded part of a "whsec_" secret), any of the
// space-separated "v1,<base64>" values matching, compared in constant time.
func verifyStandard(secret, id, timestamp string, body []byte, header string) bool {
	key := []byte(secret)
	if rest, ok := strings.CutPrefix(secret, "whsec_"); ok {
		if k, err := base64.StdEncoding.DecodeString(rest); err == nil {
			key = k
		}
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + timestamp + "."))
	mac.Write(body)
	want := mac.Sum(nil)
	for _, sig := range strings.Fields(header) {
		if v, b64, ok := strings.Cut(sig, ","); ok && v == "v1" {
			if got, err := base64.StdEncoding.DecodeString(b64); err == nil && hmac.Equal(got, want) {
				return true
			}
		}
	}
	return false
}

type delivery struct {
	Event     string    `json:"event"`
	Timestamp time.Time `json:"timestamp"`
	Payload   struct {
		ProviderID     string  `json:"provider_id"`
		PreviousStatus string  `json:"previous_status"` // provider.* events
		CurrentStatus  string  `json:"current_status"`
		Severity       string  `json:"severity"` // incident.* events
		Description    string  `json:"description"`
		Duration       float64 `json:"duration_minutes"`
	} `json:"payload"`
}

func main() {
	addr := flag.String("addr", "127.0.0.1:18095", "listen address")
	secret := flag.String("secret", os.Getenv("WEBHOOK_SECRET"), "the subscription's secret (default $WEBHOOK_SECRET); empty accepts unsigned deliveries")
	maxAge := flag.Duration("max-age", 5*time.Minute, "refuse deliveries whose webhook-timestamp is older than this (replays)")
	flag.Parse()

	var mu sync.Mutex
	seen := map[string]bool{} // webhook-ids already handled: retries of a delivery that got through are dropped
	http.HandleFunc("POST /", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20))
		if err != nil {
			http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
			return
		}
		// The signature first (it covers the id and the timestamp), then the timestamp's age, then the id.
		if *secret != "" && !verifyStandard(*secret, r.Header.Get("webhook-id"), r.Header.Get("webhook-timestamp"), body, r.Header.Get("webhook-signature")) {
			fmt.Println("REJECTED: bad or missing webhook-signature")
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		if *secret != "" && !verify(*secret, body, r.Header.Get("X-Service-Signature")) {
			fmt.Println("REJECTED: bad or missing X-Service-Signature")
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		if ts, err := strconv.ParseInt(r.Header.Get("webhook-timestamp"), 10, 64); err != nil || time.Since(time.Unix(ts, 0)).Abs() > *maxAge {
			fmt.Println("REJECTED: webhook-timestamp missing or too far from now")
			http.Error(w, "stale delivery", http.StatusBadRequest)
			return
		}
		if r.Header.Get("X-Service-Event") == "webhook.verify" {
			// The handshake: echo the challenge, and the subscription starts receiving events.
			var v struct {
				Payload struct {
					SubscriptionID string `json:"subscription_id"`
					Challenge      string `json:"challenge"`
				} `json:"payload"`
			}
			if err := json.Unmarshal(body, &v); err != nil || v.Payload.Challenge == "" {
				http.Error(w, "not a verification request", http.StatusBadRequest)
				return
			}
			fmt.Printf("verified subscription %s (echoed the challenge)\n", v.Payload.SubscriptionID)
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]string{"challenge": v.Payload.Challenge})
			return
		}
		id := r.Header.Get("webhook-id")
		mu.Lock()
		dup := seen[id]
		if len(seen) >= 100_000 {
			clear(seen) // bounded memory; a real receiver would keep the ids of the last day in its database
		}
		seen[id] = true
		mu.Unlock()
		if dup {
			w.WriteHeader(http.StatusNoContent) // already handled; say so, or it is retried
			return
		}
		var d delivery
		if err := json.Unmarshal(body, &d); err != nil {
			http.Error(w, "not a delivery", http.StatusBadRequest)
			return
		}
		signed := "unsigned"
		if *secret != "" {
			signed = "signature valid"
		}
		switch p := d.Payload; {
		case p.CurrentStatus != "":
			fmt.Printf("received %s (%s) webhook-id=%s: %s %s -> %s at %s\n", d.Event, signed, id, p.ProviderID, p.PreviousStatus, p.CurrentStatus, d.Timestamp.Format(time.RFC3339))
		default:
			fmt.Printf("received %s (%s) webhook-id=%s: %s %s incident, %.1f min: %s\n", d.Event, signed, id, p.ProviderID, p.Severity, p.Duration, p.Description)
		}
		w.WriteHeader(http.StatusNoContent)
	})
	srv := &http.Server{Addr: *addr, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second, WriteTimeout: 10 * time.Second}
	log.Printf("webhook receiver listening on http://%s (signatures %s)", *addr, map[bool]string{true: "checked", false: "not checked"}[*secret != ""])
	log.Fatal(srv.ListenAndServe())
}
