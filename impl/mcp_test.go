package impl_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard/switchboard/apitest"
	"github.com/switchboard/switchboard/dbtest"
	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/health"
	"github.com/switchboard/switchboard/impl"
	"github.com/switchboard/switchboard/server"
	"github.com/switchboard/switchboard/tools"
)

// The server package hands the finished handler to the API through this interface.
var _ server.HandlerUser = (*impl.Server)(nil)

const mcpPath = "/api/v1/mcp"

// mcpServer runs the service over the live-endpoint history of live_test.go with a fixed clock, so an answer
// that carries the time (GET /health's timestamp) is the same over HTTP and through a tool.
func mcpServer(t *testing.T, e dbtest.Engine) *apitest.Server {
	t.Helper()
	st, _ := e.Open(t)
	now := time.Now().UTC().Truncate(time.Second)
	buildHistory(t, st, now)
	view := health.New(st, health.Options{})
	if err := view.Refresh(context.Background(), now); err != nil {
		t.Fatal(err)
	}
	return apitest.Start(t, apitest.Options{Store: st, API: impl.New(impl.Deps{Store: st, Health: view, Now: func() time.Time { return now }})})
}

type rpcAnswer struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

type toolAnswer struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
	Meta              map[string]any  `json:"_meta"`
}

// postMCP sends body (a string, sent as is) to the MCP endpoint; apitest checks the answer against the document.
func postMCP(s *apitest.Server, body string, header http.Header) *apitest.Response {
	h := http.Header{"Content-Type": {"application/json"}}
	for k, v := range header {
		h[k] = v
	}
	return s.Do(http.MethodPost, mcpPath, body, h)
}

// rpcCall sends one request that must be answered 200 with one JSON-RPC response.
func rpcCall(t *testing.T, s *apitest.Server, body string) rpcAnswer {
	t.Helper()
	r := postMCP(s, body, nil)
	if r.Status != http.StatusOK || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("%s: %d %s %s", body, r.Status, r.Header.Get("Content-Type"), r.Body)
	}
	var a rpcAnswer
	r.Decode(t, &a)
	if a.JSONRPC != "2.0" {
		t.Fatalf("%s: answer %s", body, r.Body)
	}
	return a
}

func callTool(t *testing.T, s *apitest.Server, name, args string) toolAnswer {
	t.Helper()
	a := rpcCall(t, s, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+name+`","arguments":`+args+`}}`)
	if a.Error != nil {
		t.Fatalf("%s %s: JSON-RPC error %d %s", name, args, a.Error.Code, a.Error.Message)
	}
	var ta toolAnswer
	if err := json.Unmarshal(a.Result, &ta); err != nil {
		t.Fatal(err)
	}
	if len(ta.Content) != 1 || ta.Content[0].Type != "text" {
		t.Fatalf("%s: content %s", name, a.Result)
	}
	return ta
}

// TestMCPEqualsHTTP checks, on every engine, that a tool's text is the body of the same request over HTTP, byte
// for byte, and that an error status makes the result an error.
func TestMCPEqualsHTTP(t *testing.T) {
	for _, e := range dbtest.Engines(t) {
		t.Run(e.Name, func(t *testing.T) {
			s := mcpServer(t, e)
			for _, c := range []struct {
				tool, args, http string
				status           int
			}{
				{"service_health", `{}`, "/api/v1/health", 200},
				{"service_latency", `{"provider":"openai","window":"24h"}`, "/api/v1/latency?provider=openai&window=24h", 200},
				{"service_latency", `{"provider":"openai"}`, "/api/v1/latency?provider=openai", 200},
				{"service_changelog", `{}`, "/api/v1/changelog", 200},
				{"service_changelog", `{"days":30,"provider":"openai"}`, "/api/v1/changelog?days=30&provider=openai", 200},
				{"service_incidents", `{"hours":168,"severity":"outage"}`, "/api/v1/incidents?hours=168&severity=outage", 200},
				{"service_freshness", `{"provider":"mistral"}`, "/api/v1/freshness?provider=mistral", 200},
				{"service_rate_limit_status", `{}`, "/api/v1/rate-limit-status", 200},
				// A list tool answers a first page of tools.ToolPageSize unless asked for another limit.
				{"service_pricing", `{}`, "/api/v1/pricing?limit=20", 200},
				{"service_pricing", `{"limit":3,"provider":"openai"}`, "/api/v1/pricing?limit=3&provider=openai", 200},
				{"service_pick", `{"task":"llm"}`, "/api/v1/pick?task=llm", 200},
				{"service_latency", `{}`, "/api/v1/latency", 400},
				{"service_latency", `{"provider":"openai","window":"2h"}`, "/api/v1/latency?provider=openai&window=2h", 400},
				{"service_changelog", `{"days":31}`, "/api/v1/changelog?days=31", 400},
				{"service_latency", `{"provider":"nosuchprovider"}`, "/api/v1/latency?provider=nosuchprovider", 404},
			} {
				want := s.Get(c.http)
				if want.Status != c.status {
					t.Errorf("GET %s = %d, the test expects %d", c.http, want.Status, c.status)
				}
				got := callTool(t, s, c.tool, c.args)
				if text := got.Content[0].Text; text != string(want.Body) {
					t.Errorf("%s %s:\n MCP  %q\n HTTP %q", c.tool, c.args, text, want.Body)
				}
				if got.IsError != (want.Status >= 400) {
					t.Errorf("%s %s: isError %v for HTTP %d", c.tool, c.args, got.IsError, want.Status)
				}
			}
			// Each call went through the middleware: one log line per endpoint request, from the in-process caller.
			if logs := s.Logs.String(); !strings.Contains(logs, `"path":"/api/v1/latency","status":404`) || !strings.Contains(logs, `"remote":"mcp"`) {
				t.Errorf("tool calls are not logged as requests:\n%.3000s", logs)
			}
		})
	}
}

func TestMCPProtocol(t *testing.T) {
	s := apitest.Start(t, apitest.Options{})

	t.Run("initialize", func(t *testing.T) {
		for _, body := range []string{
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`,
			`{"jsonrpc":"2.0","id":1,"method":"initialize"}`,
		} {
			// Whatever the client accepts, the answer is JSON.
			for _, accept := range []string{"", "application/json", "text/event-stream", "application/json, text/event-stream", "text/html"} {
				h := http.Header{}
				if accept != "" {
					h.Set("Accept", accept)
				}
				r := postMCP(s, body, h)
				if r.Status != 200 || r.Header.Get("Content-Type") != "application/json" {
					t.Fatalf("Accept %q: %d %s", accept, r.Status, r.Header.Get("Content-Type"))
				}
				var a struct {
					Result struct {
						ProtocolVersion string                     `json:"protocolVersion"`
						Capabilities    map[string]json.RawMessage `json:"capabilities"`
						ServerInfo      map[string]string          `json:"serverInfo"`
					} `json:"result"`
				}
				r.Decode(t, &a)
				if a.Result.ProtocolVersion != "2024-11-05" || !strings.HasPrefix(string(a.Result.Capabilities["tools"]), "{") ||
					a.Result.ServerInfo["name"] != "switchboard" || a.Result.ServerInfo["version"] == "" {
					t.Errorf("%s: %s", body, r.Body)
				}
			}
		}
	})

	t.Run("tools/list", func(t *testing.T) {
		a := rpcCall(t, s, `{"jsonrpc":"2.0","id":"list","method":"tools/list","params":{}}`)
		var res struct {
			Tools []struct {
				Name        string         `json:"name"`
				InputSchema map[string]any `json:"inputSchema"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(a.Result, &res); err != nil {
			t.Fatal(err)
		}
		var listed, documented []string
		for _, tl := range res.Tools {
			listed = append(listed, tl.Name)
			if tl.InputSchema["type"] != "object" {
				t.Errorf("%s: inputSchema %v", tl.Name, tl.InputSchema)
			}
		}
		for _, op := range apitest.Operations(s.Doc) {
			if name, ok := op.Op.Extensions[tools.Extension].(string); ok {
				documented = append(documented, name)
			}
		}
		slices.Sort(listed)
		slices.Sort(documented)
		if len(listed) != 36 || !slices.Equal(listed, documented) {
			t.Errorf("tools/list (%d) = %v\nthe document marks %v", len(listed), listed, documented)
		}
	})

	t.Run("ping", func(t *testing.T) {
		if a := rpcCall(t, s, `{"jsonrpc":"2.0","id":9,"method":"ping"}`); string(a.Result) != "{}" || string(a.ID) != "9" {
			t.Errorf("ping = %+v", a)
		}
	})

	t.Run("errors", func(t *testing.T) {
		for _, c := range []struct {
			body string
			code int
		}{
			{`{"jsonrpc":"2.0","id":1,"method":"nope/nope"}`, tools.CodeMethodNotFound},
			{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"service_nope","arguments":{}}}`, tools.CodeInvalidParams},
			{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{}}}`, tools.CodeInvalidParams},
			{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"service_health","arguments":5}}`, tools.CodeInvalidParams},
			{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"service_health"}`, tools.CodeInvalidRequest},
			{`{"id":1,"method":"ping"}`, tools.CodeInvalidRequest},
			{`{"jsonrpc":"2.0","id":1}`, tools.CodeInvalidRequest},
			{`[]`, tools.CodeInvalidRequest},
			{`42`, tools.CodeInvalidRequest},
		} {
			a := rpcCall(t, s, c.body)
			if a.Error == nil || a.Error.Code != c.code || a.Error.Message == "" || a.Result != nil {
				t.Errorf("%s: %+v %s, want code %d", c.body, a.Error, a.Result, c.code)
			}
		}
		// A body that is not JSON: HTTP 400 with JSON-RPC's parse error.
		for _, body := range []string{`{"jsonrpc":"2.0","id":1,"method":`, `hello`} {
			r := postMCP(s, body, nil)
			var a rpcAnswer
			r.Decode(t, &a)
			if r.Status != 400 || a.Error == nil || a.Error.Code != tools.CodeParseError || string(a.ID) != "null" {
				t.Errorf("%q: %d %s", body, r.Status, r.Body)
			}
		}
		// Argument errors are the endpoint's 400, as a tool error result.
		got := callTool(t, s, "service_incidents", `{"hours":0}`)
		if !got.IsError || got.Content[0].Text != `{"error":"parameter hours: must be at least 1"}`+"\n" {
			t.Errorf("hours=0: %+v", got)
		}
	})

	t.Run("notifications and batches", func(t *testing.T) {
		for _, body := range []string{
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			`[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}]`,
		} {
			r := postMCP(s, body, nil)
			if r.Status != http.StatusAccepted || len(r.Body) != 0 {
				t.Errorf("%s: %d %q, want 202 without a body", body, r.Status, r.Body)
			}
		}
		r := postMCP(s, `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},`+
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"service_health"}},{"jsonrpc":"2.0","id":3,"method":"x"}]`, nil)
		var as []rpcAnswer
		r.Decode(t, &as)
		if r.Status != 200 || len(as) != 3 || string(as[0].ID) != "1" || string(as[1].ID) != "2" || as[2].Error.Code != tools.CodeMethodNotFound {
			t.Errorf("batch: %d %s", r.Status, r.Body)
		}
	})

	t.Run("HTTP", func(t *testing.T) {
		// Clients of MCP 2025-06-18 and later repeat the negotiated version in a header; one this server does
		// not speak is 400 with a JSON-RPC error (package server's tests cover the other HTTP refusals).
		h := http.Header{"Mcp-Protocol-Version": {"2025-11-25"}}
		if r := postMCP(s, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, h); r.Status != 200 {
			t.Errorf("supported version header: %d %s", r.Status, r.Body)
		}
		h.Set("Mcp-Protocol-Version", "2099-01-01")
		r := postMCP(s, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, h)
		var a rpcAnswer
		r.Decode(t, &a)
		if r.Status != 400 || a.Error == nil || a.Error.Code != tools.CodeInvalidRequest || !strings.Contains(a.Error.Message, "MCP-Protocol-Version") {
			t.Errorf("unsupported version header: %d %s", r.Status, r.Body)
		}
		// No server-sent event stream: GET is 405 with Allow: POST, which MCP clients take as "no stream".
		if r := s.Get(mcpPath); r.Status != http.StatusMethodNotAllowed || r.Header.Get("Allow") != "POST" {
			t.Errorf("GET: %d %s", r.Status, r.Body)
		}
		big := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", server.DefaultMaxBodyBytes) + `"}}`
		if r := postMCP(s, big, nil); r.Status != http.StatusRequestEntityTooLarge {
			t.Errorf("body over the limit: %d", r.Status)
		}
		if r := s.Do(http.MethodPost, mcpPath, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, http.Header{"Content-Type": {"text/plain"}}); r.Status != 400 {
			t.Errorf("text/plain body: %d %s", r.Status, r.Body)
		}
	})
}

// TestMCPWithoutHandler: a Server used without server.NewHandler has no bridge and says so as a 500, not a panic.
func TestMCPWithoutHandler(t *testing.T) {
	s := impl.New(impl.Deps{})
	if _, err := s.PostMcp(context.Background(), api.PostMcpRequestObject{}); err == nil {
		t.Error("PostMcp without a bridge did not fail")
	}
}
