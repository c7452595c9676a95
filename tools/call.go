package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// Result is the result of tools/call: the endpoint's body as one text item and, when the endpoint answered 200
// with a JSON object, that same object as structuredContent (the body as it is, so a later change of the body,
// such as paging, reaches both). An error status makes it an error result, without structuredContent: the
// error body does not follow the output schema, and clients check structuredContent against it.
type Result struct {
	Content           []Content       `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
	Meta              map[string]any  `json:"_meta,omitempty"`
}

// Content is one item of a result's content; every tool answers text.
type Content struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// TextResult is a result of one text item.
func TextResult(text string, isError bool) Result {
	return Result{Content: []Content{{Type: "text", Text: text}}, IsError: isError}
}

// ErrorResult is a tool error in the service's error shape, {"error": msg}.
func ErrorResult(msg string) Result {
	b, _ := json.Marshal(map[string]string{"error": msg})
	return TextResult(string(b), true)
}

type innerCall struct{}

// callInfo is what the endpoint's request of a tool call knows of the call.
type callInfo struct {
	// limit is the largest 200 body the call can turn into a result (MaxResultBytes, or less when the MCP
	// request's answer budget is nearly spent); pages are cut to fit instead (see shrink).
	limit int
}

type callerKey struct{}

// WithCaller records in ctx who admitted the request an MCP message came in (the HTTP server's admission: the
// client charged for it and the slot it holds). The bridge runs each tool call on a fresh context and carries
// this one value into it, so a tool call is charged to the same client and holds no second slot.
func WithCaller(ctx context.Context, caller any) context.Context {
	return context.WithValue(ctx, callerKey{}, caller)
}

// Caller is the value WithCaller recorded in ctx, or nil.
func Caller(ctx context.Context) any { return ctx.Value(callerKey{}) }

// IsToolCall reports whether ctx belongs to a request the bridge sent for a tool call. The MCP endpoint refuses
// such requests, so a tool can never reach the bridge again, however the document evolves.
func IsToolCall(ctx context.Context) bool { return ctx.Value(innerCall{}) != nil }

// ResultLimit is, in a tool call's endpoint request, the largest answer body the call can return as a result;
// ok is false outside a tool call. An endpoint whose answer costs the caller something (the paid tool) checks it
// before charging, since a larger answer would be replaced by an error result.
func ResultLimit(ctx context.Context) (limit int, ok bool) {
	c, ok := ctx.Value(innerCall{}).(callInfo)
	return c.limit, ok
}

// budget is what is left of the bytes one MCP request may gather from endpoint answers.
type budget struct{ left int }

// call runs one tool call: the arguments become the endpoint's request, which goes through the service's
// handler exactly as an HTTP request would.
func (b *Bridge) call(ctx context.Context, t *Tool, args, meta map[string]json.RawMessage, budget *budget) Result {
	if IsToolCall(ctx) {
		return ErrorResult("tools cannot call the MCP endpoint")
	}
	target, err := t.target(args)
	if err != nil {
		// Arguments that cannot become a request at all (an unknown name, an object where a value goes) are
		// worded like the endpoint's own 400s, so a model corrects them the same way.
		return ErrorResult(err.Error())
	}
	// The endpoint's request starts from a fresh context, as a request from a new connection would: values the
	// MCP request picked up on its way in (the router's own routing state above all) must not leak into it.
	// It still ends when the MCP request ends, or after the call timeout. Only the caller (WithCaller) comes
	// along: the call is the outer request's work, charged to its client and run in its slot.
	info := callInfo{limit: min(MaxResultBytes, budget.left)}
	fresh := context.WithValue(context.Background(), innerCall{}, info)
	if c := Caller(ctx); c != nil {
		fresh = WithCaller(fresh, c)
	}
	inner, cancel := context.WithTimeout(fresh, b.timeout)
	defer cancel()
	defer context.AfterFunc(ctx, cancel)()
	ctx = inner
	req, err := http.NewRequestWithContext(ctx, t.method, target, nil)
	if err != nil {
		b.log.ErrorContext(ctx, "building a tool request", "tool", t.Name, "error", err)
		return ErrorResult("internal error")
	}
	req.Header.Set("Accept", "application/json")
	// Logged as the request's remote address; the call has none of its own.
	req.RemoteAddr = "mcp"
	hook := b.hooks[t.Name]
	if hook.Before != nil {
		if res := hook.Before(ctx, meta, req); res != nil {
			return *res
		}
	}
	rec := b.serve(req, budget)
	if rec.overflow {
		b.log.WarnContext(ctx, "tool answer over the MCP size budget", "tool", t.Name, "limit", rec.limit)
		return ErrorResult(fmt.Sprintf("the answer of %s is larger than the %d bytes one MCP request may return", t.Name, b.answer))
	}
	var shrunk string
	if rec.status == http.StatusOK && rec.body.Len() > MaxResultBytes {
		if t.pageSize == 0 || hook.Before != nil {
			return ErrorResult(fmt.Sprintf("the answer of %s is %d bytes, more than the %d a tool result may hold: "+
				"narrow it with the tool's arguments (%s)", t.Name, rec.body.Len(), MaxResultBytes, t.paramList()))
		}
		if rec, shrunk = b.shrink(ctx, t, req, rec, budget); rec.overflow || rec.body.Len() > MaxResultBytes {
			return ErrorResult(fmt.Sprintf("a page of %s stays larger than the %d bytes a tool result may hold, even of "+
				"few records: narrow it with the tool's arguments (%s)", t.Name, MaxResultBytes, t.paramList()))
		}
	}
	status := rec.status
	res := TextResult(rec.body.String(), status < 200 || status > 299)
	if shrunk != "" {
		res.Meta = map[string]any{ShrunkMetaKey: shrunk}
	}
	if status == http.StatusOK {
		body := bytes.TrimSpace(rec.body.Bytes())
		if firstByte(body) != '{' || !json.Valid(body) {
			// The document promises a JSON object (New checked the output schema is one): anything else is a
			// fault of the endpoint, not something to hand a client as structured data.
			b.log.ErrorContext(ctx, "a tool's endpoint answered 200 without a JSON object", "tool", t.Name)
			return ErrorResult("internal error: the endpoint's answer is not a JSON object")
		}
		res.StructuredContent = json.RawMessage(body)
	}
	if hook.After != nil {
		hook.After(ctx, status, rec.header, rec.body.Bytes(), &res)
	}
	return res
}

// MaxResultBytes bounds the text of one tool result: Claude Code refuses a result over 25,000 tokens and files
// away text over 50,000 characters. A page that would be longer is cut to fit (see shrink); any other answer
// that long is an error result asking for narrower arguments. Bytes, not characters: a byte bound also bounds
// the characters.
const MaxResultBytes = 40000

// ShrunkMetaKey is the result's _meta entry that says a page was cut to fit MaxResultBytes.
const ShrunkMetaKey = "switchboard/page_shrunk"

// serve sends req through the service's handler, charging its body to budget.
func (b *Bridge) serve(req *http.Request, budget *budget) *recorder {
	rec := &recorder{header: http.Header{}, limit: budget.left}
	b.handler.ServeHTTP(rec, req)
	budget.left -= rec.body.Len()
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	return rec
}

// shrink asks again for a page of fewer records, in proportion to how far rec is over MaxResultBytes, until the
// page fits or holds one record. The cursor of a smaller page continues the same list (a cursor does not depend
// on the page size), so the caller walks on from meta.next_cursor as usual.
func (b *Bridge) shrink(ctx context.Context, t *Tool, req *http.Request, rec *recorder, budget *budget) (*recorder, string) {
	q := req.URL.Query()
	asked, err := strconv.Atoi(q.Get("limit"))
	if err != nil {
		return rec, ""
	}
	limit := asked
	for range 4 { // records of uneven width can need another cut
		n := min(limit, pageLength(rec.body.Bytes())) // a last page holds fewer records than the limit
		if n <= 1 || rec.status != http.StatusOK || rec.body.Len() <= MaxResultBytes {
			break
		}
		limit = max(1, min(n-1, n*MaxResultBytes*9/10/rec.body.Len()))
		q.Set("limit", strconv.Itoa(limit))
		again := req.Clone(ctx)
		again.URL.RawQuery = q.Encode()
		again.RequestURI = ""
		if rec = b.serve(again, budget); rec.overflow {
			return rec, ""
		}
	}
	b.log.InfoContext(ctx, "tool page cut to fit the result bound", "tool", t.Name, "asked", asked, "limit", limit)
	return rec, fmt.Sprintf("limit %d gave more than %d bytes, so this page was cut to limit %d; "+
		"meta.next_cursor continues the list", asked, MaxResultBytes, limit)
}

// pageLength is the number of records of a page: the length of the answer's list, its longest top-level array
// (a paged answer is the list, its meta and at most a short summary). 0 when there is none.
func pageLength(body []byte) int {
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil {
		return 0
	}
	n := 0
	for _, v := range top {
		var list []json.RawMessage
		if firstByte(v) == '[' && json.Unmarshal(v, &list) == nil {
			n = max(n, len(list))
		}
	}
	return n
}

// target is the URL path and query of the tool's endpoint for args: path parameters substituted, query
// parameters as the document's style says (lists comma-separated unless exploded). Null means absent.
func (t *Tool) target(args map[string]json.RawMessage) (string, error) {
	names := make([]string, 0, len(args))
	for name := range args {
		names = append(names, name)
	}
	slices.Sort(names) // deterministic: the first unknown argument is the one named
	path := t.path
	q := url.Values{}
	for _, name := range names {
		p, ok := t.params[name]
		if !ok {
			return "", fmt.Errorf("argument %s: unknown; the tool takes %s", name, t.paramList())
		}
		raw := args[name]
		if string(raw) == "null" {
			continue
		}
		values, err := argValues(raw, p.array)
		if err != nil {
			return "", fmt.Errorf("argument %s: %w", name, err)
		}
		switch {
		case p.in == openapi3.ParameterInPath:
			path = strings.ReplaceAll(path, "{"+name+"}", url.PathEscape(strings.Join(values, ",")))
		case p.explode:
			q[name] = values
		default:
			q.Set(name, strings.Join(values, ","))
		}
	}
	if t.pageSize > 0 && q.Get("limit") == "" {
		q.Set("limit", strconv.Itoa(t.pageSize))
	}
	if i := strings.IndexByte(path, '{'); i >= 0 {
		end := strings.IndexByte(path[i:], '}')
		if end > 0 {
			return "", fmt.Errorf("argument %s: is required", path[i+1:i+end])
		}
	}
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	return path, nil
}

func (t *Tool) paramList() string {
	if len(t.params) == 0 {
		return "no arguments"
	}
	names := make([]string, 0, len(t.params))
	for n := range t.params {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// argValues turns one argument into query values. Scalars keep their JSON text (numbers exactly as sent), so
// the endpoint's validation judges them as it judges the same query string over HTTP. A list parameter takes an
// array or a single value.
func argValues(raw json.RawMessage, list bool) ([]string, error) {
	if firstByte(raw) == '[' {
		if !list {
			return nil, fmt.Errorf("must be a single value, not an array")
		}
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, fmt.Errorf("invalid list")
		}
		out := make([]string, 0, len(items))
		for _, it := range items {
			s, err := scalar(it)
			if err != nil {
				return nil, fmt.Errorf("item %d: %w", len(out)+1, err)
			}
			out = append(out, s)
		}
		return out, nil
	}
	s, err := scalar(raw)
	if err != nil {
		return nil, err
	}
	return []string{s}, nil
}

func scalar(raw json.RawMessage) (string, error) {
	switch c := firstByte(raw); {
	case c == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", fmt.Errorf("invalid string")
		}
		return s, nil
	case c == '-' || c >= '0' && c <= '9':
		return normalizeNumber(string(bytes.TrimSpace(raw))), nil
	case c == 't' || c == 'f':
		return string(bytes.TrimSpace(raw)), nil
	case c == '{':
		return "", fmt.Errorf("must not be an object")
	case c == '[':
		return "", fmt.Errorf("must not be a nested array")
	}
	return "", fmt.Errorf("must not be null")
}

// normalizeNumber writes an integral number without exponent or fraction (2e3 and 2000.0 as 2000), as a query
// string would carry it; anything else keeps its JSON text.
func normalizeNumber(s string) string {
	if !strings.ContainsAny(s, ".eE") {
		return s
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != float64(int64(f)) || f > 1<<53 || f < -(1<<53) {
		return s
	}
	return strconv.FormatInt(int64(f), 10)
}

// recorder is the ResponseWriter of a tool call: it keeps the status and up to limit bytes of the body.
type recorder struct {
	header   http.Header
	status   int
	body     bytes.Buffer
	limit    int
	overflow bool
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
}

func (r *recorder) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	if r.body.Len()+len(p) > r.limit {
		r.overflow = true
		return 0, fmt.Errorf("tool answer larger than %d bytes", r.limit)
	}
	return r.body.Write(p)
}
