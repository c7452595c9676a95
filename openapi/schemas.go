package openapi

import (
	"bytes"
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// documentURL names the document inside the schema compiler; nothing is fetched from it.
const documentURL = "mem://switchboard/openapi.json"

// schemas compiles the document's schemas with santhosh-tekuri/jsonschema (JSON Schema 2020-12, formats asserted),
// each at most once per process: kin-openapi compiles a validator anew for every value it checks, which made
// checking many values (the tests' responses, the catalogs' records) cost seconds.
var schemas = sync.OnceValues(func() (*schemaCache, error) {
	raw, err := JSON()
	if err != nil {
		return nil, err
	}
	tree, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("reading the document as JSON: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	// The whole document is one resource, so every $ref of a schema resolves inside it.
	if err := c.AddResource(documentURL, tree); err != nil {
		return nil, fmt.Errorf("adding the document to the schema compiler: %w", err)
	}
	return &schemaCache{compiler: c, compiled: map[string]*jsonschema.Schema{}}, nil
})

type schemaCache struct {
	mu       sync.Mutex
	compiler *jsonschema.Compiler
	compiled map[string]*jsonschema.Schema // by JSON pointer
}

// Schema returns the validator of the schema at pointer, a JSON pointer into the document such as
// /components/schemas/Error, compiled on first use.
func Schema(pointer string) (*jsonschema.Schema, error) {
	c, err := schemas()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.compiled[pointer]; ok {
		return s, nil
	}
	s, err := c.compiler.Compile(documentURL + "#" + pointer)
	if err != nil {
		return nil, fmt.Errorf("compiling the schema at %s: %w", pointer, err)
	}
	c.compiled[pointer] = s
	return s, nil
}

// ComponentSchema is Schema of #/components/schemas/name.
func ComponentSchema(name string) (*jsonschema.Schema, error) {
	return Schema("/components/schemas/" + EscapePointer(name))
}

// EscapePointer escapes one JSON pointer token (RFC 6901).
func EscapePointer(s string) string { return pointerEscaper.Replace(s) }

var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")
