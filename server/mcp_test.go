package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/apitest"
	"github.com/switchboard/switchboard/server"
)

// rpcError is the JSON-RPC error response every failure of the MCP endpoint answers.
type rpcError struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func decodeRPCError(t *testing.T, body []byte) rpcError {
	t.Helper()
	var e rpcError
	if err := json.Unmarshal(body, &e); err != nil || e.JSONRPC != "2.0" || string(e.ID) != "null" || e.Error.Message == "" {
		t.Fatalf("not a JSON-RPC error response: %s", body)
	}
	return e
}

const ping = `{"jsonrpc":"2.0","id":1,"method":"ping"}`

func TestHostPolicy(t *testing.T) {
	for _, c := range []struct {
		addr, base string
		extra      []string
		allowed    []string
		refused    []string
	}{
		{"127.0.0.1:8080", "http://127.0.0.1:8080", nil,
			[]string{"127.0.0.1:8080", "localhost:8080", "LOCALHOST", "[::1]:8080", "::1", "127.0.0.2:9", "app.localhost:3000"},
			[]string{"evil.example.com", "evil.example.com:8080", "10.0.0.1:8080", "localhost.evil.example.com", ""}},
		{"localhost:8080", "https://switchboard.example.com", nil,
			[]string{"localhost:8080", "switchboard.example.com", "switchboard.example.com:443", "SwitchBoard.Example.COM"},
			[]string{"example.com", "evil.example.com"}},
		{"0.0.0.0:8080", "https://switchboard.example.com", []string{"internal.lan", "10.0.0.5:8080"},
			[]string{"switchboard.example.com", "internal.lan:9999", "10.0.0.5:8080"},
			[]string{"localhost:8080", "127.0.0.1:8080", "10.0.0.5:8081", "0.0.0.0:8080x", "evil.example.com"}},
		{":8080", "http://:8080", []string{"*"},
			[]string{"anything.example.com", "localhost"},
			[]string{""}},
		{"[::]:8080", "https://sb.example.com:8443", nil,
			[]string{"sb.example.com:8443"},
			[]string{"sb.example.com:443", "[::1]:8080"}},
	} {
		p := server.NewHostPolicy(c.addr, c.base, c.extra)
		for _, h := range c.allowed {
			if !server.HostAllowed(p, h) {
				t.Errorf("addr %s base %s extra %v: %q refused", c.addr, c.base, c.extra, h)
			}
		}
		for _, h := range c.refused {
			if server.HostAllowed(p, h) {
				t.Errorf("addr %s base %s extra %v: %q allowed", c.addr, c.base, c.extra, h)
			}
		}
	}
}

// TestMCPHostAndOrigin sends the DNS rebinding requests of MCP's security advice to the real handler.
func TestMCPHostAndOrigin(t *testing.T) {
	s := apitest.Start(t, apitest.Options{})
	host := strings.TrimPrefix(s.URL, "http://")
	for _, c := range []struct {
		host, origin string
		status       int
	}{
		{"", "", 200},
		{"localhost:1", "", 200},
		{"", "http://" + host, 200},
		{"", "http://localhost:6274", 200},
		{"evil.example.com", "", 403},
		{"evil.example.com", "http://evil.example.com", 403},
		{"", "http://evil.example.com", 403},
		{"", "https://127.0.0.1.evil.example.com", 403},
		{"", "null", 403},
		{"", "file:///tmp/x.html", 403},
	} {
		h := http.Header{"Content-Type": {"application/json"}}
		if c.host != "" {
			h.Set("Host", c.host)
		}
		if c.origin != "" {
			h.Set("Origin", c.origin)
		}
		r := doHost(t, s, c.host, h)
		if r.StatusCode != c.status {
			t.Errorf("Host %q Origin %q: %d, want %d", c.host, c.origin, r.StatusCode, c.status)
		}
		if c.status == 403 {
			b, _ := io.ReadAll(r.Body)
			if e := decodeRPCError(t, b); e.Error.Code != -32600 || !strings.Contains(e.Error.Message, "DNS rebinding") ||
				strings.Contains(e.Error.Message, "evil") {
				t.Errorf("403 body %s", b)
			}
		}
		r.Body.Close()
	}
	if !strings.Contains(s.Logs.String(), `"host":"evil.example.com"`) {
		t.Error("a refused request is not logged with its host")
	}
	// Bound to loopback, the rest of the API (and the pages) refuse a foreign Host too (421); the probes answer.
	for path, want := range map[string]int{"/api/v1/health": 421, "/api/v1/pick?task=llm": 421, "/healthz": 200} {
		req, _ := http.NewRequest(http.MethodGet, s.URL+path, nil)
		req.Host = "evil.example.com"
		r, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(r.Body)
		r.Body.Close()
		if r.StatusCode != want || want == 421 && (!strings.Contains(string(b), "DNS rebinding") || r.Header.Get("X-Content-Type-Options") != "nosniff") {
			t.Errorf("GET %s with a foreign Host on loopback: %d %s, want %d", path, r.StatusCode, b, want)
		}
	}
	for _, host := range []string{host, "localhost:8080", "[::1]:8080"} {
		req, _ := http.NewRequest(http.MethodGet, s.URL+"/api/v1/health", nil)
		req.Host = host
		if r, err := http.DefaultClient.Do(req); err != nil || r.StatusCode != 200 {
			t.Errorf("GET /health with Host %s: %v %v", host, r, err)
		}
	}
	req, _ := http.NewRequest(http.MethodPost, s.URL+"/api/v1/attest", strings.NewReader(`{}`))
	req.Host = "evil.example.com"
	req.Header.Set("Content-Type", "application/json")
	if r, err := http.DefaultClient.Do(req); err != nil || r.StatusCode != 421 {
		t.Errorf("POST /attest with a foreign Host on loopback: %v %v, want 421", r, err)
	}

	// Listening beyond loopback: only the public name (and the listed ones) pass.
	pub := apitest.Start(t, apitest.Options{MCPHosts: server.NewHostPolicy("0.0.0.0:8080", "https://switchboard.example.com", []string{"10.1.2.3"})})
	for hostHeader, want := range map[string]int{"switchboard.example.com": 200, "10.1.2.3:8080": 200, "127.0.0.1": 403, "localhost": 403} {
		r := doHost(t, pub, hostHeader, http.Header{"Content-Type": {"application/json"}})
		r.Body.Close()
		if r.StatusCode != want {
			t.Errorf("public server, Host %s: %d, want %d", hostHeader, r.StatusCode, want)
		}
	}
	// There, the rest of the API answers any Host (a proxy in front names the public host).
	req, _ = http.NewRequest(http.MethodGet, pub.URL+"/api/v1/health", nil)
	req.Host = "evil.example.com"
	if r, err := http.DefaultClient.Do(req); err != nil || r.StatusCode != 200 {
		t.Errorf("public server, GET /health with another Host: %v %v", r, err)
	}
}

func doHost(t *testing.T, s *apitest.Server, host string, h http.Header) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.URL+"/api/v1/mcp", strings.NewReader(ping))
	req.Header = h
	if host != "" {
		req.Host = host
	}
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestMCPErrorsAreJSONRPC: whichever part of the service refuses a request to the MCP endpoint, the body is a
// JSON-RPC error object; the rest of the API keeps its own shape.
func TestMCPErrorsAreJSONRPC(t *testing.T) {
	s := apitest.Start(t, apitest.Options{})
	for _, c := range []struct {
		method, body string
		header       http.Header
		status, code int
		msg          string
	}{
		{http.MethodGet, "", nil, 405, -32600, "method GET not allowed"},
		{http.MethodDelete, "", nil, 405, -32600, "method DELETE not allowed"},
		{http.MethodPost, ping, http.Header{"Content-Type": {"text/plain"}}, 400, -32600, "text/plain"},
		{http.MethodPost, ping, http.Header{"Content-Type": {"application/json"}, "Mcp-Protocol-Version": {"2099-01-01"}}, 400, -32600, "MCP-Protocol-Version"},
		{http.MethodPost, "nope", http.Header{"Content-Type": {"application/json"}}, 400, -32700, "parse error"},
		{http.MethodPost, `{"pad":"` + strings.Repeat("x", server.DefaultMaxBodyBytes) + `"}`, http.Header{"Content-Type": {"application/json"}}, 413, -32600, "larger than"},
	} {
		r := s.Do(c.method, "/api/v1/mcp", c.body, c.header)
		if r.Status != c.status {
			t.Errorf("%s %.40s: %d %s, want %d", c.method, c.body, r.Status, r.Body, c.status)
			continue
		}
		e := decodeRPCError(t, r.Body)
		if e.Error.Code != c.code || !strings.Contains(e.Error.Message, c.msg) {
			t.Errorf("%s %.40s: %s, want code %d with %q", c.method, c.body, r.Body, c.code, c.msg)
		}
		if c.status == 405 && r.Header.Get("Allow") != "POST" {
			t.Errorf("%s: Allow %q, want POST", c.method, r.Header.Get("Allow"))
		}
	}
	// Every supported version header passes.
	for _, v := range []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"} {
		if r := s.Do(http.MethodPost, "/api/v1/mcp", ping, http.Header{"Content-Type": {"application/json"}, "Mcp-Protocol-Version": {v}}); r.Status != 200 {
			t.Errorf("MCP-Protocol-Version %s: %d %s", v, r.Status, r.Body)
		}
	}
	// Elsewhere a 405 keeps the service's error shape, with Allow.
	r := s.Do(http.MethodPost, "/api/v1/health", "{}", http.Header{"Content-Type": {"application/json"}})
	if r.Status != 405 || r.Header.Get("Allow") != "GET, HEAD" || r.Error(t) == "" {
		t.Errorf("POST /health: %d Allow %q %s", r.Status, r.Header.Get("Allow"), r.Body)
	}
	r = s.Do(http.MethodPut, "/api/v1/webhooks", "{}", http.Header{"Content-Type": {"application/json"}})
	if r.Status != 405 || r.Header.Get("Allow") != "GET, HEAD, POST, DELETE" {
		t.Errorf("PUT /webhooks: %d Allow %q", r.Status, r.Header.Get("Allow"))
	}
}

// TestMCPRateLimitIsJSONRPC: the rate limit, which answers before routing, answers the MCP endpoint in JSON-RPC.
func TestMCPRateLimitIsJSONRPC(t *testing.T) {
	srv := limitedServer(t, server.Options{RateLimitPerMinute: 1}, nil)
	var last *http.Response
	var body []byte
	for range 2 {
		r, err := http.Post(srv.URL+"/api/v1/mcp", "application/json", strings.NewReader(ping))
		if err != nil {
			t.Fatal(err)
		}
		body, _ = io.ReadAll(r.Body)
		r.Body.Close()
		last = r
	}
	if last.StatusCode != http.StatusTooManyRequests || last.Header.Get("Retry-After") == "" {
		t.Fatalf("second request: %d %s", last.StatusCode, body)
	}
	if e := decodeRPCError(t, body); e.Error.Code != -32000 || !strings.Contains(e.Error.Message, "rate limit") {
		t.Errorf("429 body %s", body)
	}
}
