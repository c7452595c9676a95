package seeds

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// The agent intelligence catalogs (the agent catalogs), hand-curated from the providers' official pages.
func init() {
	recordSchemas["agent_protocols"] = "AgentProtocolsRecord"
	recordSchemas["streaming_protocols"] = "StreamingProtocolsRecord"
	recordSchemas["output_reproducibility"] = "OutputReproducibilityRecord"
	recordSchemas["native_tools"] = "NativeToolsRecord"
	recordSchemas["pii_handling"] = "PiiHandlingRecord"
	recordSchemas["context_compression"] = "ContextCompressionRecord"
	recordSchemas["mcp_support"] = "McpSupportRecord"
	recordSchemas["delegation_support"] = "DelegationSupportRecord"
	recordSchemas["prompt_moderation"] = "PromptModerationRecord"
}

// agentsAsOf is the day the hand-curated catalogs were checked.
const agentsAsOf = "2026-11-22"

func str(v any) string {
	s, _ := v.(string)
	return s
}

// nullFields lists the fields of r that are null.
func nullFields(r map[string]any) []string {
	var out []string
	for k, v := range r {
		if v == nil {
			out = append(out, k)
		}
	}
	return out
}

// TestAgentsPerProviderCatalogs checks the catalogs with one record per provider: all 52, in provider order,
// each explaining itself in its notes, and every unknown (null) flag said to be "not confirmed" or not applicable.
func TestAgentsPerProviderCatalogs(t *testing.T) {
	reg := Providers()
	// The field that explains each record, and the fields that may be null without saying "not confirmed"
	// because null is their documented "none" (no seed parameter, no protocol, no quirks...).
	for name, c := range map[string]struct {
		notes      string
		ownNullity []string
	}{
		"streaming_protocols":    {"known_quirks", []string{"stream_end_signal"}},
		"output_reproducibility": {"notes", []string{"seed_param", "same_hardware_required", "deterministic_guarantee"}},
		"pii_handling":           {"notes", nil},
		"context_compression":    {"notes", nil},
		"mcp_support":            {"notes", []string{"mcp_version"}},
		"prompt_moderation":      {"notes", []string{"latency_impact"}},
	} {
		cat, recs := testCatalog[map[string]any](t, name)
		if cat.AsOf != agentsAsOf {
			t.Errorf("%s: as_of %s, want %s (hand-curated)", name, cat.AsOf, agentsAsOf)
		}
		if len(recs) != MonitoredProviders {
			t.Errorf("%s: %d records, want one per provider (%d)", name, len(recs), MonitoredProviders)
		}
		prev := ""
		for i, r := range recs {
			id := str(r["provider_id"])
			if !reg.Known(id) || id <= prev {
				t.Errorf("%s record %d: provider %q unknown, duplicate or out of order (after %q)", name, i, id, prev)
			}
			prev = id
			notes := strings.ToLower(str(r[c.notes]))
			if notes == "" {
				t.Errorf("%s %s: no %s (say where the facts come from or that they are unknown)", name, id, c.notes)
			}
			for _, f := range nullFields(r) {
				if f == c.notes || slices.Contains(c.ownNullity, f) {
					continue
				}
				if !strings.Contains(notes, "not confirmed") && !strings.Contains(notes, "not applicable") {
					t.Errorf("%s %s: %s is null but the %s do not say it is not confirmed: %q", name, id, f, c.notes, notes)
				}
			}
		}
	}
}

// TestAgentsFieldConsistency checks facts that must agree inside one record.
func TestAgentsFieldConsistency(t *testing.T) {
	_, repro := testCatalog[map[string]any](t, "output_reproducibility")
	for _, r := range repro {
		if (r["seed_supported"] == true) != (r["seed_param"] != nil) {
			t.Errorf("output_reproducibility %s: seed_supported %v but seed_param %v", r["provider_id"], r["seed_supported"], r["seed_param"])
		}
		if r["seed_supported"] == false && r["deterministic_guarantee"] != nil && r["deterministic_guarantee"] != "none" {
			t.Errorf("output_reproducibility %s: a guarantee without a seed", r["provider_id"])
		}
	}
	_, pii := testCatalog[map[string]any](t, "pii_handling")
	for _, r := range pii {
		if r["pii_detection_supported"] != true && (r["pii_redaction_supported"] == true || len(r["supported_pii_types"].([]any)) > 0 ||
			r["detection_in_prompt"] == true || r["detection_in_response"] == true) {
			t.Errorf("pii_handling %s: redaction, types or detection sites without confirmed detection", r["provider_id"])
		}
	}
	_, moderation := testCatalog[map[string]any](t, "prompt_moderation")
	for _, r := range moderation {
		if r["input_moderation_supported"] == false && (len(r["supported_categories"].([]any)) > 0 || len(r["moderation_action"].([]any)) > 0) {
			t.Errorf("prompt_moderation %s: categories or actions without input moderation", r["provider_id"])
		}
	}
	_, streaming := testCatalog[map[string]any](t, "streaming_protocols")
	for _, r := range streaming {
		sse, ws, primary := r["sse_supported"], r["websocket_supported"], r["primary_protocol"]
		if (primary == "none" && (sse != false || ws != false)) || (primary == "both" && (sse != true || ws != true)) ||
			(primary == "SSE" && sse != true) || (primary == "WebSocket" && ws != true) {
			t.Errorf("streaming_protocols %s: primary_protocol %v disagrees with sse %v / websocket %v", r["provider_id"], primary, sse, ws)
		}
	}
	_, compression := testCatalog[map[string]any](t, "context_compression")
	for _, r := range compression {
		if (r["native_compression"] == true) != (len(r["compression_methods"].([]any)) > 0) {
			t.Errorf("context_compression %s: native_compression %v with methods %v", r["provider_id"], r["native_compression"], r["compression_methods"])
		}
	}
}

// TestAgentsDelegation checks the delegation catalog: every provider at least once, sorted by provider then
// protocol with null last, no duplicate, and a protocol named whenever delegation is supported.
func TestAgentsDelegation(t *testing.T) {
	_, recs := testCatalog[map[string]any](t, "delegation_support")
	seen := map[string]bool{}
	for i, r := range recs {
		id, proto := str(r["provider_id"]), r["protocol"]
		seen[id] = true
		if r["delegation_supported"] == true && proto == nil {
			t.Errorf("delegation_support %s: supported without a protocol", id)
		}
		if r["delegation_supported"] == nil && !strings.Contains(str(r["notes"]), "Not confirmed") {
			t.Errorf("delegation_support %s: unknown support without saying so", id)
		}
		if i == 0 {
			continue
		}
		p := recs[i-1]
		order := cmp.Compare(str(p["provider_id"]), id)
		if order == 0 {
			switch {
			case p["protocol"] == nil:
				order = 1 // null sorts last, so nothing may follow it
			case proto != nil:
				order = cmp.Compare(str(p["protocol"]), str(proto))
			default:
				order = -1
			}
		}
		if order >= 0 {
			t.Errorf("delegation_support record %d (%s, %v) is out of order or a duplicate", i, id, proto)
		}
	}
	if len(seen) != MonitoredProviders {
		t.Errorf("delegation_support covers %d providers, want %d", len(seen), MonitoredProviders)
	}
}

// TestAgentsAgentProtocols checks the per-provider-and-protocol catalog and its agreement with mcp_support.
func TestAgentsAgentProtocols(t *testing.T) {
	reg := Providers()
	_, recs := testCatalog[map[string]any](t, "agent_protocols")
	_, mcp := testCatalog[map[string]any](t, "mcp_support")
	mcpByProvider := map[string]map[string]any{}
	for _, r := range mcp {
		mcpByProvider[str(r["provider_id"])] = r
	}
	prev, providers := "", map[string]bool{}
	for i, r := range recs {
		id, proto := str(r["provider_id"]), str(r["protocol"])
		providers[id] = true
		key := id + "\x00" + proto
		if key <= prev {
			t.Errorf("agent_protocols record %d (%s, %s) is out of order or a duplicate", i, id, proto)
		}
		prev = key
		p, ok := reg.Get(id)
		if !ok || str(r["provider_name"]) != p.Name {
			t.Errorf("agent_protocols %s: provider_name %q, providers.json says %q", id, r["provider_name"], p.Name)
		}
		if !strings.HasPrefix(str(r["docs_url"]), "https://") || str(r["notes"]) == "" {
			t.Errorf("agent_protocols %s/%s: needs notes and an https docs_url", id, proto)
		}
		// An MCP record means the provider is an MCP server or client in mcp_support.
		if m := mcpByProvider[id]; proto == "MCP" && m["mcp_server_supported"] != true && m["mcp_client_supported"] != true {
			t.Errorf("agent_protocols %s supports MCP, but mcp_support confirms neither server nor client", id)
		}
	}
	for _, id := range []string{"openai", "anthropic", "google-gemini", "google-vertex-ai", "aws-bedrock", "azure-openai"} {
		if !providers[id] {
			t.Errorf("agent_protocols: no record for %s", id)
		}
	}
}

// TestAgentsNativeTools checks the per-provider-and-tool catalog: sorted by provider, tool type and tool name,
// no duplicate, and compatible models that are models of the same provider in models.json.
func TestAgentsNativeTools(t *testing.T) {
	have := catalogedModels(t)
	// OpenAI's computer-use model is an API model that models.json (litellm, models.dev) does not list for
	// openai; the Azure deployment of the same model is listed.
	notCataloged := map[string]bool{"openai/computer-use-preview": true}
	_, recs := testCatalog[map[string]any](t, "native_tools")
	type tool struct {
		ProviderID       string   `json:"provider_id"`
		ToolName         string   `json:"tool_name"`
		ToolType         string   `json:"tool_type"`
		CompatibleModels []string `json:"compatible_models"`
		SeparatePricing  *bool    `json:"separate_pricing"`
		PricingNotes     *string  `json:"pricing_notes"`
	}
	prev := ""
	for i, raw := range recs {
		var r tool
		b, _ := json.Marshal(raw)
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		key := r.ProviderID + "\x00" + r.ToolType + "\x00" + r.ToolName
		if key <= prev {
			t.Errorf("native_tools record %d (%s, %s, %s) is out of order or a duplicate", i, r.ProviderID, r.ToolType, r.ToolName)
		}
		prev = key
		for _, m := range r.CompatibleModels {
			if k := r.ProviderID + "/" + m; !have[k] && !notCataloged[k] {
				t.Errorf("native_tools %s/%s: compatible model %q is not a %s model in models.json", r.ProviderID, r.ToolName, m, r.ProviderID)
			}
		}
		if r.SeparatePricing != nil && *r.SeparatePricing && r.PricingNotes == nil {
			t.Errorf("native_tools %s/%s: priced separately without pricing notes", r.ProviderID, r.ToolName)
		}
	}
	// The tools the issue names.
	for _, want := range []string{"openai/web_search", "openai/file_search", "openai/code_interpreter", "openai/image_generation",
		"openai/computer_use", "anthropic/web_search", "anthropic/code_interpreter", "anthropic/computer_use", "anthropic/memory",
		"google-gemini/web_search", "google-gemini/code_interpreter", "google-gemini/other", "xai/web_search", "perplexity/web_search"} {
		found := false
		for _, raw := range recs {
			if str(raw["provider_id"])+"/"+str(raw["tool_type"]) == want {
				found = true
			}
		}
		if !found {
			t.Errorf("native_tools: no %s tool", want)
		}
	}
}

// TestAgentsSourcesAreCited checks that every page a record links to is one of its catalog's sources.
func TestAgentsSourcesAreCited(t *testing.T) {
	c, recs := testCatalog[map[string]any](t, "agent_protocols")
	cited := map[string]bool{}
	for _, s := range c.Sources {
		cited[s.URL] = true
		if s.License != nil {
			t.Errorf("agent_protocols source %s: official documentation has no data license", s.URL)
		}
	}
	for _, r := range recs {
		if u := str(r["docs_url"]); !cited[u] {
			t.Errorf("agent_protocols %s/%s: docs_url %s is not in sources", r["provider_id"], r["protocol"], u)
		}
	}
}
