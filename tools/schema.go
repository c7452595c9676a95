package tools

import (
	"slices"

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
