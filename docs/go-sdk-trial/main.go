// The go-sdk trial (docs/mcp.md, "Why not the official Go SDK"), a module of its own so the service does not
// depend on the SDK. Run: go run . (from this folder).
//
// An experiment: can the official Go SDK (github.com/modelcontextprotocol/go-sdk v1.8.0) serve Switchboard's
// generated tools? It registers each tool with the raw JSON Schemas the bridge generated, then probes the
// SDK's streamable HTTP handler with the requests the contract and MCP clients send.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard/switchboard/openapi"
	"github.com/switchboard/switchboard/tools"
)

func main() {
	ctx := context.Background()
	doc, err := openapi.Load(ctx)
	if err != nil {
		panic(err)
	}
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"path":%q}`, r.URL.Path)
	})
	b, err := tools.New(doc, api, tools.Options{})
	if err != nil {
		panic(err)
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "switchboard", Version: "try"}, nil)
	for _, t := range b.Tools() {
		srv.AddTool(&mcp.Tool{Name: t.Name, Title: t.Title, Description: t.Description,
			InputSchema: t.InputSchema, OutputSchema: t.OutputSchema},
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: `{"a":1}`}}, StructuredContent: json.RawMessage(`{"a":1}`)}, nil
			})
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	ts := httptest.NewServer(h)
	defer ts.Close()

	post := func(label, body string, hdr map[string]string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range hdr {
			if k == "Host" {
				req.Host = v
				continue
			}
			req.Header.Set(k, v)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			fmt.Printf("%-44s transport error %v\n", label, err)
			return 0, ""
		}
		defer res.Body.Close()
		out, _ := io.ReadAll(res.Body)
		fmt.Printf("%-44s %d %-24s %.160s\n", label, res.StatusCode, res.Header.Get("Content-Type"), strings.TrimSpace(string(out)))
		return res.StatusCode, string(out)
	}

	// 1. Schemas: tools/list through the SDK against the bridge's own.
	_, list := post("tools/list", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, nil)
	var got struct {
		Result struct {
			Tools []struct {
				Name         string          `json:"name"`
				InputSchema  json.RawMessage `json:"inputSchema"`
				OutputSchema json.RawMessage `json:"outputSchema"`
			} `json:"tools"`
		} `json:"result"`
	}
	json.Unmarshal([]byte(list), &got)
	same := 0
	for _, t := range got.Result.Tools {
		for _, mine := range b.Tools() {
			if mine.Name == t.Name && jsonEqual(mine.InputSchema, t.InputSchema) && jsonEqual(mine.OutputSchema, t.OutputSchema) {
				same++
			}
		}
	}
	fmt.Printf("schemas carried unchanged: %d of %d tools (%d listed)\n", same, len(b.Tools()), len(got.Result.Tools))

	// 2. The contract and the clients' requests.
	post("initialize, no params (contract: 2024-11-05)", `{"jsonrpc":"2.0","id":1,"method":"initialize"}`, nil)
	post("initialize, params {}", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, nil)
	post("initialize 2025-11-25", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`, nil)
	post("initialize 2024-11-05", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`, nil)
	post("no jsonrpc member (contract: 200, -32600)", `{"id":1,"method":"ping"}`, nil)
	post("unknown method", `{"jsonrpc":"2.0","id":1,"method":"nope"}`, nil)
	post("Accept: application/json only", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, map[string]string{"Accept": "application/json"})
	post("no Accept", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, map[string]string{"Accept": ""})
	post("batch of two pings", `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`, nil)
	post("not JSON", `hello`, nil)
	post("MCP-Protocol-Version 2099-01-01", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, map[string]string{"MCP-Protocol-Version": "2099-01-01"})
	post("Host evil.example.com", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, map[string]string{"Host": "evil.example.com"})
	post("tools/call", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"service_health","arguments":{}}}`, nil)
	post("tools/call, unknown argument", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"service_latency","arguments":{"provider":"openai","windo":"1h"}}}`, nil)
	res, _ := http.Get(ts.URL)
	body, _ := io.ReadAll(res.Body)
	fmt.Printf("%-44s %d Allow=%q %.120s\n", "GET", res.StatusCode, res.Header.Get("Allow"), bytes.TrimSpace(body))
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
