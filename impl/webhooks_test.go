package impl_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/switchboard/switchboard/apitest"
	"github.com/switchboard/switchboard/dbtest"
	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/impl"
	"github.com/switchboard/switchboard/webhooks"
)

// TestWebhooks runs the subscription contract on every engine. Every answer is checked against the document
// by apitest.
func TestWebhooks(t *testing.T) {
	for _, e := range dbtest.Engines(t) {
		t.Run(e.Name, func(t *testing.T) {
			st, dbURL := e.Open(t)
			s := apitest.Start(t, apitest.Options{Store: st})
			t.Run("Lifecycle", func(t *testing.T) { testWebhookLifecycle(t, s) })
			t.Run("Minimal", func(t *testing.T) { testWebhookMinimal(t, s) })
			t.Run("BadRequests", func(t *testing.T) { testWebhookBadRequests(t, s) })
			t.Run("NotFound", func(t *testing.T) { testWebhookNotFound(t, s) })
			t.Run("SecretNeverReturned", func(t *testing.T) { testWebhookSecret(t, s, dbURL) })
		})
	}
}

const hookSecret = "whsec-test-0123456789-never-shown"

func subscribe(t *testing.T, s *apitest.Server, body any) api.WebhookCreateResponse {
	t.Helper()
	r := s.PostJSON("/api/v1/webhooks", body)
	if r.Status != http.StatusOK {
		t.Fatalf("subscribe: %d %s", r.Status, r.Body)
	}
	var out api.WebhookCreateResponse
	r.Decode(t, &out)
	return out
}

func testWebhookLifecycle(t *testing.T, s *apitest.Server) {
	before := time.Now().Add(-time.Second)
	c := subscribe(t, s, map[string]any{
		"callback_url": "https://hooks.example.com/switchboard?team=sre", "events": []string{"provider.down", "provider.up"},
		"providers": []string{"openai", "anthropic", "openai"}, "secret": hookSecret, "expires_in_hours": 48,
		"metadata": map[string]any{"team": "sre", "tags": []any{"a", 1.5, true, nil}},
	})
	sub := c.Subscription
	if sub.Id.Version() != 4 {
		t.Errorf("id %s is not a UUIDv4", sub.Id)
	}
	want := s.URL + "/api/v1/webhooks?id=" + sub.Id.String()
	if c.VerifyUrl != want || c.ManageUrl != want+"&token="+c.ManageToken || !strings.HasPrefix(c.ManageToken, "whm_") {
		t.Errorf("verify_url %s, manage_url %s, manage_token %s, want %s", c.VerifyUrl, c.ManageUrl, c.ManageToken, want)
	}
	if sub.Status != api.WebhookSubscriptionStatusActive || sub.DeactivatedReason != nil || !sub.Signed || sub.Verified ||
		sub.CallbackUrl != "https://hooks.example.com/switchboard?team=sre" || len(sub.Events) != 2 ||
		sub.Providers == nil || strings.Join(*sub.Providers, ",") != "openai,anthropic" ||
		sub.FireCount != 0 || sub.FailCount != 0 || sub.ConsecutiveFailures != 0 || sub.LastError != nil || sub.LastDeliveryAt != nil {
		t.Errorf("created %+v", sub)
	}
	if sub.CreatedAt.Before(before) || sub.ExpiresAt == nil || !sub.ExpiresAt.Equal(sub.CreatedAt.Add(48*time.Hour)) {
		t.Errorf("created_at %v, expires_at %v", sub.CreatedAt, sub.ExpiresAt)
	}
	m, ok := sub.Metadata.(map[string]any)
	if !ok || m["team"] != "sre" || len(m["tags"].([]any)) != 4 {
		t.Errorf("metadata %#v", sub.Metadata)
	}

	path := strings.TrimPrefix(c.VerifyUrl, s.URL)
	r := s.Get(path)
	var st api.WebhookStatusResponse
	r.Decode(t, &st)
	if r.Status != http.StatusOK || st.Subscription.Id != sub.Id || !st.Subscription.CreatedAt.Equal(sub.CreatedAt) || st.Subscription.Status != "active" {
		t.Errorf("read: %d %s", r.Status, r.Body)
	}

	// The verify_url alone cannot unsubscribe (it used to be the manage_url too), nor a wrong token.
	for _, q := range []string{"", "&token=whm_not-the-token"} {
		r = s.Do(http.MethodDelete, strings.TrimPrefix(c.VerifyUrl, s.URL)+q, nil, nil)
		if r.Status != http.StatusBadRequest && r.Status != http.StatusForbidden || !strings.Contains(r.Error(t), "token") {
			t.Errorf("delete with %q: %d %s, want 400 or 403 naming the token", q, r.Status, r.Body)
		}
	}
	if r = s.Get(path); !strings.Contains(string(r.Body), `"status":"active"`) {
		t.Errorf("after refused deletes: %s", r.Body)
	}

	// Unsubscribe, twice: both 200, the reason stays.
	for range 2 {
		r = s.Do(http.MethodDelete, strings.TrimPrefix(c.ManageUrl, s.URL), nil, nil)
		var d api.WebhookDeleteResponse
		r.Decode(t, &d)
		if r.Status != http.StatusOK || d.Id != sub.Id || d.Status != api.WebhookDeleteResponseStatusDeactivated {
			t.Errorf("delete: %d %s", r.Status, r.Body)
		}
	}
	r = s.Get(path)
	r.Decode(t, &st)
	if st.Subscription.Status != api.WebhookSubscriptionStatusDeactivated || st.Subscription.DeactivatedReason == nil ||
		*st.Subscription.DeactivatedReason != api.WebhookSubscriptionDeactivatedReasonUnsubscribed {
		t.Errorf("read after delete: %s", r.Body)
	}
}

func testWebhookMinimal(t *testing.T, s *apitest.Server) {
	r := s.PostJSON("/api/v1/webhooks", `{"callback_url": "https://example.com/h", "events": ["incident.new"], "providers": null}`)
	if r.Status != http.StatusOK {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	// Absent fields are present in the answer (null), except metadata, which is omitted.
	for _, field := range []string{`"providers":null`, `"expires_at":null`, `"last_error":null`, `"last_delivery_at":null`, `"deactivated_reason":null`, `"signed":false`} {
		if !strings.Contains(string(r.Body), field) {
			t.Errorf("answer lacks %s: %s", field, r.Body)
		}
	}
	if strings.Contains(string(r.Body), `"metadata"`) {
		t.Errorf("metadata given none: %s", r.Body)
	}
}

func testWebhookBadRequests(t *testing.T, s *apitest.Server) {
	ok := func() map[string]any {
		return map[string]any{"callback_url": "https://example.com/hook", "events": []string{"provider.down"}}
	}
	with := func(k string, v any) map[string]any {
		b := ok()
		b[k] = v
		return b
	}
	cases := []struct {
		name string
		body any
		want string // part of the error, which must name the field
	}{
		{"http", with("callback_url", "http://example.com/hook"), "callback_url"},
		{"ftp", with("callback_url", "ftp://example.com/hook"), "callback_url"},
		{"not a URL", with("callback_url", "not a url"), "callback_url"},
		{"loopback name", with("callback_url", "https://localhost:8443/hook"), "callback_url"},
		{"loopback v4", with("callback_url", "https://127.0.0.1/hook"), "callback_url"},
		{"loopback v6", with("callback_url", "https://[::1]/hook"), "callback_url"},
		{"metadata service", with("callback_url", "https://169.254.169.254/latest/meta-data/"), "callback_url"},
		{"private", with("callback_url", "https://10.0.0.1/hook"), "callback_url"},
		{"CGNAT", with("callback_url", "https://100.64.0.1/hook"), "callback_url"},
		{"credentials", with("callback_url", "https://u:p@example.com/hook"), "callback_url"},
		{"too long", with("callback_url", "https://example.com/"+strings.Repeat("x", 2048)), "callback_url"},
		{"no callback", map[string]any{"events": []string{"provider.down"}}, "callback_url"},
		{"no events", map[string]any{"callback_url": "https://example.com/hook"}, "events"},
		{"empty events", with("events", []string{}), "events"},
		{"unknown event", with("events", []string{"provider.exploded"}), "events"},
		{"repeated event", with("events", []string{"provider.up", "provider.up"}), "events"},
		{"empty providers", with("providers", []string{}), "providers"},
		{"short secret", with("secret", "short"), "secret"},
		{"expiry zero", with("expires_in_hours", 0), "expires_in_hours"},
		{"expiry over a year", with("expires_in_hours", 8761), "expires_in_hours"},
		{"expiry not a number", with("expires_in_hours", "soon"), "expires_in_hours"},
		{"metadata null", with("metadata", nil), "metadata: must not be null"},
		{"metadata too big", with("metadata", map[string]any{"blob": strings.Repeat("x", 16*1024)}), "metadata"},
		{"unknown field", with("colour", "blue"), "unknown field colour"},
		{"not JSON", `{"callback_url": `, "body"},
	}
	for _, c := range cases {
		r := s.PostJSON("/api/v1/webhooks", c.body)
		if r.Status != http.StatusBadRequest {
			t.Errorf("%s: %d %s, want 400", c.name, r.Status, r.Body)
			continue
		}
		if msg := r.Error(t); !strings.Contains(msg, c.want) {
			t.Errorf("%s: error %q does not name %s", c.name, msg, c.want)
		}
	}
	// Metadata just under the bound is fine (16 KiB serialised, quotes and braces included).
	big := map[string]any{"b": strings.Repeat("x", 16*1024-len(`{"b":""}`))}
	if r := s.PostJSON("/api/v1/webhooks", with("metadata", big)); r.Status != http.StatusOK {
		t.Errorf("16 KiB of metadata: %d %s", r.Status, r.Body)
	}
	for _, q := range []string{"", "?id=", "?id=not-a-uuid", "?id=123"} {
		for _, m := range []string{http.MethodGet, http.MethodDelete} {
			p := "/api/v1/webhooks" + q
			if m == http.MethodDelete {
				p += map[bool]string{true: "?", false: "&"}[q == ""] + "token=whm_x"
			}
			r := s.Do(m, p, nil, nil)
			if r.Status != http.StatusBadRequest || !strings.Contains(r.Error(t), "id") {
				t.Errorf("%s %s: %d %s", m, q, r.Status, r.Body)
			}
		}
	}
}

func testWebhookNotFound(t *testing.T, s *apitest.Server) {
	b := map[string]any{"callback_url": "https://example.com/hook", "events": []string{"provider.down"}, "providers": []string{"openai", "no-such-provider"}}
	r := s.PostJSON("/api/v1/webhooks", b)
	if r.Status != http.StatusNotFound || !strings.Contains(r.Error(t), `"no-such-provider"`) || !strings.Contains(r.Error(t), "providers") {
		t.Errorf("unknown provider: %d %s", r.Status, r.Body)
	}
	id := uuid.NewString()
	for _, m := range []string{http.MethodGet, http.MethodDelete} {
		r := s.Do(m, "/api/v1/webhooks?id="+id+"&token=whm_x", nil, nil)
		if r.Status != http.StatusNotFound || !strings.Contains(r.Error(t), "id") {
			t.Errorf("%s unknown id: %d %s", m, r.Status, r.Body)
		}
	}
}

// testWebhookSecret: the secret is stored (deliveries are signed with it) but no answer and no log line
// carries it.
func testWebhookSecret(t *testing.T, s *apitest.Server, dbURL string) {
	c := subscribe(t, s, map[string]any{"callback_url": "https://example.com/hook", "events": []string{"provider.down"}, "secret": hookSecret})
	path := "/api/v1/webhooks?id=" + c.Subscription.Id.String()
	bodies := []*apitest.Response{s.Get(path), s.Do(http.MethodDelete, strings.TrimPrefix(c.ManageUrl, s.URL), nil, nil), s.Get(path)}
	raw := s.PostJSON("/api/v1/webhooks", map[string]any{"callback_url": "https://example.com/hook", "events": []string{"provider.down"}, "secret": hookSecret})
	bodies = append(bodies, raw)
	// A refused request with the secret in it does not echo it either.
	bodies = append(bodies, s.PostJSON("/api/v1/webhooks", map[string]any{"callback_url": "http://example.com/hook", "events": []string{"provider.down"}, "secret": hookSecret}))
	for _, r := range bodies {
		if strings.Contains(string(r.Body), hookSecret) || strings.Contains(strings.ToLower(string(r.Body)), `"secret"`) {
			t.Errorf("an answer carries the secret: %s", r.Body)
		}
	}
	if strings.Contains(s.Logs.String(), hookSecret) {
		t.Error("the secret reached the log")
	}
	if !strings.Contains(dbtest.DumpTables(t, dbURL), hookSecret) {
		t.Error("the secret was not stored: deliveries could not be signed")
	}
}

// TestWebhookFloodRefusedOverHTTP: the finding's 300 subscriptions to one URL from one client, through the API:
// the per-client quota answers 429 with Retry-After after the limit, and another client's subscription for the
// same host answers 409 once the host has its cap. Answers are checked against the document by apitest.
func TestWebhookFloodRefusedOverHTTP(t *testing.T) {
	for _, e := range dbtest.Engines(t) {
		t.Run(e.Name, func(t *testing.T) {
			st, _ := e.Open(t)
			s := apitest.Start(t, apitest.Options{Store: st, Deps: func(d *impl.Deps) {
				d.WebhookLimits = webhooks.Limits{PerClient: 5, PerHost: 8}
			}})
			body := map[string]any{"callback_url": "https://victim.example/hook", "events": []string{"provider.down"}}
			codes := map[int]int{}
			var last *apitest.Response
			for range 300 {
				last = s.PostJSON("/api/v1/webhooks", body)
				codes[last.Status]++
				if last.Status == http.StatusTooManyRequests && last.Header.Get("Retry-After") != "3600" {
					t.Fatalf("429 with Retry-After %q", last.Header.Get("Retry-After"))
				}
			}
			if codes[http.StatusOK] != 5 || codes[http.StatusTooManyRequests] != 295 {
				t.Fatalf("300 creations from one client: %v, want 5 made and 295 refused", codes)
			}
			_ = last
			// The per-host cap, on a server whose quota would allow more: the 4th live subscription for the
			// host (any port, any case) is refused with 409; another host is fine.
			st2, _ := e.Open(t)
			s2 := apitest.Start(t, apitest.Options{Store: st2, Deps: func(d *impl.Deps) {
				d.WebhookLimits = webhooks.Limits{PerClient: 100, PerHost: 3}
			}})
			for i, u := range []string{"https://victim.example/a", "https://victim.example:8443/b", "https://VICTIM.example/c"} {
				if r := s2.PostJSON("/api/v1/webhooks", map[string]any{"callback_url": u, "events": []string{"provider.down"}}); r.Status != http.StatusOK {
					t.Fatalf("%d: %d %s", i, r.Status, r.Body)
				}
			}
			r := s2.PostJSON("/api/v1/webhooks", map[string]any{"callback_url": "https://victim.example/d", "events": []string{"provider.down"}})
			if r.Status != http.StatusConflict || !strings.Contains(r.Error(t), "callback host") {
				t.Errorf("4th for the host: %d %s, want 409", r.Status, r.Body)
			}
			if r := s2.PostJSON("/api/v1/webhooks", map[string]any{"callback_url": "https://other.example/d", "events": []string{"provider.down"}}); r.Status != http.StatusOK {
				t.Errorf("another host: %d %s", r.Status, r.Body)
			}
		})
	}
}
