// Package contractfuzz generates requests for every operation of the OpenAPI document, valid ones and
// deliberately broken ones: every parameter at, inside and past its bounds, wrong types, unknown enum values,
// empty, huge and unicode strings, repeated parameters, malformed, wrong-typed and oversized JSON bodies. The
// test of this package sends them to the running service and checks that every answer is a status the document
// lists for the operation with a body that validates, never a 500 and never a hang.
package contractfuzz

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/switchboard/switchboard/apitest"
)

// Request is one generated request.
type Request struct {
	Method string
	// Path is the path with its query, relative to the server (starts with /api/v1).
	Path   string
	Header http.Header
	Body   []byte
	// Kind says how it was made ("valid", "param limit: past maximum", ...), for the report.
	Kind string
}

// Generator makes requests for the operations of one document.
type Generator struct {
	ops       []apitest.Operation
	providers []string
}

// New returns a generator over the document's operations; providers are valid provider IDs, used where a
// parameter names a provider (the schema cannot say which strings are valid there).
func New(doc *openapi3.T, providers []string) *Generator {
	return &Generator{ops: apitest.Operations(doc), providers: providers}
}

// Operations are the operations requests are made for.
func (g *Generator) Operations() []apitest.Operation { return g.ops }

// providerParams take provider IDs (one, or a comma-separated list for providers).
var providerParams = map[string]bool{"provider": true, "primary": true, "avoid": true, "from": true, "to": true, "providers": true}

// MaxHugeString is the length of the "huge string" mutation: well past every maxLength of the document, yet
// inside the server's header limit, so the answer comes from the service and not from net/http.
const MaxHugeString = 16 << 10

// Make returns one request for op: valid with probability about one in three, otherwise one mutation.
func (g *Generator) Make(rng *rand.Rand, op apitest.Operation) Request {
	r := g.valid(rng, op)
	if rng.IntN(3) == 0 {
		return r
	}
	var params []*openapi3.Parameter
	for _, p := range op.Op.Parameters {
		params = append(params, p.Value)
	}
	hasBody := op.Op.RequestBody != nil
	switch {
	case hasBody && (len(params) == 0 || rng.IntN(2) == 0):
		g.mutateBody(rng, op, &r)
	case len(params) > 0:
		g.mutateParam(rng, op, params[rng.IntN(len(params))], &r)
	default:
		r.Kind = "valid"
	}
	return r
}

// valid builds a request with every required parameter and a random subset of the optional ones.
func (g *Generator) valid(rng *rand.Rand, op apitest.Operation) Request {
	path := "/api/v1" + op.Path
	q := url.Values{}
	hdr := http.Header{}
	for _, pr := range op.Op.Parameters {
		p := pr.Value
		if !p.Required && rng.IntN(2) == 0 {
			continue
		}
		v := g.validParam(rng, p)
		switch p.In {
		case openapi3.ParameterInPath:
			path = strings.ReplaceAll(path, "{"+p.Name+"}", url.PathEscape(v))
		case openapi3.ParameterInQuery:
			q.Set(p.Name, v)
		case openapi3.ParameterInHeader:
			hdr.Set(p.Name, v)
		}
	}
	r := Request{Method: op.Method, Path: withQuery(path, q), Header: hdr, Kind: "valid"}
	if _, body, err := op.MinimalRequest(); err == nil && body != nil {
		r.Body, _ = json.Marshal(g.enrich(rng, body, op))
		r.Header.Set("Content-Type", "application/json")
	}
	return r
}

func withQuery(path string, q url.Values) string {
	if len(q) == 0 {
		return path
	}
	return path + "?" + q.Encode()
}

// enrich adds random valid optional properties to a minimal body.
func (g *Generator) enrich(rng *rand.Rand, body any, op apitest.Operation) any {
	m, ok := body.(map[string]any)
	if !ok {
		return body
	}
	mt := op.Op.RequestBody.Value.Content.Get("application/json")
	if mt == nil || mt.Schema == nil || mt.Schema.Value == nil {
		return body
	}
	for name, ps := range mt.Schema.Value.Properties {
		if _, have := m[name]; have || rng.IntN(2) == 0 || ps.Value == nil {
			continue
		}
		if v, ok := g.validValue(rng, name, ps.Value); ok {
			m[name] = v
		}
	}
	return m
}

// validParam is a random valid value for p, as it appears in the URL.
func (g *Generator) validParam(rng *rand.Rand, p *openapi3.Parameter) string {
	if providerParams[p.Name] {
		if p.Name == "providers" {
			a, b := g.provider(rng), g.provider(rng)
			if a == b {
				return a
			}
			return a + "," + b
		}
		return g.provider(rng)
	}
	if p.Schema == nil || p.Schema.Value == nil {
		return "x"
	}
	v, ok := g.validValue(rng, p.Name, p.Schema.Value)
	if !ok {
		// A shape the generator does not attempt: fall back to the value the contract tests use.
		if v, err := apitest.SampleValue(p.Name, p.Schema.Value); err == nil && v != nil {
			return format(v)
		}
		return "x"
	}
	return format(v)
}

func (g *Generator) provider(rng *rand.Rand) string {
	if len(g.providers) == 0 || rng.IntN(20) == 0 {
		return "nope" // a well-formed ID the registry does not know: 404
	}
	return g.providers[rng.IntN(len(g.providers))]
}

// format writes a value as a query parameter (arrays comma-separated, as the document's style).
func format(v any) string {
	switch v := v.(type) {
	case []any:
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = format(x)
		}
		return strings.Join(parts, ",")
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case int:
		return strconv.Itoa(v)
	default:
		return fmt.Sprint(v)
	}
}

// validValue is a random value valid against s; ok is false for shapes it does not attempt (patterns).
func (g *Generator) validValue(rng *rand.Rand, name string, s *openapi3.Schema) (any, bool) {
	switch {
	case len(s.Enum) > 0:
		return s.Enum[rng.IntN(len(s.Enum))], true
	case len(s.OneOf) > 0:
		for _, alt := range s.OneOf {
			if alt.Value != nil && !alt.Value.Type.Is("null") {
				return g.validValue(rng, name, alt.Value)
			}
		}
		return nil, false
	case s.Type == nil:
		return nil, false
	case s.Type.Includes("integer"):
		lo, hi := bounds(s, -1000, 1_000_000)
		lo, hi = math.Ceil(lo), math.Floor(hi)
		if hi < lo {
			return nil, false
		}
		return int(lo) + rng.IntN(int(hi-lo)+1), true
	case s.Type.Includes("number"):
		lo, hi := bounds(s, -1000, 1_000_000)
		return math.Round((lo+rng.Float64()*(hi-lo))*1000) / 1000, true
	case s.Type.Includes("boolean"):
		return rng.IntN(2) == 0, true
	case s.Type.Includes("array"):
		if s.Items == nil || s.Items.Value == nil {
			return nil, false
		}
		n := max(int(s.MinItems), 1)
		if s.MaxItems != nil && int(*s.MaxItems) > n {
			n += rng.IntN(min(int(*s.MaxItems), 5) - n + 1)
		}
		seen := map[string]bool{}
		var out []any
		for range n {
			v, ok := g.validValue(rng, name, s.Items.Value)
			if !ok {
				return nil, false
			}
			if k := fmt.Sprint(v); s.UniqueItems && seen[k] {
				continue
			} else {
				seen[k] = true
			}
			out = append(out, v)
		}
		return out, true
	case s.Type.Includes("string"):
		if s.Pattern != "" {
			return nil, false
		}
		switch s.Format {
		case "date":
			return fmt.Sprintf("2026-%02d-%02d", 1+rng.IntN(12), 1+rng.IntN(28)), true
		case "date-time":
			return fmt.Sprintf("2026-%02d-%02dT10:00:00Z", 1+rng.IntN(12), 1+rng.IntN(28)), true
		case "uuid":
			return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", rng.Uint32(), rng.IntN(1<<16), rng.IntN(1<<12), rng.IntN(1<<12), rng.Int64N(1<<48)), true
		case "uri":
			return "https://example.com/hook", true
		}
		lo := int(s.MinLength)
		hi := lo + 20
		if s.MaxLength != nil {
			hi = min(hi, int(*s.MaxLength))
		}
		if hi < max(lo, 1) {
			return nil, false
		}
		n := max(lo, 1) + rng.IntN(hi-max(lo, 1)+1)
		return randomText(rng, n, false), true
	case s.Type.Includes("object"):
		v, err := apitest.SampleValue(name, s)
		return v, err == nil
	}
	return nil, false
}

// bounds are the inclusive bounds of a numeric schema, with defaults where it has none.
func bounds(s *openapi3.Schema, lo, hi float64) (float64, float64) {
	if s.Min != nil {
		lo = *s.Min
	}
	if v := s.ExclusiveMin.Value; v != nil {
		lo = *v + 1e-3
	}
	if s.Max != nil {
		hi = *s.Max
	}
	if v := s.ExclusiveMax.Value; v != nil {
		hi = *v - 1e-3
	}
	return lo, hi
}

// randomText is n characters, ASCII letters or (when wild) anything from control characters to emoji.
func randomText(rng *rand.Rand, n int, wild bool) string {
	alphabet := []rune("abcdefghijklmnopqrstuvwxyz0123456789-_")
	if wild {
		alphabet = append(alphabet, []rune("üß漢字🙂\u202e\u0000\u0007\t\n\r\"'<>&%;,=?#/\\ \u00a0\ufffd\U0010ffff")...)
	}
	var b strings.Builder
	for range n {
		b.WriteRune(alphabet[rng.IntN(len(alphabet))])
	}
	return b.String()
}

// mutateParam replaces or adds one parameter with a value the document may refuse (or, at the bounds, accept).
func (g *Generator) mutateParam(rng *rand.Rand, op apitest.Operation, p *openapi3.Parameter, r *Request) {
	values := g.badValues(rng, p)
	kind := rng.IntN(len(values))
	v := values[kind]
	r.Kind = "param " + p.Name + ": " + v.why
	u, _ := url.Parse(r.Path)
	switch p.In {
	case openapi3.ParameterInPath:
		// Rebuild the path with the mutated segment; the other path parameters keep valid values.
		path := "/api/v1" + op.Path
		for _, other := range op.Op.Parameters {
			if other.Value.In == openapi3.ParameterInPath {
				val := g.validParam(rng, other.Value)
				if other.Value.Name == p.Name {
					val = v.value
				}
				path = strings.ReplaceAll(path, "{"+other.Value.Name+"}", url.PathEscape(val))
			}
		}
		r.Path = path
		if u.RawQuery != "" {
			r.Path += "?" + u.RawQuery
		}
	case openapi3.ParameterInQuery:
		q := u.Query()
		if v.repeat {
			q.Add(p.Name, v.value)
		} else {
			q.Set(p.Name, v.value)
		}
		u.RawQuery = q.Encode()
		r.Path = u.String()
	case openapi3.ParameterInHeader:
		// Control characters cannot travel in a header (net/http refuses to send them); the rest can.
		r.Header.Set(p.Name, strings.Map(func(c rune) rune {
			if c < 0x20 && c != '\t' || c == 0x7f {
				return -1
			}
			return c
		}, v.value))
	}
}

type badValue struct {
	why    string
	value  string
	repeat bool
}

// badValues are the candidate mutations for p, chosen from its schema.
func (g *Generator) badValues(rng *rand.Rand, p *openapi3.Parameter) []badValue {
	out := []badValue{
		{why: "empty", value: ""},
		{why: "huge string", value: randomText(rng, MaxHugeString, false)},
		{why: "unicode and control characters", value: randomText(rng, 1+rng.IntN(40), true)},
		{why: "repeated", value: g.validParam(rng, p), repeat: true},
		{why: "leading and trailing spaces", value: " " + g.validParam(rng, p) + " "},
	}
	var s *openapi3.Schema
	if p.Schema != nil {
		s = p.Schema.Value
	}
	if s == nil {
		return out
	}
	if len(s.Enum) > 0 {
		out = append(out, badValue{why: "unknown enum value", value: "not-a-" + p.Name},
			badValue{why: "enum value in upper case", value: strings.ToUpper(fmt.Sprint(s.Enum[0]))})
	}
	numeric := s.Type != nil && (s.Type.Includes("integer") || s.Type.Includes("number"))
	if numeric {
		out = append(out,
			badValue{why: "not a number", value: "abc"},
			badValue{why: "exponent form", value: "1e3"},
			badValue{why: "twenty digits", value: "99999999999999999999"},
			badValue{why: "negative", value: "-1"},
			badValue{why: "NaN", value: "NaN"},
		)
		if s.Type.Includes("integer") {
			out = append(out, badValue{why: "fraction for an integer", value: "1.5"})
		}
		if s.Min != nil {
			out = append(out, badValue{why: "at minimum", value: format(*s.Min)}, badValue{why: "below minimum", value: format(*s.Min - 1)})
		}
		if s.Max != nil {
			out = append(out, badValue{why: "at maximum", value: format(*s.Max)}, badValue{why: "past maximum", value: format(*s.Max + 1)})
		}
	}
	if s.Type != nil && s.Type.Includes("boolean") {
		out = append(out, badValue{why: "not a boolean", value: "maybe"}, badValue{why: "boolean as 1", value: "1"})
	}
	if s.Type != nil && s.Type.Includes("string") {
		if s.MaxLength != nil {
			out = append(out, badValue{why: "past maxLength", value: randomText(rng, int(*s.MaxLength)+1, false)})
		}
		if s.Format == "date" {
			out = append(out, badValue{why: "impossible date", value: "2026-02-30"}, badValue{why: "date in another format", value: "22/11/2026"})
		}
		if s.Format == "uuid" {
			out = append(out, badValue{why: "not a uuid", value: "123"})
		}
	}
	if s.Type != nil && s.Type.Includes("array") {
		out = append(out, badValue{why: "empty items", value: ",,"}, badValue{why: "many items", value: strings.Repeat("x,", 200) + "x"})
	}
	return out
}

// mutateBody replaces the body with one the document refuses (or a valid one sent oddly).
func (g *Generator) mutateBody(rng *rand.Rand, op apitest.Operation, r *Request) {
	if r.Header == nil {
		r.Header = http.Header{}
	}
	r.Header.Set("Content-Type", "application/json")
	valid := r.Body
	if valid == nil {
		valid = []byte("{}")
	}
	var obj map[string]any
	_ = json.Unmarshal(valid, &obj)
	switch rng.IntN(10) {
	case 0:
		r.Kind, r.Body = "body: truncated JSON", valid[:rng.IntN(len(valid))]
	case 1:
		r.Kind, r.Body = "body: an array", []byte(`[1,2,3]`)
	case 2:
		r.Kind, r.Body = "body: empty", nil
	case 3:
		r.Kind, r.Body = "body: larger than 1 MiB", []byte(`{"text":"`+strings.Repeat("a", 1<<20+1024)+`"}`)
	case 4:
		r.Kind, r.Body = "body: nested 10,000 deep", []byte(strings.Repeat("[", 10_000)+strings.Repeat("]", 10_000))
	case 5:
		r.Kind = "body: unknown field"
		if obj == nil {
			obj = map[string]any{}
		}
		obj["no_such_field_"+randomText(rng, 4, false)] = 1
		r.Body, _ = json.Marshal(obj)
	case 6:
		r.Kind = "body: a required field removed"
		for k := range obj {
			delete(obj, k)
			break
		}
		r.Body, _ = json.Marshal(obj)
	case 7:
		r.Kind = "body: fields of the wrong type"
		for k := range obj {
			obj[k] = []any{map[string]any{"x": nil}}
		}
		r.Body, _ = json.Marshal(obj)
	case 8:
		r.Kind = "body: not JSON content type"
		r.Header.Set("Content-Type", "text/plain")
	default:
		r.Kind = "body: strings of unicode and control characters"
		for k, v := range obj {
			if _, ok := v.(string); ok {
				obj[k] = randomText(rng, 1+rng.IntN(200), true)
			}
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(obj)
		r.Body = buf.Bytes()
	}
}
