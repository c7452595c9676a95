package catalog

import (
	"context"
	"net/url"
	"slices"
	"testing"

	"github.com/switchboard/switchboard/errs"
)

// TestPaginate: pages of a list in order, the last without a next cursor; a cursor is refused past the end, from
// another scope, or when it is not one.
func TestPaginate(t *testing.T) {
	ctx := WithScope(context.Background(), "getThings", url.Values{"provider": {"openai"}, "limit": {"2"}})
	recs := []int{1, 2, 3, 4, 5}
	two := 2
	var got []int
	p := Page{Limit: &two}
	for i := 0; ; i++ {
		page, next, total, err := Paginate(ctx, recs, p)
		if err != nil || total != 5 || len(page) > 2 {
			t.Fatalf("page %d: %v %v %d %v", i, page, next, total, err)
		}
		got = append(got, page...)
		if next == nil {
			break
		}
		p.Cursor = next
	}
	if !slices.Equal(got, recs) {
		t.Errorf("pages %v", got)
	}
	// The same query in another order of parameters, and another limit, is the same scope.
	same := WithScope(context.Background(), "getThings", url.Values{"limit": {"3"}, "provider": {"openai"}})
	_, next, _, _ := Paginate(ctx, recs, Page{Limit: &two})
	if _, _, _, err := Paginate(same, recs, Page{Limit: &two, Cursor: next}); err != nil {
		t.Errorf("same query: %v", err)
	}
	other := WithScope(context.Background(), "getThings", url.Values{"provider": {"anthropic"}})
	for name, c := range map[string]struct {
		ctx    context.Context
		cursor string
		recs   []int
	}{
		"other scope":  {other, *next, recs},
		"past the end": {ctx, *next, recs[:1]},
		"malformed":    {ctx, "%%%", recs},
		"not ours":     {ctx, "aGVsbG8", recs},
	} {
		if _, _, _, err := Paginate(c.ctx, c.recs, Page{Limit: &two, Cursor: &c.cursor}); !errs.IsInput(err) {
			t.Errorf("%s: %v", name, err)
		}
	}
	zero := 0
	if _, _, _, err := Paginate(ctx, recs, Page{Limit: &zero}); !errs.IsInput(err) {
		t.Errorf("limit 0: %v", err)
	}
}
