package catalog

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"strconv"
	"strings"

	"github.com/switchboard/switchboard/errs"
)

// Paging of the catalog lists. A cursor is opaque to callers: the offset of the next record and a fingerprint of
// the query it belongs to (operation and every parameter but limit and cursor), so that a cursor of another query
// is refused rather than read as a position in this one. The catalogs do not change while the service runs, so an
// offset stays a position in the same list.

// MaxPageSize is the largest limit a caller may ask for.
const MaxPageSize = 1000

// Page is what a caller asked for: Limit nil is the whole list; Cursor nil is the first page.
type Page struct {
	Limit  *int
	Cursor *string
}

// cursorError and the limit's error are the caller's mistakes (400): a limit out of range, or a cursor that is
// malformed or belongs to another query.
func cursorError(reason string) error { return errs.Input("parameter cursor: %s", reason) }

type scopeKey struct{}

// WithScope records in ctx the query a page belongs to: the operation and its parameters other than limit and
// cursor, in a canonical order.
func WithScope(ctx context.Context, operation string, query url.Values) context.Context {
	q := url.Values{}
	for k, v := range query {
		if k != "limit" && k != "cursor" {
			q[k] = v
		}
	}
	return context.WithValue(ctx, scopeKey{}, operation+"?"+q.Encode())
}

func scopeOf(ctx context.Context) string {
	s, _ := ctx.Value(scopeKey{}).(string)
	return s
}

// fingerprint is a short hash of the scope; it tells queries apart, it protects nothing.
func fingerprint(scope string) string {
	sum := sha256.Sum256([]byte(scope))
	return hex.EncodeToString(sum[:6])
}

// Paginate cuts the page p asks for out of recs (the whole answer, in its order) for the query recorded in ctx
// (WithScope). It returns the page, the cursor of the next page (nil on the last) and the total.
func Paginate[T any](ctx context.Context, recs []T, p Page) (page []T, next *string, total int, err error) {
	total = len(recs)
	offset := 0
	scope := fingerprint(scopeOf(ctx))
	if p.Cursor != nil {
		if offset, err = decodeCursor(*p.Cursor, scope); err != nil {
			return nil, nil, 0, err
		}
		if offset > total {
			return nil, nil, 0, cursorError("points past the end of this list")
		}
	}
	if p.Limit == nil {
		if p.Cursor == nil {
			return recs, nil, total, nil
		}
		return recs[offset:], nil, total, nil
	}
	if *p.Limit < 1 || *p.Limit > MaxPageSize {
		return nil, nil, 0, errs.Input("parameter limit: must be between 1 and %d", MaxPageSize)
	}
	end := min(offset+*p.Limit, total)
	if end < total {
		c := encodeCursor(end, scope)
		next = &c
	}
	return recs[offset:end], next, total, nil
}

func encodeCursor(offset int, scope string) string {
	return base64.RawURLEncoding.EncodeToString([]byte("v1." + strconv.Itoa(offset) + "." + scope))
}

func decodeCursor(c, scope string) (int, error) {
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return 0, cursorError("not a cursor this service gave")
	}
	parts := strings.Split(string(raw), ".")
	if len(parts) != 3 || parts[0] != "v1" {
		return 0, cursorError("not a cursor this service gave")
	}
	offset, err := strconv.Atoi(parts[1])
	if err != nil || offset < 1 {
		return 0, cursorError("not a cursor this service gave")
	}
	if parts[2] != scope {
		return 0, cursorError("belongs to another query: pass it with the same parameters as the page it came from")
	}
	return offset, nil
}
