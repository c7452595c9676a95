package x402

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// BazaarKey is the extension key of x402's discovery extension ("bazaar", specs/extensions/bazaar.md): a
// facilitator that sees it in a payment catalogs the paid resource, so that agents can find it.
const BazaarKey = "bazaar"

// Discovery describes the paid route and its MCP tool for indexers of paid APIs. The schemas come from the
// OpenAPI document (through the generated MCP tool), so the listing and the API cannot drift apart.
type Discovery struct {
	// Method is the HTTP method of the paid route (GET).
	Method string
	// QuerySchema is the JSON Schema (an object) of the route's query parameters.
	QuerySchema json.RawMessage
	// OutputSchema is the JSON Schema of the paid answer.
	OutputSchema json.RawMessage
	// Tool, ToolDescription and ToolInputSchema describe the paid MCP tool; MCPURL is the MCP endpoint. Tool ""
	// means the route has no tool.
	Tool            string
	ToolDescription string
	ToolInputSchema json.RawMessage
	MCPURL          string
}

// discoveryExtensions are the encoded bazaar extensions, built once by SetDiscovery.
type discoveryExtensions struct {
	http        json.RawMessage
	mcp         json.RawMessage
	mcpResource ResourceInfo
}

// SetDiscovery adds the bazaar extension, built from d, to every v2 PaymentRequired from now on. It is called
// once, when the handler (and with it the MCP tool) is built, before requests are served.
func (s *Service) SetDiscovery(d Discovery) error {
	httpExt, err := bazaarHTTP(d)
	if err != nil {
		return err
	}
	ext := &discoveryExtensions{http: httpExt}
	if d.Tool != "" {
		if ext.mcp, err = bazaarMCP(d); err != nil {
			return err
		}
		ext.mcpResource = ResourceInfo{URL: d.MCPURL, Description: s.resource.Description, MimeType: s.resource.MimeType}
	}
	s.discovery.Store(ext)
	return nil
}

// objectSchema checks that raw is a JSON object (a schema) and returns it decoded.
func objectSchema(name string, raw json.RawMessage) (map[string]any, error) {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, fmt.Errorf("x402 discovery: %s is not a JSON Schema object", name)
	}
	return m, nil
}

// outputPart is the info.output of a JSON answer and its schema: the answer's schema sits where an example
// would be checked, as the x402 extensions library declares output schemas. The answer schema's $defs are
// returned apart: its references (#/$defs/...) resolve against the root of the extension's schema, so that is
// where they must go.
func outputPart(d Discovery) (info, schema, defs map[string]any, err error) {
	out, err := objectSchema("the output schema", d.OutputSchema)
	if err != nil {
		return nil, nil, nil, err
	}
	if raw, ok := out["$defs"]; ok {
		if defs, ok = raw.(map[string]any); !ok {
			return nil, nil, nil, errors.New("x402 discovery: the output schema's $defs is not an object")
		}
		delete(out, "$defs")
	}
	trimSchema(out, false)
	trimSchema(defs, true)
	return map[string]any{"type": "json"}, map[string]any{
		"type":       "object",
		"properties": map[string]any{"type": map[string]any{"type": "string"}, "example": out},
		"required":   []string{"type"},
	}, defs, nil
}

// withDefs adds defs, when there are any, to a schema's root.
func withDefs(schema, defs map[string]any) map[string]any {
	if len(defs) > 0 {
		schema["$defs"] = defs
	}
	return schema
}

const jsonSchemaDialect = "https://json-schema.org/draft/2020-12/schema"

// bazaarHTTP is the extension of the HTTP route, a query method (GET, HEAD or DELETE: the paid route takes no
// body).
func bazaarHTTP(d Discovery) (json.RawMessage, error) {
	switch d.Method {
	case http.MethodGet, http.MethodHead, http.MethodDelete:
	default:
		return nil, errors.New("x402 discovery: only GET, HEAD and DELETE routes are described")
	}
	query, err := objectSchema("the query schema", d.QuerySchema)
	if err != nil {
		return nil, err
	}
	if _, ok := query["$defs"]; ok {
		return nil, errors.New("x402 discovery: a query schema with $defs is not supported")
	}
	return extension(d, map[string]any{"type": "http", "method": d.Method, "queryParams": map[string]any{}},
		map[string]any{
			"type":        map[string]any{"type": "string", "const": "http"},
			"method":      map[string]any{"type": "string", "enum": []string{"GET", "HEAD", "DELETE"}},
			"queryParams": query,
			"headers":     map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}},
		}, "type", "method")
}

// bazaarMCP is the extension of the MCP tool.
func bazaarMCP(d Discovery) (json.RawMessage, error) {
	in, err := objectSchema("the tool's input schema", d.ToolInputSchema)
	if err != nil {
		return nil, err
	}
	if d.MCPURL == "" {
		return nil, errors.New("x402 discovery: the MCP endpoint URL is required with a tool")
	}
	input := map[string]any{"type": "mcp", "tool": d.Tool, "transport": "streamable-http", "inputSchema": in}
	if d.ToolDescription != "" {
		input["description"] = d.ToolDescription
	}
	return extension(d, input, map[string]any{
		"type":        map[string]any{"type": "string", "const": "mcp"},
		"tool":        map[string]any{"type": "string"},
		"description": map[string]any{"type": "string"},
		"transport":   map[string]any{"type": "string", "enum": []string{"streamable-http", "sse"}},
		"inputSchema": map[string]any{"type": "object"},
		"example":     map[string]any{"type": "object"},
	}, "type", "tool", "inputSchema")
}

// extension assembles a bazaar extension: info (the input given, the answer's output) and the schema of info,
// whose input part has the properties and required members given.
func extension(d Discovery, input, inputProps map[string]any, required ...string) (json.RawMessage, error) {
	outInfo, outSchema, defs, err := outputPart(d)
	if err != nil {
		return nil, err
	}
	return json.Marshal(map[string]any{
		"info": map[string]any{"input": input, "output": outInfo},
		"schema": withDefs(map[string]any{
			"$schema": jsonSchemaDialect,
			"type":    "object",
			"properties": map[string]any{
				"input": map[string]any{
					"type":                 "object",
					"properties":           inputProps,
					"required":             required,
					"additionalProperties": false,
				},
				"output": outSchema,
			},
			"required": []string{"input"},
		}, defs),
	})
}

// openAPIFormats are OpenAPI's own number formats, which mean nothing to a JSON Schema validator (Ajv, as
// indexers run it, warns about each).
var openAPIFormats = map[string]bool{"int32": true, "int64": true, "float": true, "double": true}

// numericBounds are the JSON Schema keywords that bound a number.
var numericBounds = []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}

// trimSchema makes the bazaar copy of a decoded schema small enough for a response header, in place: it drops
// descriptions (the OpenAPI document keeps them; a PAYMENT-REQUIRED header of several kilobytes can exceed the
// header buffers of common proxies), OpenAPI-only formats, numeric bounds and `additionalProperties: false`
// (they validate an answer but say nothing of its shape, the part discovery needs). names is true where v maps
// names to schemas (properties, $defs): there a key is a name, not a keyword, and stays.
func trimSchema(v any, names bool) {
	switch v := v.(type) {
	case map[string]any:
		if !names {
			delete(v, "description")
			for _, k := range numericBounds {
				delete(v, k)
			}
			if closed, ok := v["additionalProperties"].(bool); ok && !closed {
				delete(v, "additionalProperties")
			}
			if f, ok := v["format"].(string); ok && openAPIFormats[f] {
				delete(v, "format")
			}
		}
		for k, c := range v {
			trimSchema(c, !names && (k == "properties" || k == "$defs" || k == "patternProperties"))
		}
	case []any:
		for _, c := range v {
			trimSchema(c, false)
		}
	}
}
