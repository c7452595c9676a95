package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// jsonFormats are the formats JSON Schema defines that a client may check; OpenAPI's own (int64, double, ...)
// are left out, they mean nothing to a JSON Schema validator.
var jsonFormats = []string{"date-time", "date", "time", "duration", "email", "uri", "uuid", "hostname", "ipv4", "ipv6"}

// jsonSchema converts a parameter's schema into the JSON Schema (2020-12) of a tool argument. It copies only the
// keywords JSON Schema and OpenAPI 3.1 share (types, enums, bounds, lengths, patterns, item counts, defaults,
// descriptions), so OpenAPI-only fields never reach a client.
func jsonSchema(s *openapi3.Schema) map[string]any {
	out := map[string]any{}
	if s == nil {
		return out
	}
	if s.Type != nil && len(*s.Type) > 0 {
		types := s.Type.Slice()
		if s.Nullable && !slices.Contains(types, openapi3.TypeNull) {
			types = append(slices.Clone(types), openapi3.TypeNull)
		}
		if len(types) == 1 {
			out["type"] = types[0]
		} else {
			out["type"] = types
		}
	}
	if s.Title != "" {
		out["title"] = s.Title
	}
	if s.Description != "" {
		out["description"] = s.Description
	}
	if slices.Contains(jsonFormats, s.Format) {
		out["format"] = s.Format
	}
	if len(s.Enum) > 0 {
		out["enum"] = s.Enum
	}
	if s.Const != nil {
		out["const"] = s.Const
	}
	if s.Default != nil {
		out["default"] = s.Default
	}
	if s.Min != nil {
		if s.ExclusiveMin.IsTrue() { // OpenAPI 3.0's boolean form
			out["exclusiveMinimum"] = *s.Min
		} else {
			out["minimum"] = *s.Min
		}
	}
	if s.Max != nil {
		if s.ExclusiveMax.IsTrue() {
			out["exclusiveMaximum"] = *s.Max
		} else {
			out["maximum"] = *s.Max
		}
	}
	if v := s.ExclusiveMin.Value; v != nil {
		out["exclusiveMinimum"] = *v
	}
	if v := s.ExclusiveMax.Value; v != nil {
		out["exclusiveMaximum"] = *v
	}
	if s.MultipleOf != nil {
		out["multipleOf"] = *s.MultipleOf
	}
	if s.MinLength > 0 {
		out["minLength"] = s.MinLength
	}
	if s.MaxLength != nil {
		out["maxLength"] = *s.MaxLength
	}
	if s.Pattern != "" {
		out["pattern"] = s.Pattern
	}
	if s.Items != nil && s.Items.Value != nil {
		out["items"] = jsonSchema(s.Items.Value)
	}
	if s.MinItems > 0 {
		out["minItems"] = s.MinItems
	}
	if s.MaxItems != nil {
		out["maxItems"] = *s.MaxItems
	}
	if s.UniqueItems {
		out["uniqueItems"] = true
	}
	for key, refs := range map[string]openapi3.SchemaRefs{"oneOf": s.OneOf, "anyOf": s.AnyOf, "allOf": s.AllOf} {
		if len(refs) == 0 {
			continue
		}
		list := make([]map[string]any, 0, len(refs))
		for _, r := range refs {
			if r != nil && r.Value != nil {
				list = append(list, jsonSchema(r.Value))
			}
		}
		out[key] = list
	}
	return out
}

// componentRef is how the document points at its reusable schemas; an output schema carries the ones it needs
// under $defs, so it stands alone.
const componentRef = "#/components/schemas/"

// outputSchema is the JSON Schema of the tool's structured result: the schema of the operation's 200 JSON
// answer, copied as the document writes it (an OpenAPI 3.1 schema is a JSON Schema 2020-12 schema), with every
// component it reaches, directly or not, under $defs and the references rewritten to point there. MCP wants an
// object at the root, so a root that is a reference is replaced by the component it names. Nothing is dropped or
// renamed: TestOutputSchemasCopyTheDocument compares each copy with the document's text.
func outputSchema(doc *openapi3.T, op *openapi3.Operation, errorSchema string) (map[string]any, error) {
	resp := op.Responses.Status(200)
	if resp == nil || resp.Value == nil {
		return nil, errors.New("no 200 response")
	}
	mt := resp.Value.Content.Get("application/json")
	if mt == nil || mt.Schema == nil {
		return nil, errors.New("the 200 response has no application/json schema")
	}
	root, err := schemaJSON(mt.Schema)
	if err != nil {
		return nil, err
	}
	if ref, ok := root["$ref"].(string); ok && len(root) == 1 {
		name, ok := strings.CutPrefix(ref, componentRef)
		if !ok {
			return nil, fmt.Errorf("the 200 schema refers to %s, which is not a component schema", ref)
		}
		if root, err = component(doc, name); err != nil {
			return nil, err
		}
	}
	if _, typed := root["type"]; !typed && allObjects(doc, root) {
		// A choice between objects (one record, or the list) is an object: saying so at the root, as MCP wants,
		// adds nothing the branches do not already require.
		root["type"] = "object"
	}
	if root["type"] != "object" {
		return nil, fmt.Errorf("the 200 schema has type %v; an MCP output schema must be an object", root["type"])
	}
	if errorSchema != "" {
		if _, err := component(doc, errorSchema); err != nil {
			return nil, err
		}
		// Either the answer or the error's structured content: both objects, so the root stays an object.
		root = map[string]any{"type": "object", "anyOf": []any{root, map[string]any{"$ref": componentRef + errorSchema}}}
	}
	defs := map[string]any{}
	if err := rewriteRefs(doc, root, defs); err != nil {
		return nil, err
	}
	if len(defs) > 0 {
		if _, taken := root["$defs"]; taken {
			return nil, errors.New("the 200 schema has $defs of its own")
		}
		root["$defs"] = defs
	}
	return root, nil
}

// allObjects reports whether root is a oneOf or anyOf whose every branch is an object schema.
func allObjects(doc *openapi3.T, root map[string]any) bool {
	for _, key := range []string{"oneOf", "anyOf"} {
		branches, ok := root[key].([]any)
		if !ok || len(branches) == 0 {
			continue
		}
		for _, br := range branches {
			m, ok := br.(map[string]any)
			if !ok {
				return false
			}
			if ref, ok := m["$ref"].(string); ok {
				name, ok := strings.CutPrefix(ref, componentRef)
				if !ok {
					return false
				}
				c, err := component(doc, name)
				if err != nil {
					return false
				}
				m = c
			}
			if m["type"] != "object" {
				return false
			}
		}
		return true
	}
	return false
}

// schemaJSON is the schema as JSON data, references kept as written.
func schemaJSON(ref *openapi3.SchemaRef) (map[string]any, error) {
	b, err := json.Marshal(ref)
	if err != nil {
		return nil, fmt.Errorf("encoding a schema: %w", err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("decoding a schema: %w", err)
	}
	return out, nil
}

func component(doc *openapi3.T, name string) (map[string]any, error) {
	ref, ok := doc.Components.Schemas[name]
	if !ok || ref == nil || ref.Value == nil {
		return nil, fmt.Errorf("component schema %s is missing", name)
	}
	// The component's own definition, not a reference to itself.
	return schemaJSON(&openapi3.SchemaRef{Value: ref.Value})
}

// rewriteRefs points every component reference inside v at $defs and adds the component (rewritten in turn)
// to defs. Each component is visited once, so recursive schemas end.
func rewriteRefs(doc *openapi3.T, v any, defs map[string]any) error {
	switch v := v.(type) {
	case map[string]any:
		for key, child := range v {
			ref, isRef := child.(string)
			if key != "$ref" || !isRef {
				if err := rewriteRefs(doc, child, defs); err != nil {
					return err
				}
				continue
			}
			name, ok := strings.CutPrefix(ref, componentRef)
			if !ok {
				return fmt.Errorf("reference %s is not a component schema", ref)
			}
			v[key] = "#/$defs/" + name
			if _, done := defs[name]; done {
				continue
			}
			c, err := component(doc, name)
			if err != nil {
				return err
			}
			defs[name] = c
			if err := rewriteRefs(doc, c, defs); err != nil {
				return err
			}
		}
	case []any:
		for _, child := range v {
			if err := rewriteRefs(doc, child, defs); err != nil {
				return err
			}
		}
	}
	return nil
}
