// Package server assembles the HTTP handler: request validation against the OpenAPI document, the generated
// router over impl's handlers, the service's own probes, and the middleware every request passes through.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/switchboard/switchboard/catalog"
	"github.com/switchboard/switchboard/errs"
	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/openapi"
	"github.com/switchboard/switchboard/store"
)

// Defaults for Options.
const (
	DefaultMaxBodyBytes = 1 << 20 // 1 MiB
	APIPrefix           = "/api/v1"
)

// Options configure NewHandler.
type Options struct {
	API          api.StrictServerInterface
	Store        store.Store // pinged by /readyz
	Logger       *slog.Logger
	MaxBodyBytes int64
	// Metrics, when set, is served at /metrics (outside the API, not validated against the document).
	Metrics http.Handler
	// Instrument, when set, wraps every request, outermost (the metrics middleware: it reads the route pattern
	// once routing ran).
	Instrument func(http.Handler) http.Handler
	// Pages, when set, serves the pages for people outside the API: /, /providers/*, /badge/*, /docs and
	// /assets/*. Every other path keeps the JSON 404.
	Pages http.Handler

	// The limits below apply to the API and the pages, not to /healthz, /readyz and /metrics, which must answer
	// an orchestrator even when clients saturate the service.

	// MaxInFlight bounds the requests served at once (DefaultMaxInFlight when not positive); QueueWait is how
	// long a request waits for a slot before 503 (DefaultQueueWait when not positive).
	MaxInFlight int
	QueueWait   time.Duration
	// MaxPerClient bounds the requests of one client at once, ahead of the shared slots (DefaultMaxPerClient
	// when not positive); 429 beyond.
	MaxPerClient int
	// BodyReadTimeout is how long a request's body may take to arrive, read before it takes a slot
	// (DefaultBodyReadTimeout when not positive); 408 beyond.
	BodyReadTimeout time.Duration
	// ObserveAdmission, when set, is handed the function that reads the admission's state (the saturation
	// metrics), once.
	ObserveAdmission func(stats func() AdmissionStats)
	// RequestTimeout is every request's deadline (DefaultRequestTimeout when not positive).
	RequestTimeout time.Duration
	// RateLimitPerMinute, when positive, limits each client to that many requests per minute (429 beyond).
	RateLimitPerMinute int
	// TrustedProxies are the address prefixes (CIDR) of reverse proxies whose X-Forwarded-For names the client
	// for the rate limit; empty: the connection's address is the client.
	TrustedProxies []string
	// MCPHosts are the Host and Origin headers the MCP endpoint accepts (NewHostPolicy); the zero value accepts
	// local names only.
	MCPHosts HostPolicy
	// GuardHosts applies MCPHosts' Host check to the whole API and the pages (421 otherwise), not only to the
	// MCP endpoint: set it when the server listens on loopback, where a page of another site whose name
	// resolves to 127.0.0.1 (DNS rebinding) could otherwise read and write the API from a browser.
	GuardHosts bool
}

// NewHandler returns the service's whole HTTP handler.
func NewHandler(ctx context.Context, o Options) (http.Handler, error) {
	if o.API == nil || o.Store == nil {
		return nil, errors.New("server: API and Store are required")
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.MaxInFlight <= 0 {
		o.MaxInFlight = DefaultMaxInFlight
	}
	if o.QueueWait <= 0 {
		o.QueueWait = DefaultQueueWait
	}
	if o.MaxPerClient <= 0 {
		o.MaxPerClient = DefaultMaxPerClient
	}
	if o.BodyReadTimeout <= 0 {
		o.BodyReadTimeout = DefaultBodyReadTimeout
	}
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = DefaultRequestTimeout
	}
	doc, err := openapi.Shared() // read only here, by the validator and by the API's UseHandler
	if err != nil {
		return nil, err
	}
	v, err := newValidator(doc)
	if err != nil {
		return nil, err
	}

	r := chi.NewRouter()
	if o.Instrument != nil {
		r.Use(o.Instrument)
	}
	gzip, err := compress()
	if err != nil {
		return nil, fmt.Errorf("server: gzip: %w", err)
	}
	r.Use(logRequests(o.Logger), guardJSONRPC(jsonrpcPaths(doc), o.MCPHosts, o.Logger), recoverPanics(o.Logger), limitBody(o.MaxBodyBytes),
		middleware.GetHead)
	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		WriteError(w, http.StatusNotFound, "no such endpoint: "+r.URL.Path)
	})
	r.MethodNotAllowed(v.methodNotAllowed)
	r.Get("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	if o.Metrics != nil {
		r.Method(http.MethodGet, "/metrics", o.Metrics)
	}
	r.Get("/readyz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if err := o.Store.Ping(ctx); err != nil {
			o.Logger.WarnContext(r.Context(), "readiness: database does not answer", "error", err)
			WriteError(w, http.StatusServiceUnavailable, "database unavailable")
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"status": "ready", "database": o.Store.Engine()})
	})

	// guarded is everything but the probes and metrics: the client is named, and the rate limit applied, first (a
	// client over its quota must not take a slot); then the answers kept are replayed (a replay holds no slot,
	// reads no body, and, without a rate limit, needs no client); the others pass the gate (per-client bound,
	// body read, in-flight bound) and are made within the deadline, compressed and given an ETag.
	var guards []func(http.Handler) http.Handler
	if o.GuardHosts {
		guards = append(guards, guardHosts(o.MCPHosts, o.Logger))
	}
	if o.RateLimitPerMinute > 0 {
		guards = append(guards, identify(o.TrustedProxies), rateLimitClients(o.RateLimitPerMinute))
	}
	live, _ := o.API.(LiveEpocher)
	guards = append(guards, answerCache(answerReuse(doc), live, time.Now))
	if o.RateLimitPerMinute <= 0 {
		guards = append(guards, identify(o.TrustedProxies))
	}
	g := newGate(o.MaxInFlight, o.MaxPerClient, o.QueueWait, o.BodyReadTimeout)
	if o.ObserveAdmission != nil {
		o.ObserveAdmission(g.stats)
	}
	guards = append(guards, g.middleware, timeoutRequests(o.RequestTimeout), gzip, etags)
	guarded := r.With(guards...)
	if o.Pages != nil {
		for _, p := range []string{"/", "/providers/*", "/badge/*", "/docs", "/docs/*", "/assets/*"} {
			guarded.Handle(p, o.Pages)
		}
	}

	strict := api.NewStrictHandlerWithOptions(o.API, []api.StrictMiddlewareFunc{pageScope(pagedOperations(doc))}, api.StrictHTTPServerOptions{
		RequestErrorHandlerFunc: func(w http.ResponseWriter, r *http.Request, err error) {
			// The validator has already checked the body against the document; this is a decode the
			// document allows but the generated type cannot hold.
			WriteError(w, http.StatusBadRequest, "request body: "+safeDecodeReason(err))
		},
		ResponseErrorHandlerFunc: handlerError(o.Logger),
	})
	guarded.Group(func(g chi.Router) {
		g.Use(v.middleware)
		api.HandlerWithOptions(strict, api.ChiServerOptions{
			BaseURL:    APIPrefix,
			BaseRouter: g,
			ErrorHandlerFunc: func(w http.ResponseWriter, r *http.Request, err error) {
				WriteError(w, http.StatusBadRequest, bindingError(err))
			},
		})
	})
	if u, ok := o.API.(HandlerUser); ok {
		if err := u.UseHandler(doc, r); err != nil {
			return nil, fmt.Errorf("handing the finished handler to the API: %w", err)
		}
	}
	return r, nil
}

// pageScope records the query each operation answers, so that a page cursor is only read back by the query it
// came from (catalog.Paginate).
func pageScope(paged map[string]bool) api.StrictMiddlewareFunc {
	return func(f api.StrictHandlerFunc, operationID string) api.StrictHandlerFunc {
		if !paged[strings.ToLower(operationID)] { // the generated code names operations in Go case
			return f // no cursor to scope; parsing the query again would only cost time
		}
		return func(ctx context.Context, w http.ResponseWriter, r *http.Request, req any) (any, error) {
			return f(catalog.WithScope(ctx, operationID, r.URL.Query()), w, r, req)
		}
	}
}

// pagedOperations are the operations of doc that take a page cursor, by operationId in lower case.
func pagedOperations(doc *openapi3.T) map[string]bool {
	out := map[string]bool{}
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			for _, p := range op.Parameters {
				if p.Value != nil && p.Value.In == openapi3.ParameterInQuery && p.Value.Name == "cursor" {
					out[strings.ToLower(op.OperationID)] = true
				}
			}
		}
	}
	return out
}

// HandlerUser is an API some of whose operations send requests through the service's own handler: the MCP
// endpoint answers a tool call with a request to the tool's endpoint, which passes the same routing, validation,
// handlers and middleware as any HTTP request. NewHandler hands such an API the finished handler, and the
// document it was built from, once, before it serves anything.
type HandlerUser interface {
	UseHandler(doc *openapi3.T, h http.Handler) error
}

// handlerError answers an error a handler returned. Callers never see its text: it is logged with the request.
func handlerError(log *slog.Logger) func(http.ResponseWriter, *http.Request, error) {
	return func(w http.ResponseWriter, r *http.Request, err error) {
		if errors.Is(err, context.Canceled) && r.Context().Err() != nil {
			// The caller went away; nobody reads this answer.
			WriteError(w, http.StatusServiceUnavailable, "request cancelled")
			return
		}
		if errors.Is(err, context.DeadlineExceeded) && r.Context().Err() != nil {
			log.WarnContext(r.Context(), "request timed out", "path", r.URL.Path, "error", err)
			w.Header().Set("Retry-After", "1")
			WriteError(w, http.StatusServiceUnavailable, "request timed out")
			return
		}
		if errors.Is(err, store.ErrUnavailable) {
			log.ErrorContext(r.Context(), "database unavailable", "path", r.URL.Path, "error", err)
			w.Header().Set("Retry-After", "5")
			WriteError(w, http.StatusServiceUnavailable, "database unavailable, retry shortly")
			return
		}
		// A kind of the error vocabulary that a handler passed up instead of shaping its own answer.
		switch status, msg := errs.Answer(err); status {
		case http.StatusBadRequest, http.StatusNotFound, http.StatusConflict:
			WriteError(w, status, msg)
			return
		case http.StatusServiceUnavailable:
			log.WarnContext(r.Context(), "dependency unavailable", "path", r.URL.Path, "error", err)
			w.Header().Set("Retry-After", "5")
			WriteError(w, status, msg)
			return
		}
		log.ErrorContext(r.Context(), "handler failed", "path", r.URL.Path, "error", err)
		WriteError(w, http.StatusInternalServerError, "internal error")
	}
}

// bindingError words a parameter the generated router could not bind. Its error types name the parameter.
func bindingError(err error) string {
	var ip *api.InvalidParamFormatError
	var rp *api.RequiredParamError
	var tm *api.TooManyValuesForParamError
	switch {
	case errors.As(err, &ip):
		return "parameter " + ip.ParamName + ": invalid value"
	case errors.As(err, &rp):
		return "parameter " + rp.ParamName + ": is required"
	case errors.As(err, &tm):
		return "parameter " + tm.ParamName + ": given more than once"
	}
	return "invalid request"
}

func safeDecodeReason(err error) string {
	if errors.Is(err, context.Canceled) {
		return "read cancelled"
	}
	return "cannot be decoded"
}
