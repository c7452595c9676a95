// Package apitest starts the real service on a loopback port for tests and checks every answer against the
// OpenAPI document: status documented for the operation, body valid against its schema. Every endpoint test
// goes through it, so a response that drifts from the contract fails the test that saw it.
package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"

	"github.com/switchboard/switchboard/dbtest"
	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/impl"
	"github.com/switchboard/switchboard/server"
	"github.com/switchboard/switchboard/store"
)

// Server is a running service under test.
type Server struct {
	URL   string // base address, e.g. http://127.0.0.1:41234
	Store store.Store
	Logs  *SyncBuffer // everything the service logged, JSON lines
	// Doc is the document the answers are checked against, shared by every Server of the test binary: read it,
	// never change it.
	Doc      *openapi3.T
	t        testing.TB
	contract *contract
}

// Options adjust Start.
type Options struct {
	// API replaces impl.New's handlers (tests of the server's own behaviour use a stub).
	API api.StrictServerInterface
	// Store replaces the fresh SQLite store.
	Store store.Store
	// Deps, when set, adjusts the impl.Deps that Start builds its handlers from (Store, BaseURL and Logger are
	// filled in first), for handlers that need the server's own address, such as the paid route's resource URL.
	Deps func(*impl.Deps)
	// Pages is handed to server.Options (the dashboard, badges and API reference of package web).
	Pages http.Handler
	// MCPHosts is handed to server.Options; the zero value accepts local names, as the loopback test server
	// needs. A policy for loopback (not Public) guards the whole API, as serve does on loopback.
	MCPHosts server.HostPolicy
}

// Start runs the service with a fresh SQLite database in t.TempDir() and stops it when the test ends.
func Start(t testing.TB, o Options) *Server {
	t.Helper()
	ctx := context.Background()
	if o.Store == nil {
		o.Store = dbtest.OpenStore(t, "sqlite://"+filepath.Join(t.TempDir(), "api.db"))
	}
	logs := &SyncBuffer{}
	log := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	hs := httptest.NewUnstartedServer(nil)
	base := "http://" + hs.Listener.Addr().String()
	if o.API == nil {
		deps := impl.Deps{Store: o.Store, BaseURL: base, Logger: log}
		if o.Deps != nil {
			o.Deps(&deps)
		}
		o.API = impl.New(deps)
	}
	h, err := server.NewHandler(ctx, server.Options{API: o.API, Store: o.Store, Logger: log, Pages: o.Pages, MCPHosts: o.MCPHosts,
		GuardHosts: !o.MCPHosts.Public})
	if err != nil {
		t.Fatalf("building the handler: %v", err)
	}
	hs.Config.Handler = h
	hs.Start()
	t.Cleanup(hs.Close)

	c, err := sharedContract()
	if err != nil {
		t.Fatal(err)
	}
	return &Server{URL: base, Store: o.Store, Logs: logs, Doc: c.doc, t: t, contract: c}
}

// Response is a checked answer.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Decode unmarshals the body into v, failing the test on error.
func (r *Response) Decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decoding %s: %v", r.Body, err)
	}
}

// Error returns the "error" field of an error body.
func (r *Response) Error(t testing.TB) string {
	t.Helper()
	var e struct {
		Error *string `json:"error"`
	}
	r.Decode(t, &e)
	if e.Error == nil {
		t.Fatalf("body has no error field: %s", r.Body)
	}
	return *e.Error
}

// Get is Do with GET and no body.
func (s *Server) Get(path string) *Response { return s.Do(http.MethodGet, path, nil, nil) }

// PostJSON is Do with POST and a JSON body (v marshalled, or a string/[]byte sent as is).
func (s *Server) PostJSON(path string, v any) *Response {
	return s.Do(http.MethodPost, path, v, http.Header{"Content-Type": {"application/json"}})
}

// Do sends a request to path (which includes the query) and validates the answer against the document.
func (s *Server) Do(method, path string, body any, header http.Header) *Response {
	s.t.Helper()
	var raw []byte
	switch b := body.(type) {
	case nil:
	case string:
		raw = []byte(b)
	case []byte:
		raw = b
	default:
		var err error
		if raw, err = json.Marshal(b); err != nil {
			s.t.Fatal(err)
		}
	}
	req, err := http.NewRequest(method, s.URL+path, bytes.NewReader(raw))
	if err != nil {
		s.t.Fatal(err)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	got, err := io.ReadAll(res.Body)
	if err != nil {
		s.t.Fatalf("%s %s: reading body: %v", method, path, err)
	}
	r := &Response{Status: res.StatusCode, Header: res.Header, Body: got}
	if err := s.Check(req, r); err != nil {
		s.t.Errorf("%s %s answered %d, which does not follow the OpenAPI document: %v\nbody: %.2000s", method, path, r.Status, err, got)
	}
	return r
}

// Check validates one answer against the document. Answers outside the documented routes (unknown paths,
// wrong methods, /healthz) must still be the service's JSON error or status shape.
func (s *Server) Check(req *http.Request, r *Response) error {
	if r.Header.Get("X-Content-Type-Options") != "nosniff" {
		return errors.New("no X-Content-Type-Options: nosniff")
	}
	if r.Status == http.StatusNotModified || req.Method == http.MethodHead {
		return s.checkBodiless(req, r)
	}
	if ct := r.Header.Get("Content-Type"); r.Status != http.StatusAccepted && !strings.HasPrefix(ct, "application/json") {
		return errors.New("Content-Type is " + ct + ", want application/json")
	}
	route, params, err := s.contract.router.FindRoute(req)
	if err != nil {
		if r.Status < 400 {
			if !strings.HasPrefix(req.URL.Path, server.APIPrefix+"/") {
				return nil // the service's own probes, outside the API
			}
			return errors.New("a route the document does not have answered " + http.StatusText(r.Status))
		}
		if r.Status == http.StatusMethodNotAllowed && r.Header.Get("Allow") == "" {
			return errors.New("405 without an Allow header")
		}
		if s.jsonrpcPath(req) {
			return checkRPCErrorBody(r.Body)
		}
		return checkErrorBody(r.Body)
	}
	if r.Status == http.StatusMethodNotAllowed || r.Status == http.StatusMisdirectedRequest || r.Status == http.StatusRequestTimeout ||
		r.Status == http.StatusRequestEntityTooLarge && route.Operation.Responses.Status(413) == nil {
		// Answered by the router, the Host check, the body deadline or the body limit before any operation
		// ran: same error shape everywhere.
		return checkErrorBody(r.Body)
	}
	// kin-openapi checks the status and the headers; the body is checked against the schema compiled once.
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request: req, PathParams: params, Route: route,
			Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc},
		},
		Status:  r.Status,
		Header:  r.Header,
		Body:    io.NopCloser(bytes.NewReader(r.Body)),
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true, ExcludeResponseBody: true},
	}
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		return err
	}
	return s.contract.checkBody(route.Path, route.Method, route.Operation, r)
}

// checkBodiless checks an answer that has no body: a 304 to a conditional GET (the operation lists 304 and the
// answer names its ETag), or the answer to a HEAD, which is the GET's status and headers.
func (s *Server) checkBodiless(req *http.Request, r *Response) error {
	if len(r.Body) > 0 {
		return fmt.Errorf("a %s answer %d has a body", req.Method, r.Status)
	}
	probe := req.Clone(context.Background())
	probe.Method = http.MethodGet
	route, _, err := s.contract.router.FindRoute(probe)
	if err != nil {
		if r.Status < 400 && strings.HasPrefix(req.URL.Path, server.APIPrefix+"/") {
			return errors.New("a route the document does not have answered " + http.StatusText(r.Status))
		}
		return nil
	}
	if route.Operation.Responses.Status(r.Status) == nil {
		return fmt.Errorf("status %d is not documented for GET %s", r.Status, route.Path)
	}
	if r.Status == http.StatusNotModified && r.Header.Get("ETag") == "" {
		return errors.New("304 without an ETag")
	}
	return nil
}

// jsonrpcPath reports whether the request's path is that of a JSON-RPC operation (x-jsonrpc), whatever the
// method: such a path answers every error as a JSON-RPC error object.
func (s *Server) jsonrpcPath(req *http.Request) bool {
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		probe := req.Clone(context.Background())
		probe.Method = m
		if route, _, err := s.contract.router.FindRoute(probe); err == nil && route.Operation.Extensions["x-jsonrpc"] == true {
			return true
		}
	}
	return false
}

// checkRPCErrorBody checks a JSON-RPC error response to a request that was not read: id null, an error object.
func checkRPCErrorBody(b []byte) error {
	var m struct {
		JSONRPC string `json:"jsonrpc"`
		Error   *struct {
			Code    *int   `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil || json.Unmarshal(b, &members) != nil {
		return errors.New("error body is not JSON")
	}
	if m.JSONRPC != "2.0" || string(members["id"]) != "null" || len(members) != 3 || m.Error == nil || m.Error.Code == nil || m.Error.Message == "" {
		return errors.New("error body is not a JSON-RPC error response with id null")
	}
	return nil
}

func checkErrorBody(b []byte) error {
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return errors.New("error body is not JSON")
	}
	if msg, ok := m["error"].(string); !ok || msg == "" || len(m) != 1 {
		return errors.New(`error body is not {"error": "..."}`)
	}
	return nil
}

// SyncBuffer is a bytes.Buffer safe for the concurrent writes of a logger.
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns everything written so far.
func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
