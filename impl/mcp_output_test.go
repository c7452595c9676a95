package impl_test

import (
	"bytes"
	"encoding/json"
	"maps"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/switchboard/switchboard/apitest"
	"github.com/switchboard/switchboard/dbtest"
	"github.com/switchboard/switchboard/impl"
	"github.com/switchboard/switchboard/tools"
)

// toolArgs are arguments each tool answers 200 with on the test history: the required ones, and for tools
// whose answer changes shape with an argument (one record or the list), both.
var toolArgs = map[string][]map[string]any{
	"service_latency":         {{"provider": "openai"}, {"provider": "anthropic", "window": "24h"}},
	"service_freshness":       {{}, {"provider": "openai"}},
	"service_pick":            {{"task": "llm"}},
	"service_failover":        {{"primary": "openai"}},
	"service_failover_export": {{"primary": "openai", "format": "litellm"}, {"primary": "anthropic", "format": "portkey", "task": "code"}, {"primary": "openai", "format": "openrouter"}},
	"service_compare":         {{"providers": []string{"openai", "anthropic"}}},
	"service_cheapest":        {{"task": "llm"}},
	"service_cost_estimate":   {{"provider": "openai", "input_tokens": 1000, "output_tokens": 500}},
	"service_quota_check":     {{"provider": "openai"}},
	"service_task_cost":       {{"task_type": "chat"}},
	"service_resolve_alias":   {{}},
	"service_incidents":       {{}, {"hours": 168}},
	"service_changelog":       {{"days": 30}},
	"service_migration_guide": {{"from": "openai"}, {"to": "anthropic"}},
}

// TestMCPToolsFollowTheirOutputSchema calls every tool the server lists and checks, with a JSON Schema 2020-12
// validator (santhosh-tekuri/jsonschema, not the code that built the schemas), that each structuredContent
// follows the tool's outputSchema, and that it is the same object as the endpoint's HTTP answer.
func TestMCPToolsFollowTheirOutputSchema(t *testing.T) {
	s := mcpServer(t, dbtest.Engines(t)[0])
	list := listTools(t, s)
	if len(list.Tools) != 36 {
		t.Fatalf("%d tools", len(list.Tools))
	}
	paths := toolPaths(s)
	for _, tl := range list.Tools {
		if tl.Name == impl.PremiumTool {
			continue // paid: TestMCPPremiumTool pays for it and checks its results against this schema
		}
		schema, err := jsonschema.UnmarshalJSON(bytes.NewReader(tl.OutputSchema))
		if err != nil {
			t.Fatalf("%s: output schema: %v", tl.Name, err)
		}
		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft2020)
		c.AssertFormat()
		if err := c.AddResource("mem://"+tl.Name, schema); err != nil {
			t.Fatal(err)
		}
		sch, err := c.Compile("mem://" + tl.Name)
		if err != nil {
			t.Fatalf("%s: compiling the output schema: %v", tl.Name, err)
		}
		argSets := toolArgs[tl.Name]
		if argSets == nil {
			argSets = []map[string]any{{}}
		}
		for _, args := range argSets {
			b, _ := json.Marshal(args)
			got := callTool(t, s, tl.Name, string(b))
			if got.IsError {
				t.Errorf("%s %s: error result %.300s", tl.Name, b, got.Content[0].Text)
				continue
			}
			structured, err := jsonschema.UnmarshalJSON(bytes.NewReader(got.StructuredContent))
			if err != nil || got.StructuredContent == nil {
				t.Errorf("%s %s: structuredContent %.200s: %v", tl.Name, b, got.StructuredContent, err)
				continue
			}
			if err := sch.Validate(structured); err != nil {
				t.Errorf("%s %s: structuredContent does not follow the output schema: %v", tl.Name, b, err)
			}
			// The same object as GET on the endpoint with the same arguments (a list tool's first page when no
			// limit is given).
			var w, g any
			json.Unmarshal(got.StructuredContent, &g)
			httpArgs := args
			if size := pagedTools[tl.Name]; size > 0 {
				// A page the tool cut to fit the result bound is the HTTP page of the size it kept.
				if n := pageCount(g); n > 0 && n < size {
					size = n
				}
				if args["limit"] == nil || size < toInt(args["limit"]) {
					httpArgs = maps.Clone(args)
					httpArgs["limit"] = size
				}
			}
			want := s.Get(paths[tl.Name] + query(httpArgs))
			json.Unmarshal(want.Body, &w)
			if want.Status != 200 || !reflect.DeepEqual(w, g) {
				t.Errorf("%s %s: structuredContent differs from GET %s (%d)", tl.Name, b, paths[tl.Name]+query(args), want.Status)
			}
		}
	}
}

// pageCount is the number of records of a list answer: the length of its longest top-level array.
func pageCount(answer any) int {
	m, _ := answer.(map[string]any)
	n := 0
	for _, v := range m {
		if list, ok := v.([]any); ok {
			n = max(n, len(list))
		}
	}
	return n
}

func toInt(v any) int {
	switch n := v.(type) {
	case int:
		return n
	case float64:
		return int(n)
	}
	return 0
}

// pagedTools are the tools whose endpoint pages (it takes a cursor), with the limit they send by default.
var pagedTools = map[string]int{}

// toolPaths maps each tool to its endpoint's path, and notes which page.
func toolPaths(s *apitest.Server) map[string]string {
	out := map[string]string{}
	for _, op := range apitest.Operations(s.Doc) {
		if name, ok := op.Op.Extensions["x-mcp-tool"].(string); ok {
			out[name] = "/api/v1" + op.Path
			if op.Op.Parameters.GetByInAndName("query", "cursor") != nil {
				pagedTools[name] = tools.ToolPageSize
				if size, ok := op.Op.Extensions[tools.PageSizeExtension].(float64); ok {
					pagedTools[name] = int(size)
				}
			}
		}
	}
	return out
}

func query(args map[string]any) string {
	q := url.Values{}
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		switch v := args[k].(type) {
		case []string:
			q.Set(k, strings.Join(v, ","))
		default:
			b, _ := json.Marshal(v)
			q.Set(k, strings.Trim(string(b), `"`))
		}
	}
	if len(q) == 0 {
		return ""
	}
	return "?" + q.Encode()
}

// toolList is the part of tools/list the output tests read.
type toolList struct {
	Tools []struct {
		Name         string          `json:"name"`
		OutputSchema json.RawMessage `json:"outputSchema"`
	} `json:"tools"`
}

// listTools asks the server for its tools.
func listTools(t *testing.T, s *apitest.Server) toolList {
	t.Helper()
	a := rpcCall(t, s, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	var list toolList
	if err := json.Unmarshal(a.Result, &list); err != nil {
		t.Fatal(err)
	}
	return list
}

// maxToolResult is the bound issue 25 sets, in characters (tools.MaxResultBytes bounds bytes, which is stricter).
const maxToolResult = 40000

// TestMCPToolResultsAreBounded calls every tool with only its required arguments and with a few realistic
// filters: no result is longer than maxToolResult characters.
func TestMCPToolResultsAreBounded(t *testing.T) {
	s := mcpServer(t, dbtest.Engines(t)[0])
	list := listTools(t, s)
	extra := map[string][]map[string]any{
		"service_pricing":         {{"provider": "openai"}, {"task": "llm", "limit": 50}, {"limit": 1000}},
		"service_models":          {{"provider": "openai"}, {"vision": true}, {"limit": 1000}},
		"service_deprecations":    {{"provider": "azure-openai"}, {"limit": 1000}},
		"service_json_mode":       {{"provider": "openai"}, {"limit": 1000}},
		"service_resolve_alias":   {{"provider": "openai"}, {"alias": "gpt-4o"}},
		"service_migration_guide": {{"from": "openai", "limit": 10}, {"to": "openai", "max_difficulty": "moderate"}},
	}
	for _, tl := range list.Tools {
		if tl.Name == impl.PremiumTool {
			continue
		}
		argSets := append(slices.Clone(toolArgs[tl.Name]), extra[tl.Name]...)
		if len(argSets) == 0 {
			argSets = []map[string]any{{}}
		}
		for _, args := range argSets {
			b, _ := json.Marshal(args)
			got := callTool(t, s, tl.Name, string(b))
			n := len([]rune(got.Content[0].Text))
			if n > maxToolResult {
				t.Errorf("%s %s: %d characters, at most %d", tl.Name, b, n, maxToolResult)
			}
		}
	}
}

// TestMCPPageCutToFit asks for pages far over the bound: each comes back cut to fit, says so in _meta, and the
// walk by next_cursor still gives the whole list, in order, as one HTTP answer does.
func TestMCPPageCutToFit(t *testing.T) {
	s := mcpServer(t, dbtest.Engines(t)[0])
	var whole struct {
		Models []struct {
			ModelID string `json:"model_id"`
		} `json:"models"`
	}
	if r := s.Get("/api/v1/models?provider=openrouter"); r.Status != 200 || json.Unmarshal(r.Body, &whole) != nil {
		t.Fatalf("GET /models: %d", r.Status)
	}
	var walked []string
	cursor, cut := "", 0
	for range 100 {
		args := `{"provider":"openrouter","limit":1000` + cond(cursor != "", `,"cursor":"`+cursor+`"`, "") + `}`
		got := callTool(t, s, "service_models", args)
		if got.IsError || len(got.Content[0].Text) > tools.MaxResultBytes {
			t.Fatalf("%s: error %v, %d bytes: %.200s", args, got.IsError, len(got.Content[0].Text), got.Content[0].Text)
		}
		if got.Meta[tools.ShrunkMetaKey] != nil {
			cut++
		}
		var page struct {
			Models []struct {
				ModelID string `json:"model_id"`
			} `json:"models"`
			Meta struct {
				NextCursor *string `json:"next_cursor"`
			} `json:"meta"`
		}
		if err := json.Unmarshal(got.StructuredContent, &page); err != nil {
			t.Fatal(err)
		}
		for _, m := range page.Models {
			walked = append(walked, m.ModelID)
		}
		if page.Meta.NextCursor == nil {
			break
		}
		cursor = *page.Meta.NextCursor
	}
	if cut == 0 {
		t.Fatalf("no page was cut: the whole list of %d models fits the bound, pick a larger list", len(whole.Models))
	}
	want := make([]string, len(whole.Models))
	for i, m := range whole.Models {
		want[i] = m.ModelID
	}
	if !slices.Equal(walked, want) {
		t.Errorf("the walk gave %d models, the HTTP list %d (or another order)", len(walked), len(want))
	}
}

func cond(ok bool, yes, no string) string {
	if ok {
		return yes
	}
	return no
}
