package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/switchboard/switchboard/apitest"
	"github.com/switchboard/switchboard/gateway"
	"github.com/switchboard/switchboard/gen/api"
)

// exportCases are the failover exports the gateway tests load: several primaries and tasks, the longest chain.
var exportCases = []string{
	"primary=openai&limit=10",
	"primary=anthropic&task=code&limit=10",
	"primary=google-gemini&task=agent&limit=10",
	"primary=groq&task=llm&max_cost_per_1m=1&limit=10",
	"primary=aws-bedrock&task=embedding&limit=10",
}

// exportConfigs fetches every case in every format and writes each config to dir as <case>.<format>.json.
func exportConfigs(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	s := apitest.Start(t, apitest.Options{})
	out := map[string][]byte{}
	for i, q := range exportCases {
		for _, format := range []string{"litellm", "portkey", "openrouter"} {
			r := s.Get("/api/v1/failover/export?format=" + format + "&" + q)
			if r.Status != 200 {
				t.Fatalf("%s %s: %d %s", format, q, r.Status, r.Body)
			}
			var ex struct {
				Config  json.RawMessage            `json:"config"`
				Targets []api.FailoverExportTarget `json:"targets"`
			}
			r.Decode(t, &ex)
			// OpenRouter routes chat models only: an embedding ranking has nothing it can name.
			if len(ex.Targets) == 0 && (format != "openrouter" || !strings.Contains(q, "embedding")) {
				t.Errorf("%s %s: no target", format, q)
			}
			name := fmt.Sprintf("case%d.%s.json", i, format)
			if err := os.WriteFile(filepath.Join(dir, name), ex.Config, 0o644); err != nil {
				t.Fatal(err)
			}
			out[name] = ex.Config
		}
	}
	return out
}

// TestLiteLLMConfigs checks the LiteLLM exports against LiteLLM's documented config shape (litellm.schema.json,
// written from docs.litellm.ai since LiteLLM's own parser is Python, which cannot be installed here) and its
// documented rule that fallbacks go from one model_name to other model_names of model_list.
func TestLiteLLMConfigs(t *testing.T) {
	t.Parallel()
	configs := exportConfigs(t, t.TempDir())
	f, err := os.Open(filepath.Join("gateway", "litellm.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("litellm.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("litellm.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	// The schema refuses what LiteLLM would not read: fallbacks as a map, a model without its provider route.
	for _, bad := range []string{
		`{"model_list":[{"model_name":"a","litellm_params":{"model":"openai/gpt-4o"}}],"router_settings":{"fallbacks":{"a":["b"]}}}`,
		`{"model_list":[{"model_name":"a","litellm_params":{"model":"gpt-4o"}}]}`,
		`{"model_list":[{"model_name":"a"}]}`,
	} {
		v, _ := jsonschema.UnmarshalJSON(strings.NewReader(bad))
		if sch.Validate(v) == nil {
			t.Errorf("the schema accepts %s", bad)
		}
	}
	n := 0
	for name, raw := range configs {
		if !strings.HasSuffix(name, ".litellm.json") {
			continue
		}
		n++
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(v); err != nil {
			t.Errorf("%s: %v\n%s", name, err, raw)
		}
		var cfg struct {
			ModelList []struct {
				ModelName string `json:"model_name"`
			} `json:"model_list"`
			RouterSettings struct {
				Fallbacks []map[string][]string `json:"fallbacks"`
			} `json:"router_settings"`
		}
		if err := json.Unmarshal(raw, &cfg); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, m := range cfg.ModelList {
			names = append(names, m.ModelName)
		}
		for _, fb := range cfg.RouterSettings.Fallbacks {
			for from, to := range fb {
				for _, m := range append([]string{from}, to...) {
					if !slices.Contains(names, m) {
						t.Errorf("%s: fallback model %s is no model_name of model_list", name, m)
					}
				}
			}
		}
	}
	if n != len(exportCases) {
		t.Errorf("checked %d LiteLLM configs", n)
	}
}

// TestPortkeyAndOpenRouterConfigs loads the Portkey exports with the config schema of Portkey's own gateway and
// the OpenRouter exports with the chat request schema of OpenRouter's SDK (gateway/validate.mjs).
func TestPortkeyAndOpenRouterConfigs(t *testing.T) {
	t.Parallel()
	node := nodeAndPackages(t, "@portkey-ai/gateway", "@openrouter/sdk")
	dir := t.TempDir()
	exportConfigs(t, dir)
	// Every entry of the provider tables, not only those today's rankings reach: one Portkey target per slug, and
	// every OpenRouter provider name in one order.
	var targets []gateway.PortkeyTarget
	for _, slug := range slices.Sorted(maps.Values(gateway.PortkeyProviders())) {
		tg := gateway.PortkeyTarget{Provider: slug, APIKey: "<key>", OverrideParams: gateway.PortkeyOverrideParams{Model: "m"}}
		if slug == "vertex-ai" {
			tg.VertexProjectID, tg.VertexRegion = "<project>", "<region>"
		}
		targets = append(targets, tg)
	}
	tables := map[string]any{
		"tables.portkey.json": gateway.PortkeyConfig{Strategy: gateway.PortkeyStrategy{Mode: "fallback"}, Targets: targets},
		"tables.openrouter.json": gateway.OpenRouterRequest{Models: []string{"openai/gpt-4o-mini"},
			Provider: &gateway.OpenRouterProviderOptions{Order: slices.Sorted(maps.Values(gateway.OpenRouterProviders())), AllowFallbacks: true}},
	}
	for name, v := range tables {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script, _ := filepath.Abs("gateway")
	out := run(t, script, node, "validate.mjs", dir)
	if !strings.Contains(out, fmt.Sprintf("gateway configs: ok %d", 2*len(exportCases)+len(tables))) {
		t.Fatalf("validate.mjs: %s", out)
	}
}
