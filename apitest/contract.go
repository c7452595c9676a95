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

// contract is the OpenAPI document as the checks use it: parsed and routed once per test binary, with every
// response body schema compiled at most once (openapi.Schema). kin-openapi compiles a JSON Schema 2020-12
// validator for every body it validates (most of a check's cost, and most of some packages' test time under
// -race), so bodies are checked with santhosh-tekuri/jsonschema, the library kin-openapi uses, compiled from the
// document itself.
type contract struct {
	doc    *openapi3.T
	router routers.Router
}

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
	return &contract{doc: doc, router: router}, nil
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
	return openapi.Schema(pointer + "/content/" + escapePointer(key) + "/schema")
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

var escapePointer = openapi.EscapePointer
