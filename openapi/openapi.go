// Package openapi embeds the hand-written OpenAPI 3.1 document, the source of truth for routes, parameters,
// validation, the generated server and the MCP tools.
package openapi

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
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
