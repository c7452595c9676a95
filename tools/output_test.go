package tools_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/switchboard/switchboard/openapi"
	"github.com/switchboard/switchboard/tools"
)

// listed is tools/list as a client reads it.
type listed struct {
	Name         string          `json:"name"`
	Title        string          `json:"title"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema map[string]any  `json:"outputSchema"`
	Annotations  map[string]any  `json:"annotations"`
}

func listTools(t *testing.T, b *tools.Bridge) map[string]listed {
	t.Helper()
	var res struct {
		Tools []listed `json:"tools"`
	}
	call(t, b, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`, &res)
	out := map[string]listed{}
	for _, tl := range res.Tools {
		out[tl.Name] = tl
	}
	return out
}

// rawDocument is the document as JSON data, read from its text (not through kin-openapi).
func rawDocument(t *testing.T) map[string]any {
	t.Helper()
	b, err := openapi.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// rewritten is a raw schema with its component references pointed at $defs, as an output schema carries it.
func rewritten(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.ReplaceAll(b, []byte(`"#/components/schemas/`), []byte(`"#/$defs/`))
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestToolMetadata: every tool has a title, the hints of a GET, and an output schema whose root is an object.
func TestToolMetadata(t *testing.T) {
	doc := loadDoc(t)
	list := listTools(t, newBridge(t, doc, &fakeAPI{}))
	if len(list) != 36 {
		t.Fatalf("%d tools", len(list))
	}
	for _, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			name, ok := op.Extensions[tools.Extension].(string)
			if !ok {
				continue
			}
			tl := list[name]
			if tl.Title == "" || tl.Title != op.Summary {
				t.Errorf("%s: title %q, want the summary %q", name, tl.Title, op.Summary)
			}
			want := map[string]any{"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false}
			if method != http.MethodGet || !reflect.DeepEqual(tl.Annotations, want) {
				t.Errorf("%s (%s): annotations %v, want %v", name, method, tl.Annotations, want)
			}
			if tl.OutputSchema["type"] != "object" {
				t.Errorf("%s: output schema root type %v", name, tl.OutputSchema["type"])
			}
		}
	}
}

// TestOutputSchemasCopyTheDocument compares each tool's output schema with the document's text: the root is
// the 200 schema's component, every $defs entry the component of that name, each exactly as written (with
// references pointed at $defs), and $defs holds exactly the components the root reaches. A keyword kin-openapi
// dropped or changed on its way would fail here.
func TestOutputSchemasCopyTheDocument(t *testing.T) {
	raw := rawDocument(t)
	components := raw["components"].(map[string]any)["schemas"].(map[string]any)
	list := listTools(t, newBridge(t, loadDoc(t), &fakeAPI{}))
	checked := 0
	for _, item := range raw["paths"].(map[string]any) {
		for _, v := range item.(map[string]any) {
			op, ok := v.(map[string]any)
			if !ok || op[tools.Extension] == nil {
				continue
			}
			name := op[tools.Extension].(string)
			schema := op["responses"].(map[string]any)["200"].(map[string]any)["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any)
			ref, _ := schema["$ref"].(string)
			rootName, ok := strings.CutPrefix(ref, "#/components/schemas/")
			if !ok {
				t.Fatalf("%s: the 200 schema is not a component reference (%v); extend this test", name, schema)
			}
			got := map[string]any{}
			for k, v := range list[name].OutputSchema {
				got[k] = v
			}
			defs, _ := got["$defs"].(map[string]any)
			delete(got, "$defs")
			want := rewritten(t, components[rootName]).(map[string]any)
			if _, typed := want["type"]; !typed && want["oneOf"] != nil {
				// The one addition: a choice of objects is declared an object at the root.
				want["type"] = "object"
			}
			if !reflect.DeepEqual(got, want) {
				g, _ := json.Marshal(got)
				w, _ := json.Marshal(want)
				t.Errorf("%s: output schema root\n got %.1500s\nwant %.1500s", name, g, w)
			}
			// $defs holds exactly the components reachable from the root.
			reach := map[string]bool{}
			var walk func(v any)
			walk = func(v any) {
				switch v := v.(type) {
				case map[string]any:
					if r, ok := v["$ref"].(string); ok {
						n := strings.TrimPrefix(r, "#/components/schemas/")
						if !reach[n] {
							reach[n] = true
							walk(components[n])
						}
					}
					for _, c := range v {
						walk(c)
					}
				case []any:
					for _, c := range v {
						walk(c)
					}
				}
			}
			walk(components[rootName])
			if len(defs) != len(reach) {
				t.Errorf("%s: $defs has %d components, the root reaches %d", name, len(defs), len(reach))
			}
			for n := range reach {
				if !reflect.DeepEqual(defs[n], rewritten(t, components[n])) {
					t.Errorf("%s: $defs/%s differs from the document's component", name, n)
				}
			}
			checked++
		}
	}
	if checked != 36 {
		t.Errorf("checked %d tools, want 36", checked)
	}
}

// toolCall sends tools/call with params and decodes the result afresh.
func toolCall(t *testing.T, b *tools.Bridge, params string) toolResult {
	t.Helper()
	var tr toolResult
	call(t, b, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":`+params+`}`, &tr)
	return tr
}

func TestStructuredContent(t *testing.T) {
	f := &fakeAPI{status: map[string]int{"/api/v1/pricing": http.StatusNotImplemented}}
	b := newBridge(t, loadDoc(t), f)
	tr := toolCall(t, b, `{"name":"service_latency","arguments":{"provider":"openai"}}`)
	if tr.IsError || !json.Valid(tr.StructuredContent) {
		t.Fatalf("result %+v", tr)
	}
	// The same object as the text, which is the endpoint's body.
	var text, structured any
	json.Unmarshal([]byte(tr.text(t)), &text)
	json.Unmarshal(tr.StructuredContent, &structured)
	if !reflect.DeepEqual(text, structured) || structured.(map[string]any)["path"] != "/api/v1/latency" {
		t.Errorf("structuredContent %s, text %s", tr.StructuredContent, tr.text(t))
	}

	// An error status: no structuredContent (the error body does not follow the output schema).
	f.body = `{"error":"not implemented"}`
	tr = toolCall(t, b, `{"name":"service_pricing"}`)
	if !tr.IsError || tr.StructuredContent != nil {
		t.Errorf("501: %+v", tr)
	}
	// A 200 that is not a JSON object is the endpoint's fault, said as an error result.
	for _, body := range []string{`[1,2]`, `not json`, `"text"`} {
		f.body = body
		tr := toolCall(t, b, `{"name":"service_health"}`)
		if !tr.IsError || tr.StructuredContent != nil || !strings.Contains(tr.text(t), "not a JSON object") {
			t.Errorf("body %s: %+v", body, tr)
		}
	}
}

func TestHooks(t *testing.T) {
	f := &fakeAPI{}
	var seenMeta map[string]json.RawMessage
	hooks := map[string]tools.Hook{
		"service_latency": {
			Before: func(_ context.Context, meta map[string]json.RawMessage, req *http.Request) *tools.Result {
				seenMeta = meta
				if string(meta["stop"]) == "true" {
					r := tools.ErrorResult("stopped by the hook")
					return &r
				}
				req.Header.Set("X-From-Meta", string(meta["token"]))
				return nil
			},
			After: func(_ context.Context, status int, header http.Header, body []byte, res *tools.Result) {
				res.Meta = map[string]any{"status": status, "type": header.Get("Content-Type"), "bytes": len(body)}
			},
		},
	}
	b, err := tools.New(loadDoc(t), f, tools.Options{Hooks: hooks})
	if err != nil {
		t.Fatal(err)
	}
	tr := toolCall(t, b, `{"name":"service_latency","arguments":{"provider":"openai"},"_meta":{"token":"abc"}}`)
	if got := f.last(t).Header.Get("X-From-Meta"); got != `"abc"` {
		t.Errorf("header from _meta = %q", got)
	}
	if tr.Meta["status"] != 200.0 || tr.Meta["type"] != "application/json" || tr.Meta["bytes"].(float64) < 10 {
		t.Errorf("_meta = %v", tr.Meta)
	}
	n := len(f.seen)
	tr = toolCall(t, b, `{"name":"service_latency","arguments":{"provider":"openai"},"_meta":{"stop":true}}`)
	if !tr.IsError || tr.text(t) != `{"error":"stopped by the hook"}` || len(f.seen) != n {
		t.Errorf("a hook's own answer: %+v (%d requests sent)", tr, len(f.seen)-n)
	}
	// Without _meta the hook sees nil; other tools have no hook.
	toolCall(t, b, `{"name":"service_latency","arguments":{"provider":"openai"}}`)
	if seenMeta != nil {
		t.Errorf("meta without _meta: %v", seenMeta)
	}
	tr = toolCall(t, b, `{"name":"service_health"}`)
	if tr.Meta != nil {
		t.Errorf("a tool without a hook got _meta %v", tr.Meta)
	}
	// _meta must be an object.
	if r := single(t, b, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"service_health","_meta":"x"}}`); r.Error == nil || r.Error.Code != tools.CodeInvalidParams {
		t.Errorf("_meta a string: %+v", r)
	}
	// A hook for a tool the document does not have stops the start.
	if _, err := tools.New(loadDoc(t), f, tools.Options{Hooks: map[string]tools.Hook{"service_nope": {}}}); err == nil || !strings.Contains(err.Error(), "service_nope") {
		t.Errorf("hook for an unknown tool: %v", err)
	}
}

// TestOutputSchemaRefusals: an operation whose 200 answer cannot be an MCP output schema stops the start.
func TestOutputSchemaRefusals(t *testing.T) {
	for want, mutate := range map[string]func(*openapi3.Operation){
		"no 200 response": func(op *openapi3.Operation) { op.Responses.Delete("200") },
		"must be an object": func(op *openapi3.Operation) {
			op.Responses.Status(200).Value.Content.Get("application/json").Schema = openapi3.NewArraySchema().NewRef()
		},
		"no application/json schema": func(op *openapi3.Operation) {
			op.Responses.Status(200).Value.Content = openapi3.NewContentWithSchema(openapi3.NewStringSchema(), []string{"text/plain"})
		},
	} {
		doc := loadDoc(t)
		mutate(doc.Paths.Find("/latency").Get)
		if _, err := tools.New(doc, &fakeAPI{}, tools.Options{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("want an error with %q, got %v", want, err)
		}
	}
}
