// Package tools is the service's MCP server: a stateless JSON-RPC 2.0 handler whose tools are generated, at start,
// from the operations of the OpenAPI document that carry `x-mcp-tool`. No tool is listed by hand: a tool's name is
// the extension's value, its title the operation's summary, its description the summary and description, its
// input schema is built from the operation's parameters and its output schema is the operation's 200 answer
// schema. A tool call becomes an HTTP request to the tool's endpoint that runs through the service's own handler
// (routing, validation, handler, middleware), so a tool answers exactly what the endpoint answers over HTTP: the
// body as text, and, for a success, the same JSON object as structuredContent.
//
// The bridge speaks JSON-RPC over whatever carries it: the HTTP endpoint (package server checks the HTTP side:
// Host, Origin, MCP-Protocol-Version) and stdio (ServeStdio).
package tools

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
)

// Extension is the operation extension that makes an operation an MCP tool; its value is the tool's name.
const Extension = "x-mcp-tool"

// ServerName is the serverInfo.name the initialize method reports.
const ServerName = "switchboard"

// Defaults for Options.
const (
	DefaultCallTimeout    = 30 * time.Second
	DefaultMaxBatch       = 64
	DefaultMaxAnswerBytes = 16 << 20
)

// toolName is the MCP spec's advice for tool names (1 to 64 of A-Z, a-z, 0-9, _ and -), checked at start so a
// typo in the document fails the service's start, not a client.
var toolName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// Options adjust New.
type Options struct {
	Logger *slog.Logger
	// Version is serverInfo.version; the binary's module version ("dev" for a local build) when empty.
	Version string
	// CallTimeout bounds one tool call; DefaultCallTimeout when zero.
	CallTimeout time.Duration
	// MaxBatch is the most messages one JSON-RPC batch may hold; DefaultMaxBatch when zero.
	MaxBatch int
	// MaxAnswerBytes bounds the endpoint bodies one HTTP request to the MCP endpoint may gather (a batch shares
	// it); a tool whose answer does not fit gets an error result. DefaultMaxAnswerBytes when zero.
	MaxAnswerBytes int
	// Hooks adjust the calls of the tools they are keyed by (a tool that needs more than its endpoint's query,
	// such as a payment carried in _meta). A hook naming no tool of the document fails New.
	Hooks map[string]Hook
}

// Hook adjusts the calls of one tool; either function may be nil. The tool itself, its schemas included, is
// still generated from its operation. Optional header parameters are never arguments; a hook may set them.
type Hook struct {
	// ErrorSchema names a component schema of the document that the tool's error results may carry as
	// structuredContent (x402's PaymentRequired for a paid tool); the output schema then allows either.
	ErrorSchema string
	// Before runs once the endpoint's request is built and before it is sent. It may add headers to req from
	// meta, the call's params._meta (nil when absent), or answer the call itself by returning a result, in
	// which case nothing is sent.
	Before func(ctx context.Context, meta map[string]json.RawMessage, req *http.Request) *Result
	// After runs with the endpoint's answer (status, headers, body) and the result made of it, which it may
	// change: add _meta, replace structuredContent, ...
	After func(ctx context.Context, status int, header http.Header, body []byte, res *Result)
}

// Bridge serves MCP over the tools of one document. It is safe for concurrent use and keeps no state between
// requests: the MCP endpoint is stateless (no session, no server-to-client stream).
type Bridge struct {
	handler http.Handler
	tools   []*Tool // sorted by name
	byName  map[string]*Tool
	list    json.RawMessage // the tools/list result, encoded once
	info    json.RawMessage // serverInfo
	log     *slog.Logger
	timeout time.Duration
	batch   int
	answer  int
	hooks   map[string]Hook
}

// Tool is one MCP tool: an operation of the document marked with Extension.
type Tool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  *Annotations    `json:"annotations,omitempty"`

	// answerSchema is the schema of the endpoint's 200 answer alone (OutputSchema may also allow an error's
	// structured content).
	answerSchema json.RawMessage
	method       string
	path         string // the URL path with {placeholders}, server prefix included
	params       map[string]param
	// pageSize is the limit a list tool sends when the caller gives none (0: the tool does not page).
	pageSize int
}

// ToolPageSize is the page a list tool answers when the caller gives no limit: over HTTP a list without limit is
// the whole list, which for the larger catalogs is more than a model's context holds.
const ToolPageSize = 20

// PageSizeExtension on an operation sets a smaller default page for a tool whose records are wide (a migration
// guide is a few thousand characters), so that a first page stays within what an agent can afford.
const PageSizeExtension = "x-mcp-page-size"

// pageSize is the limit the tool of op sends when the caller gives none.
func pageSize(op *openapi3.Operation) (int, error) {
	v, ok := op.Extensions[PageSizeExtension]
	if !ok {
		return ToolPageSize, nil
	}
	n, ok := v.(float64) // YAML numbers arrive as JSON numbers
	if !ok || n != float64(int(n)) || n < 1 || n > ToolPageSize {
		return 0, fmt.Errorf("%s must be an integer from 1 to %d, not %v", PageSizeExtension, ToolPageSize, v)
	}
	return int(n), nil
}

// Annotations are the MCP tool hints, which follow the HTTP method (every tool today is a GET). No tool
// reaches beyond the service: it answers from the service's own store and catalogs, so openWorldHint is false.
type Annotations struct {
	ReadOnlyHint bool `json:"readOnlyHint"`
	// DestructiveHint only means something for a tool that writes; it is left out for readers.
	DestructiveHint *bool `json:"destructiveHint,omitempty"`
	IdempotentHint  bool  `json:"idempotentHint"`
	OpenWorldHint   bool  `json:"openWorldHint"`
}

func annotations(method string) *Annotations {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return &Annotations{ReadOnlyHint: true, IdempotentHint: true}
	}
	destructive := method == http.MethodDelete
	return &Annotations{DestructiveHint: &destructive, IdempotentHint: method == http.MethodPut || method == http.MethodDelete}
}

// param is what a call needs to place one argument in the request.
type param struct {
	in      string // openapi3.ParameterInQuery or openapi3.ParameterInPath
	array   bool
	explode bool // repeated keys instead of one comma-separated value
}

// New generates the tools of doc and returns the bridge that runs their calls through h, the service's whole
// HTTP handler. It fails when an operation marked as a tool cannot be offered faithfully (a bad or repeated
// name, a header or cookie parameter, a request body), so the document and the tools cannot drift apart silently.
func New(doc *openapi3.T, h http.Handler, o Options) (*Bridge, error) {
	if doc == nil || h == nil {
		return nil, errors.New("tools: a document and a handler are required")
	}
	b := &Bridge{
		handler: h,
		byName:  map[string]*Tool{},
		log:     cmp.Or(o.Logger, slog.Default()),
		timeout: cmp.Or(o.CallTimeout, DefaultCallTimeout),
		batch:   cmp.Or(o.MaxBatch, DefaultMaxBatch),
		answer:  cmp.Or(o.MaxAnswerBytes, DefaultMaxAnswerBytes),
		hooks:   o.Hooks,
	}
	prefix, err := serverPrefix(doc)
	if err != nil {
		return nil, err
	}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			v, ok := op.Extensions[Extension]
			if !ok {
				continue
			}
			name, ok := v.(string)
			if !ok || !toolName.MatchString(name) {
				return nil, fmt.Errorf("tools: %s %s: %s must be a name of 1 to 64 letters, digits, _ or -", method, path, Extension)
			}
			if prev, dup := b.byName[name]; dup {
				return nil, fmt.Errorf("tools: %s names both %s %s and %s %s", name, prev.method, prev.path, method, prefix+path)
			}
			t, err := newTool(doc, name, method, prefix+path, item, op, b.hooks[name].ErrorSchema)
			if err != nil {
				return nil, fmt.Errorf("tools: %s (%s %s): %w", name, method, path, err)
			}
			b.byName[name] = t
			b.tools = append(b.tools, t)
		}
	}
	slices.SortFunc(b.tools, func(x, y *Tool) int { return strings.Compare(x.Name, y.Name) })
	for name := range b.hooks {
		if _, ok := b.byName[name]; !ok {
			return nil, fmt.Errorf("tools: a hook names %s, which no operation of the document marks as a tool", name)
		}
	}

	if b.list, err = encode(map[string]any{"tools": b.tools}); err != nil {
		return nil, fmt.Errorf("tools: encoding the tool list: %w", err)
	}
	if b.info, err = encode(map[string]string{"name": ServerName, "version": cmp.Or(o.Version, buildVersion())}); err != nil {
		return nil, fmt.Errorf("tools: encoding serverInfo: %w", err)
	}
	return b, nil
}

// AnswerSchema is the JSON Schema of the tool's successful answer: its endpoint's 200 body.
func (t Tool) AnswerSchema() json.RawMessage { return t.answerSchema }

// Tools returns the generated tools, sorted by name.
func (b *Bridge) Tools() []Tool {
	out := make([]Tool, len(b.tools))
	for i, t := range b.tools {
		out[i] = *t
	}
	return out
}

// serverPrefix is the path of the document's first server (relative, like /api/v1, or absolute), which the
// document's paths are relative to.
func serverPrefix(doc *openapi3.T) (string, error) {
	if len(doc.Servers) == 0 || doc.Servers[0] == nil {
		return "", nil
	}
	u, err := url.Parse(doc.Servers[0].URL)
	if err != nil {
		return "", fmt.Errorf("tools: the document's server URL: %w", err)
	}
	return strings.TrimSuffix(u.Path, "/"), nil
}

func newTool(doc *openapi3.T, name, method, path string, item *openapi3.PathItem, op *openapi3.Operation, errorSchema string) (*Tool, error) {
	if op.RequestBody != nil {
		// No tool takes a body today. Supporting one means mapping its properties to arguments next to the
		// parameters; refuse rather than offer a tool that cannot send what its endpoint needs.
		return nil, errors.New("operations with a request body are not supported as tools")
	}
	t := &Tool{
		Name:        name,
		Title:       op.Summary,
		Description: description(op),
		method:      method,
		path:        path,
		params:      map[string]param{},
	}
	t.Annotations = annotations(method)
	props := map[string]any{}
	var required []string
	for _, p := range parameters(item, op) {
		if p.In == openapi3.ParameterInHeader && !p.Required {
			// Not an argument: a header is no business of the model's. A hook may set it (a payment travels in
			// _meta); without one the call goes without it, as an HTTP call may.
			continue
		}
		if p.In != openapi3.ParameterInQuery && p.In != openapi3.ParameterInPath {
			return nil, fmt.Errorf("parameter %s: %s parameters are not supported", p.Name, p.In)
		}
		if p.Schema == nil || p.Schema.Value == nil {
			return nil, fmt.Errorf("parameter %s has no schema", p.Name)
		}
		sc := p.Schema.Value
		s := jsonSchema(sc)
		if p.Description != "" {
			s["description"] = p.Description
		}
		props[p.Name] = s
		if p.Required {
			required = append(required, p.Name)
		}
		pp := param{in: p.In, array: sc.Type != nil && sc.Type.Includes(openapi3.TypeArray)}
		if pp.array {
			if p.Style != "" && p.Style != openapi3.SerializationForm && p.In == openapi3.ParameterInQuery {
				return nil, fmt.Errorf("parameter %s: style %s is not supported", p.Name, p.Style)
			}
			// OpenAPI's default for a form-style query parameter is explode: true (repeated keys).
			pp.explode = p.In == openapi3.ParameterInQuery && (p.Explode == nil || *p.Explode)
		}
		t.params[p.Name] = pp
	}
	if _, cursor := t.params["cursor"]; cursor && props["limit"] != nil {
		size, err := pageSize(op)
		if err != nil {
			return nil, err
		}
		t.pageSize = size
		if s, ok := props["limit"].(map[string]any); ok {
			s["description"] = fmt.Sprintf("Page size, 1 to 1000; %d when absent. The answer's meta.total counts every "+
				"match and meta.next_cursor, passed as cursor, gives the next page.", t.pageSize)
		}
	}
	schema := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		slices.Sort(required)
		schema["required"] = required
	}
	var err error
	if t.InputSchema, err = encode(schema); err != nil {
		return nil, fmt.Errorf("encoding the input schema: %w", err)
	}
	answer, err := outputSchema(doc, op, "")
	if err != nil {
		return nil, fmt.Errorf("output schema: %w", err)
	}
	if t.answerSchema, err = encode(answer); err != nil {
		return nil, fmt.Errorf("encoding the output schema: %w", err)
	}
	t.OutputSchema = t.answerSchema
	if errorSchema != "" {
		out, err := outputSchema(doc, op, errorSchema)
		if err != nil {
			return nil, fmt.Errorf("output schema with %s: %w", errorSchema, err)
		}
		if t.OutputSchema, err = encode(out); err != nil {
			return nil, fmt.Errorf("encoding the output schema: %w", err)
		}
	}
	return t, nil
}

// DescriptionExtension holds a tool's own description: what the tool answers, when to use it and its key
// arguments, short enough to ride along on every turn of a conversation (the operation's description, with the
// full rules, stays for HTTP readers).
const DescriptionExtension = "x-mcp-description"

// description joins the operation's summary and its tool description (x-mcp-description, else the operation's
// description): the text a model reads to choose the tool.
func description(op *openapi3.Operation) string {
	s, d := strings.TrimSpace(op.Summary), strings.TrimSpace(op.Description)
	if x, ok := op.Extensions[DescriptionExtension].(string); ok && strings.TrimSpace(x) != "" {
		d = strings.TrimSpace(x)
	}
	switch {
	case s == "":
		return d
	case d == "":
		return s
	}
	return s + "\n\n" + d
}

// parameters are the operation's parameters with those of its path item it does not override, in the
// document's order.
func parameters(item *openapi3.PathItem, op *openapi3.Operation) []*openapi3.Parameter {
	var out []*openapi3.Parameter
	seen := map[string]bool{}
	for _, list := range []openapi3.Parameters{op.Parameters, item.Parameters} {
		for _, ref := range list {
			if ref == nil || ref.Value == nil {
				continue
			}
			key := ref.Value.In + " " + ref.Value.Name
			if seen[key] {
				continue
			}
			seen[key] = true
			out = append(out, ref.Value)
		}
	}
	return out
}

// buildVersion is the binary's module version, as `switchboard version` prints it.
func buildVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
