package impl_test

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/switchboard/switchboard/apitest"
	"github.com/switchboard/switchboard/dbtest"
	"github.com/switchboard/switchboard/impl"
)

// fromSource is a client whose connections leave from source, an address of its own on loopback, so the
// server tells clients apart by their connections as it would on a network.
func fromSource(t *testing.T, source string) *http.Client {
	t.Helper()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(source)}, Timeout: 5 * time.Second}
	tr := &http.Transport{DialContext: d.DialContext}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 10 * time.Second}
}

// post sends a JSON body from client c and checks the answer against the document.
func post(t *testing.T, s *apitest.Server, c *http.Client, path, body string) *apitest.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.URL+path, bytes.NewReader([]byte(body)))
	req.Header.Set("Content-Type", "application/json")
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	r := &apitest.Response{Status: res.StatusCode, Header: res.Header, Body: b}
	if err := s.Check(req, r); err != nil {
		t.Errorf("POST %s: %d does not follow the document: %v\n%s", path, r.Status, err, b)
	}
	return r
}

// TestTrustCreationQuota: one client creating attestations and handoffs without end is refused (429 with
// Retry-After) once it made its quota for the day; another client still creates. On every engine.
func TestTrustCreationQuota(t *testing.T) {
	const attest = `{"provider": "openai", "model": "gpt-4o", "output": "hello"}`
	const handoff = `{"from_agent": "planner", "to_agent": "coder"}`
	for _, e := range dbtest.Engines(t) {
		t.Run(e.Name, func(t *testing.T) {
			st, _ := e.Open(t)
			s := apitest.Start(t, apitest.Options{Store: st, Deps: func(d *impl.Deps) { d.TrustQuota = 3 }})
			a, b := fromSource(t, "127.0.0.2"), fromSource(t, "127.0.0.3")
			for i, body := range []string{attest, handoff, attest} {
				path := "/api/v1/attest"
				if body == handoff {
					path = "/api/v1/handoff"
				}
				if r := post(t, s, a, path, body); r.Status != http.StatusOK {
					t.Fatalf("client A's record %d of 3: %d %s", i+1, r.Status, r.Body)
				}
			}
			for _, path := range []string{"/api/v1/attest", "/api/v1/handoff"} {
				body := attest
				if path == "/api/v1/handoff" {
					body = handoff
				}
				r := post(t, s, a, path, body)
				if r.Status != http.StatusTooManyRequests || r.Header.Get("Retry-After") == "" || r.Error(t) == "" {
					t.Errorf("client A over its quota, %s: %d Retry-After=%q %s", path, r.Status, r.Header.Get("Retry-After"), r.Body)
				}
			}
			if r := post(t, s, b, "/api/v1/attest", attest); r.Status != http.StatusOK {
				t.Errorf("client B while A is over its quota: %d %s", r.Status, r.Body)
			}
		})
	}
}
