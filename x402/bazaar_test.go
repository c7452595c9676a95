package x402_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/x402"
)

// TestBazaarExtension builds the discovery extensions from schemas shaped like the generated tool's: the
// answer's $defs move to the root of the extension's schema (where its #/$defs references resolve),
// descriptions and OpenAPI-only formats are dropped, and a property that happens to be named "description" stays.
func TestBazaarExtension(t *testing.T) {
	f := newService(t, "http://127.0.0.1:9")
	before := f.svc.PaymentRequiredV2("why")
	if before.Extensions != nil {
		t.Fatalf("extensions before SetDiscovery: %v", before.Extensions)
	}
	output := `{"type":"object","description":"the answer","properties":{"description":{"type":"string","description":"a field named description"},
		"item":{"$ref":"#/$defs/Item"}},"required":["description"],"$defs":{"Item":{"type":"number","format":"double","description":"x"}}}`
	err := f.svc.SetDiscovery(x402.Discovery{Method: "GET", QuerySchema: json.RawMessage(`{"type":"object","properties":{}}`),
		OutputSchema: json.RawMessage(output), Tool: "paid_tool", ToolDescription: "Paid tool",
		ToolInputSchema: json.RawMessage(`{"type":"object","properties":{}}`), MCPURL: "http://sb.test/api/v1/mcp"})
	if err != nil {
		t.Fatal(err)
	}
	httpExt := string(f.svc.PaymentRequiredV2("why").Extensions[x402.BazaarKey])
	var ext struct {
		Info struct {
			Input map[string]any
		}
		Schema struct {
			Defs       map[string]map[string]any `json:"$defs"`
			Properties struct {
				Output struct {
					Properties struct {
						Example struct {
							Description *string
							Properties  map[string]map[string]any
						}
					}
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(httpExt), &ext); err != nil {
		t.Fatal(err)
	}
	example := ext.Schema.Properties.Output.Properties.Example
	if ext.Info.Input["type"] != "http" || ext.Info.Input["method"] != "GET" || ext.Schema.Defs["Item"]["type"] != "number" ||
		ext.Schema.Defs["Item"]["format"] != nil || ext.Schema.Defs["Item"]["description"] != nil || example.Description != nil ||
		example.Properties["description"]["type"] != "string" || example.Properties["description"]["description"] != nil ||
		example.Properties["item"]["$ref"] != "#/$defs/Item" || strings.Count(httpExt, `"$defs":`) != 1 {
		t.Errorf("HTTP extension = %s", httpExt)
	}

	mcp := f.svc.PaymentRequiredMCP("why")
	if mcp.Resource == nil || mcp.Resource.URL != "http://sb.test/api/v1/mcp" || !strings.Contains(string(mcp.Extensions[x402.BazaarKey]), `"tool":"paid_tool"`) {
		t.Errorf("MCP form = %+v %s", mcp.Resource, mcp.Extensions[x402.BazaarKey])
	}
	if err := f.svc.SetDiscovery(x402.Discovery{Method: "POST", QuerySchema: json.RawMessage(`{}`), OutputSchema: json.RawMessage(`{}`)}); err == nil {
		t.Error("a POST route was described as a query route")
	}
	if err := f.svc.SetDiscovery(x402.Discovery{Method: "GET", QuerySchema: json.RawMessage(`[]`), OutputSchema: json.RawMessage(`{}`)}); err == nil {
		t.Error("a query schema that is not an object was accepted")
	}
}

// TestDecodeV2 checks the v2 payload's own fields: accepted and its members, extensions, and the version each
// place carries.
func TestDecodeV2(t *testing.T) {
	accepted := `{"scheme":"exact","network":"eip155:84532","amount":"1000","payTo":"0x1111111111111111111111111111111111111111","asset":"0x2222222222222222222222222222222222222222","maxTimeoutSeconds":60,"extra":{"name":"USDC","version":"2"}}`
	payload := `{"signature":"0x` + strings.Repeat("ab", 65) + `","authorization":{"from":"0x3333333333333333333333333333333333333333","to":"0x1111111111111111111111111111111111111111","value":"1000","validAfter":"0","validBefore":"99999999999","nonce":"0x` + strings.Repeat("cd", 32) + `"}}`
	ok := `{"x402Version":2,"resource":{"url":"http://sb.test/x"},"accepted":` + accepted + `,"payload":` + payload + `,"extensions":{"bazaar":{}}}`
	p, err := x402.Decode(x402.MCPPayment(json.RawMessage(ok)))
	if err != nil || p.Version() != 2 || p.Payload.Accepted.Amount != "1000" || p.Payload.Resource.URL != "http://sb.test/x" ||
		string(p.Payload.Extensions) != `{"bazaar":{}}` {
		t.Fatalf("Decode = %+v, %v", p, err)
	}
	for _, c := range []struct{ raw, want string }{
		{`{"x402Version":2,"payload":` + payload + `}`, "missing field accepted"},
		{`{"x402Version":2,"accepted":{"scheme":"exact"},"payload":` + payload + `}`, "missing field accepted.network"},
		{`{"x402Version":2,"accepted":` + accepted + `,"payload":` + payload + `,"extensions":[1]}`, "field extensions: must be of type object"},
		{`{"x402Version":2,"accepted":` + accepted + `,"payload":` + payload + `,"extensions":"x"}`, "field extensions: must be of type object"},
		{`{"x402Version":2,"accepted":` + accepted + `}`, "missing field payload"},
		{`{"x402Version":9,"accepted":` + accepted + `,"payload":` + payload + `}`, "x402Version 9 is not supported"},
	} {
		_, err := x402.Decode(x402.MCPPayment(json.RawMessage(c.raw)))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), x402.InMCPMeta) {
			t.Errorf("%s: %v, want %q naming %s", c.raw, err, c.want, x402.InMCPMeta)
		}
	}
	if in := x402.MCPPayment(json.RawMessage(`null`)); in.Value != "" {
		t.Errorf("null payment = %+v, want none", in)
	}
}
