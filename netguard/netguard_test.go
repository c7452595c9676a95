package netguard_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard/switchboard/netguard"
)

// serveOn starts h on addr (host:0), closed when the test ends.
func serveOn(t *testing.T, host string, h http.Handler) *httptest.Server {
	t.Helper()
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		t.Skipf("cannot listen on %s: %v", host, err)
	}
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: h, ReadHeaderTimeout: time.Second}}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

func redirectTo(target string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, target, http.StatusFound) })
}

// upstream is a stand-in for a public upstream: it listens on 127.0.0.2, which the clients under test are
// allowed to reach by range (Options.Allow) while loopback as such stays refused.
var upstream = netip.MustParsePrefix("127.0.0.2/32")

func get(t *testing.T, c *http.Client, u string) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	res, err := c.Do(req)
	if err == nil {
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			return errors.New(res.Status)
		}
	}
	return err
}

func TestRedirectToInternalAddressRefused(t *testing.T) {
	t.Parallel()
	var internalHits atomic.Int32
	internal := serveOn(t, "127.0.0.1", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		internalHits.Add(1)
		io.WriteString(w, "secret")
	}))
	internalURL, _ := url.Parse(internal.URL)
	cases := []struct {
		name, target string
		hosts        []string
		class        string
	}{
		{"metadata, host not listed", "https://169.254.169.254/latest/meta-data/", nil, netguard.ClassRedirectRefused},
		{"metadata, host listed", "https://169.254.169.254/latest/meta-data/", []string{"169.254.169.254"}, netguard.ClassRefusedAddress},
		{"metadata over http", "http://169.254.169.254/latest/meta-data/", []string{"169.254.169.254"}, netguard.ClassRedirectRefused},
		{"loopback service, listed", "https://" + internalURL.Host + "/admin", []string{"127.0.0.1"}, netguard.ClassRefusedAddress},
		{"localhost name, listed", "https://localhost:" + internalURL.Port() + "/admin", []string{"localhost"}, netguard.ClassRefusedAddress},
		{"private range, listed", "https://10.0.0.1/", []string{"10.0.0.1"}, netguard.ClassRefusedAddress},
		{"plain http, same host", "http://example.com/", []string{"example.com"}, netguard.ClassRedirectRefused},
		{"another scheme", "ftp://example.com/", []string{"example.com"}, netguard.ClassRedirectRefused},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			src := serveOn(t, "127.0.0.2", redirectTo(tc.target))
			c := netguard.NewClient(netguard.Options{Timeout: 2 * time.Second, Allow: []netip.Prefix{upstream}, RedirectHosts: tc.hosts})
			err := get(t, c, src.URL+"/feed.json")
			if err == nil {
				t.Fatal("the redirect was followed")
			}
			if got := netguard.Class(err); got != tc.class {
				t.Errorf("class %q, want %q (%v)", got, tc.class, err)
			}
		})
	}
	if n := internalHits.Load(); n != 0 {
		t.Errorf("the internal service was reached %d times", n)
	}
}

func TestRedirectPolicy(t *testing.T) {
	t.Parallel()
	ok := serveOn(t, "127.0.0.1", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n := len(r.URL.Query().Get("n")); r.URL.Path == "/loop" {
			http.Redirect(w, r, "/loop?n="+strings.Repeat("x", n+1), http.StatusFound)
			return
		}
		io.WriteString(w, "ok")
	}))
	// With loopback allowed (tests, the simulator) a redirect on the same loopback host may stay on http.
	c := netguard.NewClient(netguard.Options{Timeout: 2 * time.Second, AllowLoopback: true})
	if err := get(t, c, ok.URL+"/start?x"); err != nil {
		t.Fatalf("a plain fetch on allowed loopback failed: %v", err)
	}
	if err := get(t, netguard.NewClient(netguard.Options{Timeout: 2 * time.Second, AllowLoopback: true}), serveOn(t, "127.0.0.1", redirectTo(ok.URL+"/end")).URL); err != nil {
		t.Fatalf("a redirect between loopback servers (both 127.0.0.1) failed: %v", err)
	}
	err := get(t, c, ok.URL+"/loop")
	if got := netguard.Class(err); got != netguard.ClassTooManyRedirect {
		t.Errorf("endless redirects: class %q (%v)", got, err)
	}
	// Redirects off: the 3xx is refused.
	off := netguard.NewClient(netguard.Options{Timeout: 2 * time.Second, AllowLoopback: true, MaxRedirects: -1})
	if got := netguard.Class(get(t, off, serveOn(t, "127.0.0.1", redirectTo(ok.URL)).URL)); got != netguard.ClassRedirectRefused {
		t.Errorf("redirects off: class %q", got)
	}
	// Without the setting loopback is refused at the first request.
	strict := netguard.NewClient(netguard.Options{Timeout: 2 * time.Second})
	if got := netguard.Class(get(t, strict, ok.URL)); got != netguard.ClassRefusedAddress {
		t.Errorf("loopback without the setting: class %q", got)
	}
}

// TestDialCheckJudgesTheDialledAddress: the Control function sees the resolved IP, so a name is judged by what
// it resolves to at that moment (DNS rebinding cannot slip an internal address past a check made earlier).
func TestDialCheckJudgesTheDialledAddress(t *testing.T) {
	t.Parallel()
	srv := serveOn(t, "127.0.0.1", http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	u, _ := url.Parse(srv.URL)
	d := net.Dialer{Timeout: time.Second, Control: netguard.Control(false)}
	_, err := d.Dial("tcp", net.JoinHostPort("localhost", u.Port()))
	if _, ok := netguard.IsBlocked(err); !ok {
		t.Fatalf("dialling localhost: %v, want a blocked address", err)
	}
	d.Control = netguard.Control(true)
	c, err := d.Dial("tcp", u.Host)
	if err != nil {
		t.Fatalf("dialling with loopback allowed: %v", err)
	}
	c.Close()
}

// TestProxyOnlyWhenConfigured: the proxy environment is ignored; a configured proxy is dialled although it is
// on an internal address, and a URL naming an internal address is refused before it reaches the proxy.
func TestProxyOnlyWhenConfigured(t *testing.T) {
	var proxied atomic.Int32
	proxy := serveOn(t, "127.0.0.1", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxied.Add(1)
		io.WriteString(w, "via proxy")
	}))
	t.Setenv("HTTP_PROXY", proxy.URL)
	t.Setenv("HTTPS_PROXY", proxy.URL)
	plain := netguard.NewClient(netguard.Options{Timeout: time.Second, Allow: []netip.Prefix{upstream}})
	src := serveOn(t, "127.0.0.2", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "direct") }))
	if err := get(t, plain, src.URL); err != nil || proxied.Load() != 0 {
		t.Fatalf("without a proxy setting: %v, %d proxied", err, proxied.Load())
	}
	pu, _ := url.Parse(proxy.URL)
	via := netguard.NewClient(netguard.Options{Timeout: time.Second, Proxy: pu})
	if err := get(t, via, "http://upstream.example/feed.json"); err != nil || proxied.Load() != 1 {
		t.Fatalf("through the configured proxy: %v, %d proxied", err, proxied.Load())
	}
	if got := netguard.Class(get(t, via, "http://169.254.169.254/latest/meta-data/")); got != netguard.ClassRefusedAddress || proxied.Load() != 1 {
		t.Errorf("metadata through the proxy: class %q, %d proxied", got, proxied.Load())
	}
}

func TestClassOfTimeout(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	srv := serveOn(t, "127.0.0.1", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hold:
		case <-r.Context().Done():
		}
	}))
	defer close(hold)
	c := netguard.NewClient(netguard.Options{Timeout: 100 * time.Millisecond, AllowLoopback: true})
	if got := netguard.Class(get(t, c, srv.URL)); got != netguard.ClassTimeout {
		t.Errorf("class %q, want timeout", got)
	}
}
