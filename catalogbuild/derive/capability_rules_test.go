package derive

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/switchboard/switchboard/catalogbuild"
	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/seeds"
)

// capabilityFake builds one model's facts from hand-written source entries (JSON objects, "" for absent).
func capabilityFake(t *testing.T, provider, model, litellm, modelsDev string) capabilityModel {
	t.Helper()
	m := capabilityModel{Model: seeds.ModelRecord{ProviderId: provider, ModelId: model, Task: "llm"}, SourceFacts: catalogbuild.SourceFacts{}}
	if litellm != "" {
		if err := json.Unmarshal([]byte(litellm), &m.LiteLLM); err != nil {
			t.Fatal(err)
		}
	}
	if modelsDev != "" {
		if err := json.Unmarshal([]byte(modelsDev), &m.ModelsDev); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

func capabilityIs(b *bool, want string) bool {
	switch want {
	case "null":
		return b == nil
	case "true":
		return b != nil && *b
	}
	return b != nil && !*b
}

func capabilityStrIs(s *string, want string) bool {
	if want == "" {
		return s == nil
	}
	return s != nil && *s == want
}

func TestSchemaRules(t *testing.T) {
	for _, c := range []struct {
		name                                   string
		m                                      capabilityModel
		supported, strict, constrained, object string
		method, param, failure                 string
		workaround                             string
	}{
		{"no source says", capabilityFake(t, "openai", "x", `{}`, ""), "null", "null", "null", "null", "", "", "", "null"},
		{"OpenAI native", capabilityFake(t, "openai", "x", "", `{"structured_output": true}`), "true", "true", "true", "true",
			methodNative, "response_format", "error", "false"},
		{"models.dev wins over litellm", capabilityFake(t, "openai", "x", `{"supports_response_schema": true}`, `{"structured_output": false}`),
			"false", "false", "false", "null", "", "", "", "null"},
		{"Anthropic tool-use fallback", capabilityFake(t, "anthropic", "x", `{"supports_response_schema": true}`, ""),
			"true", "false", "false", "false", methodToolUse, "tools[].input_schema", "silent_invalid", "true"},
		{"Anthropic native", capabilityFake(t, "anthropic", "x", `{"supports_response_schema": true, "supports_native_structured_output": true}`, ""),
			"true", "true", "true", "true", methodNative, "output_format", "error", "false"},
		{"Anthropic without support", capabilityFake(t, "anthropic", "x", `{"supports_response_schema": false}`, ""),
			"false", "false", "false", "false", "", "", "", "true"},
		{"Bedrock native, parameter not confirmed", capabilityFake(t, "aws-bedrock", "x", `{"supports_response_schema": true, "supports_native_structured_output": true}`, ""),
			"true", "null", "null", "null", methodNative, "", "", "false"},
		{"compatible provider", capabilityFake(t, "groq", "x", `{"supports_response_schema": true}`, ""),
			"true", "null", "null", "null", methodNative, "response_format", "", "false"},
		{"provider without a rule", capabilityFake(t, "replicate", "x", `{"supports_response_schema": true}`, ""),
			"true", "null", "null", "null", "", "", "", "null"},
		{"Vertex AI partner model", capabilityFake(t, "google-vertex-ai", "meta/llama-x-maas", "", `{"structured_output": true}`),
			"true", "null", "null", "null", "", "", "", "null"},
		{"Vertex AI Gemini", capabilityFake(t, "google-vertex-ai", "gemini-x", "", `{"structured_output": true}`),
			"true", "true", "true", "true", methodNative, "generationConfig.responseSchema", "error", "false"},
	} {
		s := schemaOf(c.m)
		if !capabilityIs(s.Supported, c.supported) || !capabilityIs(s.Strict, c.strict) || !capabilityIs(s.Constrained, c.constrained) ||
			!capabilityIs(s.JSONObject, c.object) || s.Method != c.method || !capabilityStrIs(s.Param, c.param) || !capabilityStrIs(s.Failure, c.failure) {
			t.Errorf("%s: schemaOf = %+v", c.name, s)
		}
		so, jm := structuredOutputOf(c.m), jsonModeOf(c.m)
		if !capabilityIs(so.JsonSchemaSupported, c.supported) || !capabilityIs(jm.SchemaEnforcementSupported, c.supported) ||
			!capabilityIs(so.StrictEnforcement, c.strict) || !capabilityIs(jm.StrictModeSupported, c.strict) || so.Notes == nil || jm.Notes == nil {
			t.Errorf("%s: the records do not carry the schema facts: %+v / %+v", c.name, so, jm)
		}
		if !capabilityIs(jm.WorkaroundRequired, c.workaround) || !capabilityStrIs(jm.EnforcementMethod, c.method) {
			t.Errorf("%s: json mode workaround %v method %v, want %s %q", c.name, jm.WorkaroundRequired, jm.EnforcementMethod, c.workaround, c.method)
		}
	}
}

func TestThinkingRules(t *testing.T) {
	price := 8.0
	for _, c := range []struct {
		name                         string
		m                            capabilityModel
		price                        *float64
		supported, visible, budget   string
		param, budgetParam, default_ string
		cost                         *float64
	}{
		{"no source says", capabilityFake(t, "openai", "x", `{}`, ""), &price, "null", "null", "null", "", "", "", nil},
		{"no reasoning", capabilityFake(t, "openai", "x", "", `{"reasoning": false}`), &price, "false", "false", "false", "", "", "", nil},
		{"OpenAI effort levels, cannot be off", capabilityFake(t, "openai", "o9", "", `{"reasoning": true, "reasoning_options": [{"type": "effort", "values": ["low", "high"]}]}`),
			&price, "true", "true", "true", "reasoning_effort", "reasoning_effort", thinkingAlwaysOn, &price},
		{"OpenAI effort none: default not confirmed", capabilityFake(t, "openai", "g9", "", `{"reasoning": true, "reasoning_options": [{"type": "effort", "values": ["none", "high"]}]}`),
			&price, "true", "true", "true", "reasoning_effort", "reasoning_effort", "", &price},
		{"OpenAI litellm only", capabilityFake(t, "openai", "o9", `{"supports_reasoning": true, "supports_none_reasoning_effort": false}`, ""),
			nil, "true", "true", "true", "reasoning_effort", "reasoning_effort", thinkingAlwaysOn, nil},
		{"Gemini budget from zero, reasoning price", capabilityFake(t, "google-gemini", "gemini-9-flash", `{"output_cost_per_reasoning_token": 2.5e-06}`,
			`{"reasoning": true, "reasoning_options": [{"type": "budget_tokens", "min": 0, "max": 24576}]}`),
			&price, "true", "true", "true", "generationConfig.thinkingConfig", "thinkingConfig.thinkingBudget", thinkingOnByDefault, capabilityFloat(2.5)},
		{"Gemini budget from 128", capabilityFake(t, "google-gemini", "gemini-9-pro", "", `{"reasoning": true, "reasoning_options": [{"type": "budget_tokens", "min": 128}]}`),
			&price, "true", "true", "true", "generationConfig.thinkingConfig", "thinkingConfig.thinkingBudget", thinkingAlwaysOn, &price},
		{"Anthropic opt-in", capabilityFake(t, "anthropic", "claude-x", `{"supports_reasoning": true}`, ""),
			&price, "true", "true", "true", "thinking", "thinking.budget_tokens", thinkingOptIn, &price},
		{"toggle only, reasoning field named", capabilityFake(t, "nebius", "x", "",
			`{"reasoning": true, "reasoning_options": [{"type": "toggle"}], "interleaved": {"field": "reasoning_content"}, "cost": {"reasoning": 1.25}}`),
			&price, "true", "true", "false", "", "", "", capabilityFloat(1.25)},
		{"unknown API", capabilityFake(t, "replicate", "x", `{"supports_reasoning": true}`, ""), &price, "true", "null", "null", "", "", "", nil},
	} {
		r := thinkingOf(c.m, c.price)
		costOK := (r.ThinkingCostPer1m == nil) == (c.cost == nil) && (c.cost == nil || *r.ThinkingCostPer1m == *c.cost)
		if !capabilityIs(r.ThinkingSupported, c.supported) || !capabilityIs(r.ThinkingVisible, c.visible) || !capabilityIs(r.BudgetConfigurable, c.budget) ||
			!capabilityStrIs(r.ThinkingParam, c.param) || !capabilityStrIs(r.BudgetParam, c.budgetParam) || !capabilityStrIs(r.DefaultBehavior, c.default_) || !costOK {
			b, _ := json.Marshal(r)
			t.Errorf("%s: %s", c.name, b)
		}
		if r.Notes == nil {
			t.Errorf("%s: no notes", c.name)
		}
	}
}

func TestMultimodalRules(t *testing.T) {
	m := multimodalOf(capabilityFake(t, "anthropic", "claude-x", `{"supports_vision": false}`,
		`{"modalities": {"input": ["pdf", "image", "text", "3d"], "output": ["text"]}}`))
	if !slices.Equal(m.Inputs, []api.MultimodalInputType{"text", "image", "pdf"}) || !slices.Equal(m.Outputs, []api.MultimodalOutputType{"text"}) ||
		m.MaxImages == nil || *m.MaxImages != 100 || m.MaxImageSizeMb == nil || *m.MaxImageSizeMb != 5 || len(m.SupportedImageFormats) != 4 {
		t.Errorf("models.dev modalities with Anthropic limits: %+v", m)
	}
	m = multimodalOf(capabilityFake(t, "openai", "x", `{"supports_vision": true, "supports_audio_input": true, "supports_pdf_input": false,
		"supported_modalities": ["text", "video"], "supports_audio_output": true}`, ""))
	if !slices.Equal(m.Inputs, []api.MultimodalInputType{"text", "image", "audio", "video"}) || !slices.Equal(m.Outputs, []api.MultimodalOutputType{"text", "audio"}) ||
		m.MaxImages != nil || !slices.Contains(m.SupportedImageFormats, "webp") {
		t.Errorf("litellm flags: %+v", m)
	}
	m = multimodalOf(capabilityFake(t, "aws-bedrock", "x", `{"supports_vision": false, "supported_modalities": ["text", "image"]}`, ""))
	if !slices.Equal(m.Inputs, []api.MultimodalInputType{"text"}) || m.MaxImages != nil || len(m.SupportedImageFormats) != 0 {
		t.Errorf("image comes from supports_vision alone, and limits only with image input: %+v", m)
	}
	m = multimodalOf(capabilityFake(t, "replicate", "x", "", ""))
	if !slices.Equal(m.Inputs, []api.MultimodalInputType{"text"}) || !slices.Equal(m.Outputs, []api.MultimodalOutputType{"text"}) {
		t.Errorf("no facts: %+v", m)
	}
}

func TestToolCallFormatRules(t *testing.T) {
	models := []capabilityModel{
		capabilityFake(t, "google-vertex-ai", "meta/llama-x-maas", "", ""),
		capabilityFake(t, "google-vertex-ai", "gemini-x", "", ""),
		capabilityFake(t, "google-vertex-ai", "claude-x", "", ""),
		capabilityFake(t, "openai", "b", "", ""),
		capabilityFake(t, "openai", "a", "", ""),
		capabilityFake(t, "replicate", "x", "", ""),
		capabilityFake(t, "anthropic", "claude-x", "", ""),
	}
	var got []string
	for _, r := range toolCallFormatRecords(models) {
		k := r.ProviderId + "/" + r.ToolCallRole + "/" + r.ToolResultRole
		if r.ModelId != nil {
			k += "/" + *r.ModelId
		}
		got = append(got, k)
	}
	want := []string{"anthropic/assistant/user", "google-vertex-ai/assistant/user/claude-x", "google-vertex-ai/model/user/gemini-x", "openai/assistant/tool"}
	if !slices.Equal(got, want) {
		t.Errorf("records %v, want %v", got, want)
	}
}

func TestMaxOutputRules(t *testing.T) {
	n := func(v int) *int { return &v }
	for _, c := range []struct {
		out, ctx *int
		want     *float64
	}{{n(4096), n(131072), capabilityFloat(0.0313)}, {n(8192), n(8192), capabilityFloat(1)}, {nil, n(10), nil}, {n(10), nil, nil}, {n(10), n(0), nil}} {
		got := outputRatio(c.out, c.ctx)
		if (got == nil) != (c.want == nil) || (got != nil && *got != *c.want) {
			t.Errorf("outputRatio(%v, %v) = %v, want %v", c.out, c.ctx, got, c.want)
		}
	}
	m := capabilityFake(t, "openai", "x", `{"max_output_tokens": 100, "max_input_tokens": 1000}`, `{"limit": {"context": 2000, "output": 0}}`)
	m.Model.MaxOutputTokens, m.Model.ContextWindow = n(100), n(2000)
	r := maxOutputOf(m)
	if r.Notes == nil || *r.Notes != "Maximum output from litellm max_output_tokens. Context window from models.dev limit.context" {
		t.Errorf("notes %v", r.Notes)
	}
}
