package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// JSON-RPC 2.0 error codes.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
)

// ProtocolVersion is the MCP revision the service reports when a client names none (the contract's version).
const ProtocolVersion = "2024-11-05"

// SupportedVersions are the MCP revisions this server speaks, oldest first. For a stateless server of tools
// that answers JSON they differ only in what a client may ignore, so every client gets the same answers:
// 2025-03-26 defines the streamable HTTP transport and tool annotations, 2025-06-18 adds the
// MCP-Protocol-Version header (checked against this list by the document), tool titles, output schemas and
// structured content, and 2025-11-25 makes JSON Schema 2020-12 the schemas' dialect (the document's own), wants
// argument errors as tool errors (as they are here) and a 403 for a foreign Origin (package server). JSON-RPC
// batches, which 2025-06-18 dropped, are still read: the contract's clients send them.
var SupportedVersions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}

// negotiate picks the protocol version of the initialize answer, as the MCP lifecycle says: the client's
// version when supported, else the latest supported one. A client that names none gets ProtocolVersion.
func negotiate(requested any) string {
	v, ok := requested.(string)
	switch {
	case !ok || v == "":
		return ProtocolVersion
	case slices.Contains(SupportedVersions, v):
		return v
	}
	return SupportedVersions[len(SupportedVersions)-1]
}

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return e.Message }

func errorf(code int, format string, args ...any) *rpcError {
	return &rpcError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// response is a JSON-RPC response object.
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

var nullID = json.RawMessage("null")

// ParseError is the answer to a body that is not JSON at all (JSON-RPC: code -32700, id null).
func ParseError() []byte {
	b, _ := encode(response{JSONRPC: "2.0", ID: nullID, Error: errorf(CodeParseError, "parse error: the message is not valid JSON")})
	return b
}

// Handle answers one HTTP request's JSON-RPC payload: a request, a notification, or a batch of them. It returns
// the encoded answer (an object, or an array for a batch), or nil when there is nothing to answer because the
// payload held only notifications or client responses (HTTP 202 without a body, as MCP's HTTP transport says).
func (b *Bridge) Handle(ctx context.Context, body []byte) []byte {
	if !json.Valid(body) {
		return ParseError()
	}
	budget := &budget{left: b.answer}
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '[' {
		r := b.one(ctx, body, budget)
		if r == nil {
			return nil
		}
		return b.mustEncode(*r)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(body, &items); err != nil {
		return b.mustEncode(response{JSONRPC: "2.0", ID: nullID, Error: errorf(CodeInvalidRequest, "invalid request: the batch cannot be read")})
	}
	switch {
	case len(items) == 0:
		return b.mustEncode(response{JSONRPC: "2.0", ID: nullID, Error: errorf(CodeInvalidRequest, "invalid request: empty batch")})
	case len(items) > b.batch:
		return b.mustEncode(response{JSONRPC: "2.0", ID: nullID,
			Error: errorf(CodeInvalidRequest, "invalid request: a batch holds at most %d messages, this one %d", b.batch, len(items))})
	}
	out := make([]response, 0, len(items))
	for _, item := range items {
		if r := b.one(ctx, item, budget); r != nil {
			out = append(out, *r)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return b.mustEncode(out)
}

// one answers one message of the payload; nil for a notification or a client's response.
func (b *Bridge) one(ctx context.Context, raw json.RawMessage, budget *budget) *response {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return &response{JSONRPC: "2.0", ID: nullID, Error: errorf(CodeInvalidRequest, "invalid request: a message must be a JSON object")}
	}
	id, hasID := m["id"]
	if hasID && !validID(id) {
		return &response{JSONRPC: "2.0", ID: nullID, Error: errorf(CodeInvalidRequest, "invalid request: id must be a string, a number or null")}
	}
	if !hasID {
		id = nullID
	}
	fail := func(err *rpcError) *response { return &response{JSONRPC: "2.0", ID: id, Error: err} }

	if string(m["jsonrpc"]) != `"2.0"` {
		return fail(errorf(CodeInvalidRequest, `invalid request: jsonrpc must be "2.0"`))
	}
	rawMethod, hasMethod := m["method"]
	if !hasMethod {
		_, hasResult := m["result"]
		_, hasError := m["error"]
		if hasID && (hasResult || hasError) {
			// A response to a request of ours. This server sends none, so there is nothing to match it with;
			// MCP's HTTP transport accepts a response with 202 all the same.
			return nil
		}
		return fail(errorf(CodeInvalidRequest, "invalid request: method is missing"))
	}
	var method string
	if err := json.Unmarshal(rawMethod, &method); err != nil {
		return fail(errorf(CodeInvalidRequest, "invalid request: method must be a string"))
	}
	params, hasParams := m["params"]
	if hasParams && string(params) != "null" {
		if c := firstByte(params); c != '{' && c != '[' {
			return fail(errorf(CodeInvalidRequest, "invalid request: params must be an object or an array"))
		}
	} else {
		params = nil
	}
	if !hasID {
		// A notification gets no answer, whatever its method (notifications/initialized, cancelled, ...). None
		// asks this stateless server to do anything, so none is acted on.
		b.log.DebugContext(ctx, "mcp notification", "method", method)
		return nil
	}
	result, err := b.dispatch(ctx, method, params, budget)
	if err != nil {
		return fail(err)
	}
	return &response{JSONRPC: "2.0", ID: id, Result: result}
}

func (b *Bridge) dispatch(ctx context.Context, method string, params json.RawMessage, budget *budget) (json.RawMessage, *rpcError) {
	switch method {
	case "initialize":
		var p struct {
			ProtocolVersion any `json:"protocolVersion"`
		}
		if err := decodeParams(params, &p); err != nil {
			return nil, err
		}
		return b.encodeResult(map[string]any{
			"protocolVersion": negotiate(p.ProtocolVersion),
			"capabilities":    map[string]any{"tools": map[string]any{"listChanged": false}},
			"serverInfo":      b.info,
			"instructions": "Switchboard answers which AI providers are up, which to call for a task, what it costs " +
				"and what each offers. Every tool wraps the HTTP endpoint of the same name and returns its JSON body.",
		})
	case "ping":
		if err := decodeParams(params, &struct{}{}); err != nil {
			return nil, err
		}
		return json.RawMessage("{}"), nil
	case "tools/list":
		// The list is short and fixed: one page, no cursor.
		if err := decodeParams(params, &struct{}{}); err != nil {
			return nil, err
		}
		return b.list, nil
	case "tools/call":
		var p struct {
			Name      *string                    `json:"name"`
			Arguments json.RawMessage            `json:"arguments"`
			Meta      map[string]json.RawMessage `json:"_meta"`
		}
		if err := decodeParams(params, &p); err != nil {
			return nil, err
		}
		if params == nil || p.Name == nil || *p.Name == "" {
			return nil, errorf(CodeInvalidParams, "invalid params: name is required")
		}
		t, ok := b.byName[*p.Name]
		if !ok {
			return nil, errorf(CodeInvalidParams, "invalid params: unknown tool %q", *p.Name)
		}
		var args map[string]json.RawMessage
		if len(p.Arguments) > 0 && string(p.Arguments) != "null" {
			if firstByte(p.Arguments) != '{' {
				return nil, errorf(CodeInvalidParams, "invalid params: arguments must be an object")
			}
			if err := json.Unmarshal(p.Arguments, &args); err != nil {
				return nil, errorf(CodeInvalidParams, "invalid params: arguments must be an object")
			}
		}
		return b.encodeResult(b.call(ctx, t, args, p.Meta, budget))
	}
	return nil, errorf(CodeMethodNotFound, "method not found: %s", method)
}

// decodeParams reads params, which must be an object when present (MCP's methods take named parameters).
func decodeParams(params json.RawMessage, v any) *rpcError {
	if params == nil {
		return nil
	}
	if firstByte(params) != '{' {
		return errorf(CodeInvalidParams, "invalid params: params must be an object")
	}
	if err := json.Unmarshal(params, v); err != nil {
		return errorf(CodeInvalidParams, "invalid params: %s", fieldOf(err))
	}
	return nil
}

// fieldOf words a decoding error of params by the field it concerns, without echoing the caller's value.
func fieldOf(err error) string {
	if te := (*json.UnmarshalTypeError)(nil); errors.As(err, &te) && te.Field != "" {
		return te.Field + " must be of type " + jsonType(te.Type.Kind().String())
	}
	return "params cannot be read"
}

func jsonType(goKind string) string {
	switch goKind {
	case "string", "ptr":
		return "string"
	case "map", "struct":
		return "object"
	}
	return goKind
}

func validID(id json.RawMessage) bool {
	switch c := firstByte(id); {
	case c == '"', c == '-', c >= '0' && c <= '9':
		return true
	}
	return string(id) == "null"
}

func firstByte(b []byte) byte {
	b = bytes.TrimLeft(b, " \t\r\n")
	if len(b) == 0 {
		return 0
	}
	return b[0]
}

func (b *Bridge) encodeResult(v any) (json.RawMessage, *rpcError) {
	out, err := encode(v)
	if err != nil {
		b.log.Error("encoding an MCP result", "error", err)
		return nil, errorf(CodeInternalError, "internal error")
	}
	return out, nil
}

// mustEncode encodes a response; the types involved always encode, so a failure is a bug, logged and answered
// as an internal error.
func (b *Bridge) mustEncode(v any) []byte {
	out, err := encode(v)
	if err != nil {
		b.log.Error("encoding an MCP response", "error", err)
		out, _ = encode(response{JSONRPC: "2.0", ID: nullID, Error: errorf(CodeInternalError, "internal error")})
	}
	return out
}

// encode is json.Marshal without HTML escaping: endpoint bodies embedded as text stay readable.
func encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
