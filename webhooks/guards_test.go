package webhooks_test

import (
	"bufio"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard/switchboard/dbtest"
	"github.com/switchboard/switchboard/store"
	"github.com/switchboard/switchboard/webhooks"
)

// blackHole is a receiver that accepts connections, reads each request's head and never answers: the receivers of
// the finding ("256 receivers that never answer"). It records the X-Service-Event of every request it read.
type blackHole struct {
	net.Listener
	mu      sync.Mutex
	events  []string
	open    int
	maxOpen int
}

func newBlackHole(t testing.TB, ip string) *blackHole {
	t.Helper()
	l, err := net.Listen("tcp", ip+":0")
	if err != nil {
		t.Fatal(err)
	}
	bh := &blackHole{Listener: l}
	done := make(chan struct{})
	var conns sync.WaitGroup
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			go func() {
				defer conns.Done()
				defer c.Close()
				bh.mu.Lock()
				bh.open++
				bh.maxOpen = max(bh.maxOpen, bh.open)
				bh.mu.Unlock()
				if req, err := http.ReadRequest(bufio.NewReader(c)); err == nil {
					bh.mu.Lock()
					bh.events = append(bh.events, req.Header.Get(webhooks.HeaderEvent))
					bh.mu.Unlock()
				}
				// Never answer. The attempt ends when the client gives up and closes the connection (a read
				// returns) or when the test ends, so open counts the requests in flight at once, not all so far.
				gone := make(chan struct{})
				go func() { _, _ = io.Copy(io.Discard, c); close(gone) }()
				select {
				case <-done:
				case <-gone:
				}
				bh.mu.Lock()
				bh.open--
				bh.mu.Unlock()
			}()
		}
	}()
	t.Cleanup(func() { l.Close(); close(done); conns.Wait() })
	return bh
}

func (bh *blackHole) URL() string { return "http://" + bh.Addr().String() + "/hook" }

func (bh *blackHole) Events() []string {
	bh.mu.Lock()
	defer bh.mu.Unlock()
	return append([]string(nil), bh.events...)
}

func (bh *blackHole) MaxOpen() int {
	bh.mu.Lock()
	defer bh.mu.Unlock()
	return bh.maxOpen
}

// echo answers verification challenges (as JSON) and every delivery with 204; arrivals gets the event type of
// each delivery.
func echo(arrivals chan<- string) func(int, http.ResponseWriter, *http.Request) {
	return func(_ int, w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.Header.Get(webhooks.HeaderEvent) == webhooks.VerifyEvent {
			var v webhooks.VerificationRequest
			_ = json.Unmarshal(body, &v)
			_ = json.NewEncoder(w).Encode(map[string]string{"challenge": v.Payload.Challenge})
			return
		}
		if arrivals != nil {
			arrivals <- r.Header.Get(webhooks.HeaderEvent)
		}
		w.WriteHeader(http.StatusNoContent)
	}
}

// hostIP is the i-th loopback address of a test's own block: each receiver is a host of its own, as on the
// internet (Linux answers on all of 127.0.0.0/8).
func hostIP(block, i int) string { return fmt.Sprintf("127.%d.%d.%d", block, i/250, i%250+1) }

// TestSubscriptionFloodRefused reproduces the finding "one client created 300 subscriptions to one URL in 5 s,
// each event then sent 306 requests there": the per-client quota stops the flood at 10, the per-host cap stops
// other clients from adding more for that host, and the cap in total holds; concurrent requests cannot pass a
// cap together.
func TestSubscriptionFloodRefused(t *testing.T) {
	forEngines(t, func(t *testing.T, e dbtest.Engine) {
		st, _ := e.Open(t)
		clock := newClock()
		svc := &webhooks.Service{Store: st, KnownProvider: func(string) bool { return true }, Now: clock.Now}
		ctx := context.Background()
		in := webhooks.CreateInput{CallbackURL: "https://victim.example/hook", Events: []string{"provider.down"}, Client: "203.0.113.7"}
		made, quota := 0, 0
		var first webhooks.Created
		for range 300 {
			c, err := svc.Create(ctx, in)
			var le *webhooks.LimitError
			switch {
			case err == nil:
				if made == 0 {
					first = c
				}
				made++
			case errors.As(err, &le) && le.RetryAfter == time.Hour:
				quota++
			default:
				t.Fatalf("create: %v", err)
			}
		}
		if made != webhooks.DefaultPerClient || quota != 300-made {
			t.Fatalf("one client: %d made, %d refused by the quota; want %d made", made, quota, webhooks.DefaultPerClient)
		}
		// Deleting does not give the quota back.
		if _, err := svc.Unsubscribe(ctx, first.Subscription.ID, first.ManageToken); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Create(ctx, in); err == nil {
			t.Fatal("unsubscribing gave the client's quota back")
		}
		in.Client = "203.0.113.8" // the host has a place again, for another client
		if _, err := svc.Create(ctx, in); err != nil {
			t.Fatalf("after an unsubscribe, another client: %v", err)
		}
		// IPv6 clients count per /64: new addresses in one /64 are one client.
		if webhooks.CreatorKey("2001:db8:1:2::7") != webhooks.CreatorKey("2001:db8:1:2:ffff::1") ||
			webhooks.CreatorKey("2001:db8:1:2::7") == webhooks.CreatorKey("2001:db8:1:3::7") ||
			webhooks.CreatorKey("192.0.2.1") == webhooks.CreatorKey("192.0.2.2") {
			t.Error("creator keys do not group IPv6 per /64 (or group IPv4 addresses)")
		}
		// Another client, same host: the host has its 10.
		in.Client = "198.51.100.9"
		in.CallbackURL = "https://VICTIM.example:8443/other"
		var le *webhooks.LimitError
		if _, err := svc.Create(ctx, in); !errors.As(err, &le) || le.RetryAfter != 0 || !strings.Contains(le.Msg, "callback host") {
			t.Fatalf("11th subscription for the host: %v, want the per-host cap", err)
		}
		// An hour later the client may create again (elsewhere).
		clock.Advance(time.Hour + time.Second)
		in.Client, in.CallbackURL = "203.0.113.7", "https://elsewhere.example/hook"
		if _, err := svc.Create(ctx, in); err != nil {
			t.Fatalf("after the window: %v", err)
		}

		// The cap in total, under concurrent creations from many clients to many hosts.
		svc.Limits = webhooks.Limits{Total: 20}
		var ok, refused atomic.Int64
		var wg sync.WaitGroup
		for i := range 40 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := svc.Create(ctx, webhooks.CreateInput{CallbackURL: fmt.Sprintf("https://h%d.example/hook", i),
					Events: []string{"provider.down"}, Client: fmt.Sprintf("192.0.2.%d", i)})
				var le *webhooks.LimitError
				switch {
				case err == nil:
					ok.Add(1)
				case errors.As(err, &le):
					refused.Add(1)
				default:
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		// 11 live before (10 on the victim, 1 elsewhere): 9 places were left.
		if ok.Load() != 9 || refused.Load() != 31 {
			t.Errorf("concurrent creations under a cap of 20: %d made, %d refused; want 9 and 31", ok.Load(), refused.Load())
		}
	})
}

// TestVerificationHandshake: a subscription gets no event until its callback echoes the challenge; a callback
// that does not (a victim someone else named) gets the challenge a bounded number of times and never an event,
// and the subscription is deactivated.
func TestVerificationHandshake(t *testing.T) {
	forEngines(t, func(t *testing.T, e dbtest.Engine) {
		en := newEnv(t, e, func(c *webhooks.Config) { c.VerifySchedule = []time.Duration{time.Minute, 5 * time.Minute} })
		arrivals := make(chan string, 10)
		good := newReceiver(t, echo(arrivals))
		text := newReceiver(t, func(_ int, w http.ResponseWriter, r *http.Request) { // echoes as bare text
			var v webhooks.VerificationRequest
			_ = json.NewDecoder(r.Body).Decode(&v)
			_, _ = io.WriteString(w, v.Payload.Challenge+"\n")
		})
		victim := newReceiver(t, status(http.StatusOK)) // answers 200 to anything, echoes nothing
		ctx := context.Background()
		create := func(u string) store.WebhookSubscription {
			c, err := en.svc.Create(ctx, webhooks.CreateInput{CallbackURL: u, Events: []string{"provider.down"}, Secret: ptr("handshake-secret-0123456789")})
			if err != nil {
				t.Fatal(err)
			}
			if c.Subscription.VerifiedAt != nil {
				t.Fatal("a new subscription reads verified")
			}
			return c.Subscription
		}
		g, tx, v := create(good.URL), create(text.URL), create(victim.URL)
		en.clock.Advance(time.Second)
		en.emit("openai", store.OutcomeOperational, store.OutcomeOutage) // before any handshake: nobody gets it
		if st := en.drain(); st.Verified != 2 || st.VerifyFailed != 1 || st.Deactivated != 0 {
			t.Errorf("first round: %+v", st)
		}
		if en.get(g.ID).VerifiedAt == nil || en.get(tx.ID).VerifiedAt == nil || en.get(v.ID).VerifiedAt != nil {
			t.Fatal("verification state wrong after the first round")
		}
		if s := en.get(v.ID); s.LastError == nil || !strings.Contains(*s.LastError, "did not echo") {
			t.Errorf("victim's last_error %v", deref(s.LastError))
		}
		// The challenge is signed like a delivery.
		h := good.Hits()[0]
		if h.Header.Get(webhooks.HeaderEvent) != webhooks.VerifyEvent || !receiverVerify("handshake-secret-0123456789", h.Body, h.Header.Get(webhooks.HeaderSignature)) {
			t.Errorf("challenge headers %v", h.Header)
		}
		en.clock.Advance(time.Second)
		en.emit("anthropic", store.OutcomeOperational, store.OutcomeOutage)
		en.drain()
		if len(arrivals) != 1 || len(text.Hits()) != 2 {
			t.Errorf("verified receivers got %d and %d deliveries, want 1 each", len(arrivals), len(text.Hits())-1)
		}
		// The victim: challenged again after 1 and 5 minutes, then deactivated; never an event.
		for _, d := range []time.Duration{time.Minute, 5 * time.Minute, time.Hour} {
			en.clock.Advance(d)
			en.drain()
		}
		s := en.get(v.ID)
		if s.Status != store.SubscriptionDeactivated || *s.DeactivatedReason != store.ReasonDeliveryFailures {
			t.Errorf("unverified subscription after its schedule: %+v", s)
		}
		for _, h := range victim.Hits() {
			if ev := h.Header.Get(webhooks.HeaderEvent); ev != webhooks.VerifyEvent {
				t.Errorf("the victim got %s", ev)
			}
		}
		if n := len(victim.Hits()); n != 3 {
			t.Errorf("the victim got %d challenges, want 3", n)
		}
	})
}

// TestBlackHolesDoNotDelayProviderDown reproduces "with 256 receivers that never answer, an honest subscriber's
// provider.down arrived 63 s late (one FIFO queue, 64 workers, 15 s timeouts)" at a small scale: 4 receivers
// that never answer per delivery slot, as 256 were to 64 workers, subscribed by one client before the honest
// subscriber. Their subscriptions are never verified, so they receive no events; their challenges run on slots
// of their own and one per creator at a time, so the honest subscriber is verified at once; its provider.down
// arrives within two timeouts (one, with room for a loaded machine), where the FIFO queue made it wait four.
func TestBlackHolesDoNotDelayProviderDown(t *testing.T) {
	forEngines(t, func(t *testing.T, e dbtest.Engine) {
		const slots, holes, timeout = 8, 32, 600 * time.Millisecond
		en := newEnv(t, e, func(c *webhooks.Config) {
			c.Concurrency, c.VerifyConcurrency, c.Timeout, c.PollInterval = slots, 2, timeout, 20*time.Millisecond
		})
		block := map[string]int{"sqlite": 20, "postgres": 21}[e.Name]
		ctx := context.Background()
		var bhs []*blackHole
		for i := range holes {
			bh := newBlackHole(t, hostIP(block, i+1))
			bhs = append(bhs, bh)
			if _, err := en.svc.Create(ctx, webhooks.CreateInput{CallbackURL: bh.URL(), Events: []string{"provider.down"}, Client: "attacker"}); err != nil {
				t.Fatal(err)
			}
		}
		arrivals := make(chan string, 10)
		honest := loopbackReceiver(t, hostIP(block, 0), echo(arrivals))
		en.clock.Advance(time.Second)
		hc, err := en.svc.Create(ctx, webhooks.CreateInput{CallbackURL: honest.URL, Events: []string{"provider.down"}, Client: "honest"})
		if err != nil {
			t.Fatal(err)
		}
		if err := en.w.Start(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = en.w.Stop(context.Background()) })
		deadline := time.Now().Add(timeout)
		for en.get(hc.Subscription.ID).VerifiedAt == nil {
			if time.Now().After(deadline) {
				t.Fatalf("the honest subscriber was not verified within %s", timeout)
			}
			time.Sleep(10 * time.Millisecond)
		}
		en.clock.Advance(time.Second)
		start := time.Now()
		en.emit("openai", store.OutcomeOperational, store.OutcomeOutage)
		en.w.Notify()
		select {
		case ev := <-arrivals:
			// The FIFO queue made it wait four timeouts; two leave room for a loaded machine.
			if took := time.Since(start); ev != "provider.down" || took >= 2*timeout {
				t.Errorf("honest subscriber got %s after %s, want provider.down within %s", ev, took, 2*timeout)
			}
		case <-time.After(4 * timeout):
			t.Fatalf("provider.down did not arrive within %s", 4*timeout)
		}
		for _, bh := range bhs {
			for _, ev := range bh.Events() {
				if ev != webhooks.VerifyEvent {
					t.Errorf("a receiver that never answered got %s", ev)
				}
			}
		}
	})
}

// TestOneHostHoldsAtMostTwoSlots: 30 verified subscriptions on one host that has stopped answering (the
// finding's 300 subscriptions to one URL, gone dark) hold at most two delivery slots; the honest subscriber on
// another host gets provider.down within two timeouts (one, with room for load), not after 30/slots of them.
func TestOneHostHoldsAtMostTwoSlots(t *testing.T) {
	forEngines(t, func(t *testing.T, e dbtest.Engine) {
		const timeout = 600 * time.Millisecond
		en := newEnv(t, e, func(c *webhooks.Config) {
			c.Concurrency, c.Timeout, c.PollInterval, c.BreakerThreshold = 4, timeout, 20*time.Millisecond, 1000
		})
		block := map[string]int{"sqlite": 22, "postgres": 23}[e.Name]
		bh := newBlackHole(t, hostIP(block, 1))
		for i := range 30 {
			en.subscribe(webhooks.CreateInput{CallbackURL: fmt.Sprintf("%s/%d", bh.URL(), i), Events: []string{"provider.down"}})
		}
		arrivals := make(chan string, 10)
		honest := loopbackReceiver(t, hostIP(block, 2), echo(arrivals))
		en.subscribe(webhooks.CreateInput{CallbackURL: honest.URL, Events: []string{"provider.down"}})
		if err := en.w.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = en.w.Stop(context.Background()) })
		en.clock.Advance(time.Second)
		start := time.Now()
		en.emit("openai", store.OutcomeOperational, store.OutcomeOutage)
		en.w.Notify()
		select {
		case <-arrivals:
			// Claimed in the first round, it goes out at once; a queue that let the dark host's 30 deliveries
			// take every slot would make it wait several timeouts. Two timeouts leave room for a loaded machine.
			if took := time.Since(start); took >= 2*timeout {
				t.Errorf("provider.down arrived after %s, want within %s", took, 2*timeout)
			}
		case <-time.After(8 * timeout):
			t.Fatal("provider.down never arrived")
		}
		time.Sleep(100 * time.Millisecond)
		if n := bh.MaxOpen(); n > webhooks.DefaultInFlightPerHost {
			t.Errorf("the dark host had %d requests open at once, want at most %d", n, webhooks.DefaultInFlightPerHost)
		}
	})
}

// TestBreakerKeepsDeadHostsOff: hosts whose attempts got no answer twice in a row (the threshold this test sets)
// are left alone: the next event's deliveries to them wait, unclaimed, and no connection is made to them, while
// the honest subscriber gets it at once. After the cooldown one attempt probes each host.
func TestBreakerKeepsDeadHostsOff(t *testing.T) {
	forEngines(t, func(t *testing.T, e dbtest.Engine) {
		en := newEnv(t, e, func(c *webhooks.Config) {
			c.Concurrency, c.Timeout, c.BreakerThreshold, c.BreakerCooldown = 8, 200*time.Millisecond, 2, time.Minute
		})
		block := map[string]int{"sqlite": 24, "postgres": 25}[e.Name]
		var bhs []*blackHole
		for i := range 6 {
			bh := newBlackHole(t, hostIP(block, i+1))
			bhs = append(bhs, bh)
			en.subscribe(webhooks.CreateInput{CallbackURL: bh.URL(), Events: []string{"provider.down", "provider.up"}})
		}
		honest := loopbackReceiver(t, hostIP(block, 100), echo(nil))
		en.subscribe(webhooks.CreateInput{CallbackURL: honest.URL, Events: []string{"provider.down", "provider.up"}})
		en.clock.Advance(time.Second)
		en.emit("openai", store.OutcomeOperational, store.OutcomeOutage)
		st := en.drain() // each dark host: the attempt and its immediate retry time out; then its breaker opens
		if st.BreakersOpened != 6 || len(honest.Hits()) != 1 {
			t.Fatalf("after the first event: %+v, honest got %d", st, len(honest.Hits()))
		}
		seen := 0
		for _, bh := range bhs {
			seen += len(bh.Events())
		}
		en.clock.Advance(time.Second)
		en.emit("openai", store.OutcomeOutage, store.OutcomeOperational)
		st = en.drain()
		after := 0
		for _, bh := range bhs {
			after += len(bh.Events())
		}
		if after != seen || st.Attempts != 1 || len(honest.Hits()) != 2 {
			t.Errorf("with the breakers open: %d new requests to dark hosts, %d attempts, honest got %d", after-seen, st.Attempts, len(honest.Hits()))
		}
		// After the cooldown (and the 5 s retry of the first event), one probe per host.
		en.clock.Advance(time.Minute)
		en.drain()
		for _, bh := range bhs {
			if n := len(bh.Events()); n < 3 || n > 4 {
				t.Errorf("a dark host got %d requests in all, want 2 and then one probe (and its retry)", n)
			}
		}
	})
}

// TestStatusEventsFirst: with a backlog of catalog events for a host, a provider.down queued after them goes
// out first.
func TestStatusEventsFirst(t *testing.T) {
	forEngines(t, func(t *testing.T, e dbtest.Engine) {
		en := newEnv(t, e, func(c *webhooks.Config) { c.Concurrency, c.PerHost = 1, 1 })
		rc := newReceiver(t, nil)
		en.subscribe(webhooks.CreateInput{CallbackURL: rc.URL, Events: []string{"provider.down", "catalog.price_changed"}})
		en.clock.Advance(time.Second)
		ctx := context.Background()
		now := en.clock.Now()
		for i := range 5 { // one check each: the outbox keeps one event per check and type
			ev := store.OutboxEvent{Type: "catalog.price_changed", ProviderID: "openai", CreatedAt: now,
				Payload: json.RawMessage(fmt.Sprintf(`{"provider_id":"openai","model_id":"m%d"}`, i))}
			if _, err := en.st.RecordCheckResult(ctx, store.CheckResult{Check: store.Check{ProviderID: "openai",
				CheckedAt: now.Add(time.Duration(i-10) * time.Second), Outcome: store.OutcomeOperational}, Events: []store.OutboxEvent{ev}}); err != nil {
				t.Fatal(err)
			}
		}
		en.emit("openai", store.OutcomeOperational, store.OutcomeOutage)
		en.drain()
		hits := rc.Hits()
		if len(hits) != 6 || hits[0].Header.Get(webhooks.HeaderEvent) != "provider.down" {
			got := make([]string, len(hits))
			for i, h := range hits {
				got[i] = h.Header.Get(webhooks.HeaderEvent)
			}
			t.Errorf("order %v, want provider.down first of 6", got)
		}
	})
}

// standardVerify is a Standard Webhooks receiver written from the specification, apart from the package: the
// key is the secret's bytes (base64-decoded after whsec_), the signed content "id.timestamp.body", the header
// "v1,<base64>", the timestamp within tolerance, and each id handled once.
type standardVerify struct {
	secret string
	seen   map[string]bool
}

func (v *standardVerify) check(h http.Header, body []byte, now time.Time) error {
	id, ts, sig := h.Get("webhook-id"), h.Get("webhook-timestamp"), h.Get("webhook-signature")
	key := []byte(v.secret)
	if rest, ok := strings.CutPrefix(v.secret, "whsec_"); ok {
		key, _ = base64.StdEncoding.DecodeString(rest)
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "."))
	mac.Write(body)
	want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	if !hmac.Equal([]byte(sig), []byte(want)) {
		return errors.New("signature")
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || now.Sub(time.Unix(sec, 0)).Abs() > 5*time.Minute {
		return errors.New("stale")
	}
	if v.seen[id] {
		return errors.New("replay")
	}
	v.seen[id] = true
	return nil
}

// TestReplayDetectable: the signature covers webhook-id and webhook-timestamp (Standard Webhooks), so a
// receiver refuses a captured delivery sent again: later with its old timestamp (stale), with a fresh timestamp
// (the signature breaks), or at once (a known id). With X-Service-Signature alone, all three verified.
func TestReplayDetectable(t *testing.T) {
	// The reference vector of the Standard Webhooks specification.
	if got := webhooks.SignStandard("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330,
		[]byte(`{"test": 2432232314}`)); got != "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=" {
		t.Errorf("reference vector: %s", got)
	}
	forEngines(t, func(t *testing.T, e dbtest.Engine) {
		en := newEnv(t, e)
		rc := newReceiver(t, nil)
		const secret = "whsec_c3dpdGNoYm9hcmQtcmVwbGF5LXRlc3Qta2V5"
		en.subscribe(webhooks.CreateInput{CallbackURL: rc.URL, Events: []string{"provider.down"}, Secret: ptr(secret)})
		en.clock.Advance(time.Second)
		en.emit("openai", store.OutcomeOperational, store.OutcomeOutage)
		en.drain()
		h := rc.Hits()[0]
		v := &standardVerify{secret: secret, seen: map[string]bool{}}
		now := en.clock.Now()
		if err := v.check(h.Header, h.Body, now); err != nil {
			t.Fatalf("the delivery does not verify: %v", err)
		}
		if err := v.check(h.Header, h.Body, now); err == nil || err.Error() != "replay" {
			t.Errorf("replayed at once: %v, want refused as a replay", err)
		}
		later := now.Add(10 * time.Minute)
		v2 := &standardVerify{secret: secret, seen: map[string]bool{}} // a receiver that forgot its ids
		if err := v2.check(h.Header, h.Body, later); err == nil || err.Error() != "stale" {
			t.Errorf("replayed 10 min later: %v, want refused as stale", err)
		}
		fresh := h.Header.Clone()
		fresh.Set("webhook-timestamp", strconv.FormatInt(later.Unix(), 10))
		if err := v2.check(fresh, h.Body, later); err == nil || err.Error() != "signature" {
			t.Errorf("replayed with a fresh timestamp: %v, want a broken signature", err)
		}
		if err := webhooks.VerifyStandard(secret, h.Header.Get("webhook-id"), h.Header.Get("webhook-timestamp"),
			h.Header.Get("webhook-signature"), h.Body, now, 5*time.Minute); err != nil {
			t.Errorf("the package's own verifier: %v", err)
		}
		// The contract's header is still there, over the body alone.
		if !receiverVerify(secret, h.Body, h.Header.Get(webhooks.HeaderSignature)) {
			t.Error("X-Service-Signature does not verify")
		}
	})
}

// TestSecretsSealedAtRest: with an operator key, the secret is not in the database in plain text (a sealed
// secret moved onto another row does not open), and deliveries are still signed with it; a worker without the
// key refuses to send rather than sign with the sealed text.
func TestSecretsSealedAtRest(t *testing.T) {
	forEngines(t, func(t *testing.T, e dbtest.Engine) {
		key, err := webhooks.ParseSecretKey("q83vEjRWeJq83vEjRWeJq83vEjRWeJq83vEjRWeJq80=")
		if err != nil {
			t.Fatal(err)
		}
		box, err := webhooks.NewSecretBox(key)
		if err != nil {
			t.Fatal(err)
		}
		en := newEnv(t, e, func(c *webhooks.Config) { c.Secrets = box })
		en.svc.Secrets = box
		rc := newReceiver(t, nil)
		const secret = "sealed-secret-0123456789-abcdef"
		sub := en.subscribe(webhooks.CreateInput{CallbackURL: rc.URL, Events: []string{"provider.down"}, Secret: ptr(secret)})
		if dump := dbtest.DumpTables(t, en.url); strings.Contains(dump, secret) || !strings.Contains(dump, "enc:v1:") {
			t.Fatal("the secret is in the database in plain text, or not sealed")
		}
		if _, err := box.Open("another-id", *sub.Secret); err == nil {
			t.Error("a sealed secret opened for another subscription")
		}
		en.clock.Advance(time.Second)
		en.emit("openai", store.OutcomeOperational, store.OutcomeOutage)
		en.drain()
		if h := rc.Hits(); len(h) != 1 || !receiverVerify(secret, h[0].Body, h[0].Header.Get(webhooks.HeaderSignature)) {
			t.Fatalf("delivery not signed with the secret: %d hits", len(h))
		}
		en.clock.Advance(time.Second)
		// A secret stored before the key was set: the worker seals it with the key, and it still signs.
		const before = "stored-before-the-key-0123"
		old := store.WebhookSubscription{ID: "00000000-0000-4000-8000-0000000000aa", CallbackURL: rc.URL + "/old",
			Events: []string{"provider.down"}, Secret: ptr(before), Status: store.SubscriptionActive,
			CreatedAt: en.clock.Now(), VerifiedAt: ptr(en.clock.Now())}
		if err := en.st.CreateWebhookSubscription(context.Background(), old, store.SubscriptionLimits{}); err != nil {
			t.Fatal(err)
		}
		if n, err := en.w.SealStoredSecrets(context.Background()); err != nil || n != 1 {
			t.Fatalf("sealing the stored secrets: %d, %v; want 1", n, err)
		}
		if strings.Contains(dbtest.DumpTables(t, en.url), before) {
			t.Fatal("a secret stored before the key is still in plain text")
		}
		en.emit("openai", store.OutcomeOutage, store.OutcomeOperational)
		en.clock.Advance(time.Second)
		en.emit("openai", store.OutcomeOperational, store.OutcomeOutage)
		en.drain()
		signedWith := map[string]bool{}
		for _, h := range rc.Hits()[1:] {
			for _, k := range []string{secret, before} {
				if receiverVerify(k, h.Body, h.Header.Get(webhooks.HeaderSignature)) {
					signedWith[k] = true
				}
			}
		}
		if len(rc.Hits()) != 3 || !signedWith[before] || !signedWith[secret] {
			t.Fatalf("after sealing: %d hits, signed with %v", len(rc.Hits()), signedWith)
		}
		// A worker started without the key.
		keyless := en.worker(en.st)
		en.clock.Advance(time.Second)
		en.emit("openai", store.OutcomeOutage, store.OutcomeOperational)
		en.clock.Advance(time.Second)
		en.emit("openai", store.OutcomeOperational, store.OutcomeOutage)
		drainWith(t, keyless)
		if len(rc.Hits()) != 3 {
			t.Error("a worker without the key sent a delivery")
		}
		if s := en.get(sub.ID); s.LastError == nil || !strings.Contains(*s.LastError, "no secret key") {
			t.Errorf("last_error %v", deref(s.LastError))
		}
	})
}

// TestDeleteNeedsToken: knowing a subscription's id (the verify_url) does not let anyone unsubscribe it; the
// token shown at creation does.
func TestDeleteNeedsToken(t *testing.T) {
	forEngines(t, func(t *testing.T, e dbtest.Engine) {
		en := newEnv(t, e)
		ctx := context.Background()
		c, err := en.svc.Create(ctx, webhooks.CreateInput{CallbackURL: "https://example.com/h", Events: []string{"provider.down"}})
		if err != nil {
			t.Fatal(err)
		}
		id := c.Subscription.ID
		for _, tok := range []string{"", "whm_guess", c.ManageToken + "x"} {
			if _, err := en.svc.Unsubscribe(ctx, id, tok); !errors.Is(err, webhooks.ErrBadToken) {
				t.Errorf("token %q: %v, want ErrBadToken", tok, err)
			}
		}
		if en.get(id).Status != store.SubscriptionActive {
			t.Fatal("a refused delete deactivated the subscription")
		}
		if dump := dbtest.DumpTables(t, en.url); strings.Contains(dump, c.ManageToken) {
			t.Error("the token is stored as given")
		}
		if s, err := en.svc.Unsubscribe(ctx, id, c.ManageToken); err != nil || s.Status != store.SubscriptionDeactivated {
			t.Errorf("with the token: %+v, %v", s, err)
		}
		// A subscription stored without a token (made before tokens existed) cannot be deleted through the API.
		old := store.WebhookSubscription{ID: "00000000-0000-4000-8000-000000000001", CallbackURL: "https://example.com/old",
			Events: []string{"provider.down"}, Status: store.SubscriptionActive, CreatedAt: en.clock.Now()}
		if err := en.st.CreateWebhookSubscription(ctx, old, store.SubscriptionLimits{}); err != nil {
			t.Fatal(err)
		}
		if _, err := en.svc.Unsubscribe(ctx, old.ID, ""); !errors.Is(err, webhooks.ErrBadToken) {
			t.Errorf("tokenless subscription: %v", err)
		}
	})
}

// loopbackReceiver is newReceiver on a given loopback address.
func loopbackReceiver(t *testing.T, ip string, answer func(int, http.ResponseWriter, *http.Request)) *receiver {
	t.Helper()
	rc := &receiver{answer: answer}
	rc.Server = serveOn(t, ip, http.HandlerFunc(rc.serve))
	return rc
}
