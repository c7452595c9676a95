package server

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/switchboard/switchboard/tools"
)

// The JSON-RPC endpoints of the document (operations marked `x-jsonrpc`, the MCP endpoint) answer every error
// as a JSON-RPC error object, whichever part of the service refuses the request (router, validator, body or
// rate limit, a panic), because that is the one error shape their clients read. They also refuse requests
// whose Host or Origin names a host the service does not serve (DNS rebinding: a page on another site whose
// name resolves to this machine must not reach a local server's tools).

// HostPolicy is which Host and Origin headers the JSON-RPC endpoints accept. The zero value accepts local names
// only, right for a server bound to loopback.
type HostPolicy struct {
	// Public is set when the server listens beyond loopback: local names then pass only when listed in Hosts.
	Public bool
	// Hosts are further names that pass: a host name (any port), a host:port, or "*" for any host.
	Hosts []string
}

// NewHostPolicy is the policy of a server listening on addr, known to the world as baseURL, with the extra
// allowed hosts of the operator's setting. Bound to loopback, local names pass; otherwise only baseURL's host.
// baseURL's host passes in both cases (a proxy in front of a loopback server forwards the public name).
func NewHostPolicy(addr, baseURL string, extra []string) HostPolicy {
	p := HostPolicy{Public: !isLoopbackAddr(addr)}
	if u, err := url.Parse(baseURL); err == nil && u.Hostname() != "" {
		p.Hosts = append(p.Hosts, u.Host)
	}
	for _, h := range extra {
		if h = strings.TrimSpace(h); h != "" {
			p.Hosts = append(p.Hosts, h)
		}
	}
	return p
}

func isLoopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	return isLocalName(host)
}

// isLocalName reports whether host (without port) is this machine by a name no other site can claim.
func isLocalName(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// allows reports whether hostport, a Host header or an Origin's host, passes.
func (p HostPolicy) allows(hostport string) bool {
	if hostport == "" {
		return false
	}
	host, port := splitHost(hostport)
	if !p.Public && isLocalName(host) {
		return true
	}
	for _, allowed := range p.Hosts {
		if allowed == "*" {
			return true
		}
		h, pt := splitHost(allowed)
		if strings.EqualFold(h, host) && (pt == "" || pt == port) {
			return true
		}
	}
	return false
}

// splitHost splits host[:port], IPv6 literals with or without brackets, into the bare host and the port.
func splitHost(hostport string) (host, port string) {
	if h, p, err := net.SplitHostPort(hostport); err == nil {
		return h, p
	}
	return strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]"), ""
}

// check answers why r may not reach a JSON-RPC endpoint, or "" when it may.
func (p HostPolicy) check(r *http.Request) string {
	if !p.allows(r.Host) {
		return "the Host header names a host this server does not serve MCP for (DNS rebinding protection)"
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		// Not a browser: MCP clients in a process send no Origin.
		return ""
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || !p.allows(u.Host) {
		return "the Origin header names a site this server does not serve MCP for (DNS rebinding protection)"
	}
	return ""
}

// guardHosts refuses, with 421 Misdirected Request, a request whose Host the policy does not allow: this
// server does not answer for that name. The JSON-RPC paths keep their own check (guardJSONRPC), which also
// reads Origin and answers in JSON-RPC.
func guardHosts(policy HostPolicy, log *slog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if policy.allows(r.Host) || tools.IsToolCall(r.Context()) {
				next.ServeHTTP(w, r)
				return
			}
			log.WarnContext(r.Context(), "request for another host refused", "host", r.Host)
			WriteError(w, http.StatusMisdirectedRequest, "the Host header names a host this server does not serve "+
				"(DNS rebinding protection); the operator can allow it with SWITCHBOARD_MCP_ALLOWED_HOSTS")
		})
	}
}

// jsonrpcPaths are the URL paths of the document's JSON-RPC operations.
func jsonrpcPaths(doc *openapi3.T) []string {
	var out []string
	for path, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			if op.Extensions["x-jsonrpc"] == true && !slices.Contains(out, APIPrefix+path) {
				out = append(out, APIPrefix+path)
			}
		}
	}
	return out
}

// guardJSONRPC applies to the JSON-RPC paths only: it turns every error answer into a JSON-RPC error object and
// refuses, with 403, a Host or Origin the policy does not allow.
func guardJSONRPC(paths []string, policy HostPolicy, log *slog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !slices.Contains(paths, r.URL.Path) {
				next.ServeHTTP(w, r)
				return
			}
			rw := &rpcErrorWriter{ResponseWriter: w}
			defer rw.finish()
			if why := policy.check(r); why != "" {
				// The values go to the operator's log, not back to the caller.
				log.WarnContext(r.Context(), "MCP request refused", "host", r.Host, "origin", r.Header.Get("Origin"), "reason", why)
				WriteError(rw, http.StatusForbidden, why+"; the operator can allow it with SWITCHBOARD_MCP_ALLOWED_HOSTS")
				return
			}
			next.ServeHTTP(rw, r)
		})
	}
}

// rpcErrorWriter holds back an error answer ({"error": "..."}, the service's shape) and writes it as a JSON-RPC
// error object with the same status. Answers below 400 pass straight through.
type rpcErrorWriter struct {
	http.ResponseWriter
	status int
	held   bool
	body   bytes.Buffer
}

// maxHeldError bounds the error body held back; the service's error bodies are one sentence.
const maxHeldError = 64 << 10

func (w *rpcErrorWriter) WriteHeader(code int) {
	if w.status != 0 {
		return
	}
	w.status = code
	if code >= 400 {
		w.held = true
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *rpcErrorWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if !w.held {
		return w.ResponseWriter.Write(p)
	}
	if w.body.Len()+len(p) > maxHeldError {
		return 0, http.ErrHandlerTimeout
	}
	return w.body.Write(p)
}

func (w *rpcErrorWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// finish writes the held error answer.
func (w *rpcErrorWriter) finish() {
	if !w.held {
		return
	}
	body := w.body.Bytes()
	var e map[string]json.RawMessage
	var msg string
	if json.Unmarshal(body, &e) == nil && len(e) == 1 && json.Unmarshal(e["error"], &msg) == nil {
		type rpcErr struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		}
		b, err := json.Marshal(struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   rpcErr          `json:"error"`
		}{"2.0", json.RawMessage("null"), rpcErr{rpcCode(w.status), msg}})
		if err == nil {
			body = append(b, '\n')
		}
	}
	// Anything else is already a JSON-RPC error (the parse error of the validator).
	w.Header().Set("Content-Type", "application/json")
	w.Header().Del("Content-Length")
	w.ResponseWriter.WriteHeader(w.status)
	w.ResponseWriter.Write(body)
}

// JSON-RPC error codes of HTTP failures: the request's own fault is an invalid request; the server's state (busy,
// rate limit, timeout) is in JSON-RPC's implementation-defined server error range; a fault is an internal error.
const (
	rpcInvalidRequest = -32600
	rpcInternalError  = -32603
	rpcServerError    = -32000
)

func rpcCode(status int) int {
	switch {
	case status >= 500 && status != http.StatusServiceUnavailable && status != http.StatusGatewayTimeout:
		return rpcInternalError
	case status == http.StatusTooManyRequests, status >= 500:
		return rpcServerError
	}
	return rpcInvalidRequest
}
