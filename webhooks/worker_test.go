package webhooks_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/switchboard/switchboard/dbtest"
	"github.com/switchboard/switchboard/openapi"
	"github.com/switchboard/switchboard/store"
	"github.com/switchboard/switchboard/webhooks"
)

// forEngines runs fn on SQLite and, with TEST_DATABASE_URL, PostgreSQL.
func forEngines(t *testing.T, fn func(t *testing.T, e dbtest.Engine)) {
	for _, e := range dbtest.Engines(t) {
		t.Run(e.Name, func(t *testing.T) {
			t.Parallel()
			fn(t, e)
		})
	}
}

// receiverVerify is how a receiver checks a delivery, written here from the contract rather than with the
// package's own Verify: hex HMAC-SHA256 of the raw body keyed with the secret, compared in constant time.
func receiverVerify(secret string, body []byte, header string) bool {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	want := mac.Sum(nil)
	got, err := hex.DecodeString(header)
	return err == nil && hmac.Equal(got, want)
}

var webhookEventSchema = sync.OnceValues(func() (*openapi3.Schema, error) {
	doc, err := openapi.Load(context.Background())
	if err != nil {
		return nil, err
	}
	ref := doc.Components.Schemas["WebhookEvent"]
	if ref == nil || ref.Value == nil {
		return nil, fmt.Errorf("the document has no WebhookEvent schema")
	}
	return ref.Value, nil
})

// checkEventBody validates a delivery body against the document's WebhookEvent schema.
func checkEventBody(t *testing.T, body []byte) map[string]any {
	t.Helper()
	sc, err := webhookEventSchema()
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("body is not JSON: %s", body)
	}
	if err := sc.VisitJSON(v, openapi3.EnableJSONSchema2020()); err != nil {
		t.Errorf("delivery body does not follow WebhookEvent: %v\n%s", err, body)
	}
	return v.(map[string]any)
}

func TestSignedDelivery(t *testing.T) {
	forEngines(t, func(t *testing.T, e dbtest.Engine) {
		en := newEnv(t, e)
		const secret = "s3cret-0123456789-abcdef"
		signed := newReceiver(t, nil)
		plain := newReceiver(t, status(http.StatusOK))
		a := en.subscribe(webhooks.CreateInput{CallbackURL: signed.URL + "/hook?x=1", Events: []string{"provider.down"}, Providers: &[]string{"openai"}, Secret: ptr(secret)})
		b := en.subscribe(webhooks.CreateInput{CallbackURL: plain.URL, Events: []string{"provider.down", "incident.new"}})
		en.clock.Advance(time.Second)
		evs := en.emit("openai", store.OutcomeOperational, store.OutcomeOutage)
		if len(evs) != 2 || evs[0].Type != "provider.down" || evs[1].Type != "incident.new" {
			t.Fatalf("events %+v", evs)
		}
		st := en.drain()
		if st.EventsFannedOut != 2 || st.DeliveriesQueued != 3 || st.Delivered != 3 || st.Failed != 0 {
			t.Errorf("stats %+v", st)
		}

		hits := signed.Hits()
		if len(hits) != 1 {
			t.Fatalf("signed receiver got %d deliveries, want 1", len(hits))
		}
		h := hits[0]
		if !receiverVerify(secret, h.Body, h.Header.Get("X-Service-Signature")) {
			t.Errorf("signature %q does not verify", h.Header.Get("X-Service-Signature"))
		}
		if receiverVerify("another-secret-0123456789", h.Body, h.Header.Get("X-Service-Signature")) {
			t.Error("the signature verifies with another secret")
		}
		if !webhooks.Verify(secret, h.Body, h.Header.Get("X-Service-Signature")) {
			t.Error("webhooks.Verify disagrees with the receiver")
		}
		if ct := h.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type %q", ct)
		}
		if got := h.Header.Get("X-Service-Event"); got != "provider.down" {
			t.Errorf("X-Service-Event %q", got)
		}
		if got, want := h.Header.Get("webhook-id"), webhooks.MessageID(a.ID, evs[0].ID); got != want || !regexp.MustCompile(`^msg_[0-9a-f]{32}$`).MatchString(got) {
			t.Errorf("webhook-id %q, want %q", got, want)
		}
		if got := h.Header.Get("webhook-timestamp"); got != strconv.FormatInt(en.clock.Now().Unix(), 10) {
			t.Errorf("webhook-timestamp %q, want %d", got, en.clock.Now().Unix())
		}
		m := checkEventBody(t, h.Body)
		p := m["payload"].(map[string]any)
		if len(m) != 3 || m["event"] != "provider.down" || m["timestamp"] != en.clock.Now().Format(time.RFC3339Nano) ||
			p["provider_id"] != "openai" || p["previous_status"] != "operational" || p["current_status"] != "outage" || p["description"] == "" {
			t.Errorf("body %s", h.Body)
		}
		if strings.Contains(en.logs.String(), secret) {
			t.Error("the secret reached the log")
		}

		// No secret: no signature header; both events, each body valid.
		ph := plain.Hits()
		if len(ph) != 2 {
			t.Fatalf("plain receiver got %d deliveries, want 2", len(ph))
		}
		var kinds []string
		for _, h := range ph {
			if _, ok := h.Header["X-Service-Signature"]; ok {
				t.Error("an unsigned subscription's delivery carries X-Service-Signature")
			}
			kinds = append(kinds, checkEventBody(t, h.Body)["event"].(string))
		}
		slices.Sort(kinds)
		if !slices.Equal(kinds, []string{"incident.new", "provider.down"}) {
			t.Errorf("plain receiver got %v", kinds)
		}
		sa, sb := en.get(a.ID), en.get(b.ID)
		if sa.FireCount != 1 || sa.FailCount != 0 || sa.LastDeliveryAt == nil || sb.FireCount != 2 {
			t.Errorf("stats a=%+v b=%+v", sa, sb)
		}
		// Nothing left: a second drain sends nothing.
		if st := en.drain(); st.Attempts != 0 || len(signed.Hits()) != 1 {
			t.Errorf("second drain %+v", st)
		}
	})
}

func TestFilters(t *testing.T) {
	forEngines(t, func(t *testing.T, e dbtest.Engine) {
		en := newEnv(t, e)
		all := newReceiver(t, nil)
		anth := newReceiver(t, nil)
		inc := newReceiver(t, nil)
		en.subscribe(webhooks.CreateInput{CallbackURL: all.URL, Events: []string{"provider.down"}})
		en.subscribe(webhooks.CreateInput{CallbackURL: anth.URL, Events: []string{"provider.down", "provider.up"}, Providers: &[]string{"anthropic"}})
		en.subscribe(webhooks.CreateInput{CallbackURL: inc.URL, Events: []string{"incident.new", "incident.resolved"}, Providers: &[]string{"openai"}})
		en.clock.Advance(time.Second)
		en.emit("openai", store.OutcomeOperational, store.OutcomeOutage)    // provider.down, incident.new
		en.emit("anthropic", store.OutcomeOperational, store.OutcomeOutage) // provider.down, incident.new
		en.emit("groq", store.OutcomeOperational, store.OutcomeDegraded)    // provider.degraded, incident.new
		en.clock.Advance(time.Minute)
		en.emit("openai", store.OutcomeOutage, store.OutcomeOperational) // provider.up, incident.resolved
		en.drain()
		got := func(rc *receiver) []string {
			var out []string
			for _, h := range rc.Hits() {
				m := checkEventBody(t, h.Body)
				out = append(out, m["event"].(string)+"/"+m["payload"].(map[string]any)["provider_id"].(string))
			}
			slices.Sort(out)
			return out
		}
		if g := got(all); !slices.Equal(g, []string{"provider.down/anthropic", "provider.down/openai"}) {
			t.Errorf("all providers, provider.down: %v", g)
		}
		if g := got(anth); !slices.Equal(g, []string{"provider.down/anthropic"}) {
			t.Errorf("anthropic only: %v", g)
		}
		if g := got(inc); !slices.Equal(g, []string{"incident.new/openai", "incident.resolved/openai"}) {
			t.Errorf("openai incidents: %v", g)
		}
	})
}

// TestFailuresDeactivate walks the retry schedule of a receiver that always fails, then lets a second event
// bring the run of failed attempts to ten.
func TestFailuresDeactivate(t *testing.T) {
	forEngines(t, func(t *testing.T, e dbtest.Engine) {
		en := newEnv(t, e)
		rc := newReceiver(t, status(http.StatusInternalServerError))
		other := newReceiver(t, nil)
		sub := en.subscribe(webhooks.CreateInput{CallbackURL: rc.URL, Events: []string{"provider.down"}})
		en.subscribe(webhooks.CreateInput{CallbackURL: other.URL, Events: []string{"provider.down"}})
		en.clock.Advance(time.Second)
		ev := en.emit("openai", store.OutcomeOperational, store.OutcomeOutage)[0]

		// The schedule: the first attempt and an immediate retry, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h.
		en.drain()
		want := 2
		for _, d := range []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour} {
			if n := len(rc.Hits()); n != want {
				t.Fatalf("%d attempts before the %s retry, want %d", n, d, want)
			}
			en.clock.Advance(d - time.Second)
			if en.drain(); len(rc.Hits()) != want {
				t.Fatalf("retried before the %s delay was over", d)
			}
			en.clock.Advance(time.Second)
			en.drain()
			want++
		}
		if n := len(rc.Hits()); n != 8 {
			t.Fatalf("%d attempts, want 8", n)
		}
		ids := map[string]bool{}
		for _, h := range rc.Hits() {
			ids[h.Header.Get("webhook-id")] = true
		}
		if len(ids) != 1 || !ids[webhooks.MessageID(sub.ID, ev.ID)] {
			t.Errorf("webhook-ids across retries: %v", ids)
		}
		ds, _ := en.st.WebhookDeliveries(context.Background(), sub.ID, 0)
		if len(ds) != 1 || ds[0].Status != store.DeliveryFailed || ds[0].Attempts != 8 {
			t.Errorf("given-up delivery %+v", ds)
		}
		s := en.get(sub.ID)
		if s.Status != store.SubscriptionActive || s.FailCount != 8 || s.ConsecutiveFailures != 8 || *s.LastError != "HTTP 500" {
			t.Errorf("after 8 failures %+v", s)
		}
		en.clock.Advance(24 * time.Hour)
		if en.drain(); len(rc.Hits()) != 8 {
			t.Error("a given-up delivery was sent again")
		}

		// The next event: attempts 9 and 10 (the immediate retry) fail; the tenth deactivates.
		en.emit("openai", store.OutcomeOutage, store.OutcomeOperational)
		en.emit("openai", store.OutcomeOperational, store.OutcomeOutage)
		en.drain()
		s = en.get(sub.ID)
		if len(rc.Hits()) != 10 || s.Status != store.SubscriptionDeactivated || *s.DeactivatedReason != store.ReasonDeliveryFailures ||
			s.FailCount != 10 || s.ConsecutiveFailures != 10 {
			t.Fatalf("after 10 failures: %d requests, %+v", len(rc.Hits()), s)
		}
		en.clock.Advance(time.Hour)
		en.emit("openai", store.OutcomeOutage, store.OutcomeOperational)
		en.emit("openai", store.OutcomeOperational, store.OutcomeOutage)
		en.drain()
		if n := len(rc.Hits()); n != 10 {
			t.Errorf("a deactivated subscription got %d more requests", n-10)
		}
		// The healthy subscription got all three provider.down events.
		if n := len(other.Hits()); n != 3 {
			t.Errorf("the other receiver got %d deliveries, want 3", n)
		}
	})
}

func TestSuccessResetsFailures(t *testing.T) {
	forEngines(t, func(t *testing.T, e dbtest.Engine) {
		en := newEnv(t, e)
		// Nine failures, a success, then failures again.
		rc := newReceiver(t, func(n int, w http.ResponseWriter, _ *http.Request) {
			if n == 10 {
				w.WriteHeader(http.StatusOK)
				return
			}
			w.WriteHeader(http.StatusServiceUnavailable)
		})
		sub := en.subscribe(webhooks.CreateInput{CallbackURL: rc.URL, Events: []string{"provider.down"}})
		en.clock.Advance(time.Second)
		// Each round is one provider.down: an attempt and its immediate retry, one after the other.
		round := func() store.WebhookSubscription {
			en.emit("openai", store.OutcomeOperational, store.OutcomeOutage)
			en.emit("openai", store.OutcomeOutage, store.OutcomeOperational)
			en.drain()
			return en.get(sub.ID)
		}
		for i := 1; i <= 9; i++ {
			if s := round(); s.Status != store.SubscriptionActive {
				t.Fatalf("deactivated in round %d after %d requests: %+v", i, len(rc.Hits()), s)
			}
		}
		s := en.get(sub.ID)
		if len(rc.Hits()) != 18 || s.FireCount != 1 || s.FailCount != 17 || s.ConsecutiveFailures != 8 {
			t.Errorf("after 18 requests (17 failed, the 10th succeeded): %d requests, %+v", len(rc.Hits()), s)
		}
		// Two more failures make ten in a row since the success.
		s = round()
		if len(rc.Hits()) != 20 || s.Status != store.SubscriptionDeactivated || s.ConsecutiveFailures != 10 || *s.DeactivatedReason != store.ReasonDeliveryFailures {
			t.Errorf("after 20 requests: %d, %+v", len(rc.Hits()), s)
		}
	})
}

func TestGone(t *testing.T) {
	forEngines(t, func(t *testing.T, e dbtest.Engine) {
		en := newEnv(t, e)
		rc := newReceiver(t, status(http.StatusGone))
		sub := en.subscribe(webhooks.CreateInput{CallbackURL: rc.URL, Events: []string{"provider.down"}})
		en.clock.Advance(time.Second)
		en.emit("openai", store.OutcomeOperational, store.OutcomeOutage)
		en.drain()
		s := en.get(sub.ID)
		if n := len(rc.Hits()); n != 1 {
			t.Errorf("%d requests after a 410, want 1 (no retry)", n)
		}
		if s.Status != store.SubscriptionDeactivated || *s.DeactivatedReason != store.ReasonGone || s.FailCount != 1 || *s.LastError != "HTTP 410" {
			t.Errorf("after 410: %+v", s)
		}
		en.clock.Advance(time.Hour)
		en.emit("anthropic", store.OutcomeOperational, store.OutcomeOutage)
		if en.drain(); len(rc.Hits()) != 1 {
			t.Error("a gone subscription got another delivery")
		}
	})
}

func TestExpiry(t *testing.T) {
	forEngines(t, func(t *testing.T, e dbtest.Engine) {
		en := newEnv(t, e)
		rc := newReceiver(t, nil)
		slow := newReceiver(t, status(http.StatusBadGateway))
		sub := en.subscribe(webhooks.CreateInput{CallbackURL: rc.URL, Events: []string{"provider.down", "provider.up"}, ExpiresInHours: ptr(1.0)})
		pending := en.subscribe(webhooks.CreateInput{CallbackURL: slow.URL, Events: []string{"provider.down"}, ExpiresInHours: ptr(0.5)})
		if want := en.clock.Now().Add(time.Hour); !sub.ExpiresAt.Equal(want) {
			t.Errorf("expires_at %v, want %v", sub.ExpiresAt, want)
		}
		en.clock.Advance(time.Second)
		en.emit("openai", store.OutcomeOperational, store.OutcomeOutage)
		en.drain()
		if len(rc.Hits()) != 1 || len(slow.Hits()) != 2 {
			t.Fatalf("before expiry: %d and %d requests", len(rc.Hits()), len(slow.Hits()))
		}
		// The failing subscription's retries are due after 5 s, 5 min, 30 min: it expires after 30 min, so the
		// 30 min retry never happens.
		en.clock.Advance(5 * time.Second)
		en.drain()
		en.clock.Advance(5 * time.Minute)
		en.drain()
		if len(slow.Hits()) != 4 {
			t.Fatalf("%d requests to the failing receiver, want 4", len(slow.Hits()))
		}
		en.clock.Advance(30 * time.Minute)
		st := en.drain()
		if len(slow.Hits()) != 4 {
			t.Error("an expired subscription got a retry")
		}
		p := en.get(pending.ID)
		if p.Status != store.SubscriptionDeactivated || *p.DeactivatedReason != store.ReasonExpired {
			t.Errorf("expired subscription %+v", p)
		}
		if st.Deactivated != 1 {
			t.Errorf("the worker expired %d subscriptions, want 1", st.Deactivated)
		}
		ds, _ := en.st.WebhookDeliveries(context.Background(), pending.ID, 0)
		if len(ds) != 1 || ds[0].Status != store.DeliveryCancelled {
			t.Errorf("pending delivery of the expired subscription: %+v", ds)
		}

		// The other expires after an hour: an event then reaches nobody, and the read says expired even before
		// the worker ran.
		en.clock.Advance(25 * time.Minute)
		if s := en.get(sub.ID); s.Status != store.SubscriptionDeactivated || *s.DeactivatedReason != store.ReasonExpired || !s.DeactivatedAt.Equal(*s.ExpiresAt) {
			t.Errorf("read after expiry: %+v", s)
		}
		en.emit("openai", store.OutcomeOutage, store.OutcomeOperational)
		if en.drain(); len(rc.Hits()) != 1 {
			t.Error("an expired subscription got an event")
		}
	})
}

func TestHangingReceiver(t *testing.T) {
	forEngines(t, func(t *testing.T, e dbtest.Engine) {
		en := newEnv(t, e, func(c *webhooks.Config) { c.Timeout = 300 * time.Millisecond })
		release := make(chan struct{})
		hang := newReceiver(t, func(_ int, w http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		})
		t.Cleanup(func() { close(release) })
		fine := newReceiver(t, nil)
		sub := en.subscribe(webhooks.CreateInput{CallbackURL: hang.URL, Events: []string{"provider.down"}})
		en.subscribe(webhooks.CreateInput{CallbackURL: fine.URL, Events: []string{"provider.down"}})
		en.clock.Advance(time.Second)
		en.emit("openai", store.OutcomeOperational, store.OutcomeOutage)
		start := time.Now()
		en.drain()
		took := time.Since(start)
		if took > 3*time.Second {
			t.Errorf("draining with a hanging receiver took %s (timeout 300ms, two attempts)", took)
		}
		s := en.get(sub.ID)
		if len(hang.Hits()) != 2 || s.FailCount != 2 || *s.LastError != "timeout after 300ms" {
			t.Errorf("hanging receiver: %d requests, %+v", len(hang.Hits()), s)
		}
		if len(fine.Hits()) != 1 {
			t.Errorf("the other receiver got %d deliveries", len(fine.Hits()))
		}
	})
}

// TestRestartMidSchedule: a new worker over the same database (a restarted process) continues the retry
// schedule with the same webhook-id, and a delivery a dead worker was sending comes back after its lease.
func TestRestartMidSchedule(t *testing.T) {
	forEngines(t, func(t *testing.T, e dbtest.Engine) {
		en := newEnv(t, e)
		rc := newReceiver(t, func(n int, w http.ResponseWriter, _ *http.Request) {
			if n <= 3 {
				w.WriteHeader(http.StatusInternalServerError)
				return
			}
			w.WriteHeader(http.StatusOK)
		})
		sub := en.subscribe(webhooks.CreateInput{CallbackURL: rc.URL, Events: []string{"provider.down"}})
		en.clock.Advance(time.Second)
		ev := en.emit("openai", store.OutcomeOperational, store.OutcomeOutage)[0]
		en.drain() // attempts 1 and 2 fail; the next is due in 5 s
		en.clock.Advance(5 * time.Second)
		en.drain() // attempt 3 fails; the next is due in 5 min
		if len(rc.Hits()) != 3 {
			t.Fatalf("%d attempts before the restart", len(rc.Hits()))
		}

		// The process stops; a new one opens the database afresh.
		st2 := dbtest.OpenStore(t, en.url)
		w2 := en.worker(st2)
		en.clock.Advance(4 * time.Minute)
		if drainWith(t, w2); len(rc.Hits()) != 3 {
			t.Fatal("the restarted worker retried early")
		}
		en.clock.Advance(time.Minute)
		drainWith(t, w2)
		hits := rc.Hits()
		if len(hits) != 4 {
			t.Fatalf("%d attempts after the restart, want 4", len(hits))
		}
		for _, h := range hits {
			if h.Header.Get("webhook-id") != webhooks.MessageID(sub.ID, ev.ID) {
				t.Errorf("webhook-id changed: %s", h.Header.Get("webhook-id"))
			}
		}
		en.clock.Advance(48 * time.Hour)
		if drainWith(t, w2); len(rc.Hits()) != 4 {
			t.Error("a delivered event was sent again")
		}
		s, _ := st2.GetWebhookSubscription(context.Background(), sub.ID)
		if s.FireCount != 1 || s.FailCount != 3 || s.ConsecutiveFailures != 0 {
			t.Errorf("after the restart: %+v", s)
		}

		// A worker dies between claiming and recording: the lease runs out and a new worker sends it again.
		ok := newReceiver(t, nil)
		sub2 := en.subscribe(webhooks.CreateInput{CallbackURL: ok.URL, Events: []string{"provider.up"}})
		en.clock.Advance(time.Second)
		ev2 := en.emit("openai", store.OutcomeOutage, store.OutcomeOperational)[0]
		if _, err := st2.FanOutWebhookEvents(context.Background(), en.clock.Now(), store.FanOutOptions{MaxEvents: 10, GapGrace: time.Minute}); err != nil {
			t.Fatal(err)
		}
		claimed, err := st2.ClaimWebhookDeliveries(context.Background(), en.clock.Now(), en.clock.Now().Add(75*time.Second), 10, store.ClaimOptions{})
		if err != nil || len(claimed) != 1 {
			t.Fatalf("claim: %+v, %v", claimed, err)
		}
		w3 := en.worker(dbtest.OpenStore(t, en.url))
		if drainWith(t, w3); len(ok.Hits()) != 0 {
			t.Fatal("a leased delivery was sent by another worker")
		}
		en.clock.Advance(75 * time.Second)
		drainWith(t, w3)
		if h := ok.Hits(); len(h) != 1 || h[0].Header.Get("webhook-id") != webhooks.MessageID(sub2.ID, ev2.ID) {
			t.Errorf("after the lease: %d deliveries", len(h))
		}
	})
}

func TestRedirectNotFollowed(t *testing.T) {
	forEngines(t, func(t *testing.T, e dbtest.Engine) {
		en := newEnv(t, e)
		target := newReceiver(t, nil)
		redirect := newReceiver(t, func(_ int, w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, target.URL+"/elsewhere", http.StatusTemporaryRedirect)
		})
		sub := en.subscribe(webhooks.CreateInput{CallbackURL: redirect.URL, Events: []string{"provider.down"}})
		en.clock.Advance(time.Second)
		en.emit("openai", store.OutcomeOperational, store.OutcomeOutage)
		en.drain()
		if len(target.Hits()) != 0 {
			t.Error("a redirect was followed")
		}
		if s := en.get(sub.ID); s.FailCount != 2 || !strings.HasPrefix(*s.LastError, "HTTP 307") {
			t.Errorf("after a redirect: %+v", s)
		}
	})
}

func TestRetryAfter(t *testing.T) {
	forEngines(t, func(t *testing.T, e dbtest.Engine) {
		en := newEnv(t, e, func(c *webhooks.Config) { c.MaxRetryAfter = time.Hour })
		ask := func(v string) func(int, http.ResponseWriter, *http.Request) {
			return func(_ int, w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Retry-After", v)
				w.WriteHeader(http.StatusTooManyRequests)
			}
		}
		start := en.clock.Now()
		rcs := map[string]*receiver{
			"seconds": newReceiver(t, ask("120")),
			"huge":    newReceiver(t, ask("999999999")),
			"short":   newReceiver(t, ask("1")),
			"date":    newReceiver(t, ask(start.Add(10*time.Minute+time.Second).Format(http.TimeFormat))),
		}
		subs := map[string]string{}
		for name, rc := range rcs {
			subs[name] = en.subscribe(webhooks.CreateInput{CallbackURL: rc.URL, Events: []string{"provider.down"}}).ID
		}
		en.clock.Advance(time.Second)
		en.emit("openai", store.OutcomeOperational, store.OutcomeOutage)
		now := en.clock.Now()
		en.drain()
		next := func(name string) (int64, time.Time) {
			ds, err := en.st.WebhookDeliveries(context.Background(), subs[name], 0)
			if err != nil || len(ds) != 1 {
				t.Fatalf("%s: %+v, %v", name, ds, err)
			}
			return ds[0].Attempts, ds[0].NextAttemptAt
		}
		// The immediate retry waits when Retry-After asks for longer, at most MaxRetryAfter.
		for name, want := range map[string]time.Duration{"seconds": 120 * time.Second, "huge": time.Hour, "short": time.Second, "date": 10 * time.Minute} {
			if n, at := next(name); n != 1 || !at.Equal(now.Add(want)) {
				t.Errorf("%s: %d attempts, next at +%s, want 1 and +%s", name, n, at.Sub(now), want)
			}
		}
		// A Retry-After shorter than the schedule's 5 s changes nothing.
		en.clock.Advance(time.Second)
		en.drain()
		if n, at := next("short"); n != 2 || !at.Equal(now.Add(6*time.Second)) {
			t.Errorf("short, second attempt: %d attempts, next at +%s, want 2 and +6s", n, at.Sub(now))
		}
	})
}

func TestBoundedConcurrency(t *testing.T) {
	forEngines(t, func(t *testing.T, e dbtest.Engine) {
		en := newEnv(t, e, func(c *webhooks.Config) { c.Concurrency = 3 })
		var cur, peak atomic.Int64
		rc := newReceiver(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
			n := cur.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			time.Sleep(20 * time.Millisecond)
			cur.Add(-1)
			w.WriteHeader(http.StatusOK)
		})
		const n = 15
		for i := range n {
			en.subscribe(webhooks.CreateInput{CallbackURL: fmt.Sprintf("%s/hook/%d", rc.URL, i), Events: []string{"provider.down"}})
		}
		en.clock.Advance(time.Second)
		en.emit("openai", store.OutcomeOperational, store.OutcomeOutage)
		if st := en.drain(); st.Delivered != n {
			t.Errorf("delivered %d, want %d", st.Delivered, n)
		}
		if p := peak.Load(); p > 3 || p < 2 {
			t.Errorf("peak concurrency %d, want at most 3 (and some)", p)
		}
	})
}

// TestRun runs the worker for real (real clock, background loop): it delivers soon after Notify, and Stop
// waits for a delivery in flight and records it. A stopped worker starts again.
func TestRun(t *testing.T) {
	forEngines(t, func(t *testing.T, e dbtest.Engine) {
		st, _ := e.Open(t)
		arrived := make(chan struct{}, 4)
		rc := newReceiver(t, func(n int, w http.ResponseWriter, _ *http.Request) {
			arrived <- struct{}{}
			if n == 2 {
				time.Sleep(300 * time.Millisecond) // still in flight when Stop is called
			}
			w.WriteHeader(http.StatusOK)
		})
		svc := &webhooks.Service{Store: st, KnownProvider: func(string) bool { return true }, AllowLoopback: true}
		c, err := svc.Create(context.Background(), webhooks.CreateInput{CallbackURL: rc.URL, Events: []string{"provider.down", "provider.up"}})
		if err != nil {
			t.Fatal(err)
		}
		sub := markVerified(t, st, c.Subscription.ID, time.Now())
		w, err := webhooks.New(webhooks.Config{PollInterval: time.Hour, AllowLoopback: true, Timeout: 2 * time.Second, Logger: slog.New(slog.DiscardHandler)}, st)
		if err != nil {
			t.Fatal(err)
		}
		emit := func(kind string) {
			t.Helper()
			now := time.Now()
			_, err := st.RecordCheckResult(context.Background(), store.CheckResult{
				Check:  store.Check{ProviderID: "openai", CheckedAt: now, Outcome: store.OutcomeOutage},
				Events: []store.OutboxEvent{{Type: kind, ProviderID: "openai", CreatedAt: now, Payload: json.RawMessage(`{"provider_id":"openai","previous_status":"operational","current_status":"outage","description":"d"}`)}},
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		stop := func() {
			t.Helper()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := w.Stop(ctx); err != nil {
				t.Fatal(err)
			}
		}
		waitArrival := func() {
			t.Helper()
			select {
			case <-arrived:
			case <-time.After(5 * time.Second):
				t.Fatal("no delivery within 5 s")
			}
		}
		for round, kind := range []string{"provider.down", "provider.up"} {
			if err := w.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			if err := w.Start(context.Background()); err == nil {
				t.Error("started twice")
			}
			time.Sleep(20 * time.Millisecond) // the first poll has passed: only Notify brings the event in time
			emit(kind)
			w.Notify()
			waitArrival()
			stop()
			s, _ := st.GetWebhookSubscription(context.Background(), sub.ID)
			if s.FireCount != int64(round+1) || len(rc.Hits()) != round+1 {
				t.Errorf("round %d: fire_count %d, %d requests", round, s.FireCount, len(rc.Hits()))
			}
			checkEventBody(t, rc.Hits()[round].Body)
		}
		if s := w.Stats(); s.Delivered != 2 || s.Failed != 0 {
			t.Errorf("stats %+v", s)
		}
	})
}

// TestClientLoopbackSetting: the package's own client reaches an https receiver on loopback only when the
// setting allows it, by IP or by a name that resolves there.
func TestClientLoopbackSetting(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	pool := srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	post := func(c *http.Client, target string) error {
		res, err := c.Post(target, "application/json", strings.NewReader("{}"))
		if err != nil {
			return err
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			return fmt.Errorf("status %d", res.StatusCode)
		}
		return nil
	}
	allowed := webhooks.NewClient(webhooks.ClientOptions{Timeout: 2 * time.Second, AllowLoopback: true, RootCAs: pool})
	if err := post(allowed, "https://127.0.0.1:"+u.Port()+"/hook"); err != nil {
		t.Fatalf("loopback allowed: %v", err)
	}
	refused := webhooks.NewClient(webhooks.ClientOptions{Timeout: 2 * time.Second, RootCAs: pool})
	for _, target := range []string{"https://127.0.0.1:" + u.Port(), "https://localhost:" + u.Port(), "https://[::ffff:7f00:1]:" + u.Port()} {
		err := post(refused, target)
		var blocked *webhooks.BlockedAddressError
		if !errors.As(err, &blocked) {
			t.Errorf("%s with loopback not allowed: %v, want a blocked address", target, err)
		}
	}
}
