package tools_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard/switchboard/apitest"
	"github.com/switchboard/switchboard/server"
	"github.com/switchboard/switchboard/tools"
)

// serveLines runs ServeStdio over the given input and returns every line it wrote, decoded.
func serveLines(t *testing.T, h tools.Handler, input string, o tools.StdioOptions) []rpc {
	t.Helper()
	var out strings.Builder
	done := make(chan error, 1)
	go func() { done <- tools.ServeStdio(context.Background(), strings.NewReader(input), &out, h, o) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("ServeStdio: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("ServeStdio did not return at the end of its input")
	}
	var rs []rpc
	for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		if line == "" {
			continue
		}
		var r rpc
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("stdout line is not one JSON-RPC message: %q", line)
		}
		rs = append(rs, r)
	}
	return rs
}

func byID(rs []rpc) map[string]rpc {
	m := map[string]rpc{}
	for _, r := range rs {
		m[string(r.ID)] = r
	}
	return m
}

func TestServeStdio(t *testing.T) {
	b := newBridge(t, loadDoc(t), &fakeAPI{})
	input := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		``,
		`   `,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\r",
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"service_latency","arguments":{"provider":"openai"}}}`,
		`not json`,
		`[{"jsonrpc":"2.0","id":4,"method":"ping"},{"jsonrpc":"2.0","id":5,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":6,"method":"ping","params":{"pad":"` + strings.Repeat("x", 300) + `"}}`,
		`{"jsonrpc":"2.0","id":7,"method":"ping"}`, // the last line has no newline
	}, "\n")
	var out strings.Builder
	if err := tools.ServeStdio(context.Background(), strings.NewReader(input), &out, b, tools.StdioOptions{MaxLine: 256}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	// initialize, list, call, parse error, the batch (one line), the line over the limit, the last ping.
	if len(lines) != 7 {
		t.Fatalf("%d lines:\n%s", len(lines), out.String())
	}
	var single []rpc
	for _, l := range lines {
		if strings.HasPrefix(l, "[") {
			var batch []rpc
			if err := json.Unmarshal([]byte(l), &batch); err != nil || len(batch) != 2 {
				t.Errorf("batch answer %s", l)
			}
			continue
		}
		var r rpc
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		single = append(single, r)
	}
	got := byID(single)
	if !strings.Contains(string(got["1"].Result), `"protocolVersion":"2025-11-25"`) {
		t.Errorf("initialize: %s", got["1"].Result)
	}
	if !strings.Contains(string(got["2"].Result), `"service_health"`) || !strings.Contains(string(got["3"].Result), `"structuredContent"`) {
		t.Errorf("list %.100s / call %.200s", got["2"].Result, got["3"].Result)
	}
	if e := got["null"].Error; e == nil {
		t.Errorf("no error answers with id null: %v", lines)
	}
	if got["7"].Error != nil || string(got["7"].Result) != "{}" {
		t.Errorf("last line: %+v", got["7"])
	}
	if _, ok := got["6"]; ok {
		t.Error("the line over the limit was answered as a request")
	}
	var errs []int
	for _, r := range single {
		if r.Error != nil {
			errs = append(errs, r.Error.Code)
		}
	}
	slices.Sort(errs)
	if !slices.Equal(errs, []int{tools.CodeParseError, tools.CodeInvalidRequest}) {
		t.Errorf("error codes %v, want the parse error and the line over the limit", errs)
	}
}

// slowHandler answers "slow" only after "fast" has been answered, to show messages are answered concurrently.
type slowHandler struct{ fastDone chan struct{} }

func (h slowHandler) Handle(_ context.Context, p []byte) []byte {
	if strings.Contains(string(p), "slow") {
		<-h.fastDone
	} else {
		defer close(h.fastDone)
	}
	return []byte(`{"jsonrpc":"2.0","id":"` + map[bool]string{true: "slow", false: "fast"}[strings.Contains(string(p), "slow")] + `","result":{}}`)
}

func TestServeStdioConcurrentAndEnds(t *testing.T) {
	rs := serveLines(t, slowHandler{make(chan struct{})}, "slow\nfast\n", tools.StdioOptions{})
	if len(rs) != 2 || string(rs[0].ID) != `"fast"` || string(rs[1].ID) != `"slow"` {
		t.Errorf("answers %+v, want fast before slow", rs)
	}
	// A cancelled context ends the loop even while the client keeps stdin open.
	pr, pw := io.Pipe()
	defer pw.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	b := newBridge(t, loadDoc(t), &fakeAPI{})
	go func() { done <- tools.ServeStdio(ctx, pr, io.Discard, b, tools.StdioOptions{}) }()
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("ServeStdio did not end with its context")
	}
}

func TestProxy(t *testing.T) {
	s := apitest.Start(t, apitest.Options{})
	p := tools.NewProxy(s.URL+"/api/v1/mcp", nil, nil)
	rs := byID(serveLines(t, p, strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"service_health"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"nope"}`,
		`{"jsonrpc":"2.0","id":`,
	}, "\n"), tools.StdioOptions{Concurrency: 1}))
	if !strings.Contains(string(rs["1"].Result), `"2025-11-25"`) || !strings.Contains(string(rs["2"].Result), `"structuredContent"`) {
		t.Errorf("initialize %s / call %.200s", rs["1"].Result, rs["2"].Result)
	}
	if rs["3"].Error == nil || rs["3"].Error.Code != tools.CodeMethodNotFound {
		t.Errorf("unknown method: %+v", rs["3"])
	}
	if rs["null"].Error == nil || rs["null"].Error.Code != tools.CodeParseError {
		t.Errorf("bad JSON: %+v", rs["null"])
	}
	// The version initialize negotiated rides on the later requests (the service accepts it).
	if !strings.Contains(s.Logs.String(), `"path":"/api/v1/health","status":200`) {
		t.Error("the tool call did not reach the service")
	}

	// An HTTP refusal (here a Host the service does not serve) becomes an error for the request's own id.
	pub := apitest.Start(t, apitest.Options{MCPHosts: server.NewHostPolicy("0.0.0.0:1", "https://elsewhere.example.com", nil)})
	rs = byID(serveLines(t, tools.NewProxy(pub.URL+"/api/v1/mcp", nil, nil), `{"jsonrpc":"2.0","id":"x","method":"ping"}`+"\n", tools.StdioOptions{}))
	if e := rs[`"x"`].Error; e == nil || e.Code != tools.CodeInvalidRequest || !strings.Contains(e.Message, "DNS rebinding") {
		t.Errorf("403 through the proxy: %+v", rs)
	}
	// A service that cannot be reached: an error per request of a batch, none for a notification.
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	dp := tools.NewProxy(dead.URL+"/api/v1/mcp", &http.Client{Timeout: 2 * time.Second}, nil)
	var batch []rpc
	out := dp.Handle(context.Background(), []byte(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`))
	if err := json.Unmarshal(out, &batch); err != nil || len(batch) != 2 || string(batch[0].ID) != "1" || string(batch[1].ID) != "2" ||
		batch[0].Error == nil || batch[0].Error.Code != tools.CodeServerError || !strings.Contains(batch[0].Error.Message, "did not answer") {
		t.Errorf("unreachable service, batch: %s", out)
	}
	if out := dp.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); out != nil {
		t.Errorf("unreachable service, notification: %s", out)
	}
}

// TestProxyHeaders checks what the proxy sends: JSON, both Accept types, and the negotiated version once known.
func TestProxyHeaders(t *testing.T) {
	var mu sync.Mutex
	var seen []http.Header
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Clone())
		mu.Unlock()
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		switch {
		case strings.Contains(string(body), "initialize"):
			w.Write([]byte("{\n  \"jsonrpc\": \"2.0\", \"id\": 1,\n  \"result\": {\"protocolVersion\": \"2025-06-18\"}\n}\n"))
		case strings.Contains(string(body), "sse"):
			w.Header().Set("Content-Type", "text/event-stream")
			w.Write([]byte("event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n\n"))
		default:
			w.Write([]byte(`{"jsonrpc":"2.0","id":2,"result":{}}`))
		}
	}))
	defer upstream.Close()
	p := tools.NewProxy(upstream.URL, nil, nil)
	init := p.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
	if strings.Contains(string(init), "\n") {
		t.Errorf("the answer was not put on one line: %q", init)
	}
	p.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}`))
	if got := p.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":3,"method":"sse"}`)); string(got) != `{"jsonrpc":"2.0","id":3,"result":{}}` {
		t.Errorf("event-stream answer: %s", got)
	}
	if len(seen) != 3 {
		t.Fatalf("%d requests", len(seen))
	}
	for i, h := range seen {
		if h.Get("Content-Type") != "application/json" || h.Get("Accept") != "application/json, text/event-stream" {
			t.Errorf("request %d headers %v", i, h)
		}
	}
	if seen[0].Get("Mcp-Protocol-Version") != "" || seen[1].Get("Mcp-Protocol-Version") != "2025-06-18" {
		t.Errorf("MCP-Protocol-Version: %q then %q", seen[0].Get("Mcp-Protocol-Version"), seen[1].Get("Mcp-Protocol-Version"))
	}
}
