package server

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"runtime/debug"
	"time"
)

// StatusRecorder remembers what a handler wrote, for the request log and the request metrics.
type StatusRecorder struct {
	http.ResponseWriter
	status int
	bytes  int
}

// Status is the status code written: 200 when the handler wrote a body without one, or nothing at all.
func (r *StatusRecorder) Status() int {
	if r.status == 0 {
		return http.StatusOK
	}
	return r.status
}

func (r *StatusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *StatusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	n, err := r.ResponseWriter.Write(b)
	r.bytes += n
	return n, err
}

// Flush lets streaming handlers (server-sent events) work through the recorder.
func (r *StatusRecorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (r *StatusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// RecordStatus returns w's StatusRecorder: w itself when an outer layer already records (the metrics and the
// request log see the same status and bytes, so one recorder serves both), else a new one around w.
func RecordStatus(w http.ResponseWriter) *StatusRecorder {
	if rec, ok := w.(*StatusRecorder); ok {
		return rec
	}
	return &StatusRecorder{ResponseWriter: w}
}

// logRequests writes one structured line per request. It logs the path without the query string: query values
// can carry text a caller wants checked against a hash, which must never reach the logs.
func logRequests(log *slog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			id := r.Header.Get("X-Request-Id")
			if id == "" || len(id) > 64 {
				id = newRequestID()
			}
			h := w.Header()
			h["X-Request-Id"] = []string{id} // the canonical form already
			// Every answer, JSON, HTML or an error of the router: a browser must never read one as something
			// else (a JSON body carrying markup rendered as HTML). One shared value, never appended to.
			h["X-Content-Type-Options"] = nosniff
			rec := RecordStatus(w)
			next.ServeHTTP(rec, r)
			status := rec.Status()
			level := slog.LevelInfo
			if status >= 500 {
				level = slog.LevelError
			}
			if !log.Enabled(r.Context(), level) {
				return
			}
			log.LogAttrs(r.Context(), level, "request",
				slog.String("request_id", id),
				slog.String("method", r.Method),
				slog.String("path", r.URL.Path),
				slog.Int("status", status),
				slog.Int("bytes", rec.bytes),
				slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000),
				slog.String("remote", r.RemoteAddr),
			)
		})
	}
}

var nosniff = []string{"nosniff"}

// newRequestID is 64 random bits in hex. A request ID only has to tell requests apart in the logs, so it comes
// from the runtime's per-thread generator, not from the kernel on every request.
func newRequestID() string {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], rand.Uint64())
	return hex.EncodeToString(b[:])
}

// recoverPanics turns a panic into a 500 JSON answer and a logged stack, so one bad request cannot take the
// process down or leak a Go trace to the caller.
func recoverPanics(log *slog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			defer func() {
				v := recover()
				if v == nil {
					return
				}
				if err, ok := v.(error); ok && errors.Is(err, http.ErrAbortHandler) {
					panic(v)
				}
				log.ErrorContext(r.Context(), "panic serving request", "path", r.URL.Path, "panic", v, "stack", string(debug.Stack()))
				WriteError(w, http.StatusInternalServerError, "internal error")
			}()
			next.ServeHTTP(w, r)
		})
	}
}

// limitBody caps request bodies; reading past the cap fails with *http.MaxBytesError, answered with 413.
func limitBody(max int64) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Body == nil || r.Body == http.NoBody {
				next.ServeHTTP(w, r) // nothing to cap (a GET): no reader to wrap
				return
			}
			if r.ContentLength > max {
				WriteError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body: larger than %d bytes", max))
				return
			}
			r.Body = http.MaxBytesReader(w, r.Body, max)
			next.ServeHTTP(w, r)
		})
	}
}
