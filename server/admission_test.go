package server_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard/switchboard/server"
)

// slowBody opens a connection to addr and sends a POST whose body never finishes: the headers promise 1,000
// bytes, a few arrive, then nothing. forwardedFor, when set, names the client behind a trusted proxy.
func slowBody(t *testing.T, addr, forwardedFor string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	xff := ""
	if forwardedFor != "" {
		xff = "X-Forwarded-For: " + forwardedFor + "\r\n"
	}
	fmt.Fprintf(c, "POST /api/v1/token-estimate HTTP/1.1\r\nHost: %s\r\n%sContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"te", addr, xff)
	return c
}

// admissionWatch hands the test the admission's state (Options.ObserveAdmission).
type admissionWatch struct {
	stats atomic.Pointer[func() server.AdmissionStats]
}

func (a *admissionWatch) observe(f func() server.AdmissionStats) { a.stats.Store(&f) }
func (a *admissionWatch) now() server.AdmissionStats             { return (*a.stats.Load())() }

// until waits (briefly) for the admission to reach a state.
func (a *admissionWatch) until(t *testing.T, what string, ok func(server.AdmissionStats) bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !ok(a.now()); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: admission %+v", what, a.now())
		}
	}
}

func tokenEstimate(t *testing.T, url string, hdr map[string]string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url+"/api/v1/token-estimate", strings.NewReader(`{"text":"hello there"}`))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// TestSlowBodiesDoNotStallTheAPI reproduces the slow-body attack: many sockets, far more than the in-flight
// slots, each sending the start of a body and then nothing. A body is read before a slot is taken, so the
// sockets hold no slot: other clients' GETs and POSTs are served at once, and each slow socket is cut off with
// 408 at the body deadline.
func TestSlowBodiesDoNotStallTheAPI(t *testing.T) {
	t.Parallel()
	var watch admissionWatch
	srv := limitedServer(t, server.Options{MaxInFlight: 4, QueueWait: 20 * time.Millisecond, BodyReadTimeout: 1500 * time.Millisecond,
		TrustedProxies: []string{"127.0.0.0/8"}, ObserveAdmission: watch.observe}, nil)
	addr := strings.TrimPrefix(srv.URL, "http://")
	// The catalogs and the tokenizer load on first use: before the attack, not while it holds.
	get(t, srv.URL+"/api/v1/health", nil)
	tokenEstimate(t, srv.URL, nil)
	const sockets = 40 // ten times the slots, each from a client of its own
	conns := make([]net.Conn, sockets)
	for i := range conns {
		conns[i] = slowBody(t, addr, fmt.Sprintf("198.51.100.%d", i+1))
	}
	watch.until(t, "every slow body in the gate", func(s server.AdmissionStats) bool { return s.Clients == sockets })
	if s := watch.now(); s.InFlight != 0 {
		t.Errorf("slow bodies hold %d slots, want none", s.InFlight)
	}
	start := time.Now()
	if resp, _ := get(t, srv.URL+"/api/v1/health", map[string]string{"X-Forwarded-For": "203.0.113.1"}); resp.StatusCode != http.StatusOK {
		t.Errorf("another client's GET during the attack: %d, want 200", resp.StatusCode)
	}
	if code := tokenEstimate(t, srv.URL, map[string]string{"X-Forwarded-For": "203.0.113.2"}); code != http.StatusOK {
		t.Errorf("another client's POST during the attack: %d, want 200", code)
	}
	// Served while every slow body was still held: none had reached its deadline yet.
	if s := watch.now(); s.RefusedSlowBody != 0 || s.Clients != sockets {
		t.Errorf("other clients were served only after slow bodies were cut (%v later): %+v", time.Since(start), s)
	}
	// Each slow socket is answered 408 at the deadline and its connection closed.
	conns[0].SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conns[0]), nil)
	if err != nil {
		t.Fatalf("reading the slow socket's answer: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestTimeout {
		t.Errorf("a body not received in time: %d, want 408", resp.StatusCode)
	}
	watch.until(t, "the slow bodies cut off", func(s server.AdmissionStats) bool {
		return s.Clients == 0 && s.RefusedSlowBody == sockets
	})
}

// TestOneClientCannotTakeThePool: one client opening many requests at once is bounded on its own (429 with
// Retry-After past MaxPerClient), ahead of the shared slots; another client is still served.
func TestOneClientCannotTakeThePool(t *testing.T) {
	t.Parallel()
	var watch admissionWatch
	srv := limitedServer(t, server.Options{MaxPerClient: 3, BodyReadTimeout: 2 * time.Second,
		TrustedProxies: []string{"127.0.0.0/8"}, ObserveAdmission: watch.observe}, nil)
	addr := strings.TrimPrefix(srv.URL, "http://")
	attacker := map[string]string{"X-Forwarded-For": "198.51.100.7"}
	for range 3 {
		slowBody(t, addr, attacker["X-Forwarded-For"])
	}
	watch.until(t, "the client's three requests in the gate", func(s server.AdmissionStats) bool { return s.Clients == 1 && s.Requests == 3 })
	// A POST: a GET of /health could be answered from the answers kept, which hold no place in the gate.
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/api/v1/token-estimate", strings.NewReader(`{"text":"hello there"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Forwarded-For", attacker["X-Forwarded-For"])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	msg := string(body)
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" || !strings.Contains(msg, "at once") {
		t.Errorf("the client's 4th request at once: %d Retry-After=%q %q, want 429", resp.StatusCode, resp.Header.Get("Retry-After"), msg)
	}
	if code := tokenEstimate(t, srv.URL, map[string]string{"X-Forwarded-For": "203.0.113.9"}); code != http.StatusOK {
		t.Errorf("another client: %d, want 200", code)
	}
	if s := watch.now(); s.RefusedClient != 1 {
		t.Errorf("refused per client: %d, want 1", s.RefusedClient)
	}
}

// mcpClient posts to the MCP endpoint from a source address of its own on loopback (127.0.0.0/8 is all this
// machine), so the server tells two clients apart by their connections, as it would on a network.
func mcpClient(t *testing.T, source string) *http.Client {
	t.Helper()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(source)}, Timeout: 5 * time.Second}
	tr := &http.Transport{DialContext: d.DialContext}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 10 * time.Second}
}

type rpcResult struct {
	ID     int `json:"id"`
	Result *struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (r rpcResult) failure() string {
	switch {
	case r.Error != nil:
		return r.Error.Message
	case r.Result == nil:
		return "no result"
	case r.Result.IsError:
		return r.Result.Content[0].Text
	}
	return ""
}

const toolCall = `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"service_health","arguments":{}}}`

// postMCP sends body to the MCP endpoint and returns the HTTP status and the JSON-RPC answers.
func postMCP(t *testing.T, c *http.Client, url, body string) (int, []rpcResult) {
	t.Helper()
	resp, err := c.Post(url+"/api/v1/mcp", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out []rpcResult
	if strings.HasPrefix(body, "[") && resp.StatusCode == http.StatusOK {
		err = json.Unmarshal(raw, &out)
	} else {
		out = make([]rpcResult, 1)
		err = json.Unmarshal(raw, &out[0])
	}
	if err != nil {
		t.Fatalf("MCP answer %d %s: %v", resp.StatusCode, raw, err)
	}
	return resp.StatusCode, out
}

// TestMCPToolCallsChargedToTheirClient goes through the real bridge over HTTP: a tool call is charged to the
// client of the MCP request that made it, not to one bucket all MCP clients share. One client spends its
// quota; another client's first call still succeeds. A batch pays one request per tool call.
func TestMCPToolCallsChargedToTheirClient(t *testing.T) {
	t.Parallel()
	srv := limitedServer(t, server.Options{RateLimitPerMinute: 2}, nil)
	a, b, c := mcpClient(t, "127.0.0.2"), mcpClient(t, "127.0.0.3"), mcpClient(t, "127.0.0.4")
	for i := 1; i <= 2; i++ {
		if status, res := postMCP(t, a, srv.URL, fmt.Sprintf(toolCall, i)); status != http.StatusOK || res[0].failure() != "" {
			t.Fatalf("client A's call %d of 2: %d %q", i, status, res[0].failure())
		}
	}
	if status, res := postMCP(t, a, srv.URL, fmt.Sprintf(toolCall, 3)); status != http.StatusTooManyRequests || !strings.Contains(res[0].failure(), "rate limit") {
		t.Errorf("client A's 3rd call: %d %q, want 429 rate limit", status, res[0].failure())
	}
	if status, res := postMCP(t, b, srv.URL, fmt.Sprintf(toolCall, 1)); status != http.StatusOK || res[0].failure() != "" {
		t.Errorf("client B's first call after A spent its quota: %d %q, want a result", status, res[0].failure())
	}
	batch := "[" + fmt.Sprintf(toolCall, 1) + "," + fmt.Sprintf(toolCall, 2) + "," + fmt.Sprintf(toolCall, 3) + "]"
	status, res := postMCP(t, c, srv.URL, batch)
	if status != http.StatusOK || len(res) != 3 {
		t.Fatalf("client C's batch: %d, %d answers", status, len(res))
	}
	if res[0].failure() != "" || res[1].failure() != "" || !strings.Contains(res[2].failure(), "rate limit") {
		t.Errorf("a batch of 3 calls with a quota of 2: %q %q %q, want two results and a rate limit", res[0].failure(), res[1].failure(), res[2].failure())
	}
}

// TestMCPToolCallHoldsOneSlot: a tool call runs in the slot of the MCP request that made it. With a single
// slot, the call succeeds; a call that needed a second slot would wait for the first and be refused.
func TestMCPToolCallHoldsOneSlot(t *testing.T) {
	t.Parallel()
	var watch admissionWatch
	srv := limitedServer(t, server.Options{MaxInFlight: 1, QueueWait: 20 * time.Millisecond, ObserveAdmission: watch.observe}, nil)
	status, res := postMCP(t, mcpClient(t, "127.0.0.5"), srv.URL, fmt.Sprintf(toolCall, 1))
	if status != http.StatusOK || res[0].failure() != "" {
		t.Errorf("a tool call with one slot: %d %q, want a result", status, res[0].failure())
	}
	if s := watch.now(); s.RefusedBusy != 0 || s.InFlight != 0 {
		t.Errorf("admission after the call: %+v, want nothing refused and the slot free", s)
	}
}

// TestReadTimeoutDoesNotCutLongAnswers: the server's ReadTimeout (10 s in serve) and the gate's body deadline
// bound reading the request, not the answer: a handler working past both keeps its context (net/http cancels
// a request's context when a read deadline passes on its connection, so one left set would cut it).
func TestReadTimeoutDoesNotCutLongAnswers(t *testing.T) {
	t.Parallel()
	got := make(chan error, 1)
	pages := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(300 * time.Millisecond):
			got <- nil
		case <-r.Context().Done():
			got <- r.Context().Err()
		}
	})
	h := limitedServer(t, server.Options{BodyReadTimeout: 100 * time.Millisecond}, pages).Config.Handler
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ReadTimeout = 100 * time.Millisecond
	srv.Start()
	t.Cleanup(srv.Close)
	for _, method := range []string{http.MethodGet, http.MethodPost} {
		var body io.Reader
		if method == http.MethodPost {
			body = strings.NewReader("x")
		}
		req, _ := http.NewRequest(method, srv.URL+"/", body)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if err := <-got; err != nil {
			t.Errorf("%s: the handler's context ended after ReadTimeout: %v", method, err)
		}
	}
}
