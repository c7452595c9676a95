package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/switchboard/switchboard/apitest"
	"github.com/switchboard/switchboard/web"
)

// TestMountedInServer checks the routes server.Options.Pages takes, and that the API keeps its JSON 404s.
func TestMountedInServer(t *testing.T) {
	pages, err := web.New(web.Options{Health: fixed{history()}, Clock: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	s := apitest.Start(t, apitest.Options{Pages: pages})
	for path, want := range map[string]string{
		"/": "text/html", "/providers/openai": "text/html", "/badge/openai.svg": "image/svg+xml",
		"/docs": "text/html", "/assets/style.css": "text/css",
	} {
		r, _ := get(t, s.URL+path)
		if r.StatusCode != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), want) {
			t.Errorf("%s: %d %s", path, r.StatusCode, r.Header.Get("Content-Type"))
		}
	}
	for _, path := range []string{"/api/v1/no-such-thing", "/elsewhere"} {
		r, body := get(t, s.URL+path)
		if r.StatusCode != 404 || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") || !strings.Contains(body, `"error"`) {
			t.Errorf("%s: %d %s %s", path, r.StatusCode, r.Header.Get("Content-Type"), body)
		}
	}
}
