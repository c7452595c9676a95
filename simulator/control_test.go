package simulator

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/seeds"
)

// call sends a control request and decodes the JSON answer.
func call(t *testing.T, srvURL, method, path, body string, chunked bool) (int, map[string]any, http.Header) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
		if chunked {
			rd = io.MultiReader(rd) // hides the length: sent chunked
		}
	}
	req, err := http.NewRequest(method, srvURL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("%s %s: Content-Type %q", method, path, ct)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%s %s: answer is not a JSON object: %q", method, path, raw)
	}
	return resp.StatusCode, out, resp.Header
}

func TestControlAPI(t *testing.T) {
	all := seeds.Providers().All()
	sim, srv := newServer(t, all)

	code, out, _ := call(t, srv.URL, http.MethodGet, "/_control", "", false)
	provs, _ := out["providers"].(map[string]any)
	if code != http.StatusOK || len(provs) != len(all) {
		t.Fatalf("GET /_control: %d, %d providers", code, len(provs))
	}
	if sc, _ := provs["openai"].(map[string]any); sc["status"] != "operational" || sc["fail"] != "none" || sc["delay_ms"] != 0.0 {
		t.Errorf("openai starts as %v", sc)
	}

	code, out, _ = call(t, srv.URL, http.MethodPut, "/_control/openai", `{"status":"outage","delay_ms":250,"fail":"http500"}`, false)
	if code != http.StatusOK || out["status"] != "outage" || out["delay_ms"] != 250.0 || out["fail"] != "http500" {
		t.Errorf("PUT: %d %v", code, out)
	}
	if got := sim.Scenarios()["openai"]; got != (Scenario{Status: StatusOutage, DelayMS: 250, Fail: FailHTTP500}) {
		t.Errorf("after PUT: %+v", got)
	}
	code, out, _ = call(t, srv.URL, http.MethodGet, "/_control/openai", "", false)
	if code != http.StatusOK || out["status"] != "outage" {
		t.Errorf("GET one: %d %v", code, out)
	}

	// Missing fields take their defaults, not the previous values.
	code, out, _ = call(t, srv.URL, http.MethodPut, "/_control/openai", `{"delay_ms":10}`, false)
	if code != http.StatusOK || out["status"] != "operational" || out["fail"] != "none" || out["delay_ms"] != 10.0 {
		t.Errorf("PUT with defaults: %d %v", code, out)
	}
	code, out, _ = call(t, srv.URL, http.MethodPut, "/_control/openai", `{}`, false)
	if code != http.StatusOK || out["status"] != "operational" || out["delay_ms"] != 0.0 {
		t.Errorf("PUT {}: %d %v", code, out)
	}

	if _, _, _ = call(t, srv.URL, http.MethodPut, "/_control/groq", `{"status":"degraded"}`, false); sim.Scenarios()["groq"].Status != StatusDegraded {
		t.Fatal("groq not degraded")
	}
	code, out, _ = call(t, srv.URL, http.MethodDelete, "/_control/groq", "", false)
	if code != http.StatusOK || out["status"] != "operational" {
		t.Errorf("DELETE one: %d %v", code, out)
	}
	_ = sim.Set("groq", Scenario{Status: StatusOutage})
	_ = sim.Set("xai", Scenario{Fail: FailReset, DelayMS: 5})
	code, out, _ = call(t, srv.URL, http.MethodDelete, "/_control", "", false)
	provs, _ = out["providers"].(map[string]any)
	if code != http.StatusOK || len(provs) != len(all) {
		t.Errorf("DELETE /_control: %d %v", code, out)
	}
	for id, sc := range sim.Scenarios() {
		if sc != DefaultScenario() {
			t.Errorf("after DELETE /_control, %s is %+v", id, sc)
		}
	}
}

func TestControlAPIErrors(t *testing.T) {
	sim, srv := newServer(t, seeds.Providers().All())
	big := `{"status":"outage","pad":"` + strings.Repeat("x", 70<<10) + `"}`
	for _, c := range []struct {
		name, method, path, body string
		chunked                  bool
		code                     int
		mention                  string
	}{
		{"bad status", "PUT", "/_control/openai", `{"status":"down"}`, false, 400, "status"},
		{"empty status", "PUT", "/_control/openai", `{"status":""}`, false, 400, "status"},
		{"status not a string", "PUT", "/_control/openai", `{"status":3}`, false, 400, "status"},
		{"bad fail", "PUT", "/_control/openai", `{"fail":"explode"}`, false, 400, "fail"},
		{"negative delay", "PUT", "/_control/openai", `{"delay_ms":-1}`, false, 400, "delay_ms"},
		{"delay too long", "PUT", "/_control/openai", `{"delay_ms":60001}`, false, 400, "delay_ms"},
		{"fractional delay", "PUT", "/_control/openai", `{"delay_ms":1.5}`, false, 400, "delay_ms"},
		{"delay as text", "PUT", "/_control/openai", `{"delay_ms":"100"}`, false, 400, "delay_ms"},
		{"unknown field", "PUT", "/_control/openai", `{"status":"outage","colour":"red"}`, false, 400, "colour"},
		{"not json", "PUT", "/_control/openai", `status=outage`, false, 400, "JSON"},
		{"truncated json", "PUT", "/_control/openai", `{"status":"outage"`, false, 400, "JSON"},
		{"array", "PUT", "/_control/openai", `[]`, false, 400, "object"},
		{"two objects", "PUT", "/_control/openai", `{} {}`, false, 400, "body"},
		{"no body", "PUT", "/_control/openai", ``, false, 400, "body"},
		{"body too large", "PUT", "/_control/openai", big, false, 413, "body"},
		{"body too large, chunked", "PUT", "/_control/openai", big, true, 413, "body"},
		{"unknown provider", "PUT", "/_control/nope", `{"status":"outage"}`, false, 404, "nope"},
		{"unknown provider, get", "GET", "/_control/nope", ``, false, 404, "nope"},
		{"unknown provider, delete", "DELETE", "/_control/nope", ``, false, 404, "nope"},
		{"nested path", "GET", "/_control/openai/x", ``, false, 404, "/_control/openai/x"},
		{"unknown path", "GET", "/nope", ``, false, 404, "/nope"},
		{"unknown page", "GET", "/openai/api/v2/other.json", ``, false, 404, "other.json"},
		{"wrong method, all", "POST", "/_control", `{}`, false, 405, "POST"},
		{"wrong method, one", "PATCH", "/_control/openai", `{}`, false, 405, "PATCH"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, h := call(t, srv.URL, c.method, c.path, c.body, c.chunked)
			msg, _ := out["error"].(string)
			if code != c.code || !strings.Contains(msg, c.mention) || len(out) != 1 {
				t.Errorf("%d %v, want %d with an error naming %q", code, out, c.code, c.mention)
			}
			if code == 405 && h.Get("Allow") == "" {
				t.Error("405 without Allow")
			}
		})
	}
	if got := sim.Scenarios()["openai"]; got != DefaultScenario() {
		t.Errorf("a rejected request changed the scenario: %+v", got)
	}
}

func TestSet(t *testing.T) {
	sim := New(seeds.Providers().All())
	defer sim.Close()
	if err := sim.Set("nope", Scenario{}); !errors.Is(err, ErrUnknownProvider) {
		t.Errorf("unknown provider: %v", err)
	}
	var fe *FieldError
	for field, sc := range map[string]Scenario{
		"status":   {Status: "broken"},
		"delay_ms": {DelayMS: MaxDelayMS + 1},
		"fail":     {Fail: "sometimes"},
	} {
		if err := sim.Set("openai", sc); !errors.As(err, &fe) || fe.Field != field {
			t.Errorf("%+v: %v, want a FieldError on %s", sc, err, field)
		}
	}
	// Empty strings mean the defaults.
	if err := sim.Set("openai", Scenario{DelayMS: MaxDelayMS}); err != nil {
		t.Fatal(err)
	}
	if got, _ := sim.Scenario("openai"); got != (Scenario{Status: StatusOperational, DelayMS: MaxDelayMS, Fail: FailNone}) {
		t.Errorf("got %+v", got)
	}
	// Scenarios returns a copy.
	m := sim.Scenarios()
	m["openai"] = Scenario{Status: StatusOutage}
	if got, _ := sim.Scenario("openai"); got.Status != StatusOperational {
		t.Error("Scenarios shares its map")
	}
	if len(m) != seeds.MonitoredProviders {
		t.Errorf("%d scenarios", len(m))
	}
}

func TestNewDropsDuplicates(t *testing.T) {
	p := providerByID(t, "openai")
	q := p
	q.Format = "http"
	sim := New([]seeds.Provider{p, q})
	defer sim.Close()
	if n := len(sim.Providers()); n != 1 || sim.Providers()[0].Format != "incidentio" {
		t.Errorf("providers: %+v", sim.Providers())
	}
}
