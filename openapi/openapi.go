// Package openapi embeds the hand-written OpenAPI 3.1 document, the source of truth for routes, parameters,
// validation, the generated server and the MCP tools.
package openapi

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"go.yaml.in/yaml/v3"
)

//go:embed openapi.yaml
var document []byte

// YAML returns the document as written.
func YAML() []byte { return document }

// JSON returns the document converted to JSON, as served at /api/v1/openapi.json.
var JSON = sync.OnceValues(func() ([]byte, error) {
	var v any
	if err := yaml.Unmarshal(document, &v); err != nil {
		return nil, fmt.Errorf("parsing openapi.yaml: %w", err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("converting openapi.yaml to JSON: %w", err)
	}
	return b, nil
})

// Load parses and validates the document with kin-openapi. Every call returns a fresh copy, so callers may
// adjust it (for example its servers) without affecting others.
func Load(ctx context.Context) (*openapi3.T, error) {
	b, err := JSON()
	if err != nil {
		return nil, err
	}
	loader := openapi3.NewLoader()
	loader.Context = ctx
	doc, err := loader.LoadFromData(b)
	if err != nil {
		return nil, fmt.Errorf("loading the OpenAPI document: %w", err)
	}
	if err := doc.Validate(ctx); err != nil {
		return nil, fmt.Errorf("validating the OpenAPI document: %w", err)
	}
	return doc, nil
}

// Shared returns the document parsed and validated once per process, for callers that only read it (the
// server's routes and validator, the MCP tools, the tests' contract checks). Parsing is a quarter of a second of
// CPU: a test binary that starts the service many times pays it once. Callers that adjust the document use Load.
func Shared() (*openapi3.T, error) { return shared() }

var shared = sync.OnceValues(func() (*openapi3.T, error) { return Load(context.Background()) })

// Property is one property of a component schema: its name and, when its value is an object or an array of
// objects of another component schema (a $ref, directly, as array items, or as the one $ref of an anyOf/oneOf/allOf),
// that schema's name.
type Property struct {
	Name string
	Ref  string
}

// properties maps each component schema to its properties in the order the document writes them (kin-openapi
// keeps properties in a map, which has none).
var properties = sync.OnceValues(func() (map[string][]Property, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(document, &root); err != nil {
		return nil, fmt.Errorf("parsing openapi.yaml: %w", err)
	}
	schemas := child(child(root.Content[0], "components"), "schemas")
	if schemas == nil {
		return nil, fmt.Errorf("openapi.yaml has no components.schemas")
	}
	out := map[string][]Property{}
	for i := 0; i+1 < len(schemas.Content); i += 2 {
		props := child(schemas.Content[i+1], "properties")
		if props == nil {
			continue
		}
		list := make([]Property, 0, len(props.Content)/2)
		for j := 0; j+1 < len(props.Content); j += 2 {
			list = append(list, Property{Name: props.Content[j].Value, Ref: refOf(props.Content[j+1])})
		}
		out[schemas.Content[i].Value] = list
	}
	return out, nil
})

// refOf is the component schema name a property schema refers to (see Property); "" when none or several.
func refOf(n *yaml.Node) string {
	const prefix = "#/components/schemas/"
	if r := child(n, "$ref"); r != nil && strings.HasPrefix(r.Value, prefix) {
		return strings.TrimPrefix(r.Value, prefix)
	}
	if items := child(n, "items"); items != nil {
		return refOf(items)
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		alt := child(n, k)
		if alt == nil || alt.Kind != yaml.SequenceNode {
			continue
		}
		ref := ""
		for _, a := range alt.Content {
			if r := refOf(a); r != "" {
				if ref != "" {
					return ""
				}
				ref = r
			}
		}
		return ref
	}
	return ""
}

// child is the value of key in a YAML mapping node; nil when absent.
func child(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// PropertyOrder returns the property names of the component schema name, in the document's order; false when the
// schema does not exist or has no properties.
func PropertyOrder(name string) ([]string, bool) {
	props, ok := Properties(name)
	if !ok {
		return nil, false
	}
	names := make([]string, len(props))
	for i, p := range props {
		names[i] = p.Name
	}
	return names, true
}

// Properties returns the properties of the component schema name, in the document's order; false when the schema
// does not exist or has no properties.
func Properties(name string) ([]Property, bool) {
	m, err := properties()
	if err != nil {
		return nil, false
	}
	p, ok := m[name]
	return p, ok
}
