package store

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/switchboard/switchboard/errs"
)

// TestAtEdge: what leaves the store is its own sentinels, a caller's context, its input errors, ErrUnavailable
// for a database that cannot serve, and text for anything else; never a driver's error type.
func TestAtEdge(t *testing.T) {
	down := &pgconn.PgError{Code: "57P01", Message: "terminating connection due to administrator command"}
	dup := &pgconn.PgError{Code: "23505", Message: "duplicate key value violates unique constraint"}
	netDown := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}
	cases := []struct {
		name        string
		in          error
		unavailable bool
		same        bool // passed on as it is
	}{
		{"nil", nil, false, true},
		{"not found", fmt.Errorf("getting: %w", ErrNotFound), false, true},
		{"nonce used", ErrNonceUsed, false, true},
		{"caller's context", fmt.Errorf("query: %w", context.Canceled), false, true},
		{"input", errorf("limit must be positive"), false, true},
		{"server shutting down", fmt.Errorf("recording a check: %w", down), true, false},
		{"network", fmt.Errorf("ping: %w", netDown), true, false},
		{"constraint", fmt.Errorf("inserting: %w", dup), false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := atEdge(c.in)
			if c.same {
				if got != c.in { //nolint:errorlint // the very same error value must come out
					t.Fatalf("atEdge changed %v into %v", c.in, got)
				}
				return
			}
			if errors.Is(got, ErrUnavailable) != c.unavailable || errors.Is(got, errs.ErrUnavailable) != c.unavailable {
				t.Errorf("%v: unavailable %v, want %v", got, errors.Is(got, ErrUnavailable), c.unavailable)
			}
			var pg *pgconn.PgError
			var ne net.Error
			if errors.As(got, &pg) || errors.As(got, &ne) {
				t.Errorf("a driver error type leaks through: %#v", got)
			}
			if got.Error() == "" || !strings.Contains(got.Error(), c.in.Error()) {
				t.Errorf("the driver's message is lost: %q", got)
			}
		})
	}
}
