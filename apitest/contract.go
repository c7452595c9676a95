package apitest

import (
	"bytes"
	"fmt"
	"mime"
	"strconv"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/switchboard/switchboard/openapi"
)

// contract is the OpenAPI document as the checks use it: parsed, routed and with every response body schema
// compiled at most once per test binary. kin-openapi compiles a JSON Schema 2020-12 validator for every body it
// validates (most of a check's cost, and most of some packages' test time under -race), so bodies are checked
// here with santhosh-tekuri/jsonschema, the library kin-openapi uses, compiled from the document itself.
type contract struct {
	doc    *openapi3.T
	router routers.Router
	// compiler holds the whole document as one resource, so a response schema's $refs resolve inside it.
	compiler *jsonschema.Compiler

	mu      sync.Mutex
	schemas map[string]*jsonschema.Schema // by JSON pointer into the document
}

// documentURL names the document inside the compiler; nothing is fetched from it.
const documentURL = "mem://switchboard/openapi.json"

// sharedContract is made on first use; the document is read-only from then on, and tests only read it.
var sharedContract = sync.OnceValues(func() (*contract, error) {
	doc, err := openapi.Shared()
	if err != nil {
		return nil, err
	}
	// Match routes on any host: the document's server is the relative /api/v1.
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("routing the document: %w", err)
	}
	raw, err := openapi.JSON()
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
	if err := c.AddResource(documentURL, tree); err != nil {
		return nil, fmt.Errorf("adding the document to the schema compiler: %w", err)
	}
	return &contract{doc: doc, router: router, compiler: c, schemas: map[string]*jsonschema.Schema{}}, nil
})

// responseSchema returns the compiled body schema of op's answer with status and Content-Type ct, or nil
// when the document gives the answer no body schema. An answer the document does not describe is an error.
func (c *contract) responseSchema(path, method string, op *openapi3.Operation, status int, ct string) (*jsonschema.Schema, error) {
	pointer := "/paths/" + escapePointer(path) + "/" + strings.ToLower(method) + "/responses/"
	code := strconv.Itoa(status)
	ref := op.Responses.Value(code)
	if ref == nil {
		ref, code = op.Responses.Default(), "default"
	}
	if ref == nil {
		return nil, fmt.Errorf("status %d is not documented", status)
	}
	pointer += code
	if ref.Ref != "" {
		// A shared response (#/components/responses/...): its schema lives there.
		name, ok := strings.CutPrefix(ref.Ref, "#/components/responses/")
		if !ok {
			return nil, fmt.Errorf("response reference %s is outside the document's components", ref.Ref)
		}
		pointer = "/components/responses/" + escapePointer(name)
	}
	if ref.Value == nil || len(ref.Value.Content) == 0 {
		return nil, nil
	}
	mediaType, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return nil, fmt.Errorf("Content-Type %q: %w", ct, err)
	}
	media := ref.Value.Content[mediaType]
	key := mediaType
	if media == nil {
		// The document's own wildcard entries (application/*, */*), as kin-openapi's Content.Get reads them.
		for _, k := range []string{strings.SplitN(mediaType, "/", 2)[0] + "/*", "*/*"} {
			if media = ref.Value.Content[k]; media != nil {
				key = k
				break
			}
		}
	}
	if media == nil {
		return nil, fmt.Errorf("Content-Type %s is not documented for status %d", mediaType, status)
	}
	if media.Schema == nil {
		return nil, nil
	}
	pointer += "/content/" + escapePointer(key) + "/schema"

	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.schemas[pointer]; ok {
		return s, nil
	}
	s, err := c.compiler.Compile(documentURL + "#" + pointer)
	if err != nil {
		return nil, fmt.Errorf("compiling the schema at %s: %w", pointer, err)
	}
	c.schemas[pointer] = s
	return s, nil
}

// checkBody validates a JSON body against the schema the document gives op's answer.
func (c *contract) checkBody(path, method string, op *openapi3.Operation, r *Response) error {
	s, err := c.responseSchema(path, method, op, r.Status, r.Header.Get("Content-Type"))
	if err != nil || s == nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(r.Body))
	if err != nil {
		return fmt.Errorf("response body is not JSON: %w", err)
	}
	if err := s.Validate(v); err != nil {
		return fmt.Errorf("response body doesn't match schema: %w", err)
	}
	return nil
}

// escapePointer escapes one JSON pointer token (RFC 6901).
func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
