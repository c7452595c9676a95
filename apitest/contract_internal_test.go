package apitest

import (
	"net/http"
	"strings"
	"testing"
)

// TestCheckFailsOnContractBreaks: the checker every endpoint test relies on refuses bodies, statuses and content
// types the document does not allow, and accepts ones it does; it compiles each schema once.
func TestCheckFailsOnContractBreaks(t *testing.T) {
	c, err := sharedContract()
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{t: t, contract: c, Doc: c.doc}
	jsonHeader := http.Header{"Content-Type": {"application/json"}}
	cases := []struct {
		name, path string
		status     int
		header     http.Header
		body       string
		ok         bool
	}{
		{"error body", "/api/v1/validate/6f1c1e52", 404, jsonHeader, `{"error": "no such attestation"}`, true},
		{"error of the wrong type", "/api/v1/validate/6f1c1e52", 404, jsonHeader, `{"error": 5}`, false},
		{"missing required fields", "/api/v1/health", 200, jsonHeader, `{}`, false},
		{"not JSON", "/api/v1/health", 200, jsonHeader, `{"providers": [`, false},
		{"undocumented status", "/api/v1/health", 418, jsonHeader, `{"error": "teapot"}`, false},
		{"undocumented content type", "/api/v1/health", 200, http.Header{"Content-Type": {"text/plain"}}, `{}`, false},
		{"an extra member of an error", "/api/v1/validate/6f1c1e52", 400, jsonHeader, `{"error": "x", "extra": 1}`, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, "http://127.0.0.1"+tc.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			err = s.Check(req, &Response{Status: tc.status, Header: tc.header, Body: []byte(tc.body)})
			if (err == nil) != tc.ok {
				t.Errorf("Check = %v, want ok=%v", err, tc.ok)
			}
		})
	}
	c.mu.Lock()
	n := len(c.schemas)
	c.mu.Unlock()
	for range 3 {
		req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1/api/v1/health", nil)
		_ = s.Check(req, &Response{Status: 200, Header: jsonHeader, Body: []byte(`{}`)})
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.schemas) != n {
		t.Errorf("checking the same answer again compiled %d more schemas", len(c.schemas)-n)
	}
	for k := range c.schemas {
		if !strings.HasPrefix(k, "/") {
			t.Errorf("schema key %q is not a JSON pointer", k)
		}
	}
}
