package server_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/apitest"
	"github.com/switchboard/switchboard/server"
)

// rawGet sends a request without Go's transparent gzip, so the test sees the answer as it was sent.
func rawGet(t *testing.T, method, url string, header http.Header) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	res, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, body
}

// TestHTTPCaching walks every GET route of the document: gzip when accepted (1 KiB and more), a strong ETag
// that a conditional GET turns into 304 with no body (for the compressed tag too), the operation's
// Cache-Control, HEAD with the GET's headers and no body, and a 405 naming GET and HEAD in Allow.
func TestHTTPCaching(t *testing.T) {
	s := apitest.Start(t, apitest.Options{})
	n := 0
	for _, op := range apitest.Operations(s.Doc) {
		if op.Method != http.MethodGet {
			continue
		}
		t.Run(op.ID, func(t *testing.T) {
			path, _, err := op.MinimalRequest()
			if err != nil {
				t.Fatal(err)
			}
			res, body := rawGet(t, http.MethodGet, s.URL+path, http.Header{"Accept-Encoding": {"gzip"}})
			if res.StatusCode != http.StatusOK {
				// The paid route (402/503 unpaid) and a sample id that names nothing (404): an error is never
				// stored by a cache.
				if cc := res.Header.Get("Cache-Control"); cc != "no-store" {
					t.Errorf("%d answer with Cache-Control %q, want no-store", res.StatusCode, cc)
				}
				return
			}
			n++
			if op.Op.Responses.Status(http.StatusNotModified) == nil {
				t.Error("the operation does not document 304")
			}
			cc := res.Header.Get("Cache-Control")
			if want, ok := op.Op.Extensions["x-cache-control"].(string); ok && cc != want {
				t.Errorf("Cache-Control %q, the operation says %q", cc, want)
			} else if !ok && !strings.HasPrefix(cc, "public, max-age=") {
				t.Errorf("Cache-Control %q on a catalog answer", cc)
			}
			tag := res.Header.Get("ETag")
			if !strings.HasPrefix(tag, `"`) || !strings.HasSuffix(tag, `"`) {
				t.Fatalf("ETag %q is not a strong entity tag", tag)
			}
			gz := res.Header.Get("Content-Encoding") == "gzip"
			if gz != strings.HasSuffix(tag, `-gzip"`) {
				t.Errorf("Content-Encoding %q with ETag %q", res.Header.Get("Content-Encoding"), tag)
			}
			if len(body) >= 1024 && !gz && strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
				t.Errorf("a %d-byte JSON answer is not compressed", len(body))
			}
			// Live answers change from one second to the next: a new tag is allowed, never a 200 with the same.
			revalidated := false
			for try := 0; try < 3 && !revalidated; try++ {
				res2, body2 := rawGet(t, http.MethodGet, s.URL+path, http.Header{"Accept-Encoding": {"gzip"}, "If-None-Match": {tag}})
				switch {
				case res2.StatusCode == http.StatusNotModified:
					revalidated = true
					if len(body2) != 0 || res2.Header.Get("ETag") != tag {
						t.Errorf("304 with %d bytes, ETag %q (sent %q)", len(body2), res2.Header.Get("ETag"), tag)
					}
				case res2.StatusCode == http.StatusOK && res2.Header.Get("ETag") != tag:
					tag = res2.Header.Get("ETag")
				default:
					t.Fatalf("If-None-Match %s answered %d with ETag %q", tag, res2.StatusCode, res2.Header.Get("ETag"))
				}
			}
			if !revalidated {
				t.Error("no conditional GET was answered 304")
			}
			// s.Do checks HEAD against the document: no body, a documented status.
			if h := s.Do(http.MethodHead, path, nil, nil); h.Status != http.StatusOK || h.Header.Get("ETag") == "" || h.Header.Get("Cache-Control") != cc {
				t.Errorf("HEAD answered %d, ETag %q, Cache-Control %q", h.Status, h.Header.Get("ETag"), h.Header.Get("Cache-Control"))
			}
			if op.Op.Parameters.GetByInAndName("path", "id") == nil {
				item := s.Doc.Paths.Find(op.Path)
				if item.Patch == nil {
					r := s.Do(http.MethodPatch, path, nil, nil)
					if allow := r.Header.Get("Allow"); r.Status != http.StatusMethodNotAllowed || !strings.Contains(allow, "GET, HEAD") {
						t.Errorf("PATCH answered %d with Allow %q", r.Status, allow)
					}
				}
			}
		})
	}
	if n < 60 {
		t.Errorf("only %d GET routes answered 200", n)
	}
}

// TestETagsMatch: If-None-Match is compared weakly (RFC 9110 13.1.2) and the compressed tag names the same
// content.
func TestETagsMatch(t *testing.T) {
	for _, c := range []struct {
		header []string
		want   bool
	}{
		{[]string{`"abc"`}, true},
		{[]string{`W/"abc"`}, true},
		{[]string{`"abc-gzip"`}, true},
		{[]string{`"abc-zstd"`}, true},
		{[]string{`"abc-br"`}, false},
		{[]string{`"abc-gzip`}, false},
		{[]string{`"abc-gzip"x`}, false},
		{[]string{`"abc-gzip-zstd"`}, false},
		{[]string{`"x", "abc"`}, true},
		{[]string{`"x"`, `"abc"`}, true},
		{[]string{`*`}, true},
		{[]string{`"abcd"`}, false},
		{[]string{`abc`}, false},
		{nil, false},
	} {
		if got := server.ETagMatches(c.header, `"abc"`); got != c.want {
			t.Errorf("If-None-Match %q: %v, want %v", c.header, got, c.want)
		}
	}
}
