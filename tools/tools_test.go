package tools_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/switchboard/switchboard/openapi"
	"github.com/switchboard/switchboard/tools"
)

// contractTools are the 34 tool names of spec/core.md ("Developer tools"), the contract the document must carry.
// This list exists only here: the server reads its tools from the document.
var contractTools = []string{
	"service_health", "service_pick", "service_failover", "service_compare", "service_cheapest",
	"service_recommend", "service_incidents", "service_latency", "service_freshness", "service_changelog",
	"service_cost_estimate", "service_cost_forecast", "service_task_cost", "service_pricing", "service_models",
	"service_benchmarks", "service_rate_limits", "service_quota_check", "service_rate_limit_status",
	"service_context_window", "service_thinking_support", "service_multimodal", "service_structured_output",
	"service_function_calling", "service_json_mode", "service_deprecations", "service_max_output_tokens",
	"service_resolve_alias", "service_prompt_caching", "service_error_codes", "service_reference_compat",
	"service_overflow_behaviour", "service_guardrails", "service_migration_guide",
}

func loadDoc(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := openapi.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// documentTools lists the x-mcp-tool values of the document, sorted.
func documentTools(doc *openapi3.T) []string {
	var names []string
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			if v, ok := op.Extensions[tools.Extension]; ok {
				names = append(names, v.(string))
			}
		}
	}
	slices.Sort(names)
	return names
}

// paidTools join the contract's 34: the premium route paid over MCP (issue 20), x402's MCP transport.
var paidTools = []string{"service_health_premium"}

// addedTools join the contract's 34 beyond it: the failover export as gateway configuration.
var addedTools = []string{"service_failover_export"}

// TestContractToolNames fails when the document's x-mcp-tool names differ from the contract's 34 plus the paid
// and added tools, and when tools/list does not offer exactly the document's set.
// Bounds of tools/list: each description, and all of them together.
const (
	maxToolDescription  = 800
	maxToolDescriptions = 15000
)

func TestContractToolNames(t *testing.T) {
	doc := loadDoc(t)
	if n := len(slices.Compact(slices.Sorted(slices.Values(contractTools)))); len(contractTools) != 34 || n != 34 {
		t.Fatalf("the contract list must hold 34 distinct names, has %d", n)
	}
	want := slices.Sorted(slices.Values(append(append(slices.Clone(contractTools), paidTools...), addedTools...)))
	got := documentTools(doc)
	if !slices.Equal(got, want) {
		t.Errorf("x-mcp-tool names of the document differ from the contract:\n missing: %v\n extra: %v",
			diff(want, got), diff(got, want))
	}

	b := newBridge(t, doc, &fakeAPI{})
	var res struct {
		Tools []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	call(t, b, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, &res)
	var listed []string
	total := 0
	for _, tl := range res.Tools {
		listed = append(listed, tl.Name)
		if tl.Description == "" || len(tl.InputSchema) == 0 {
			t.Errorf("%s: no description or input schema", tl.Name)
		}
		// A tool's description rides along on every turn of every conversation: short, the full rules are in
		// the OpenAPI description.
		if n := utf8.RuneCountInString(tl.Description); n > maxToolDescription {
			t.Errorf("%s: description of %d characters, at most %d (x-mcp-description)", tl.Name, n, maxToolDescription)
		}
		total += utf8.RuneCountInString(tl.Description)
	}
	if total > maxToolDescriptions {
		t.Errorf("the tool descriptions add up to %d characters, at most %d", total, maxToolDescriptions)
	}
	if !slices.Equal(listed, got) {
		t.Errorf("tools/list = %v\nthe document has %v", listed, got)
	}
}

func diff(a, b []string) []string {
	var out []string
	for _, s := range a {
		if !slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}

// TestInputSchemas checks that each tool's input schema is made from its operation's parameters.
func TestInputSchemas(t *testing.T) {
	doc := loadDoc(t)
	b := newBridge(t, doc, &fakeAPI{})
	byName := map[string]tools.Tool{}
	for _, tl := range b.Tools() {
		byName[tl.Name] = tl
	}
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			name, ok := op.Extensions[tools.Extension].(string)
			if !ok {
				continue
			}
			tl := byName[name]
			var s struct {
				Type       string                    `json:"type"`
				Properties map[string]map[string]any `json:"properties"`
				Required   []string                  `json:"required"`
				Additional *bool                     `json:"additionalProperties"`
			}
			if err := json.Unmarshal(tl.InputSchema, &s); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if s.Type != "object" || s.Additional == nil || *s.Additional {
				t.Errorf("%s: schema is not a closed object: %s", name, tl.InputSchema)
			}
			if !strings.Contains(tl.Description, op.Summary) {
				t.Errorf("%s: description %q lacks the summary %q", name, tl.Description, op.Summary)
			}
			var required []string
			args := 0
			for _, pr := range op.Parameters {
				p := pr.Value
				if p.In == openapi3.ParameterInHeader && !p.Required {
					if _, ok := s.Properties[p.Name]; ok {
						t.Errorf("%s: header %s is an argument; headers are the hooks' to set", name, p.Name)
					}
					continue
				}
				args++
				prop, ok := s.Properties[p.Name]
				if !ok {
					t.Errorf("%s: parameter %s missing from the input schema", name, p.Name)
					continue
				}
				if p.Required {
					required = append(required, p.Name)
				}
				ps := p.Schema.Value
				if typ := ps.Type.Slice(); len(typ) == 1 && prop["type"] != typ[0] {
					t.Errorf("%s.%s: type %v, want %s", name, p.Name, prop["type"], typ[0])
				}
				if ps.Max != nil && prop["maximum"] != *ps.Max {
					t.Errorf("%s.%s: maximum %v, want %v", name, p.Name, prop["maximum"], *ps.Max)
				}
				if len(ps.Enum) > 0 && len(prop["enum"].([]any)) != len(ps.Enum) {
					t.Errorf("%s.%s: enum %v, want %v", name, p.Name, prop["enum"], ps.Enum)
				}
			}
			if len(s.Properties) != args {
				t.Errorf("%s: %d properties for %d parameters", name, len(s.Properties), args)
			}
			slices.Sort(required)
			if !slices.Equal(s.Required, required) {
				t.Errorf("%s: required %v, want %v", name, s.Required, required)
			}
		}
	}

	// Two tools in full: the conversion copies every keyword the document states.
	wantProps := map[string]string{
		"service_latency": `{"provider":{"description":"Provider ID (one of the 52 monitored providers; an unknown ID answers 404).",` +
			`"maxLength":64,"minLength":1,"type":"string"},` +
			`"window":{"default":"1h","description":"Lookback window. Default ` + "`1h`" + `.","enum":["1h","6h","24h"],"type":"string"}}`,
	}
	for name, want := range wantProps {
		var s struct {
			Properties json.RawMessage `json:"properties"`
			Required   []string        `json:"required"`
		}
		if err := json.Unmarshal(byName[name].InputSchema, &s); err != nil {
			t.Fatal(err)
		}
		if string(s.Properties) != want {
			t.Errorf("%s properties:\n got %s\nwant %s", name, s.Properties, want)
		}
	}
	var compare struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := json.Unmarshal(byName["service_compare"].InputSchema, &compare); err != nil {
		t.Fatal(err)
	}
	var providers map[string]any
	json.Unmarshal(compare.Properties["providers"], &providers)
	if providers["type"] != "array" || providers["minItems"] != 2.0 || providers["maxItems"] != 10.0 ||
		providers["items"].(map[string]any)["maxLength"] != 64.0 || !slices.Equal(compare.Required, []string{"providers"}) {
		t.Errorf("service_compare: providers %s, required %v", compare.Properties["providers"], compare.Required)
	}
	var cheapest struct {
		Properties map[string]map[string]any `json:"properties"`
	}
	json.Unmarshal(byName["service_cheapest"].InputSchema, &cheapest)
	if p := cheapest.Properties["min_quality"]["pattern"]; p != `^[a-z0-9_]+:[0-9]+(\.[0-9]+)?$` {
		t.Errorf("service_cheapest min_quality pattern = %v", p)
	}
	for name, tl := range byName {
		if strings.Contains(string(tl.InputSchema), `"double"`) || strings.Contains(string(tl.InputSchema), "nullable") {
			t.Errorf("%s: OpenAPI-only keywords in the input schema: %s", name, tl.InputSchema)
		}
	}
}

// fakeAPI stands in for the service's handler: it records the requests and answers with a status per path.
type fakeAPI struct {
	mu     sync.Mutex
	seen   []*http.Request
	status map[string]int
	body   string
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.seen = append(f.seen, r)
	f.mu.Unlock()
	code := http.StatusOK
	if c, ok := f.status[r.URL.Path]; ok {
		code = c
	}
	body := f.body
	if body == "" {
		b, _ := json.Marshal(map[string]string{"path": r.URL.Path, "query": r.URL.RawQuery, "tool": boolText(tools.IsToolCall(r.Context()))})
		body = string(b)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write([]byte(body))
}

func boolText(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func (f *fakeAPI) last(t *testing.T) *http.Request {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.seen) == 0 {
		t.Fatal("no request reached the handler")
	}
	return f.seen[len(f.seen)-1]
}

func newBridge(t *testing.T, doc *openapi3.T, h http.Handler) *tools.Bridge {
	t.Helper()
	b, err := tools.New(doc, h, tools.Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// rpc is a decoded JSON-RPC response.
type rpc struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// call sends one request and decodes its result into v, failing on a JSON-RPC error.
func call(t *testing.T, b *tools.Bridge, body string, v any) {
	t.Helper()
	r := single(t, b, body)
	if r.Error != nil {
		t.Fatalf("%s: error %d %s", body, r.Error.Code, r.Error.Message)
	}
	if err := json.Unmarshal(r.Result, v); err != nil {
		t.Fatalf("%s: result %s: %v", body, r.Result, err)
	}
}

func single(t *testing.T, b *tools.Bridge, body string) rpc {
	t.Helper()
	out := b.Handle(context.Background(), []byte(body))
	if out == nil {
		t.Fatalf("%s: no answer", body)
	}
	var r rpc
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("%s: answer %s: %v", body, out, err)
	}
	if r.JSONRPC != "2.0" {
		t.Errorf("%s: jsonrpc = %q", body, r.JSONRPC)
	}
	return r
}

type toolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
	Meta              map[string]any  `json:"_meta"`
}

func (r toolResult) text(t *testing.T) string {
	t.Helper()
	if len(r.Content) != 1 || r.Content[0].Type != "text" {
		t.Fatalf("content = %+v, want one text item", r.Content)
	}
	return r.Content[0].Text
}

func TestMethods(t *testing.T) {
	b := newBridge(t, loadDoc(t), &fakeAPI{})

	t.Run("initialize", func(t *testing.T) {
		for params, want := range map[string]string{
			``:               "2024-11-05",
			`,"params":{}`:   "2024-11-05",
			`,"params":null`: "2024-11-05",
			`,"params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`: "2024-11-05",
			`,"params":{"protocolVersion":"2025-03-26"}`:                                                           "2025-03-26",
			`,"params":{"protocolVersion":"2025-06-18"}`:                                                           "2025-06-18",
			`,"params":{"protocolVersion":"2025-11-25"}`:                                                           "2025-11-25",
			`,"params":{"protocolVersion":"1999-01-01"}`:                                                           "2025-11-25",
			`,"params":{"protocolVersion":"2099-01-01"}`:                                                           "2025-11-25",
			`,"params":{"protocolVersion":""}`:                                                                     "2024-11-05",
		} {
			var res struct {
				ProtocolVersion string                     `json:"protocolVersion"`
				Capabilities    map[string]json.RawMessage `json:"capabilities"`
				ServerInfo      struct{ Name, Version string }
			}
			call(t, b, `{"jsonrpc":"2.0","id":"init","method":"initialize"`+params+`}`, &res)
			if res.ProtocolVersion != want {
				t.Errorf("params %s: protocolVersion %q, want %q", params, res.ProtocolVersion, want)
			}
			if c := string(res.Capabilities["tools"]); !strings.HasPrefix(c, "{") {
				t.Errorf("capabilities.tools = %s, want an object", c)
			}
			if res.ServerInfo.Name != "switchboard" || res.ServerInfo.Version != "test" {
				t.Errorf("serverInfo = %+v", res.ServerInfo)
			}
		}
	})
	t.Run("ping", func(t *testing.T) {
		r := single(t, b, `{"jsonrpc":"2.0","id":7,"method":"ping"}`)
		if r.Error != nil || string(r.Result) != "{}" || string(r.ID) != "7" {
			t.Errorf("ping = %+v %s", r.Error, r.Result)
		}
	})
	t.Run("ids are echoed", func(t *testing.T) {
		for _, id := range []string{`0`, `-3`, `"abc"`, `""`, `null`, `12.5`} {
			if r := single(t, b, `{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`); string(r.ID) != id {
				t.Errorf("id %s echoed as %s", id, r.ID)
			}
		}
	})
}

func TestErrors(t *testing.T) {
	b := newBridge(t, loadDoc(t), &fakeAPI{})
	for _, c := range []struct {
		body string
		code int
		id   string
		msg  string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list"`, tools.CodeParseError, "null", "parse error"},
		{`not json`, tools.CodeParseError, "null", "parse error"},
		{``, tools.CodeParseError, "null", "parse error"},
		{`1`, tools.CodeInvalidRequest, "null", "JSON object"},
		{`"ping"`, tools.CodeInvalidRequest, "null", "JSON object"},
		{`null`, tools.CodeInvalidRequest, "null", "JSON object"},
		{`[]`, tools.CodeInvalidRequest, "null", "empty batch"},
		{`{"id":1,"method":"ping"}`, tools.CodeInvalidRequest, "1", "jsonrpc"},
		{`{"jsonrpc":"1.0","id":1,"method":"ping"}`, tools.CodeInvalidRequest, "1", "jsonrpc"},
		{`{"jsonrpc":"2.0","id":1}`, tools.CodeInvalidRequest, "1", "method is missing"},
		{`{"jsonrpc":"2.0","id":1,"method":5}`, tools.CodeInvalidRequest, "1", "method must be a string"},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, tools.CodeInvalidRequest, "null", "id must be"},
		{`{"jsonrpc":"2.0","id":true,"method":"ping"}`, tools.CodeInvalidRequest, "null", "id must be"},
		{`{"jsonrpc":"2.0","id":1,"method":"ping","params":"x"}`, tools.CodeInvalidRequest, "1", "params must be"},
		{`{"jsonrpc":"2.0","method":"ping","params":3}`, tools.CodeInvalidRequest, "null", "params must be"},
		{`{"jsonrpc":"2.0","id":2,"method":"resources/list"}`, tools.CodeMethodNotFound, "2", "resources/list"},
		{`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":[1]}`, tools.CodeInvalidParams, "2", "params must be an object"},
		{`{"jsonrpc":"2.0","id":2,"method":"initialize","params":[]}`, tools.CodeInvalidParams, "2", "params must be an object"},
		{`{"jsonrpc":"2.0","id":3,"method":"tools/call"}`, tools.CodeInvalidParams, "3", "name is required"},
		{`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{}}`, tools.CodeInvalidParams, "3", "name is required"},
		{`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":""}}`, tools.CodeInvalidParams, "3", "name is required"},
		{`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":7}}`, tools.CodeInvalidParams, "3", "name must be of type string"},
		{`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"service_nope"}}`, tools.CodeInvalidParams, "3", `unknown tool "service_nope"`},
		{`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"service_health","arguments":[]}}`, tools.CodeInvalidParams, "3", "arguments must be an object"},
		{`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"service_health","arguments":"x"}}`, tools.CodeInvalidParams, "3", "arguments must be an object"},
	} {
		r := single(t, b, c.body)
		if r.Error == nil || r.Error.Code != c.code || string(r.ID) != c.id || !strings.Contains(r.Error.Message, c.msg) || r.Result != nil {
			t.Errorf("%s:\n got id %s error %+v result %s\nwant id %s code %d with %q", c.body, r.ID, r.Error, r.Result, c.id, c.code, c.msg)
		}
	}
}

func TestBatchesAndNotifications(t *testing.T) {
	f := &fakeAPI{}
	b := newBridge(t, loadDoc(t), f)

	for _, body := range []string{
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`{"jsonrpc":"2.0","method":"no/such/method"}`,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"service_health"}}`,
		`[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","method":"ping"}]`,
		`{"jsonrpc":"2.0","id":5,"result":{}}`,
		`[{"jsonrpc":"2.0","id":5,"error":{"code":-1,"message":"no"}},{"jsonrpc":"2.0","method":"notifications/initialized"}]`,
	} {
		if out := b.Handle(context.Background(), []byte(body)); out != nil {
			t.Errorf("%s: answered %s, want nothing", body, out)
		}
	}
	if len(f.seen) != 0 {
		t.Errorf("a notification ran a tool: %v", f.seen[0].URL)
	}

	body := `[
		{"jsonrpc":"2.0","id":1,"method":"ping"},
		{"jsonrpc":"2.0","method":"notifications/initialized"},
		{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"service_latency","arguments":{"provider":"openai"}}},
		{"jsonrpc":"2.0","id":3,"method":"nope"},
		1,
		{"jsonrpc":"2.0","id":4,"method":"tools/list"}
	]`
	out := b.Handle(context.Background(), []byte(body))
	var rs []rpc
	if err := json.Unmarshal(out, &rs); err != nil {
		t.Fatalf("batch answer %s: %v", out, err)
	}
	var ids []string
	for _, r := range rs {
		ids = append(ids, string(r.ID))
	}
	if want := []string{`1`, `"b"`, `3`, `null`, `4`}; !slices.Equal(ids, want) {
		t.Fatalf("batch answer ids %v, want %v", ids, want)
	}
	var tr toolResult
	json.Unmarshal(rs[1].Result, &tr)
	if got := tr.text(t); !strings.Contains(got, `"query":"provider=openai"`) {
		t.Errorf("batched tool call text %s", got)
	}
	if rs[2].Error.Code != tools.CodeMethodNotFound || rs[3].Error.Code != tools.CodeInvalidRequest || rs[4].Error != nil {
		t.Errorf("batch errors: %+v %+v %+v", rs[2].Error, rs[3].Error, rs[4].Error)
	}

	// A batch over the limit is refused whole.
	small, err := tools.New(loadDoc(t), f, tools.Options{MaxBatch: 2})
	if err != nil {
		t.Fatal(err)
	}
	r := single(t, small, `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"ping"}]`)
	if r.Error == nil || r.Error.Code != tools.CodeInvalidRequest || !strings.Contains(r.Error.Message, "at most 2") {
		t.Errorf("oversized batch: %+v", r.Error)
	}
}

func TestToolCalls(t *testing.T) {
	doc := loadDoc(t)
	f := &fakeAPI{status: map[string]int{"/api/v1/pricing": http.StatusNotImplemented}}
	b := newBridge(t, doc, f)
	toolCall := func(t *testing.T, name, args string) toolResult {
		t.Helper()
		var tr toolResult
		p := `{"name":"` + name + `"`
		if args != "" {
			p += `,"arguments":` + args
		}
		call(t, b, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":`+p+`}}`, &tr)
		return tr
	}

	for _, c := range []struct {
		name, args string
		path       string
		query      url.Values
	}{
		{"service_health", "", "/api/v1/health", url.Values{}},
		{"service_health", "{}", "/api/v1/health", url.Values{}},
		{"service_latency", `{"provider":"openai","window":"24h"}`, "/api/v1/latency", url.Values{"provider": {"openai"}, "window": {"24h"}}},
		{"service_latency", `{"provider":"openai","window":null}`, "/api/v1/latency", url.Values{"provider": {"openai"}}},
		{"service_changelog", `{"days":30}`, "/api/v1/changelog", url.Values{"days": {"30"}}},
		{"service_changelog", `{"days":3e1}`, "/api/v1/changelog", url.Values{"days": {"30"}}},
		{"service_changelog", `{"days":2.5}`, "/api/v1/changelog", url.Values{"days": {"2.5"}}},
		{"service_changelog", `{"days":"7"}`, "/api/v1/changelog", url.Values{"days": {"7"}}},
		{"service_pick", `{"task":"llm","needs":["vision","json_mode"],"free_only":true,"budget":0.25}`, "/api/v1/pick",
			url.Values{"task": {"llm"}, "needs": {"vision,json_mode"}, "free_only": {"true"}, "budget": {"0.25"}}},
		{"service_pick", `{"task":"llm","avoid":"openai"}`, "/api/v1/pick", url.Values{"task": {"llm"}, "avoid": {"openai"}}},
		{"service_compare", `{"providers":["openai","anthropic"],"metrics":["price"]}`, "/api/v1/compare",
			url.Values{"providers": {"openai,anthropic"}, "metrics": {"price"}}},
		{"service_resolve_alias", `{"alias":"a&b=c d"}`, "/api/v1/resolve-alias", url.Values{"alias": {"a&b=c d"}, "limit": {"20"}}},
	} {
		tr := toolCall(t, c.name, c.args)
		if tr.IsError {
			t.Errorf("%s %s: isError", c.name, c.args)
		}
		r := f.last(t)
		if r.Method != http.MethodGet || r.URL.Path != c.path || r.URL.Query().Encode() != c.query.Encode() {
			t.Errorf("%s %s: sent %s %s?%s, want %s?%s", c.name, c.args, r.Method, r.URL.Path, r.URL.RawQuery, c.path, c.query.Encode())
		}
		if !tools.IsToolCall(r.Context()) {
			t.Errorf("%s: the endpoint's request is not marked as a tool call", c.name)
		}
		if _, ok := r.Context().Deadline(); !ok {
			t.Errorf("%s: the endpoint's request has no deadline", c.name)
		}
	}

	// The text is the endpoint's body as it is; an error status makes it an error result.
	f.body = `{"error":"not implemented"}`
	tr := toolCall(t, "service_pricing", `{}`)
	if !tr.IsError || tr.text(t) != `{"error":"not implemented"}` {
		t.Errorf("501: %+v", tr)
	}
	f.body = "{\"a\":\"<b> & é\"}\n"
	if tr := toolCall(t, "service_health", ""); tr.IsError || tr.text(t) != f.body {
		t.Errorf("text %q, want %q", tr.text(t), f.body)
	}
	f.body = ""

	// Arguments that cannot be a request are error results in the service's error shape; nothing is sent.
	n := len(f.seen)
	for args, want := range map[string]string{
		`{"provider":"openai","windo":"1h"}`: `{"error":"argument windo: unknown; the tool takes provider, window"}`,
		`{"provider":{"id":"openai"}}`:       `{"error":"argument provider: must not be an object"}`,
		`{"provider":["openai"]}`:            `{"error":"argument provider: must be a single value, not an array"}`,
	} {
		tr := toolCall(t, "service_latency", args)
		if !tr.IsError || tr.text(t) != want {
			t.Errorf("%s: %+v, want error %s", args, tr, want)
		}
	}
	if tr := toolCall(t, "service_pick", `{"task":"llm","needs":[["vision"]]}`); !tr.IsError || !strings.Contains(tr.text(t), "argument needs: item 1: must not be a nested array") {
		t.Errorf("nested list: %+v", tr)
	}
	if len(f.seen) != n {
		t.Errorf("rejected arguments reached the endpoint")
	}
}

// TestRecursionGuard runs the bridge behind a handler that sends every request back into the bridge, as a
// tool wrapping the MCP endpoint would.
func TestRecursionGuard(t *testing.T) {
	var b *tools.Bridge
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		out := b.Handle(r.Context(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"service_health"}}`))
		w.Write(out)
	})
	b = newBridge(t, loadDoc(t), h)
	var tr toolResult
	call(t, b, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"service_health"}}`, &tr)
	var innerAnswer struct {
		Result toolResult `json:"result"`
	}
	if err := json.Unmarshal([]byte(tr.text(t)), &innerAnswer); err != nil {
		t.Fatalf("inner answer %s: %v", tr.text(t), err)
	}
	if !innerAnswer.Result.IsError || !strings.Contains(innerAnswer.Result.text(t), "tools cannot call the MCP endpoint") {
		t.Errorf("inner call = %+v", innerAnswer.Result)
	}
}

func TestAnswerBudget(t *testing.T) {
	f := &fakeAPI{body: `{"x":"` + strings.Repeat("x", 592) + `"}`}
	b, err := tools.New(loadDoc(t), f, tools.Options{MaxAnswerBytes: 1000})
	if err != nil {
		t.Fatal(err)
	}
	one := `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"service_health"}}`
	out := b.Handle(context.Background(), []byte("["+strings.ReplaceAll(one, "%d", "1")+","+strings.ReplaceAll(one, "%d", "2")+"]"))
	var rs []struct {
		Result toolResult `json:"result"`
	}
	if err := json.Unmarshal(out, &rs); err != nil || len(rs) != 2 {
		t.Fatalf("answer %s: %v", out, err)
	}
	if rs[0].Result.IsError || len(rs[0].Result.text(t)) != 600 {
		t.Errorf("first call within the budget: %+v", rs[0].Result)
	}
	if !rs[1].Result.IsError || !strings.Contains(rs[1].Result.text(t), "larger than the 1000 bytes") {
		t.Errorf("second call over the budget: %+v", rs[1].Result)
	}
}

// TestNewRefuses checks that operations a tool cannot faithfully wrap stop the start.
func TestNewRefuses(t *testing.T) {
	build := func(mutate func(op *openapi3.Operation, doc *openapi3.T)) error {
		doc := loadDoc(t)
		op := doc.Paths.Find("/latency").Get
		mutate(op, doc)
		_, err := tools.New(doc, &fakeAPI{}, tools.Options{})
		return err
	}
	for want, mutate := range map[string]func(*openapi3.Operation, *openapi3.T){
		"request body": func(op *openapi3.Operation, _ *openapi3.T) {
			op.RequestBody = &openapi3.RequestBodyRef{Value: openapi3.NewRequestBody()}
		},
		"header parameters are not supported": func(op *openapi3.Operation, _ *openapi3.T) {
			// A required header: an optional one is left to hooks, a required one could never be sent.
			p := openapi3.NewHeaderParameter("X-Key").WithSchema(openapi3.NewStringSchema()).WithRequired(true)
			op.Parameters = append(op.Parameters, &openapi3.ParameterRef{Value: p})
		},
		"must be a name": func(op *openapi3.Operation, _ *openapi3.T) { op.Extensions[tools.Extension] = "bad name!" },
		"names both": func(op *openapi3.Operation, _ *openapi3.T) {
			op.Extensions[tools.Extension] = "service_health"
		},
	} {
		if err := build(mutate); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("want an error with %q, got %v", want, err)
		}
	}
	if _, err := tools.New(nil, &fakeAPI{}, tools.Options{}); err == nil {
		t.Error("a nil document was accepted")
	}
	for _, size := range []any{0.0, 2.5, 21.0, "5"} {
		doc := loadDoc(t)
		doc.Paths.Find("/pricing").Get.Extensions[tools.PageSizeExtension] = size
		if _, err := tools.New(doc, &fakeAPI{}, tools.Options{}); err == nil || !strings.Contains(err.Error(), tools.PageSizeExtension) {
			t.Errorf("%s %v: want an error naming it, got %v", tools.PageSizeExtension, size, err)
		}
	}
}

// TestResultBound checks that an answer over tools.MaxResultBytes from a tool that does not page becomes an
// error result that names the arguments to narrow it with, not a flood of text.
func TestResultBound(t *testing.T) {
	f := &fakeAPI{body: `{"x":"` + strings.Repeat("x", tools.MaxResultBytes) + `"}`}
	b, err := tools.New(loadDoc(t), f, tools.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := single(t, b, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"service_latency","arguments":{}}}`)
	var res toolResult
	if err := json.Unmarshal(r.Result, &res); err != nil {
		t.Fatal(err)
	}
	if text := res.text(t); !res.IsError || !strings.Contains(text, "narrow it with the tool's arguments") || len(text) > 1000 {
		t.Errorf("an answer over the bound: %+v", res)
	}
}

// TestSupportedVersionsMatchDocument keeps the MCP-Protocol-Version values the document accepts in step with the
// versions the bridge negotiates.
func TestSupportedVersionsMatchDocument(t *testing.T) {
	doc := loadDoc(t)
	var op *openapi3.Operation
	for _, item := range doc.Paths.Map() {
		for _, o := range item.Operations() {
			if o.OperationID == "postMcp" {
				op = o
			}
		}
	}
	if op == nil {
		t.Fatal("the document has no postMcp")
	}
	p := op.Parameters.GetByInAndName(openapi3.ParameterInHeader, "MCP-Protocol-Version")
	if p == nil {
		t.Fatal("postMcp has no MCP-Protocol-Version header parameter")
	}
	var enum []string
	for _, v := range p.Schema.Value.Enum {
		enum = append(enum, v.(string))
	}
	if !slices.Equal(enum, tools.SupportedVersions) {
		t.Errorf("document accepts %v, the bridge negotiates %v", enum, tools.SupportedVersions)
	}
	if !slices.Contains(tools.SupportedVersions, tools.ProtocolVersion) {
		t.Errorf("default version %s is not supported", tools.ProtocolVersion)
	}
}

// TestCallEndsWithRequest: the endpoint's request ends when the MCP request does, though it carries none of
// its values.
func TestCallEndsWithRequest(t *testing.T) {
	type key struct{}
	started := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Context().Value(key{}) != nil {
			t.Error("a value of the MCP request reached the endpoint's request")
		}
		close(started)
		<-r.Context().Done()
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte(`{"error":"request cancelled"}`))
	})
	b := newBridge(t, loadDoc(t), h)
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), key{}, 1))
	go func() { <-started; cancel() }()
	done := make(chan []byte)
	go func() {
		done <- b.Handle(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"service_health"}}`))
	}()
	select {
	case out := <-done:
		if !strings.Contains(string(out), `"isError":true`) {
			t.Errorf("answer %s", out)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the tool call outlived its request")
	}
}

// BenchmarkNew measures generating the 36 tools from the loaded document, done once at start.
func BenchmarkNew(b *testing.B) {
	doc, err := openapi.Load(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := tools.New(doc, &fakeAPI{}, tools.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkToolCall measures the bridge's own cost for one tools/call (the endpoint is a stub).
func BenchmarkToolCall(b *testing.B) {
	doc, err := openapi.Load(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	br, err := tools.New(doc, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"ok":true}`))
	}), tools.Options{})
	if err != nil {
		b.Fatal(err)
	}
	req := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"service_pick","arguments":{"task":"llm","needs":["vision"],"budget":2.5}}}`)
	for b.Loop() {
		if out := br.Handle(context.Background(), req); out == nil {
			b.Fatal("no answer")
		}
	}
}
