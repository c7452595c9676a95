package server_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/switchboard/switchboard/openapi"
)

// TestRequestSchemasAvoid2020Keywords guards the validator's shortcut: requests are validated by kin-openapi's
// own validator (see newValidator), which does not know the JSON Schema 2020-12 keywords below. A request
// schema that used one would have it silently ignored, so none may.
func TestRequestSchemasAvoid2020Keywords(t *testing.T) {
	doc, err := openapi.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			where := method + " " + path
			for _, p := range op.Parameters {
				checked++
				check(t, fmt.Sprintf("%s parameter %s", where, p.Value.Name), p.Value.Schema)
			}
			if op.RequestBody != nil {
				for ct, mt := range op.RequestBody.Value.Content {
					checked++
					check(t, fmt.Sprintf("%s body %s", where, ct), mt.Schema)
				}
			}
		}
	}
	if checked < 100 {
		t.Fatalf("only %d request schemas found", checked)
	}
}

func check(t *testing.T, where string, ref *openapi3.SchemaRef) {
	t.Helper()
	if ref == nil {
		return
	}
	seen := map[*openapi3.Schema]bool{}
	var walk func(path string, s *openapi3.Schema)
	walk = func(path string, s *openapi3.Schema) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		if kw := keyword2020(s); kw != "" {
			t.Errorf("%s%s uses %s, which kin-openapi's own validator ignores", where, path, kw)
		}
		for name, p := range s.Properties {
			walk(path+"."+name, p.Value)
		}
		if s.Items != nil {
			walk(path+"[]", s.Items.Value)
		}
		for i, sub := range append(append(append([]*openapi3.SchemaRef{}, s.OneOf...), s.AnyOf...), s.AllOf...) {
			walk(fmt.Sprintf("%s/%d", path, i), sub.Value)
		}
		if s.Not != nil {
			walk(path+"/not", s.Not.Value)
		}
		if s.AdditionalProperties.Schema != nil {
			walk(path+"{}", s.AdditionalProperties.Schema.Value)
		}
	}
	walk("", ref.Value)
}

// keyword2020 names the first JSON Schema 2020-12 keyword s uses that kin-openapi's own validator ignores.
func keyword2020(s *openapi3.Schema) string {
	switch {
	case s.Const != nil:
		return "const"
	case len(s.PrefixItems) != 0:
		return "prefixItems"
	case s.Contains != nil:
		return "contains"
	case len(s.PatternProperties) != 0:
		return "patternProperties"
	case len(s.DependentSchemas) != 0, len(s.DependentRequired) != 0:
		return "dependentSchemas/dependentRequired"
	case s.PropertyNames != nil:
		return "propertyNames"
	case s.UnevaluatedItems.Has != nil || s.UnevaluatedItems.Schema != nil:
		return "unevaluatedItems"
	case s.UnevaluatedProperties.Has != nil || s.UnevaluatedProperties.Schema != nil:
		return "unevaluatedProperties"
	case s.If != nil || s.Then != nil || s.Else != nil:
		return "if/then/else"
	case len(s.Defs) != 0:
		return "$defs"
	case s.ContentSchema != nil:
		return "contentSchema"
	}
	return ""
}

func TestKeyword2020(t *testing.T) {
	if kw := keyword2020(&openapi3.Schema{Const: "x"}); kw != "const" {
		t.Errorf("const: %q", kw)
	}
	if kw := keyword2020(&openapi3.Schema{If: &openapi3.SchemaRef{Value: &openapi3.Schema{}}}); kw != "if/then/else" {
		t.Errorf("if: %q", kw)
	}
	if kw := keyword2020(openapi3.NewIntegerSchema().WithMin(1)); kw != "" {
		t.Errorf("plain integer: %q", kw)
	}
}
