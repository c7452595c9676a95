package apitest

import (
	"net/http"
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
	jsonHeader := http.Header{"Content-Type": {"application/json"}, "X-Content-Type-Options": {"nosniff"}}
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
		{"undocumented content type", "/api/v1/health", 200, http.Header{"Content-Type": {"text/plain"}, "X-Content-Type-Options": {"nosniff"}}, `{}`, false},
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
	route, _, err := c.router.FindRoute(mustRequest(t, "/api/v1/health"))
	if err != nil {
		t.Fatal(err)
	}
	first, err := c.responseSchema(route.Path, route.Method, route.Operation, 200, "application/json; charset=utf-8")
	if err != nil || first == nil {
		t.Fatalf("responseSchema = %v, %v", first, err)
	}
	if again, _ := c.responseSchema(route.Path, route.Method, route.Operation, 200, "application/json"); again != first {
		t.Error("the same answer's schema was compiled again")
	}
}

func mustRequest(t *testing.T, path string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, "http://127.0.0.1"+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}
