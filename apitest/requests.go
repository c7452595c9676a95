package apitest

import (
	"fmt"
	"maps"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// Operation is one method + path of the document with what a test needs to call it.
type Operation struct {
	Method, Path, ID string
	Op               *openapi3.Operation
}

// Operations lists the document's operations in a stable order.
func Operations(doc *openapi3.T) []Operation {
	var ops []Operation
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			ops = append(ops, Operation{Method: method, Path: path, ID: op.OperationID, Op: op})
		}
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i].ID < ops[j].ID })
	return ops
}

// sampleByName gives values for parameters whose valid values the schema cannot tell (provider IDs).
var sampleByName = map[string]string{
	"provider": "openai", "primary": "openai", "from": "openai", "to": "anthropic",
	"providers": "openai,anthropic", "avoid": "openai",
	"id": "6f1c1e52-8d0b-4c51-9f39-2f8f0e3d1a01",
}

// sampleBodies are bodies for operations whose rules the schema cannot express (exactly one of two fields).
var sampleBodies = map[string]map[string]any{
	"createAttestation": {"provider": "openai", "model": "gpt-4o", "output": "sample output"},
}

// sampleQueries are query parameters for operations that need one of several optional parameters (a rule the
// schema cannot express: at least one of from and to).
var sampleQueries = map[string]map[string]string{
	"getMigrationGuide": {"from": "openai"},
}

// MinimalRequest returns the path with query for a request that carries every required parameter with a valid
// value, and a valid body when the operation takes one.
func (o Operation) MinimalRequest() (path string, body any, err error) {
	path = "/api/v1" + o.Path
	q := url.Values{}
	for _, pr := range o.Op.Parameters {
		p := pr.Value
		if !p.Required {
			continue
		}
		v, err := sampleParam(p)
		if err != nil {
			return "", nil, fmt.Errorf("%s: %w", o.ID, err)
		}
		switch p.In {
		case openapi3.ParameterInPath:
			path = strings.ReplaceAll(path, "{"+p.Name+"}", url.PathEscape(v))
		case openapi3.ParameterInQuery:
			q.Set(p.Name, v)
		}
	}
	for k, v := range sampleQueries[o.ID] {
		q.Set(k, v)
	}
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	if b, ok := sampleBodies[o.ID]; ok {
		// A copy: callers add to the body they get (the contract fuzzer does, from several goroutines).
		return path, maps.Clone(b), nil
	}
	if rb := o.Op.RequestBody; rb != nil && rb.Value.Required {
		mt := rb.Value.Content.Get("application/json")
		if mt == nil || mt.Schema == nil {
			return "", nil, fmt.Errorf("%s: body without a JSON schema", o.ID)
		}
		body, err = SampleValue("", mt.Schema.Value)
		if err != nil {
			return "", nil, fmt.Errorf("%s: body: %w", o.ID, err)
		}
		if body == nil {
			body = map[string]any{}
		}
	}
	return path, body, nil
}

func sampleParam(p *openapi3.Parameter) (string, error) {
	if v, ok := sampleByName[p.Name]; ok {
		return v, nil
	}
	v, err := SampleValue(p.Name, p.Schema.Value)
	if err != nil {
		return "", fmt.Errorf("parameter %s: %w", p.Name, err)
	}
	switch v := v.(type) {
	case []any:
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = fmt.Sprint(x)
		}
		return strings.Join(parts, ","), nil
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64), nil
	default:
		return fmt.Sprint(v), nil
	}
}

// SampleValue builds a small value valid against s: required properties only, the first enum value, the lower
// bound of a number. Patterns it cannot satisfy are an error, so a test names what to add here.
func SampleValue(name string, s *openapi3.Schema) (any, error) {
	if s == nil {
		return nil, nil
	}
	if len(s.Enum) > 0 {
		return s.Enum[0], nil
	}
	if s.Default != nil {
		return s.Default, nil
	}
	if v, ok := sampleByName[name]; ok && s.Type.Is("string") {
		return v, nil
	}
	switch {
	case s.Type.Includes("object"):
		m := map[string]any{}
		for _, req := range s.Required {
			ps := s.Properties[req]
			if ps == nil {
				return nil, fmt.Errorf("required property %s has no schema", req)
			}
			v, err := SampleValue(req, ps.Value)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", req, err)
			}
			m[req] = v
		}
		return m, nil
	case s.Type.Includes("array"):
		n := max(int(s.MinItems), 1)
		out := make([]any, 0, n)
		for range n {
			v, err := SampleValue(name, s.Items.Value)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case s.Type.Includes("integer"), s.Type.Includes("number"):
		if s.Min != nil {
			return *s.Min, nil
		}
		return 1, nil
	case s.Type.Includes("boolean"):
		return true, nil
	case s.Type.Includes("string"):
		if s.Pattern != "" {
			return nil, fmt.Errorf("cannot make a value for pattern %s", s.Pattern)
		}
		switch s.Format {
		case "uri":
			return "https://example.com/hook", nil
		case "uuid":
			return "6f1c1e52-8d0b-4c51-9f39-2f8f0e3d1a01", nil
		case "date":
			return "2026-01-01", nil
		}
		return strings.Repeat("x", max(int(s.MinLength), 1)), nil
	}
	return nil, nil
}
