package server_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/switchboard/switchboard/apitest"
)

// listKey is the property of an operation's 200 answer that holds its records: the one array that is not a
// summary.
func listKey(t *testing.T, op *openapi3.Operation) string {
	t.Helper()
	s := op.Responses.Status(200).Value.Content.Get("application/json").Schema.Value
	// An answer that is either one record or a list (resolve-alias) pages its list alternative, the one with meta.
	shapes := []*openapi3.Schema{s}
	for _, alt := range s.OneOf {
		shapes = append(shapes, alt.Value)
	}
	key := ""
	for _, shape := range shapes {
		if shape.Properties["meta"] == nil {
			continue // a record, not a list answer
		}
		for name, p := range shape.Properties {
			if p.Value != nil && p.Value.Type.Is("array") && name != "summary" {
				if key != "" {
					t.Fatalf("two lists: %s and %s", key, name)
				}
				key = name
			}
		}
	}
	if key == "" {
		t.Fatal("the answer has no list")
	}
	return key
}

type pageAnswer struct {
	records []json.RawMessage
	total   int
	next    *string
}

func getPage(t *testing.T, s *apitest.Server, path, key string) pageAnswer {
	t.Helper()
	r := s.Get(path)
	if r.Status != http.StatusOK {
		t.Fatalf("%s: %d %s", path, r.Status, r.Body)
	}
	var body map[string]json.RawMessage
	r.Decode(t, &body)
	var a pageAnswer
	var meta struct {
		Total      *int    `json:"total"`
		NextCursor *string `json:"next_cursor"`
	}
	if err := json.Unmarshal(body[key], &a.records); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(body["meta"], &meta); err != nil || meta.Total == nil {
		t.Fatalf("%s: meta %s", path, body["meta"])
	}
	a.total, a.next = *meta.Total, meta.NextCursor
	return a
}

// withParams adds query parameters to a path that may hold some.
func withParams(path string, kv ...string) string {
	u, _ := url.Parse(path)
	q := u.Query()
	for i := 0; i+1 < len(kv); i += 2 {
		q.Set(kv[i], kv[i+1])
	}
	u.RawQuery = q.Encode()
	return u.RequestURI()
}

// TestPaging walks every list that takes a cursor, found in the document: without limit the whole list is one
// page; with it the pages are disjoint, in order, add up to the whole list, and each says the total; a malformed
// cursor, a cursor of another list and a cursor of the same list with other filters answer 400 naming it.
func TestPaging(t *testing.T) {
	s := apitest.Start(t, apitest.Options{})
	var foreign string
	n := 0
	for _, op := range apitest.Operations(s.Doc) {
		if op.Op.Parameters.GetByInAndName("query", "cursor") == nil {
			continue
		}
		n++
		t.Run(op.ID, func(t *testing.T) {
			path, _, err := op.MinimalRequest()
			if err != nil {
				t.Fatal(err)
			}
			key := listKey(t, op.Op)
			whole := getPage(t, s, path, key)
			if whole.next != nil || whole.total != len(whole.records) {
				t.Fatalf("without limit: %d records, total %d, next %v", len(whole.records), whole.total, whole.next)
			}
			limit := min(max(1, (len(whole.records)+1)/2), 1000) // two pages or so: the walk, the boundary and the end
			var walked []json.RawMessage
			next := withParams(path, "limit", strconv.Itoa(limit))
			for pages := 0; ; pages++ {
				if pages > len(whole.records)+1 {
					t.Fatal("the cursors do not end")
				}
				p := getPage(t, s, next, key)
				if p.total != whole.total || len(p.records) > limit {
					t.Fatalf("page %d: %d records (limit %d), total %d (want %d)", pages, len(p.records), limit, p.total, whole.total)
				}
				walked = append(walked, p.records...)
				if p.next == nil {
					break
				}
				if foreign == "" {
					foreign = *p.next
				}
				next = withParams(path, "limit", strconv.Itoa(limit), "cursor", *p.next)
			}
			if !reflect.DeepEqual(normalize(t, walked), normalize(t, whole.records)) {
				t.Errorf("the pages (%d records) are not the whole list (%d records) in order", len(walked), len(whole.records))
			}
			for _, bad := range []string{"not-a-cursor", "djEuMTAuYWJj"} {
				r := s.Get(withParams(path, "limit", "2", "cursor", bad))
				if r.Status != http.StatusBadRequest || !strings.Contains(r.Error(t), "parameter cursor") {
					t.Errorf("cursor %q: %d %s", bad, r.Status, r.Body)
				}
			}
		})
	}
	if n < 40 {
		t.Errorf("%d lists take a cursor, want every catalog list", n)
	}
	// A cursor of one list read by another, or by the same list with other filters.
	pricing := getPage(t, s, "/api/v1/pricing?limit=2", "pricing")
	if pricing.next == nil {
		t.Fatal("the price list has one page of 2")
	}
	for path, cursor := range map[string]string{
		"/api/v1/models?limit=2": foreign, "/api/v1/pricing?limit=2&provider=openai": *pricing.next,
		"/api/v1/pricing?limit=2&task=llm": *pricing.next,
	} {
		r := s.Get(path + "&cursor=" + url.QueryEscape(cursor))
		if r.Status != http.StatusBadRequest || !strings.Contains(r.Error(t), "another query") {
			t.Errorf("%s with a foreign cursor: %d %s", path, r.Status, r.Body)
		}
	}
}

func normalize(t *testing.T, recs []json.RawMessage) []any {
	t.Helper()
	out := make([]any, len(recs))
	for i, r := range recs {
		if err := json.Unmarshal(r, &out[i]); err != nil {
			t.Fatal(err)
		}
	}
	return out
}
