package derive

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/switchboard/switchboard/seeds"
	"github.com/switchboard/switchboard/seeds/cmd/convert/conv"
)

// b1Fake builds one model's facts from hand-written source entries (JSON objects, "" for absent).
func b1Fake(t *testing.T, provider, model, litellm, modelsDev string) b1Model {
	t.Helper()
	m := b1Model{Model: seeds.ModelRecord{ProviderID: provider, ModelID: model, Task: "llm"}, SourceFacts: conv.SourceFacts{}}
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

func b1Is(b *bool, want string) bool {
	switch want {
	case "null":
		return b == nil
	case "true":
		return b != nil && *b
	}
	return b != nil && !*b
}

func b1StrIs(s *string, want string) bool {
	if want == "" {
		return s == nil
	}
	return s != nil && *s == want
}

func TestSchemaRules(t *testing.T) {
	for _, c := range []struct {
		name                                   string
		m                                      b1Model
		supported, strict, constrained, object string
		method, param, failure                 string
		workaround                             string
	}{
		{"no source says", b1Fake(t, "openai", "x", `{}`, ""), "null", "null", "null", "null", "", "", "", "null"},
		{"OpenAI native", b1Fake(t, "openai", "x", "", `{"structured_output": true}`), "true", "true", "true", "true",
			methodNative, "response_format", "error", "false"},
		{"models.dev wins over litellm", b1Fake(t, "openai", "x", `{"supports_response_schema": true}`, `{"structured_output": false}`),
			"false", "false", "false", "null", "", "", "", "null"},
		{"Anthropic tool-use fallback", b1Fake(t, "anthropic", "x", `{"supports_response_schema": true}`, ""),
			"true", "false", "false", "false", methodToolUse, "tools[].input_schema", "silent_invalid", "true"},
		{"Anthropic native", b1Fake(t, "anthropic", "x", `{"supports_response_schema": true, "supports_native_structured_output": true}`, ""),
			"true", "true", "true", "true", methodNative, "output_format", "error", "false"},
		{"Anthropic without support", b1Fake(t, "anthropic", "x", `{"supports_response_schema": false}`, ""),
			"false", "false", "false", "false", "", "", "", "true"},
		{"Bedrock native, parameter not confirmed", b1Fake(t, "aws-bedrock", "x", `{"supports_response_schema": true, "supports_native_structured_output": true}`, ""),
			"true", "null", "null", "null", methodNative, "", "", "false"},
		{"compatible provider", b1Fake(t, "groq", "x", `{"supports_response_schema": true}`, ""),
			"true", "null", "null", "null", methodNative, "response_format", "", "false"},
		{"provider without a rule", b1Fake(t, "replicate", "x", `{"supports_response_schema": true}`, ""),
			"true", "null", "null", "null", "", "", "", "null"},
		{"Vertex AI partner model", b1Fake(t, "google-vertex-ai", "meta/llama-x-maas", "", `{"structured_output": true}`),
			"true", "null", "null", "null", "", "", "", "null"},
		{"Vertex AI Gemini", b1Fake(t, "google-vertex-ai", "gemini-x", "", `{"structured_output": true}`),
			"true", "true", "true", "true", methodNative, "generationConfig.responseSchema", "error", "false"},
	} {
		s := schemaOf(c.m)
		if !b1Is(s.Supported, c.supported) || !b1Is(s.Strict, c.strict) || !b1Is(s.Constrained, c.constrained) ||
			!b1Is(s.JSONObject, c.object) || s.Method != c.method || !b1StrIs(s.Param, c.param) || !b1StrIs(s.Failure, c.failure) {
			t.Errorf("%s: schemaOf = %+v", c.name, s)
		}
		so, jm := structuredOutputOf(c.m), jsonModeOf(c.m)
		if !b1Is(so.JSONSchemaSupported, c.supported) || !b1Is(jm.SchemaEnforcementSupported, c.supported) ||
			!b1Is(so.StrictEnforcement, c.strict) || !b1Is(jm.StrictModeSupported, c.strict) || so.Notes == nil || jm.Notes == nil {
			t.Errorf("%s: the records do not carry the schema facts: %+v / %+v", c.name, so, jm)
		}
		if !b1Is(jm.WorkaroundRequired, c.workaround) || !b1StrIs(jm.EnforcementMethod, c.method) {
			t.Errorf("%s: json mode workaround %v method %v, want %s %q", c.name, jm.WorkaroundRequired, jm.EnforcementMethod, c.workaround, c.method)
		}
	}
}

func TestThinkingRules(t *testing.T) {
	price := 8.0
	for _, c := range []struct {
		name                         string
		m                            b1Model
		price                        *float64
		supported, visible, budget   string
		param, budgetParam, default_ string
		cost                         *float64
	}{
		{"no source says", b1Fake(t, "openai", "x", `{}`, ""), &price, "null", "null", "null", "", "", "", nil},
		{"no reasoning", b1Fake(t, "openai", "x", "", `{"reasoning": false}`), &price, "false", "false", "false", "", "", "", nil},
		{"OpenAI effort levels, cannot be off", b1Fake(t, "openai", "o9", "", `{"reasoning": true, "reasoning_options": [{"type": "effort", "values": ["low", "high"]}]}`),
			&price, "true", "true", "true", "reasoning_effort", "reasoning_effort", thinkingAlwaysOn, &price},
		{"OpenAI effort none: default not confirmed", b1Fake(t, "openai", "g9", "", `{"reasoning": true, "reasoning_options": [{"type": "effort", "values": ["none", "high"]}]}`),
			&price, "true", "true", "true", "reasoning_effort", "reasoning_effort", "", &price},
		{"OpenAI litellm only", b1Fake(t, "openai", "o9", `{"supports_reasoning": true, "supports_none_reasoning_effort": false}`, ""),
			nil, "true", "true", "true", "reasoning_effort", "reasoning_effort", thinkingAlwaysOn, nil},
		{"Gemini budget from zero, reasoning price", b1Fake(t, "google-gemini", "gemini-9-flash", `{"output_cost_per_reasoning_token": 2.5e-06}`,
			`{"reasoning": true, "reasoning_options": [{"type": "budget_tokens", "min": 0, "max": 24576}]}`),
			&price, "true", "true", "true", "generationConfig.thinkingConfig", "thinkingConfig.thinkingBudget", thinkingOnByDefault, b1Float(2.5)},
		{"Gemini budget from 128", b1Fake(t, "google-gemini", "gemini-9-pro", "", `{"reasoning": true, "reasoning_options": [{"type": "budget_tokens", "min": 128}]}`),
			&price, "true", "true", "true", "generationConfig.thinkingConfig", "thinkingConfig.thinkingBudget", thinkingAlwaysOn, &price},
		{"Anthropic opt-in", b1Fake(t, "anthropic", "claude-x", `{"supports_reasoning": true}`, ""),
			&price, "true", "true", "true", "thinking", "thinking.budget_tokens", thinkingOptIn, &price},
		{"toggle only, reasoning field named", b1Fake(t, "nebius", "x", "",
			`{"reasoning": true, "reasoning_options": [{"type": "toggle"}], "interleaved": {"field": "reasoning_content"}, "cost": {"reasoning": 1.25}}`),
			&price, "true", "true", "false", "", "", "", b1Float(1.25)},
		{"unknown API", b1Fake(t, "replicate", "x", `{"supports_reasoning": true}`, ""), &price, "true", "null", "null", "", "", "", nil},
	} {
		r := thinkingOf(c.m, c.price)
		costOK := (r.ThinkingCostPer1M == nil) == (c.cost == nil) && (c.cost == nil || *r.ThinkingCostPer1M == *c.cost)
		if !b1Is(r.ThinkingSupported, c.supported) || !b1Is(r.ThinkingVisible, c.visible) || !b1Is(r.BudgetConfigurable, c.budget) ||
			!b1StrIs(r.ThinkingParam, c.param) || !b1StrIs(r.BudgetParam, c.budgetParam) || !b1StrIs(r.DefaultBehavior, c.default_) || !costOK {
			b, _ := json.Marshal(r)
			t.Errorf("%s: %s", c.name, b)
		}
		if r.Notes == nil {
			t.Errorf("%s: no notes", c.name)
		}
	}
}

func TestMultimodalRules(t *testing.T) {
	m := multimodalOf(b1Fake(t, "anthropic", "claude-x", `{"supports_vision": false}`,
		`{"modalities": {"input": ["pdf", "image", "text", "3d"], "output": ["text"]}}`))
	if !slices.Equal(m.Inputs, []string{"text", "image", "pdf"}) || !slices.Equal(m.Outputs, []string{"text"}) ||
		m.MaxImages == nil || *m.MaxImages != 100 || m.MaxImageSizeMB == nil || *m.MaxImageSizeMB != 5 || len(m.SupportedImageFormats) != 4 {
		t.Errorf("models.dev modalities with Anthropic limits: %+v", m)
	}
	m = multimodalOf(b1Fake(t, "openai", "x", `{"supports_vision": true, "supports_audio_input": true, "supports_pdf_input": false,
		"supported_modalities": ["text", "video"], "supports_audio_output": true}`, ""))
	if !slices.Equal(m.Inputs, []string{"text", "image", "audio", "video"}) || !slices.Equal(m.Outputs, []string{"text", "audio"}) ||
		m.MaxImages != nil || !slices.Contains(m.SupportedImageFormats, "webp") {
		t.Errorf("litellm flags: %+v", m)
	}
	m = multimodalOf(b1Fake(t, "aws-bedrock", "x", `{"supports_vision": false, "supported_modalities": ["text", "image"]}`, ""))
	if !slices.Equal(m.Inputs, []string{"text"}) || m.MaxImages != nil || len(m.SupportedImageFormats) != 0 {
		t.Errorf("image comes from supports_vision alone, and limits only with image input: %+v", m)
	}
	m = multimodalOf(b1Fake(t, "replicate", "x", "", ""))
	if !slices.Equal(m.Inputs, []string{"text"}) || !slices.Equal(m.Outputs, []string{"text"}) {
		t.Errorf("no facts: %+v", m)
	}
}

func TestToolCallFormatRules(t *testing.T) {
	models := []b1Model{
		b1Fake(t, "google-vertex-ai", "meta/llama-x-maas", "", ""),
		b1Fake(t, "google-vertex-ai", "gemini-x", "", ""),
		b1Fake(t, "google-vertex-ai", "claude-x", "", ""),
		b1Fake(t, "openai", "b", "", ""),
		b1Fake(t, "openai", "a", "", ""),
		b1Fake(t, "replicate", "x", "", ""),
		b1Fake(t, "anthropic", "claude-x", "", ""),
	}
	var got []string
	for _, r := range toolCallFormatRecords(models) {
		k := r.ProviderID + "/" + r.ToolCallRole + "/" + r.ToolResultRole
		if r.ModelID != nil {
			k += "/" + *r.ModelID
		}
		got = append(got, k)
	}
	want := []string{"anthropic/assistant/user", "google-vertex-ai/assistant/user/claude-x", "google-vertex-ai/model/user/gemini-x", "openai/assistant/tool"}
	if !slices.Equal(got, want) {
		t.Errorf("records %v, want %v", got, want)
	}
}

func TestMaxOutputRules(t *testing.T) {
	n := func(v int64) *int64 { return &v }
	for _, c := range []struct {
		out, ctx *int64
		want     *float64
	}{{n(4096), n(131072), b1Float(0.0313)}, {n(8192), n(8192), b1Float(1)}, {nil, n(10), nil}, {n(10), nil, nil}, {n(10), n(0), nil}} {
		got := outputRatio(c.out, c.ctx)
		if (got == nil) != (c.want == nil) || (got != nil && *got != *c.want) {
			t.Errorf("outputRatio(%v, %v) = %v, want %v", c.out, c.ctx, got, c.want)
		}
	}
	m := b1Fake(t, "openai", "x", `{"max_output_tokens": 100, "max_input_tokens": 1000}`, `{"limit": {"context": 2000, "output": 0}}`)
	m.Model.MaxOutputTokens, m.Model.ContextWindow = n(100), n(2000)
	r := maxOutputOf(m)
	if r.Notes == nil || *r.Notes != "Maximum output from litellm max_output_tokens. Context window from models.dev limit.context" {
		t.Errorf("notes %v", r.Notes)
	}
}
