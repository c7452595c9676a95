package webhooks_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard/switchboard/dbtest"
	"github.com/switchboard/switchboard/errs"
	"github.com/switchboard/switchboard/store"
	"github.com/switchboard/switchboard/webhooks"
)

func TestCheckAddr(t *testing.T) {
	blocked := []string{
		"127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1", // loopback, also IPv4-mapped
		"10.0.0.1", "172.16.5.4", "172.31.255.255", "192.168.1.1", "::ffff:10.0.0.1", "::ffff:192.168.0.1", // RFC 1918
		"fc00::1", "fd12:3456::1", // unique local
		"169.254.169.254", "::ffff:169.254.169.254", "169.254.0.1", "fe80::1", // link-local, metadata
		"100.64.0.1", "100.127.255.254", // CGNAT
		"224.0.0.1", "239.255.255.250", "ff02::1", "ff05::2", // multicast
		"0.0.0.0", "::", "0.1.2.3", // unspecified, this network
		"255.255.255.255", "240.0.0.1", "198.18.0.1", "192.0.0.8",
		"64:ff9b::a9fe:a9fe", "64:ff9b::7f00:1", "2002:a9fe:a9fe::1", "2002:0a00:0001::", "::a9fe:a9fe", // IPv4 inside IPv6
		"fec0::1", "2001:0:4136:e378:8000:63bf:3fff:fdd2", "64:ff9b:1::1",
	}
	for _, s := range blocked {
		a := netip.MustParseAddr(s)
		var b *webhooks.BlockedAddressError
		if err := webhooks.CheckAddr(a, false); !errors.As(err, &b) {
			t.Errorf("%s allowed", s)
		}
	}
	allowed := []string{"93.184.216.34", "1.1.1.1", "8.8.8.8", "100.63.255.255", "100.128.0.1", "172.32.0.1", "2606:4700:4700::1111",
		"2a00:1450:4007:80e::200e", "64:ff9b::5db8:d822", "::ffff:93.184.216.34"}
	for _, s := range allowed {
		if err := webhooks.CheckAddr(netip.MustParseAddr(s), false); err != nil {
			t.Errorf("%s refused: %v", s, err)
		}
	}
	// The setting opens loopback, and nothing else.
	for _, s := range []string{"127.0.0.1", "::1", "::ffff:127.0.0.1", "127.9.9.9"} {
		if err := webhooks.CheckAddr(netip.MustParseAddr(s), true); err != nil {
			t.Errorf("%s refused with loopback allowed: %v", s, err)
		}
	}
	for _, s := range []string{"10.0.0.1", "169.254.169.254", "0.0.0.0", "::", "fe80::1", "64:ff9b::7f00:1"} {
		if err := webhooks.CheckAddr(netip.MustParseAddr(s), true); err == nil {
			t.Errorf("%s allowed with loopback allowed", s)
		}
	}
}

func TestCheckCallbackURL(t *testing.T) {
	type tc struct {
		url  string
		want string // "" when accepted, else a part of the error
	}
	off := []tc{
		{"https://example.com/hook?x=1", ""},
		{"https://hooks.example.com:8443/a/b", ""},
		{"https://93.184.216.34/hook", ""},
		{"http://example.com/hook", "must use https"},
		{"ftp://example.com/hook", "must use https"},
		{"https://user:pw@example.com/hook", "credentials"},
		{"/relative", "absolute"},
		{"https://", "absolute"},
		{"https://localhost/hook", "loopback"},
		{"https://api.localhost./hook", "loopback"},
		{"https://127.0.0.1/hook", "loopback"},
		{"https://[::1]:8443/hook", "loopback"},
		{"https://[::ffff:127.0.0.1]/hook", "loopback"},
		{"https://169.254.169.254/latest/meta-data/", "link-local"},
		{"https://10.0.0.1/hook", "private"},
		{"https://192.168.1.10/hook", "private"},
		{"https://100.64.1.1/hook", "carrier-grade NAT"},
		{"https://[fd00::1]/hook", "private"},
		{"https://0.0.0.0/hook", "unspecified"},
		{"https://224.0.0.1/hook", "multicast"},
		{"https://example.com/" + strings.Repeat("a", 2100), "2048"},
		{"http://127.0.0.1:9000/hook", "must use https"},
	}
	for _, c := range off {
		err := webhooks.CheckCallbackURL(c.url, false)
		checkURLResult(t, "off", c.url, c.want, err)
	}
	on := []tc{
		{"http://127.0.0.1:9000/hook", ""},
		{"http://localhost:9000/hook", ""},
		{"http://[::1]:9000/hook", ""},
		{"https://127.0.0.1:9000/hook", ""},
		{"https://example.com/hook", ""},
		{"http://example.com/hook", "loopback hosts only"},
		{"http://10.0.0.1/hook", "loopback hosts only"},
		{"https://10.0.0.1/hook", "private"},
		{"https://169.254.169.254/", "link-local"},
	}
	for _, c := range on {
		err := webhooks.CheckCallbackURL(c.url, true)
		checkURLResult(t, "on", c.url, c.want, err)
	}
}

func checkURLResult(t *testing.T, setting, u, want string, err error) {
	t.Helper()
	var in *errs.InputError
	switch {
	case want == "" && err != nil:
		t.Errorf("loopback %s: %s refused: %v", setting, u, err)
	case want != "" && !errors.As(err, &in):
		t.Errorf("loopback %s: %s: %v, want an input error", setting, u, err)
	case want != "" && !strings.Contains(in.Msg, want):
		t.Errorf("loopback %s: %s: %q, want it to mention %q", setting, u, in.Msg, want)
	case want != "" && !strings.HasPrefix(in.Msg, "body field callback_url: "):
		t.Errorf("%s: %q does not name the field", u, in.Msg)
	}
}

// TestSSRFAtDial: with loopback not allowed, deliveries to internal addresses are refused when dialling, even
// for subscriptions that got past the subscribe-time check (a name resolving to 127.0.0.1, or rows written
// before a setting changed): the receiver listening on loopback never sees a request.
func TestSSRFAtDial(t *testing.T) {
	forEngines(t, func(t *testing.T, e dbtest.Engine) {
		en := newEnv(t, e, func(c *webhooks.Config) { c.AllowLoopback = false; c.Timeout = 2 * time.Second })
		var seen atomic.Int64
		tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { seen.Add(1) }))
		defer tlsSrv.Close()
		plain := newReceiver(t, nil)
		port := mustPort(t, tlsSrv.URL)
		cases := map[string]string{
			"https://localhost:" + port + "/hook":       "blocked: address 127.0.0.1 is not allowed (loopback)",
			"https://[::1]:" + port + "/hook":           "blocked: address ::1 is not allowed (loopback)",
			"https://[::ffff:127.0.0.1]:" + port + "/x": "blocked: address 127.0.0.1 is not allowed (loopback)",
			"https://169.254.169.254/latest/meta-data/": "blocked: address 169.254.169.254 is not allowed (link-local (cloud metadata))",
			"https://10.0.0.1/hook":                     "blocked: address 10.0.0.1 is not allowed (private)",
			plain.URL + "/hook":                         "callback_url must use https",
		}
		ids := map[string]string{}
		for u := range cases {
			// Written straight to the store: what the dialler must stop is what got past the subscribe check.
			id := fmt.Sprintf("00000000-0000-4000-8000-%012d", len(ids))
			ids[u] = id
			if err := en.st.CreateWebhookSubscription(context.Background(), store.WebhookSubscription{
				ID: id, CallbackURL: u, Events: []string{"provider.down"}, Status: store.SubscriptionActive, CreatedAt: en.clock.Now(),
				VerifiedAt: ptr(en.clock.Now()),
			}, store.SubscriptionLimits{}); err != nil {
				t.Fatal(err)
			}
		}
		en.clock.Advance(time.Second)
		en.emit("openai", store.OutcomeOperational, store.OutcomeOutage)
		en.drain()
		for u, want := range cases {
			s := en.get(ids[u])
			if s.FailCount != 2 || s.FireCount != 0 || s.LastError == nil || *s.LastError != want {
				t.Errorf("%s: %d failures, last_error %v, want %q", u, s.FailCount, deref(s.LastError), want)
			}
		}
		if seen.Load() != 0 || len(plain.Hits()) != 0 {
			t.Errorf("the loopback receivers got %d and %d requests", seen.Load(), len(plain.Hits()))
		}
	})
}

func mustPort(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Port()
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}
