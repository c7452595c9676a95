package catalogbuild

import (
	"errors"
	"fmt"
)

// The kinds of a failed download beyond the transport's own (package netguard classes those), so that a caller
// such as the run-time refresh can say which went wrong without showing the error's text.
var (
	// ErrTooLarge is a download over its size bound.
	ErrTooLarge = errors.New("download too large")
	// ErrMalformed is a download that arrived whole but does not read as the source it should be.
	ErrMalformed = errors.New("malformed source")
)

// HTTPStatusError is an answer other than 200 to a download.
type HTTPStatusError struct {
	URL    string
	Status string
}

func (e *HTTPStatusError) Error() string { return fmt.Sprintf("GET %s: %s", e.URL, e.Status) }
