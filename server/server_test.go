package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/switchboard/switchboard/apitest"
	"github.com/switchboard/switchboard/gen/api"
)

// TestEveryOperation calls each of the document's operations with a minimal valid request. Each must be
// routed, pass validation, and answer a status the document lists for it with a body that validates.
func TestEveryOperation(t *testing.T) {
	s := apitest.Start(t, apitest.Options{})
	ops := apitest.Operations(s.Doc)
	if len(ops) != 79 {
		t.Errorf("the document has %d operations, want 79", len(ops))
	}
	for _, op := range ops {
		t.Run(op.ID, func(t *testing.T) {
			path, body, err := op.MinimalRequest()
			if err != nil {
				t.Fatal(err)
			}
			var hdr http.Header
			if body != nil {
				hdr = http.Header{"Content-Type": {"application/json"}}
			}
			r := s.Do(op.Method, path, body, hdr)
			switch {
			case r.Status == http.StatusNotFound && (op.Op.Parameters.GetByInAndName("path", "id") != nil ||
				op.Op.Parameters.GetByInAndName("query", "id") != nil):
				// The sample id (in the path, or the query as for /webhooks) names no record: a 404 is the right
				// answer, and it was validated above.
			case op.ID == "getHealthPremium" && (r.Status == http.StatusServiceUnavailable || r.Status == http.StatusPaymentRequired):
				// The paid route refuses an unpaid request: 503 without a payee (this server), 402 with one. Both
				// were validated above; impl's premium tests pay.
			case r.Status >= 400:
				t.Errorf("a minimal valid request answered %d: %s", r.Status, r.Body)
			}
		})
	}
}

// TestRequiredParameters drops each required query parameter in turn: 400 naming it.
func TestRequiredParameters(t *testing.T) {
	s := apitest.Start(t, apitest.Options{})
	n := 0
	for _, op := range apitest.Operations(s.Doc) {
		full, body, err := op.MinimalRequest()
		if err != nil {
			t.Fatal(err)
		}
		for _, pr := range op.Op.Parameters {
			p := pr.Value
			if !p.Required || p.In != openapi3.ParameterInQuery {
				continue
			}
			n++
			u, _ := url.Parse(full)
			q := u.Query()
			q.Del(p.Name)
			u.RawQuery = q.Encode()
			r := s.Do(op.Method, u.RequestURI(), body, nil)
			if r.Status != http.StatusBadRequest || !strings.Contains(r.Error(t), "parameter "+p.Name) {
				t.Errorf("%s without %s: %d %s", op.ID, p.Name, r.Status, r.Body)
			}
		}
	}
	if n < 10 {
		t.Errorf("only %d required query parameters found: is the document complete?", n)
	}
}

// TestBounds sends every bounded number and every enum one step outside what the document allows: 400 naming
// the parameter, never a handler's answer.
func TestBounds(t *testing.T) {
	s := apitest.Start(t, apitest.Options{})
	n := 0
	for _, op := range apitest.Operations(s.Doc) {
		full, body, err := op.MinimalRequest()
		if err != nil {
			t.Fatal(err)
		}
		for _, pr := range op.Op.Parameters {
			p := pr.Value
			if p.In != openapi3.ParameterInQuery || p.Schema == nil {
				continue
			}
			sc := p.Schema.Value
			var bad []string
			if sc.Max != nil {
				bad = append(bad, fmt.Sprint(*sc.Max+1))
			}
			if sc.Min != nil {
				bad = append(bad, fmt.Sprint(*sc.Min-1))
			}
			if len(sc.Enum) > 0 {
				bad = append(bad, "no-such-value")
			}
			if sc.Type.Is("integer") || sc.Type.Is("number") || sc.Type.Is("boolean") {
				bad = append(bad, "abc")
			}
			for _, v := range bad {
				n++
				u, _ := url.Parse(full)
				q := u.Query()
				q.Set(p.Name, v)
				u.RawQuery = q.Encode()
				var hdr http.Header
				if body != nil {
					hdr = http.Header{"Content-Type": {"application/json"}}
				}
				r := s.Do(op.Method, u.RequestURI(), body, hdr)
				if r.Status != http.StatusBadRequest || !strings.Contains(r.Error(t), "parameter "+p.Name+":") {
					t.Errorf("%s %s=%s: %d %s", op.ID, p.Name, v, r.Status, r.Body)
				}
			}
		}
	}
	if n < 100 {
		t.Errorf("only %d out-of-bounds values tried: is the document complete?", n)
	}
}

// TestErrorMessages pins the wording of the messages the issue names.
func TestErrorMessages(t *testing.T) {
	s := apitest.Start(t, apitest.Options{})
	cases := []struct {
		path   string
		status int
		msg    string
	}{
		{"/api/v1/latency", 400, "parameter provider: is required"},
		{"/api/v1/benchmarks?limit=500", 400, "parameter limit: must be at most 50"},
		{"/api/v1/benchmarks?limit=0", 400, "parameter limit: must be at least 1"},
		{"/api/v1/latency?provider=openai&window=2h", 400, "parameter window: must be one of 1h, 6h, 24h"},
		{"/api/v1/pick?task=llm&needs=vision,x-ray", 400, "parameter needs: item 2: must be one of vision, function_calling, json_mode"},
		{"/api/v1/compare?providers=openai", 400, "parameter providers: must have at least 2 items"},
		{"/api/v1/cheapest?task=llm&input_tokens=many", 400, "parameter input_tokens: must be an integer"},
		{"/api/v1/no-such-thing", 404, "no such endpoint: /api/v1/no-such-thing"},
		{"/nowhere", 404, "no such endpoint: /nowhere"},
	}
	for _, c := range cases {
		r := s.Get(c.path)
		if r.Status != c.status || r.Error(t) != c.msg {
			t.Errorf("GET %s = %d %s, want %d %q", c.path, r.Status, r.Body, c.status, c.msg)
		}
	}
	// The caller's value is never echoed: it may be a secret or text meant only for hashing.
	r := s.Get("/api/v1/validate/x?hash=SECRET-MARKER-123")
	if r.Status != 400 || strings.Contains(string(r.Body), "SECRET-MARKER") {
		t.Errorf("bad hash: %d %s", r.Status, r.Body)
	}
}

func TestBodies(t *testing.T) {
	s := apitest.Start(t, apitest.Options{})
	cases := []struct {
		name   string
		body   any
		status int
		msg    string
	}{
		{"malformed", `{"provider": "openai",`, 400, "request body: not valid JSON"},
		{"missing field", map[string]any{"provider": "openai"}, 400, "request body: missing required field model"},
		{"wrong type", map[string]any{"provider": 5, "model": "m"}, 400, "body field provider: must be of type string"},
		{"unknown field", map[string]any{"provider": "openai", "model": "m", "colour": "red"}, 400, "request body: unknown field colour"},
		{"too large", `{"provider":"openai","model":"m","output":"` + strings.Repeat("a", 1<<20) + `"}`, 413, "request body: larger than 1048576 bytes"},
	}
	for _, c := range cases {
		r := s.PostJSON("/api/v1/attest", c.body)
		if r.Status != c.status || !strings.HasPrefix(r.Error(t), c.msg) {
			t.Errorf("%s: %d %s, want %d %q", c.name, r.Status, r.Body, c.status, c.msg)
		}
	}
	r := s.PostJSON("/api/v1/webhooks", map[string]any{"callback_url": "https://example.com/h", "events": []string{"provider.down", "provider.sideways"}})
	if r.Status != 400 || !strings.HasPrefix(r.Error(t), "body field events.1: must be one of provider.down") {
		t.Errorf("bad event: %d %s", r.Status, r.Body)
	}
}

func TestMethodNotAllowed(t *testing.T) {
	s := apitest.Start(t, apitest.Options{})
	r := s.Do(http.MethodPost, "/api/v1/health", "{}", http.Header{"Content-Type": {"application/json"}})
	if r.Status != http.StatusMethodNotAllowed || r.Error(t) != "method POST not allowed on /api/v1/health" {
		t.Errorf("POST /health = %d %s", r.Status, r.Body)
	}
}

func TestOpenAPIDocument(t *testing.T) {
	s := apitest.Start(t, apitest.Options{})
	r := s.Get("/api/v1/openapi.json")
	if r.Status != 200 {
		t.Fatalf("status %d", r.Status)
	}
	var doc struct {
		OpenAPI string                               `json:"openapi"`
		Info    struct{ Title string }               `json:"info"`
		Paths   map[string]map[string]map[string]any `json:"paths"`
	}
	r.Decode(t, &doc)
	ops, tools := 0, map[string]bool{}
	for _, item := range doc.Paths {
		for method, op := range item {
			switch method {
			case "get", "post", "delete", "put", "patch":
				ops++
				if name, ok := op["x-mcp-tool"].(string); ok {
					tools[name] = true
				}
			}
		}
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.1.") || doc.Info.Title == "" || ops != 79 || len(tools) != 36 {
		t.Errorf("openapi %q, title %q, %d operations, %d MCP tools; want 3.1.x, a title, 79, 36 (the contract's 34, the paid one and service_failover_export)", doc.OpenAPI, doc.Info.Title, ops, len(tools))
	}
}

// TestProbes covers the service's own liveness and readiness, outside /api/v1.
func TestProbes(t *testing.T) {
	s := apitest.Start(t, apitest.Options{})
	for _, p := range []string{"/healthz", "/readyz"} {
		r := s.Get(p)
		if r.Status != 200 {
			t.Errorf("%s = %d %s", p, r.Status, r.Body)
		}
	}
	s.Store.Close()
	r := s.Get("/readyz")
	if r.Status != http.StatusServiceUnavailable || r.Error(t) != "database unavailable" {
		t.Errorf("/readyz with the database closed = %d %s", r.Status, r.Body)
	}
}

// panicky answers /health by panicking and /latency with an internal error, to test the server's safety net.
// Other operations are not called: the embedded interface is nil.
type panicky struct{ api.StrictServerInterface }

func (panicky) GetHealth(context.Context, api.GetHealthRequestObject) (api.GetHealthResponseObject, error) {
	panic("boom")
}

func (panicky) GetLatency(context.Context, api.GetLatencyRequestObject) (api.GetLatencyResponseObject, error) {
	return nil, fmt.Errorf("reading checks: connection to 10.0.0.7 refused")
}

func TestFailuresBecome500(t *testing.T) {
	s := apitest.Start(t, apitest.Options{API: panicky{}})
	r := s.Get("/api/v1/health")
	if r.Status != 500 || r.Error(t) != "internal error" {
		t.Errorf("panic: %d %s", r.Status, r.Body)
	}
	r = s.Get("/api/v1/latency?provider=openai")
	if r.Status != 500 || r.Error(t) != "internal error" {
		t.Errorf("handler error: %d %s", r.Status, r.Body)
	}
	logs := s.Logs.String()
	if !strings.Contains(logs, `"panic":"boom"`) || !strings.Contains(logs, "10.0.0.7 refused") {
		t.Errorf("the failures were not logged:\n%s", logs)
	}
	// And the server goes on serving.
	if r := s.Get("/healthz"); r.Status != 200 {
		t.Errorf("after a panic /healthz = %d", r.Status)
	}
}

// TestRequestLog checks one structured line per request, without the query string.
func TestRequestLog(t *testing.T) {
	s := apitest.Start(t, apitest.Options{})
	s.Get("/api/v1/validate/abc?output=PRIVATE-TEXT-42")
	s.Get("/api/v1/openapi.json")
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(s.Logs.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line is not JSON: %s", l)
		}
		if m["msg"] == "request" {
			lines = append(lines, m)
		}
	}
	if len(lines) != 2 {
		t.Fatalf("%d request lines, want 2", len(lines))
	}
	if lines[1]["path"] != "/api/v1/openapi.json" || lines[1]["status"] != float64(200) || lines[1]["method"] != "GET" ||
		lines[1]["request_id"] == "" || lines[1]["duration_ms"] == nil {
		t.Errorf("request line = %v", lines[1])
	}
	if strings.Contains(s.Logs.String(), "PRIVATE-TEXT") {
		t.Error("a query value reached the logs")
	}
}
