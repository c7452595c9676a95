package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-chi/chi/v5/middleware"
	"github.com/go-chi/httprate"

	"github.com/switchboard/switchboard/tools"
)

// Defaults of the request limits (Options).
const (
	DefaultMaxInFlight     = 256
	DefaultMaxPerClient    = 64
	DefaultQueueWait       = 100 * time.Millisecond
	DefaultBodyReadTimeout = 5 * time.Second
	DefaultRequestTimeout  = 30 * time.Second
)

// admission is what the guards know of one request: the client it is charged to and, for an MCP request, how
// many tool calls it made. It travels in the request's context as the MCP bridge's caller (tools.WithCaller):
// the bridge runs each tool call on a fresh context but carries this value along, so a tool call is known as
// the work of the MCP request that made it, charged to that request's client and run in that request's slot.
type admission struct {
	client netip.Addr   // the client's address, IPv6 per /64; the zero Addr when it cannot be told
	calls  atomic.Int32 // tool calls made on behalf of this request
}

func admissionOf(ctx context.Context) *admission { a, _ := tools.Caller(ctx).(*admission); return a }

// toolCall is the admission of the MCP request a tool call's request was made for, or nil when r is a request
// of its own.
func toolCall(r *http.Request) *admission {
	if !tools.IsToolCall(r.Context()) {
		return nil
	}
	return admissionOf(r.Context())
}

// identify names the client of each request, the same way for the rate limit and the per-client bound: the
// connection's address, or, when trustedProxies are given, the address those proxies report in
// X-Forwarded-For (chi resolves it; a header from anyone else is ignored, so it cannot be spoofed). IPv6
// clients are counted per /64, since one host commonly holds a whole /64.
func identify(trustedProxies []string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		admit := func(w http.ResponseWriter, r *http.Request, client netip.Addr) {
			if client.Is6() {
				p, _ := client.Prefix(64)
				client = p.Addr()
			}
			next.ServeHTTP(w, r.WithContext(tools.WithCaller(r.Context(), &admission{client: client})))
		}
		var resolved http.Handler
		if len(trustedProxies) > 0 {
			resolved = middleware.ClientIPFromXFF(trustedProxies...)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				admit(w, r, middleware.GetClientIPAddr(r.Context()))
			}))
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch {
			case toolCall(r) != nil:
				next.ServeHTTP(w, r) // the MCP request's client
			case resolved != nil:
				resolved.ServeHTTP(w, r)
			default:
				// What chi's ClientIPFromRemoteAddr reads, without a context value of its own per request.
				admit(w, r, remoteAddr(r.RemoteAddr))
			}
		})
	}
}

func remoteAddr(s string) netip.Addr {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap()
	}
	a, _ := netip.ParseAddr(s) // a bare address (in tests); the zero Addr when neither parses
	return a.Unmap()
}

// rateLimitClients limits each client (identify) to perMinute requests in a sliding minute (httprate),
// answering 429 with Retry-After. A tool call is charged to the client of the MCP request that made it: the
// first rides on that request's own charge (one tools/call costs one request, as its endpoint would over
// HTTP), each further one of a batch costs one more.
func rateLimitClients(perMinute int) func(http.Handler) http.Handler {
	limit := httprate.LimitBy(perMinute, time.Minute,
		func(r *http.Request) (string, error) {
			if a := admissionOf(r.Context()); a != nil && a.client.IsValid() {
				return a.client.String(), nil
			}
			return "", nil // clients that cannot be told apart share one bucket
		},
		httprate.WithLimitHandler(func(w http.ResponseWriter, _ *http.Request) {
			WriteError(w, http.StatusTooManyRequests, "rate limit exceeded: at most "+strconv.Itoa(perMinute)+
				" requests per minute per client; retry after the number of seconds in Retry-After")
		}))
	return func(next http.Handler) http.Handler {
		limited := limit(next)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if a := toolCall(r); a != nil && a.calls.Add(1) == 1 {
				next.ServeHTTP(w, r)
				return
			}
			limited.ServeHTTP(w, r)
		})
	}
}

// gate admits requests to the handlers in three steps, so that no client can hold what the others need:
//
//  1. a bound on the requests of one client at once (429 beyond it): one client opening many connections
//     cannot take the whole pool;
//  2. the request's body is read, under a short deadline, before any shared slot is taken: a client sending a
//     body slowly (or never finishing it) holds only its own connection, and is cut off at the deadline;
//  3. a bound on the requests served at once: a request that finds every slot taken waits up to wait for one
//     and is then refused with 503 and Retry-After, a fast, clear answer instead of goroutines, memory and
//     database connections piling up until everything is slow.
//
// A tool call of an admitted MCP request passes straight through: it is that request's work, in its slot.
type gate struct {
	slots       chan struct{}
	wait        time.Duration
	perClient   int
	bodyTimeout time.Duration

	mu      sync.Mutex
	clients map[netip.Addr]int // requests in the gate per client; a client leaves the map at zero

	refusedBusy, refusedClient, refusedBody atomic.Uint64
}

func newGate(maxInFlight, perClient int, wait, bodyTimeout time.Duration) *gate {
	return &gate{slots: make(chan struct{}, maxInFlight), wait: wait, perClient: perClient, bodyTimeout: bodyTimeout,
		clients: map[netip.Addr]int{}}
}

// AdmissionStats is the state of the admission of requests, read for the saturation metrics.
type AdmissionStats struct {
	InFlight int // requests holding a slot
	Capacity int // the slots (Options.MaxInFlight)
	Clients  int // clients with a request in the gate (reading its body, waiting or served)
	Requests int // requests in the gate, of all clients
	// Requests refused: every slot taken past the wait (503), a client over its own bound (429), a body not
	// received in time (408).
	RefusedBusy, RefusedClient, RefusedSlowBody uint64
}

// Saturation is the share of the slots in use, 0 to 1.
func (s AdmissionStats) Saturation() float64 {
	if s.Capacity == 0 {
		return 0
	}
	return float64(s.InFlight) / float64(s.Capacity)
}

func (g *gate) stats() AdmissionStats {
	g.mu.Lock()
	clients, requests := len(g.clients), 0
	for _, n := range g.clients { // bounded: the clients in the gate, each with a request held
		requests += n
	}
	g.mu.Unlock()
	return AdmissionStats{InFlight: len(g.slots), Capacity: cap(g.slots), Clients: clients, Requests: requests,
		RefusedBusy: g.refusedBusy.Load(), RefusedClient: g.refusedClient.Load(), RefusedSlowBody: g.refusedBody.Load()}
}

func (g *gate) enter(c netip.Addr) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.clients[c] >= g.perClient {
		return false
	}
	g.clients[c]++
	return true
}

func (g *gate) leave(c netip.Addr) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.clients[c] <= 1 {
		delete(g.clients, c)
		return
	}
	g.clients[c]--
}

func (g *gate) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if toolCall(r) != nil {
			next.ServeHTTP(w, r)
			return
		}
		var client netip.Addr
		if a := admissionOf(r.Context()); a != nil {
			client = a.client
		}
		if !g.enter(client) {
			g.refusedClient.Add(1)
			w.Header().Set("Retry-After", "1")
			WriteError(w, http.StatusTooManyRequests, "too many requests at once from this client: at most "+
				strconv.Itoa(g.perClient)+" in progress; retry when one has finished")
			return
		}
		defer g.leave(client)
		if !g.readBody(w, r) {
			return
		}
		select {
		case g.slots <- struct{}{}:
		default:
			t := time.NewTimer(g.wait)
			select {
			case g.slots <- struct{}{}:
				t.Stop()
			case <-t.C:
				g.refusedBusy.Add(1)
				w.Header().Set("Retry-After", "1")
				WriteError(w, http.StatusServiceUnavailable, "server busy: too many requests in flight, retry shortly")
				return
			case <-r.Context().Done():
				t.Stop()
				WriteError(w, http.StatusServiceUnavailable, "request cancelled")
				return
			}
		}
		defer func() { <-g.slots }()
		next.ServeHTTP(w, r)
	})
}

// readBody reads r's whole body (bounded by limitBody) within the gate's body deadline and hands the handlers a
// copy in memory, or answers the request itself and returns false. The deadline ends with the body: net/http
// lifts a connection's read deadline once the body has been read to its end (and before a handler runs when
// there is none), so neither it nor the server's ReadTimeout cuts a handler that works longer.
func (g *gate) readBody(w http.ResponseWriter, r *http.Request) bool {
	if r.Body == nil || r.Body == http.NoBody {
		return true
	}
	setReadDeadline(w, time.Now().Add(g.bodyTimeout))
	body, err := readAll(r.Body, r.ContentLength)
	if err != nil {
		var tooLarge *http.MaxBytesError
		var netErr net.Error
		switch {
		case errors.As(err, &tooLarge):
			WriteError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body: larger than %d bytes", tooLarge.Limit))
		case errors.As(err, &netErr) && netErr.Timeout():
			g.refusedBody.Add(1)
			w.Header().Set("Connection", "close")
			WriteError(w, http.StatusRequestTimeout, "request body: not received within "+g.bodyTimeout.String())
		default:
			WriteError(w, http.StatusBadRequest, "request body: cannot be read")
		}
		return false
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return true
}

// setReadDeadline sets the read deadline of w's connection, as http.ResponseController does, without its
// allocations (a controller, and an error for a writer without a connection: a request made in process).
func setReadDeadline(w http.ResponseWriter, t time.Time) {
	for {
		switch v := w.(type) {
		case interface{ SetReadDeadline(time.Time) error }:
			_ = v.SetReadDeadline(t)
			return
		case interface{ Unwrap() http.ResponseWriter }:
			w = v.Unwrap()
		default:
			return
		}
	}
}

// readAll reads a body whose length is declared (or -1), growing the buffer only when the declaration was absent
// or wrong.
func readAll(body io.Reader, declared int64) ([]byte, error) {
	buf := make([]byte, 0, max(512, min(declared, DefaultMaxBodyBytes)+1))
	for {
		n, err := body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
	}
}

// timeoutRequests gives every request a deadline. Handlers and the store honour their context, so a request
// stuck on a slow database ends with 503 (see handlerError) instead of holding its slot forever.
func timeoutRequests(d time.Duration) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ctx, cancel := context.WithTimeout(r.Context(), d)
			defer cancel()
			next.ServeHTTP(w, r.WithContext(ctx))
		})
	}
}

// ClientKey is an opaque key of the client of the request ctx belongs to (as identify names it), for the
// quotas kept in the database: a hash, so that no table holds client addresses. Clients that cannot be told
// apart share one key; "" means a request made in process, which has no client.
func ClientKey(ctx context.Context) string {
	a := admissionOf(ctx)
	if a == nil {
		return ""
	}
	b, _ := a.client.MarshalBinary() // never fails; empty for the zero Addr
	sum := sha256.Sum256(append([]byte("switchboard client\x00"), b...))
	return hex.EncodeToString(sum[:16])
}
