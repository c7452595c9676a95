package server

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5/middleware"
	"github.com/go-chi/httprate"
)

// Defaults of the request limits (Options).
const (
	DefaultMaxInFlight    = 256
	DefaultQueueWait      = 100 * time.Millisecond
	DefaultRequestTimeout = 30 * time.Second
)

// limitInFlight bounds the requests being served at once. A request that finds every slot taken waits up to
// wait for one and is then refused with 503 and Retry-After: a burst beyond capacity gets a fast, clear answer
// instead of piling up goroutines, memory and database connections until everything is slow. chi's Throttle does
// the same but answers in plain text, not the service's error shape.
//
// A request made in process on behalf of one already admitted (an MCP tool call runs its endpoint through this
// same handler) passes straight through: it must not wait for, or be refused, a second slot.
func limitInFlight(max int, wait time.Duration) func(http.Handler) http.Handler {
	slots := make(chan struct{}, max)
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if admitted(r.Context()) {
				next.ServeHTTP(w, r)
				return
			}
			select {
			case slots <- struct{}{}:
			default:
				t := time.NewTimer(wait)
				select {
				case slots <- struct{}{}:
					t.Stop()
				case <-t.C:
					w.Header().Set("Retry-After", "1")
					WriteError(w, http.StatusServiceUnavailable, "server busy: too many requests in flight, retry shortly")
					return
				case <-r.Context().Done():
					t.Stop()
					WriteError(w, http.StatusServiceUnavailable, "request cancelled")
					return
				}
			}
			defer func() { <-slots }()
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), admittedKey{}, true)))
		})
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

// rateLimitClients limits each client to perMinute requests in a sliding minute (httprate), answering 429 with
// Retry-After. The client is the connection's address, or, when trustedProxies are given, the address those
// proxies report in X-Forwarded-For (chi resolves it; a header from anyone else is ignored, so it cannot be
// spoofed to dodge the limit). IPv6 clients are counted per /64.
func rateLimitClients(perMinute int, trustedProxies []string) func(http.Handler) http.Handler {
	resolve := middleware.ClientIPFromRemoteAddr
	if len(trustedProxies) > 0 {
		resolve = middleware.ClientIPFromXFF(trustedProxies...)
	}
	limit := httprate.LimitBy(perMinute, time.Minute,
		func(r *http.Request) (string, error) {
			return httprate.CanonicalizeIP(middleware.GetClientIP(r.Context())), nil
		},
		httprate.WithLimitHandler(func(w http.ResponseWriter, _ *http.Request) {
			WriteError(w, http.StatusTooManyRequests, "rate limit exceeded: at most "+strconv.Itoa(perMinute)+
				" requests per minute per client; retry after the number of seconds in Retry-After")
		}))
	return func(next http.Handler) http.Handler {
		limited := resolve(limit(next))
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if admitted(r.Context()) {
				next.ServeHTTP(w, r) // counted once, as the request that made it
				return
			}
			limited.ServeHTTP(w, r)
		})
	}
}

// resolveClient records the client's address in the request's context (middleware.GetClientIP): the
// connection's address, or with trustedProxies the address they report in X-Forwarded-For.
func resolveClient(trustedProxies []string) func(http.Handler) http.Handler {
	if len(trustedProxies) > 0 {
		return middleware.ClientIPFromXFF(trustedProxies...)
	}
	return middleware.ClientIPFromRemoteAddr
}

// admittedKey marks the context of a request that passed the limits.
type admittedKey struct{}

func admitted(ctx context.Context) bool { v, _ := ctx.Value(admittedKey{}).(bool); return v }
