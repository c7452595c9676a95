package seeds

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// the capability catalogs: per-model capability catalogs, derived for the language models of models.json.

func init() {
	recordSchemas["json_mode"] = "JsonModeRecord"
	recordSchemas["structured_output"] = "StructuredOutputRecord"
	recordSchemas["thinking_support"] = "ThinkingSupportRecord"
	recordSchemas["multimodal"] = "MultimodalRecord"
	recordSchemas["tool_call_format"] = "ToolCallFormatRecord"
	recordSchemas["context_window"] = "ContextWindowRecord"
	recordSchemas["max_output_tokens"] = "MaxOutputTokensRecord"
}

// capabilityPerModel are the capability catalogs with one record per language model of models.json.
var capabilityPerModel = []string{"json_mode", "structured_output", "thinking_support", "multimodal", "context_window", "max_output_tokens"}

// TestCapabilityPerModelCoverage checks that every per-model catalog lists exactly the language models of
// models.json, once each, sorted by provider then model.
func TestCapabilityPerModelCoverage(t *testing.T) {
	langs := languageModels(t)
	if len(langs) < 1000 {
		t.Fatalf("%d language models in models.json, expected more than 1,000", len(langs))
	}
	type key struct {
		ProviderID string `json:"provider_id"`
		ModelID    string `json:"model_id"`
	}
	for _, name := range capabilityPerModel {
		recs := testRecords[key](t, name)
		if len(recs) != len(langs) {
			t.Errorf("%s: %d records, models.json has %d language models", name, len(recs), len(langs))
		}
		seen := map[string]bool{}
		for i, r := range recs {
			k := r.ProviderID + "/" + r.ModelID
			if _, ok := langs[k]; !ok {
				t.Errorf("%s record %d: %s is not a language model of models.json", name, i, k)
			}
			if seen[k] {
				t.Errorf("%s: %s twice", name, k)
			}
			seen[k] = true
			if i > 0 && cmp.Or(strings.Compare(recs[i-1].ProviderID, r.ProviderID), strings.Compare(recs[i-1].ModelID, r.ModelID)) >= 0 {
				t.Errorf("%s record %d (%s) is out of provider, model order", name, i, k)
			}
		}
	}
}

// TestCapabilityMatchesModels checks the overlap with models.json: the same windows, limits and capabilities.
func TestCapabilityMatchesModels(t *testing.T) {
	langs := languageModels(t)
	eq := func(a, b *int) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
	for _, r := range testRecords[struct {
		ProviderID        string   `json:"provider_id"`
		ModelID           string   `json:"model_id"`
		AdvertisedContext *int     `json:"advertised_context"`
		EffectiveContext  *int     `json:"effective_context"`
		UsableTokens      *int     `json:"usable_tokens"`
		Fill              *float64 `json:"recommended_max_fill"`
		Sources           []string `json:"sources"`
	}](t, "context_window") {
		m := langs[r.ProviderID+"/"+r.ModelID]
		if !eq(r.AdvertisedContext, m.ContextWindow) {
			t.Errorf("context_window %s/%s: advertised %v, models.json %v", r.ProviderID, r.ModelID, r.AdvertisedContext, m.ContextWindow)
		}
		// An effective context is a published measurement (RULER), cited, within the advertised window, with the
		// usable tokens within it; none without the measurement.
		measured := slices.Contains(r.Sources, "ruler")
		if (r.EffectiveContext != nil) != measured || (r.UsableTokens != nil) != measured {
			t.Errorf("context_window %s/%s: effective %v, usable %v, sources %v", r.ProviderID, r.ModelID, r.EffectiveContext, r.UsableTokens, r.Sources)
			continue
		}
		if !measured {
			continue
		}
		if (r.AdvertisedContext != nil && *r.EffectiveContext > *r.AdvertisedContext) || *r.UsableTokens > *r.EffectiveContext ||
			*r.UsableTokens < *r.EffectiveContext*3/4 || (r.Fill != nil && (*r.Fill <= 0 || *r.Fill > 1)) {
			t.Errorf("context_window %s/%s: effective %d, usable %d, fill %v, advertised %v", r.ProviderID, r.ModelID,
				*r.EffectiveContext, *r.UsableTokens, r.Fill, r.AdvertisedContext)
		}
	}
	for _, r := range testRecords[struct {
		ProviderID      string   `json:"provider_id"`
		ModelID         string   `json:"model_id"`
		MaxOutputTokens *int     `json:"max_output_tokens"`
		ContextWindow   *int     `json:"context_window"`
		Ratio           *float64 `json:"output_to_context_ratio"`
		Notes           *string  `json:"notes"`
	}](t, "max_output_tokens") {
		m := langs[r.ProviderID+"/"+r.ModelID]
		if !eq(r.MaxOutputTokens, m.MaxOutputTokens) || !eq(r.ContextWindow, m.ContextWindow) {
			t.Errorf("max_output_tokens %s/%s: %v/%v, models.json %v/%v", r.ProviderID, r.ModelID, r.MaxOutputTokens,
				r.ContextWindow, m.MaxOutputTokens, m.ContextWindow)
		}
		switch {
		case r.MaxOutputTokens == nil || r.ContextWindow == nil || *r.ContextWindow == 0:
			if r.Ratio != nil {
				t.Errorf("max_output_tokens %s/%s: a ratio without both values", r.ProviderID, r.ModelID)
			}
		case r.Ratio == nil || math.Abs(*r.Ratio-float64(*r.MaxOutputTokens)/float64(*r.ContextWindow)) > 0.00005+1e-9:
			t.Errorf("max_output_tokens %s/%s: ratio %v for %d/%d", r.ProviderID, r.ModelID, fmtFloat(r.Ratio), *r.MaxOutputTokens, *r.ContextWindow)
		}
		if r.Notes == nil || (!strings.Contains(*r.Notes, " from ") && !strings.Contains(*r.Notes, "not stated")) {
			t.Errorf("max_output_tokens %s/%s: notes do not name the source", r.ProviderID, r.ModelID)
		}
	}
	// JSON schema support is true exactly where models.json says json_mode, and the two catalogs agree.
	type jsonMode struct {
		ProviderID string  `json:"provider_id"`
		ModelID    string  `json:"model_id"`
		Object     *bool   `json:"json_object_supported"`
		Schema     *bool   `json:"schema_enforcement_supported"`
		Strict     *bool   `json:"strict_mode_supported"`
		Method     *string `json:"enforcement_method"`
		Workaround *bool   `json:"workaround_required"`
	}
	type structured struct {
		ProviderID  string   `json:"provider_id"`
		ModelID     string   `json:"model_id"`
		Schema      *bool    `json:"json_schema_supported"`
		Strict      *bool    `json:"strict_enforcement"`
		Constrained *bool    `json:"constrained_decoding"`
		Param       *string  `json:"response_format_param"`
		Features    []string `json:"supported_schema_features"`
		Notes       *string  `json:"notes"`
	}
	jm, so := testRecords[jsonMode](t, "json_mode"), testRecords[structured](t, "structured_output")
	if len(jm) != len(so) {
		t.Fatalf("json_mode has %d records, structured_output %d", len(jm), len(so))
	}
	sameBool := func(a, b *bool) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
	for i, s := range so {
		m, j := langs[s.ProviderID+"/"+s.ModelID], jm[i]
		// A json_mode models.json does not state (null) has nothing to agree with.
		if m.Capabilities.JsonMode != nil && isTrue(s.Schema) != *m.Capabilities.JsonMode {
			t.Errorf("structured_output %s/%s: json_schema_supported %v, models.json json_mode %t", s.ProviderID, s.ModelID, s.Schema, *m.Capabilities.JsonMode)
		}
		if j.ProviderID != s.ProviderID || j.ModelID != s.ModelID || !sameBool(j.Schema, s.Schema) || !sameBool(j.Strict, s.Strict) {
			t.Errorf("json_mode %s/%s disagrees with structured_output %s/%s", j.ProviderID, j.ModelID, s.ProviderID, s.ModelID)
		}
		if !isTrue(s.Schema) && (isTrue(s.Strict) || isTrue(s.Constrained) || s.Param != nil || len(s.Features) > 0) {
			t.Errorf("structured_output %s/%s: enforcement details without schema support", s.ProviderID, s.ModelID)
		}
		if isTrue(s.Constrained) && !isTrue(j.Object) {
			t.Errorf("json_mode %s/%s: constrained decoding but no guaranteed JSON object", j.ProviderID, j.ModelID)
		}
		if j.Method != nil && (*j.Method == "native") == isTrue(j.Workaround) {
			t.Errorf("json_mode %s/%s: method %s with workaround %v", j.ProviderID, j.ModelID, *j.Method, j.Workaround)
		}
		if s.Notes == nil || *s.Notes == "" {
			t.Errorf("structured_output %s/%s: no notes", s.ProviderID, s.ModelID)
		}
	}
	// Image input exactly where models.json says vision; image details only for models that take images.
	for _, r := range testRecords[struct {
		ProviderID string   `json:"provider_id"`
		ModelID    string   `json:"model_id"`
		Inputs     []string `json:"inputs"`
		Outputs    []string `json:"outputs"`
		MaxImages  *int64   `json:"max_images"`
		MaxMB      *float64 `json:"max_image_size_mb"`
		Formats    []string `json:"supported_image_formats"`
	}](t, "multimodal") {
		m := langs[r.ProviderID+"/"+r.ModelID]
		image := slices.Contains(r.Inputs, "image")
		if m.Capabilities.Vision != nil && image != *m.Capabilities.Vision {
			t.Errorf("multimodal %s/%s: image input %t, models.json vision %t", r.ProviderID, r.ModelID, image, *m.Capabilities.Vision)
		}
		if !image && (r.MaxImages != nil || r.MaxMB != nil || len(r.Formats) > 0) {
			t.Errorf("multimodal %s/%s: image limits without image input", r.ProviderID, r.ModelID)
		}
		if len(r.Outputs) == 0 || len(r.Inputs) == 0 {
			t.Errorf("multimodal %s/%s: no modality", r.ProviderID, r.ModelID)
		}
	}
}

func TestCapabilityThinking(t *testing.T) {
	recs := testRecords[struct {
		ProviderID string   `json:"provider_id"`
		ModelID    string   `json:"model_id"`
		Supported  *bool    `json:"thinking_supported"`
		Visible    *bool    `json:"thinking_visible"`
		Param      *string  `json:"thinking_param"`
		Cost       *float64 `json:"thinking_cost_per_1m"`
		Budget     *bool    `json:"budget_configurable"`
		BudgetP    *string  `json:"budget_param"`
		Default    *string  `json:"default_behavior"`
		Notes      *string  `json:"notes"`
	}](t, "thinking_support")
	supported := 0
	for _, r := range recs {
		if r.Supported == nil || !*r.Supported {
			if r.Param != nil || r.Cost != nil || r.BudgetP != nil || r.Default != nil {
				t.Errorf("thinking_support %s/%s: thinking details without thinking support", r.ProviderID, r.ModelID)
			}
			if r.Supported != nil && (isTrue(r.Visible) || isTrue(r.Budget)) {
				t.Errorf("thinking_support %s/%s: visible or budgeted thinking on a model without it", r.ProviderID, r.ModelID)
			}
		} else {
			supported++
		}
		if r.BudgetP != nil && (r.Budget == nil || !*r.Budget) {
			t.Errorf("thinking_support %s/%s: budget_param without budget_configurable", r.ProviderID, r.ModelID)
		}
		if r.Default != nil && !slices.Contains([]string{"opt_in", "always_on", "on_by_default"}, *r.Default) {
			t.Errorf("thinking_support %s/%s: default_behavior %q", r.ProviderID, r.ModelID, *r.Default)
		}
		if r.Notes == nil || *r.Notes == "" {
			t.Errorf("thinking_support %s/%s: no notes", r.ProviderID, r.ModelID)
		}
	}
	if supported < 300 {
		t.Errorf("only %d models with thinking support", supported)
	}
}

func TestCapabilityToolCallFormat(t *testing.T) {
	langs := languageModels(t)
	providers := map[string]bool{}
	for _, m := range langs {
		providers[m.ProviderId] = true
	}
	recs := testRecords[struct {
		ProviderID string   `json:"provider_id"`
		ModelID    *string  `json:"model_id"`
		RoleOrder  []string `json:"role_order"`
		CallRole   string   `json:"tool_call_role"`
		ResultRole string   `json:"tool_result_role"`
		Notes      *string  `json:"notes"`
	}](t, "tool_call_format")
	key := func(p string, m *string) string {
		if m == nil {
			return p + "\x00"
		}
		return p + "\x00\x01" + *m
	}
	wide := map[string]bool{}
	for i, r := range recs {
		if !providers[r.ProviderID] {
			t.Errorf("tool_call_format: %s has no language model in models.json", r.ProviderID)
		}
		if r.ModelID == nil {
			wide[r.ProviderID] = true
		} else if _, ok := langs[r.ProviderID+"/"+*r.ModelID]; !ok {
			t.Errorf("tool_call_format: %s/%s is not a language model of models.json", r.ProviderID, *r.ModelID)
		} else if wide[r.ProviderID] {
			t.Errorf("tool_call_format: %s/%s repeats a provider-wide record", r.ProviderID, *r.ModelID)
		}
		if i > 0 && key(recs[i-1].ProviderID, recs[i-1].ModelID) >= key(r.ProviderID, r.ModelID) {
			t.Errorf("tool_call_format record %d is out of order or repeated", i)
		}
		if len(r.RoleOrder) < 3 || !slices.Contains(r.RoleOrder, r.CallRole) || !slices.Contains(r.RoleOrder, r.ResultRole) {
			t.Errorf("tool_call_format %s: role order %v does not hold roles %s and %s", r.ProviderID, r.RoleOrder, r.CallRole, r.ResultRole)
		}
		if r.Notes == nil || !strings.Contains(*r.Notes, "Source: https://") {
			t.Errorf("tool_call_format %s: notes do not name the official page", r.ProviderID)
		}
	}
	for _, p := range []string{"openai", "anthropic", "google-gemini", "aws-bedrock", "azure-openai", "mistral", "cohere",
		"groq", "together", "fireworks", "deepseek", "xai", "openrouter"} {
		if !wide[p] {
			t.Errorf("tool_call_format: no provider-wide record for %s", p)
		}
	}
}

func fmtFloat(v *float64) string {
	if v == nil {
		return "null"
	}
	return strconv.FormatFloat(*v, 'g', -1, 64)
}

// TestCapabilitiesUnknownWithoutADataSet: models.json's capabilities come from the data sets (models.dev, litellm);
// a chat model only its provider's pages name (a new release) has them null: never all three false with no data
// set among its sources, which is how an unknown used to be served. The catalog holds both kinds.
func TestCapabilitiesUnknownWithoutADataSet(t *testing.T) {
	no := func(b *bool) bool { return b != nil && !*b }
	stated, unknown := 0, 0
	for _, r := range testRecords[ModelRecord](t, "models") {
		c := r.Capabilities
		fromData := slices.ContainsFunc(r.Sources, func(s string) bool { return s == "litellm" || s == "models-dev" })
		chat := r.Task == "llm" || r.Task == "code"
		if chat && !fromData && no(c.Vision) && no(c.FunctionCalling) && no(c.JsonMode) {
			t.Errorf("%s/%s: no vision, function calling or json mode, with no data set among its sources %v", r.ProviderId, r.ModelId, r.Sources)
		}
		if c.Vision == nil && c.FunctionCalling == nil && c.JsonMode == nil {
			unknown++
		} else {
			stated++
		}
	}
	if unknown == 0 || stated == 0 {
		t.Errorf("%d models with stated capabilities, %d unknown: the catalog should hold both", stated, unknown)
	}
}
