package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/switchboard/switchboard/tools"
)

// validator checks every request against the OpenAPI document before any handler runs: a request the document
// does not allow never reaches the code behind it.
type validator struct {
	router  routers.Router
	options *openapi3filter.Options
	// routes keeps the routes found for paths without path parameters, by method and path: kin-openapi's
	// router tries the document's paths one by one (a sixth of a /health request's time). Only found routes of
	// the document's own fixed paths are kept, so the map never holds more than the document has operations; the document's server URL is relative, so the
	// host takes no part in matching.
	routes sync.Map // routeKey -> *routers.Route
	// valid remembers the GET requests found valid, by path and query, for the operations whose requests are
	// nothing but their path and query (no header, cookie or body to check): the same URI is valid again, and
	// decoding and checking its parameters was a tenth of a /pick. Bounded; a request not found is checked.
	valid *lru.Cache[string, struct{}]
	// pathAndQueryOnly are the operations whose requests are wholly their path and query (onlyPathAndQuery),
	// read off the document once.
	pathAndQueryOnly map[*openapi3.Operation]bool
}

// routeKey is a request's method and path (a struct, not a joined string: no string is built per request).
type routeKey struct{ method, path string }

// validURIs bounds the valid request URIs remembered.
const validURIs = 4096

// onlyPathAndQuery says whether op's requests are wholly described by their path and query.
func onlyPathAndQuery(item *openapi3.PathItem, op *openapi3.Operation) bool {
	if op.RequestBody != nil {
		return false
	}
	for _, params := range []openapi3.Parameters{item.Parameters, op.Parameters} {
		for _, p := range params {
			if p.Value == nil || (p.Value.In != openapi3.ParameterInQuery && p.Value.In != openapi3.ParameterInPath) {
				return false
			}
		}
	}
	return true
}

// findRoute is router.FindRoute, remembered for the fixed paths.
func (v *validator) findRoute(r *http.Request) (*routers.Route, map[string]string, error) {
	key := routeKey{r.Method, r.URL.Path}
	if route, ok := v.routes.Load(key); ok {
		return route.(*routers.Route), nil, nil
	}
	route, params, err := v.router.FindRoute(r)
	if err == nil && len(params) == 0 && !strings.Contains(route.Path, "{") {
		v.routes.Store(key, route)
	}
	return route, params, err
}

func newValidator(doc *openapi3.T) (*validator, error) {
	// kin-openapi validates the requests of a 3.1 document with a JSON Schema 2020-12 validator that it compiles
	// anew for every parameter of every request (about 30 µs each). The routes are therefore built over a copy of
	// the document that declares 3.0, which makes kin-openapi use its own validator, the one it already uses for
	// request bodies; the schemas are the same objects. The document uses no 2020-12 keyword in request schemas
	// (TestRequestSchemasAvoid2020Keywords keeps it so), so both validators accept the same requests.
	legacy := *doc
	legacy.OpenAPI = "3.0.3"
	r, err := gorillamux.NewRouter(&legacy)
	if err != nil {
		return nil, fmt.Errorf("building the request router from the OpenAPI document: %w", err)
	}
	valid, err := lru.New[string, struct{}](validURIs)
	if err != nil {
		return nil, err
	}
	only := map[*openapi3.Operation]bool{}
	for _, item := range doc.Paths.Map() {
		if op := item.Get; op != nil && onlyPathAndQuery(item, op) {
			only[op] = true
		}
	}
	return &validator{router: r, valid: valid, pathAndQueryOnly: only, options: &openapi3filter.Options{
		// The premium route's x402 scheme is enforced by its handler's payment guard (package x402), not here.
		AuthenticationFunc: openapi3filter.NoopAuthenticationFunc,
		// kin-openapi would write defaults back into the query, formatting 1000000 as 1e+06, which the
		// generated binder cannot read as an integer. Handlers apply the document's defaults themselves.
		SkipSettingDefaults: true,
	}}, nil
}

func (v *validator) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// HEAD is GET without the body (RFC 9110 9.3.2): it is routed and validated as the GET it stands for.
		probe := r
		if r.Method == http.MethodHead {
			probe = r.Clone(r.Context())
			probe.Method = http.MethodGet
		}
		route, params, err := v.findRoute(probe)
		switch {
		case errors.Is(err, routers.ErrMethodNotAllowed):
			v.methodNotAllowed(w, r)
			return
		case err != nil:
			WriteError(w, http.StatusNotFound, "no such endpoint: "+r.URL.Path)
			return
		}
		memo := ""
		if probe.Method == http.MethodGet && v.pathAndQueryOnly[route.Operation] {
			memo = requestURI(probe)
		}
		if memo != "" && v.valid.Contains(memo) {
			v.pass(w, r, route, probe, next)
			return
		}
		in := &openapi3filter.RequestValidationInput{Request: probe, PathParams: params, Route: route, Options: v.options}
		if err := openapi3filter.ValidateRequest(r.Context(), in); err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				WriteError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body: larger than %d bytes", tooBig.Limit))
				return
			}
			if route.Operation.Extensions["x-jsonrpc"] == true && isBodyParseError(err) {
				// A JSON-RPC endpoint answers a body that is not JSON with JSON-RPC's parse error (-32700), the
				// one error its clients read.
				writeJSON(w, http.StatusBadRequest, json.RawMessage(tools.ParseError()))
				return
			}
			WriteError(w, http.StatusBadRequest, DescribeValidationError(err))
			return
		}
		if memo != "" {
			v.valid.Add(memo, struct{}{})
		}
		v.pass(w, r, route, probe, next)
	})
}

// pass hands a valid request to next, with its operation's Cache-Control on a GET.
func (v *validator) pass(w http.ResponseWriter, r *http.Request, route *routers.Route, probe *http.Request, next http.Handler) {
	if probe.Method == http.MethodGet {
		w.Header().Set("Cache-Control", cacheControlOf(route.Operation))
	}
	next.ServeHTTP(w, r)
}

// methodNotAllowed answers 405 with the Allow header HTTP requires, listing the methods the document has for
// the path (for the MCP endpoint, POST: it offers no server-sent event stream).
func (v *validator) methodNotAllowed(w http.ResponseWriter, r *http.Request) {
	var allowed []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, _, err := v.router.FindRoute(probe); err == nil {
			allowed = append(allowed, m)
			if m == http.MethodGet {
				allowed = append(allowed, http.MethodHead) // served wherever GET is
			}
		}
	}
	if len(allowed) > 0 {
		w.Header().Set("Allow", strings.Join(allowed, ", "))
	}
	WriteError(w, http.StatusMethodNotAllowed, fmt.Sprintf("method %s not allowed on %s", r.Method, r.URL.Path))
}

func isBodyParseError(err error) bool {
	var re *openapi3filter.RequestError
	var pe *openapi3filter.ParseError
	return errors.As(err, &re) && re.RequestBody != nil && errors.As(re.Err, &pe)
}

// DescribeValidationError turns kin-openapi's error into one sentence that names the parameter or body field,
// such as "parameter limit: must be at most 50". It never repeats the value the caller sent: values can be
// secrets or text that must not be echoed.
func DescribeValidationError(err error) string {
	var re *openapi3filter.RequestError
	if !errors.As(err, &re) {
		return "invalid request"
	}
	var se *openapi3.SchemaError
	hasSchemaErr := errors.As(re.Err, &se)
	switch {
	case re.Parameter != nil:
		name := fmt.Sprintf("parameter %s", re.Parameter.Name)
		if re.Parameter.In == openapi3.ParameterInHeader {
			name = fmt.Sprintf("header %s", re.Parameter.Name)
		}
		switch {
		case errors.Is(re.Err, openapi3filter.ErrInvalidRequired) || re.Reason == "must have a value" && re.Err == nil:
			return name + ": is required"
		case hasSchemaErr:
			if path := se.JSONPointer(); len(path) == 1 {
				if i, err := strconv.Atoi(path[0]); err == nil {
					// A comma-separated list: say which item.
					return fmt.Sprintf("%s: item %d: %s", name, i+1, schemaReason(se))
				}
			}
			return name + ": " + schemaReason(se)
		default:
			return name + ": " + typeReason(re.Parameter)
		}
	case re.RequestBody != nil:
		switch {
		case errors.Is(re.Err, openapi3filter.ErrInvalidRequired):
			return "request body: is required"
		case hasSchemaErr:
			path := se.JSONPointer()
			if se.SchemaField == "required" && len(path) > 0 {
				// kin-openapi's own validator points at the missing property; the message names it instead.
				path = path[:len(path)-1]
			}
			if len(path) > 0 {
				return fmt.Sprintf("body field %s: %s", strings.Join(path, "."), schemaReason(se))
			}
			return "request body: " + schemaReason(se)
		default:
			var pe *openapi3filter.ParseError
			if errors.As(re.Err, &pe) {
				return "request body: not valid JSON"
			}
			if re.Reason != "" {
				return "request body: " + re.Reason
			}
			return "request body: invalid"
		}
	}
	if re.Reason != "" {
		return re.Reason
	}
	return "invalid request"
}

// schemaReason words a schema failure from the failing keyword and its bound, so the message is stable and
// never contains the caller's value. kin-openapi validates 3.1 documents with santhosh-tekuri/jsonschema and
// keeps that library's error reachable; its innermost error names the keyword that failed.
func schemaReason(se *openapi3.SchemaError) string {
	var ve *jsonschema.ValidationError
	if !errors.As(se, &ve) {
		// Request bodies go through kin-openapi's own validator, whose error carries the schema and keyword.
		return fieldReason(se)
	}
	leaf := ve
	for len(leaf.Causes) > 0 {
		leaf = leaf.Causes[0]
	}
	return kindReason(leaf.ErrorKind)
}

func kindReason(k jsonschema.ErrorKind) string {
	switch k := k.(type) {
	case *kind.Maximum:
		return "must be at most " + k.Want.FloatString(ratPrec(k.Want))
	case *kind.Minimum:
		return "must be at least " + k.Want.FloatString(ratPrec(k.Want))
	case *kind.ExclusiveMaximum:
		return "must be less than " + k.Want.FloatString(ratPrec(k.Want))
	case *kind.ExclusiveMinimum:
		return "must be greater than " + k.Want.FloatString(ratPrec(k.Want))
	case *kind.Enum:
		vals := make([]string, len(k.Want))
		for i, v := range k.Want {
			vals[i] = fmt.Sprint(v)
		}
		return "must be one of " + strings.Join(vals, ", ")
	case *kind.Type:
		return "must be of type " + strings.Join(k.Want, " or ")
	case *kind.MaxLength:
		return "must be at most " + plural(k.Want, "character")
	case *kind.MinLength:
		return "must be at least " + plural(k.Want, "character")
	case *kind.MaxItems:
		return "must have at most " + plural(k.Want, "item")
	case *kind.MinItems:
		return "must have at least " + plural(k.Want, "item")
	case *kind.UniqueItems:
		return "must not repeat an item"
	case *kind.Pattern:
		return "must match the pattern " + k.Want
	case *kind.Format:
		return "must be a valid " + k.Want
	case *kind.Required:
		return "missing required field " + strings.Join(k.Missing, ", ")
	case *kind.AdditionalProperties:
		return "unknown field " + strings.Join(k.Properties, ", ")
	case *kind.OneOf, *kind.AnyOf:
		return "does not match any allowed shape"
	}
	return "invalid value"
}

// fieldReason words an error of kin-openapi's own validator from the failing keyword and the schema's bound.
func fieldReason(se *openapi3.SchemaError) string {
	sc := se.Schema
	if sc == nil {
		return "invalid value"
	}
	switch se.SchemaField {
	case "maximum":
		if sc.Max != nil {
			return fmt.Sprintf("must be at most %v", *sc.Max)
		}
	case "minimum":
		if sc.Min != nil {
			return fmt.Sprintf("must be at least %v", *sc.Min)
		}
	case "exclusiveMaximum":
		if v := sc.ExclusiveMax.Value; v != nil {
			return fmt.Sprintf("must be less than %v", *v)
		}
	case "exclusiveMinimum":
		if v := sc.ExclusiveMin.Value; v != nil {
			return fmt.Sprintf("must be greater than %v", *v)
		}
	case "enum":
		vals := make([]string, len(sc.Enum))
		for i, v := range sc.Enum {
			vals[i] = fmt.Sprint(v)
		}
		return "must be one of " + strings.Join(vals, ", ")
	case "type":
		if sc.Type != nil {
			return "must be of type " + strings.Join(sc.Type.Slice(), " or ")
		}
	case "maxLength":
		if sc.MaxLength != nil {
			return "must be at most " + plural(int(*sc.MaxLength), "character")
		}
	case "minLength":
		return "must be at least " + plural(int(sc.MinLength), "character")
	case "maxItems":
		if sc.MaxItems != nil {
			return "must have at most " + plural(int(*sc.MaxItems), "item")
		}
	case "minItems":
		return "must have at least " + plural(int(sc.MinItems), "item")
	case "uniqueItems":
		return "must not repeat an item"
	case "pattern":
		return "must match the pattern " + sc.Pattern
	case "format":
		return "must be a valid " + sc.Format
	case "required":
		// kin's reason is `property "model" is missing`.
		if name, ok := strings.CutPrefix(se.Reason, "property "); ok && strings.HasSuffix(name, " is missing") {
			return "missing required field " + strings.Trim(strings.TrimSuffix(name, " is missing"), `"`)
		}
		return se.Reason
	case "additionalProperties", "oneOf", "anyOf":
		// kin's reason names the property, never the value.
		return se.Reason
	case "properties":
		// An unknown property, as kin's own validator words it: `property "colour" is unsupported`.
		if name, ok := strings.CutPrefix(se.Reason, "property "); ok && strings.HasSuffix(name, " is unsupported") {
			return "unknown field " + strings.Trim(strings.TrimSuffix(name, " is unsupported"), `"`)
		}
	case "not":
		if sc.Not != nil && sc.Not.Value != nil && sc.Not.Value.Type.Is("null") {
			return "must not be null"
		}
	}
	return "invalid value"
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// ratPrec is how many decimals print a bound exactly enough: integers with none.
func ratPrec(r *big.Rat) int {
	if r.IsInt() {
		return 0
	}
	return 6
}

// typeReason words a value that could not be parsed as its parameter's type (e.g. limit=abc).
func typeReason(p *openapi3.Parameter) string {
	if p.Schema != nil && p.Schema.Value != nil && p.Schema.Value.Type != nil {
		t := p.Schema.Value.Type
		switch {
		case t.Includes("array"):
			return "invalid list"
		case t.Includes("integer"):
			return "must be an integer"
		case t.Includes("number"):
			return "must be a number"
		case t.Includes("boolean"):
			return "must be true or false"
		}
	}
	return "invalid value"
}
