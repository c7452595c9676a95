package impl_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/switchboard/switchboard/apitest"
	"github.com/switchboard/switchboard/dbtest"
	"github.com/switchboard/switchboard/gen/api"
)

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// TestTrustRecords runs the attestation, handoff and validation contract on every engine.
func TestTrustRecords(t *testing.T) {
	for _, e := range dbtest.Engines(t) {
		t.Run(e.Name, func(t *testing.T) {
			st, dbURL := e.Open(t)
			s := apitest.Start(t, apitest.Options{Store: st})
			t.Run("Attest", func(t *testing.T) { testAttest(t, s) })
			t.Run("Handoff", func(t *testing.T) { testHandoff(t, s) })
			t.Run("Errors", func(t *testing.T) { testTrustErrors(t, s) })
			t.Run("TextNeverStored", func(t *testing.T) { testTextNeverStored(t, s, dbURL) })
		})
	}
}

// validatePath turns a verify_url into the path to GET, checking it points at this server.
func validatePath(t *testing.T, s *apitest.Server, verifyURL, id string) string {
	t.Helper()
	if want := s.URL + "/api/v1/validate/" + id; verifyURL != want {
		t.Fatalf("verify_url = %s, want %s", verifyURL, want)
	}
	return strings.TrimPrefix(verifyURL, s.URL)
}

func testAttest(t *testing.T, s *apitest.Server) {
	output := "The capital of France is Paris. ✓"
	r := s.PostJSON("/api/v1/attest", map[string]any{"provider": "anthropic", "model": "claude-sonnet-4", "output": output, "agent_id": "agent-7"})
	if r.Status != 200 {
		t.Fatalf("attest: %d %s", r.Status, r.Body)
	}
	var a api.AttestationResponse
	r.Decode(t, &a)
	if id, err := uuid.Parse(a.AttestationId); err != nil || id.Version() != 4 {
		t.Errorf("attestation_id %q is not a UUIDv4", a.AttestationId)
	}
	if a.PayloadHash != sha(output) || a.AgentIdVerified {
		t.Errorf("attestation = %+v", a)
	}
	path := validatePath(t, s, a.VerifyUrl, a.AttestationId)

	var v api.ValidationRecord
	r = s.Get(path)
	r.Decode(t, &v)
	if r.Status != 200 || v.Type != "attestation" || !v.Valid || v.Id != a.AttestationId || *v.Provider != "anthropic" ||
		*v.Model != "claude-sonnet-4" || *v.AgentId != "agent-7" || *v.PayloadHash != sha(output) || v.Match != nil ||
		v.FromAgent != nil || v.ContextHash != nil || !v.CreatedAt.Equal(a.CreatedAt) {
		t.Errorf("validate = %d %s", r.Status, r.Body)
	}
	for q, want := range map[string]bool{
		"output=" + url.QueryEscape(output):      true,
		"output=" + url.QueryEscape(output+" "):  false,
		"hash=" + strings.ToUpper(sha(output)):   true,
		"hash=" + sha("something else entirely"): false,
	} {
		var m api.ValidationRecord
		r := s.Get(path + "?" + q)
		r.Decode(t, &m)
		if r.Status != 200 || m.Match == nil || *m.Match != want {
			t.Errorf("?%s: %d match=%v, want %v", q, r.Status, m.Match, want)
		}
	}

	// A caller's own hash is stored as given, lower-cased.
	upper := strings.ToUpper(sha("precomputed"))
	r = s.PostJSON("/api/v1/attest", map[string]any{"provider": "openai", "model": "gpt-4o", "payload_hash": upper})
	r.Decode(t, &a)
	if r.Status != 200 || a.PayloadHash != sha("precomputed") {
		t.Errorf("payload_hash attest: %d %s", r.Status, r.Body)
	}
	r = s.Get(validatePath(t, s, a.VerifyUrl, a.AttestationId) + "?output=precomputed")
	r.Decode(t, &v)
	if v.Match == nil || !*v.Match || v.AgentId != nil {
		t.Errorf("verify of a caller's hash: %s", r.Body)
	}
}

func testHandoff(t *testing.T, s *apitest.Server) {
	ctx := "Summarise the Q3 report; the numbers are in sheet 2."
	r := s.PostJSON("/api/v1/handoff", map[string]any{"from_agent": "planner", "to_agent": "writer", "task_id": "task-9", "context": ctx})
	if r.Status != 200 {
		t.Fatalf("handoff: %d %s", r.Status, r.Body)
	}
	var h api.HandoffResponse
	r.Decode(t, &h)
	if id, err := uuid.Parse(h.HandoffId); err != nil || id.Version() != 4 || h.ContextHash == nil || *h.ContextHash != sha(ctx) {
		t.Errorf("handoff = %s", r.Body)
	}
	var v api.ValidationRecord
	r = s.Get(validatePath(t, s, h.VerifyUrl, h.HandoffId) + "?output=" + url.QueryEscape(ctx))
	r.Decode(t, &v)
	if v.Type != "handoff" || *v.FromAgent != "planner" || *v.ToAgent != "writer" || *v.TaskId != "task-9" ||
		v.Provider != nil || v.PayloadHash != nil || v.Match == nil || !*v.Match || v.AgentIdsVerified {
		t.Errorf("validate handoff = %s", r.Body)
	}

	r = s.PostJSON("/api/v1/handoff", map[string]any{"from_agent": "a", "to_agent": "b"})
	r.Decode(t, &h)
	if r.Status != 200 || h.ContextHash != nil {
		t.Fatalf("handoff without context: %d %s", r.Status, r.Body)
	}
	r = s.Get(validatePath(t, s, h.VerifyUrl, h.HandoffId) + "?output=anything")
	r.Decode(t, &v)
	if v.ContextHash != nil || v.TaskId != nil || v.Match == nil || *v.Match {
		t.Errorf("handoff without context validates as %s", r.Body)
	}
}

func testTrustErrors(t *testing.T, s *apitest.Server) {
	h := sha("x")
	cases := []struct {
		path   string
		body   map[string]any
		status int
		names  string
	}{
		{"/api/v1/attest", map[string]any{"provider": "openai", "output": "o"}, 400, "model"},
		{"/api/v1/attest", map[string]any{"model": "m", "output": "o"}, 400, "provider"},
		{"/api/v1/attest", map[string]any{"provider": "openai", "model": "m"}, 400, "output and payload_hash"},
		{"/api/v1/attest", map[string]any{"provider": "openai", "model": "m", "output": "o", "payload_hash": h}, 400, "output and payload_hash"},
		{"/api/v1/attest", map[string]any{"provider": "openai", "model": "m", "payload_hash": h[:63]}, 400, "payload_hash"},
		{"/api/v1/attest", map[string]any{"provider": "openai", "model": "m", "payload_hash": strings.Repeat("z", 64)}, 400, "payload_hash"},
		{"/api/v1/attest", map[string]any{"provider": "openai", "model": "  ", "output": "o"}, 400, "model"},
		{"/api/v1/attest", map[string]any{"provider": "no-such-ai", "model": "m", "output": "o"}, 404, "no-such-ai"},
		{"/api/v1/handoff", map[string]any{"to_agent": "b"}, 400, "from_agent"},
		{"/api/v1/handoff", map[string]any{"from_agent": "a"}, 400, "to_agent"},
		{"/api/v1/handoff", map[string]any{"from_agent": "", "to_agent": "b"}, 400, "from_agent"},
	}
	for _, c := range cases {
		r := s.PostJSON(c.path, c.body)
		if r.Status != c.status || !strings.Contains(r.Error(t), c.names) {
			t.Errorf("%s %v: %d %s, want %d naming %s", c.path, c.body, r.Status, r.Body, c.status, c.names)
		}
	}
	for path, status := range map[string]int{
		"/api/v1/validate/" + uuid.NewString():                         404,
		"/api/v1/validate/" + uuid.NewString() + "?output=a&hash=" + h: 400,
		"/api/v1/validate/x?hash=abc":                                  400,
		"/api/v1/validate/" + strings.Repeat("a", 65):                  400,
	} {
		if r := s.Get(path); r.Status != status {
			t.Errorf("GET %s = %d %s, want %d", path, r.Status, r.Body, status)
		}
	}
}

// testTextNeverStored sends a unique marker as output, context and query text, including in requests that fail,
// then reads every table and the service's logs: the marker is nowhere.
func testTextNeverStored(t *testing.T, s *apitest.Server, dbURL string) {
	marker := fmt.Sprintf("MARKER-%s-never-stored", uuid.NewString())
	var a api.AttestationResponse
	r := s.PostJSON("/api/v1/attest", map[string]any{"provider": "openai", "model": "gpt-4o", "output": marker})
	r.Decode(t, &a)
	s.PostJSON("/api/v1/handoff", map[string]any{"from_agent": "a", "to_agent": "b", "context": marker})
	s.Get("/api/v1/validate/" + a.AttestationId + "?output=" + url.QueryEscape(marker))
	failed := []*apitest.Response{
		s.PostJSON("/api/v1/attest", map[string]any{"provider": "openai", "model": "m", "output": marker, "payload_hash": sha("x")}),
		s.PostJSON("/api/v1/attest", map[string]any{"provider": "nobody", "model": "m", "output": marker}),
		s.PostJSON("/api/v1/attest", `{"provider": "openai", "model": "m", "output": "`+marker+`"`),
		s.Get("/api/v1/validate/" + a.AttestationId + "?hash=" + marker),
	}
	for _, f := range failed {
		if f.Status < 400 || strings.Contains(string(f.Body), marker) {
			t.Errorf("a failing request answered %d %s", f.Status, f.Body)
		}
	}
	dump := dbtest.DumpTables(t, dbURL)
	if !strings.Contains(dump, sha(marker)) {
		t.Fatalf("the dump does not even hold the marker's hash; is it reading the right database?\n%.500s", dump)
	}
	if strings.Contains(dump, marker) {
		t.Error("the marker text is in the database")
	}
	if strings.Contains(s.Logs.String(), marker) {
		t.Error("the marker text is in the logs")
	}
}
