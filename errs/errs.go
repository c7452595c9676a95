// Package errs is the service's error vocabulary: the few kinds of error a caller can act on. Every package
// returns these (wrapped with context as it likes), never a type of its own, and Answer maps them to the HTTP
// answer; the MCP bridge answers a tool call with the endpoint's HTTP answer, so the same mapping reaches
// JSON-RPC clients as an error result.
package errs

import (
	"errors"
	"fmt"
	"net/http"
)

// InputError is something the caller sent that the service does not take (400). Its message names the parameter
// or body field ("parameter window: must be one of 1h, 6h, 24h") and never repeats submitted text.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

// Input returns an InputError with a formatted message.
func Input(format string, a ...any) error { return &InputError{fmt.Sprintf(format, a...)} }

// NotFoundError is a thing the caller named that does not exist, or nothing matching what was asked (404); its
// message names what was looked for.
type NotFoundError struct{ Msg string }

func (e *NotFoundError) Error() string { return e.Msg }

// NotFound returns a NotFoundError with a formatted message.
func NotFound(format string, a ...any) error { return &NotFoundError{fmt.Sprintf(format, a...)} }

// UnknownProviderError is a provider ID that is not one of the monitored providers (404). It is a not-found of
// its own because callers say where the ID came from ("parameter provider: ...", "body field providers: ...").
type UnknownProviderError struct{ ID string }

func (e *UnknownProviderError) Error() string { return fmt.Sprintf("unknown provider %q", e.ID) }

// ErrUnavailable is a dependency that cannot serve right now, the database above all (503, try again).
var ErrUnavailable = errors.New("unavailable")

// ErrConflict is a request that contradicts the state it would change (409).
var ErrConflict = errors.New("conflict")

// IsInput reports whether err is, or wraps, an InputError.
func IsInput(err error) bool {
	var e *InputError
	return errors.As(err, &e)
}

// IsNotFound reports whether err is, or wraps, a NotFoundError or an UnknownProviderError.
func IsNotFound(err error) bool {
	var nf *NotFoundError
	var up *UnknownProviderError
	return errors.As(err, &nf) || errors.As(err, &up)
}

// Answer is the HTTP status and the message a caller may see for err: the kind's own message (which names the
// parameter or the thing, never submitted text), without the context it was wrapped in on the way up. Anything
// that is not one of these kinds is the service's fault: 500 and "internal error", the details left to the log.
func Answer(err error) (status int, msg string) {
	var in *InputError
	var nf *NotFoundError
	var up *UnknownProviderError
	switch {
	case errors.As(err, &in):
		return http.StatusBadRequest, in.Msg
	case errors.As(err, &up):
		return http.StatusNotFound, up.Error()
	case errors.As(err, &nf):
		return http.StatusNotFound, nf.Msg
	case errors.Is(err, ErrConflict):
		return http.StatusConflict, "conflict with the current state"
	case errors.Is(err, ErrUnavailable):
		return http.StatusServiceUnavailable, "temporarily unavailable, retry shortly"
	}
	return http.StatusInternalServerError, "internal error"
}
