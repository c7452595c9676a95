package impl_test

import (
	"cmp"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/apitest"
	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/seeds"
)

// the capability catalogs endpoints. Expectations are computed from the seeds files, decoded here into plain structs, with plain
// loops; answers are compared in full and in order.

func TestCapabilityCatalogs(t *testing.T) {
	s := catServer(t)
	t.Run("JsonMode", func(t *testing.T) { testCapabilityJSONMode(t, s) })
	t.Run("StructuredOutput", func(t *testing.T) { testCapabilityStructuredOutput(t, s) })
	t.Run("ThinkingSupport", func(t *testing.T) { testCapabilityThinking(t, s) })
	t.Run("Multimodal", func(t *testing.T) { testCapabilityMultimodal(t, s) })
	t.Run("ToolCallFormat", func(t *testing.T) { testCapabilityToolCallFormat(t, s) })
	t.Run("ContextWindow", func(t *testing.T) { testCapabilityContextWindow(t, s) })
	t.Run("MaxOutputTokens", func(t *testing.T) { testCapabilityMaxOutput(t, s) })
}

// capabilityModel is the identity every per-model record has.
type capabilityModel struct {
	ProviderID string `json:"provider_id"`
	ModelID    string `json:"model_id"`
}

func (m capabilityModel) key() string { return m.ProviderID + "/" + m.ModelID }

func capabilityByModel[S interface{ id() capabilityModel }](a, b S) int {
	return cmp.Or(strings.Compare(a.id().ProviderID, b.id().ProviderID), strings.Compare(a.id().ModelID, b.id().ModelID))
}

// capabilityRefusals are the refusals every per-model endpoint with a provider and a model filter shares.
func capabilityRefusals(t *testing.T, s *apitest.Server, path string, flags ...string) {
	t.Helper()
	catRefused(t, s, path+"?provider=nope", 404, "provider")
	catRefused(t, s, path+"?model=", 400, "model")
	catRefused(t, s, path+"?model="+strings.Repeat("x", 201), 400, "model")
	for _, f := range flags {
		catRefused(t, s, path+"?"+f+"=maybe", 400, f)
	}
}

type capabilityJSONMode struct {
	capabilityModel
	Object *bool `json:"json_object_supported"`
	Schema *bool `json:"schema_enforcement_supported"`
}

func (r capabilityJSONMode) id() capabilityModel { return r.capabilityModel }

func testCapabilityJSONMode(t *testing.T, s *apitest.Server) {
	recs := catSorted(t, "json_mode", capabilityByModel[capabilityJSONMode])
	var meta api.JsonModeMeta
	records := catChecker(t, s, "json_mode", func(r capabilityJSONMode) string { return r.key() }, func(b api.JsonModeResponse) catAnswer {
		meta = b.Meta
		return catAnswer{catKeys(b.JsonMode, func(r api.JsonModeRecord) string { return r.ProviderId + "/" + r.ModelId }),
			b.Meta.AsOf.String(), b.Meta.Sources, len(b.JsonMode)}
	})
	check := func(path string, want []capabilityJSONMode) {
		t.Helper()
		records(path, want)
		var schema, object, none int
		for _, r := range want {
			if catTrue(r.Schema) {
				schema++
			}
			if catTrue(r.Object) {
				object++
			}
			if r.Schema != nil && !*r.Schema && r.Object != nil && !*r.Object {
				none++
			}
		}
		if meta.SchemaEnforcementCount != schema || meta.JsonObjectCount != object || meta.NoNativeSupportCount != none {
			t.Errorf("%s: meta %d/%d/%d, records say %d/%d/%d", path, meta.SchemaEnforcementCount, meta.JsonObjectCount,
				meta.NoNativeSupportCount, schema, object, none)
		}
	}
	type r = capabilityJSONMode
	schema := catWhere(recs, func(x r) bool { return catTrue(x.Schema) })
	object := catWhere(recs, func(x r) bool { return catTrue(x.Object) })
	if len(schema) == 0 || len(schema) == len(recs) || len(object) == 0 || len(object) == len(schema) {
		t.Fatalf("%d records, %d with schema, %d with a JSON-object mode: the data no longer tells the filters apart",
			len(recs), len(schema), len(object))
	}
	check("/api/v1/json-mode", recs)
	check("/api/v1/json-mode?schema_enforcement_only=false&json_mode_only=false", recs)
	check("/api/v1/json-mode?provider=anthropic", catWhere(recs, func(x r) bool { return x.ProviderID == "anthropic" }))
	check("/api/v1/json-mode?model=GPT-4O", catWhere(recs, func(x r) bool { return strings.Contains(strings.ToLower(x.ModelID), "gpt-4o") }))
	check("/api/v1/json-mode?schema_enforcement_only=true", schema)
	check("/api/v1/json-mode?json_mode_only=true", object)
	check("/api/v1/json-mode?provider=aws-bedrock&schema_enforcement_only=true&json_mode_only=true",
		catWhere(object, func(x r) bool { return x.ProviderID == "aws-bedrock" && catTrue(x.Schema) }))
	check("/api/v1/json-mode?model=no-such-model", nil)
	check("/api/v1/json-mode?provider=cartesia", nil) // a known provider without language models
	capabilityRefusals(t, s, "/api/v1/json-mode", "schema_enforcement_only", "json_mode_only")
}

type capabilityStructured struct {
	capabilityModel
	Schema      *bool `json:"json_schema_supported"`
	Strict      *bool `json:"strict_enforcement"`
	Constrained *bool `json:"constrained_decoding"`
}

func (r capabilityStructured) id() capabilityModel { return r.capabilityModel }

func testCapabilityStructuredOutput(t *testing.T, s *apitest.Server) {
	recs := catSorted(t, "structured_output", capabilityByModel[capabilityStructured])
	var meta api.StructuredOutputMeta
	records := catChecker(t, s, "structured_output", func(r capabilityStructured) string { return r.key() },
		func(b api.StructuredOutputResponse) catAnswer {
			meta = b.Meta
			return catAnswer{catKeys(b.StructuredOutput, func(r api.StructuredOutputRecord) string { return r.ProviderId + "/" + r.ModelId }),
				b.Meta.AsOf.String(), b.Meta.Sources, len(b.StructuredOutput)}
		})
	check := func(path string, want []capabilityStructured) {
		t.Helper()
		records(path, want)
		var strict, constrained, none int
		for _, r := range want {
			if catTrue(r.Strict) {
				strict++
			}
			if catTrue(r.Constrained) {
				constrained++
			}
			if r.Schema != nil && !*r.Schema {
				none++
			}
		}
		if meta.StrictEnforcement != strict || meta.ConstrainedDecoding != constrained || meta.NoStructuredOutput != none {
			t.Errorf("%s: meta %d/%d/%d, records say %d/%d/%d", path, meta.StrictEnforcement, meta.ConstrainedDecoding,
				meta.NoStructuredOutput, strict, constrained, none)
		}
	}
	type r = capabilityStructured
	schema := catWhere(recs, func(x r) bool { return catTrue(x.Schema) })
	strict := catWhere(recs, func(x r) bool { return catTrue(x.Strict) })
	if len(strict) == 0 || len(strict) == len(schema) || len(schema) == len(recs) {
		t.Fatalf("%d records, %d with schema, %d strict: the data no longer tells the filters apart", len(recs), len(schema), len(strict))
	}
	check("/api/v1/structured-output", recs)
	check("/api/v1/structured-output?strict_only=false&constrained_decoding=false&schema_supported=false", recs)
	check("/api/v1/structured-output?provider=openai", catWhere(recs, func(x r) bool { return x.ProviderID == "openai" }))
	check("/api/v1/structured-output?model=claude", catWhere(recs, func(x r) bool { return strings.Contains(strings.ToLower(x.ModelID), "claude") }))
	check("/api/v1/structured-output?strict_only=true", strict)
	check("/api/v1/structured-output?constrained_decoding=true", catWhere(recs, func(x r) bool { return catTrue(x.Constrained) }))
	check("/api/v1/structured-output?schema_supported=true", schema)
	check("/api/v1/structured-output?provider=anthropic&schema_supported=true&strict_only=true", catWhere(strict, func(x r) bool {
		return x.ProviderID == "anthropic" && catTrue(x.Schema)
	}))
	check("/api/v1/structured-output?provider=elevenlabs", nil)
	capabilityRefusals(t, s, "/api/v1/structured-output", "strict_only", "constrained_decoding", "schema_supported")
}

type capabilityThinking struct {
	capabilityModel
	Supported *bool   `json:"thinking_supported"`
	Visible   *bool   `json:"thinking_visible"`
	Budget    *bool   `json:"budget_configurable"`
	Default   *string `json:"default_behavior"`
}

func (r capabilityThinking) id() capabilityModel { return r.capabilityModel }

func testCapabilityThinking(t *testing.T, s *apitest.Server) {
	recs := catSorted(t, "thinking_support", capabilityByModel[capabilityThinking])
	var meta api.ThinkingSupportMeta
	records := catChecker(t, s, "thinking_support", func(r capabilityThinking) string { return r.key() },
		func(b api.ThinkingSupportResponse) catAnswer {
			meta = b.Meta
			return catAnswer{catKeys(b.ThinkingSupport, func(r api.ThinkingSupportRecord) string { return r.ProviderId + "/" + r.ModelId }),
				b.Meta.AsOf.String(), b.Meta.Sources, len(b.ThinkingSupport)}
		})
	check := func(path string, want []capabilityThinking) {
		t.Helper()
		records(path, want)
		var capable, visible, budget, always int
		for _, r := range want {
			capable += capabilityCount(catTrue(r.Supported))
			visible += capabilityCount(catTrue(r.Visible))
			budget += capabilityCount(catTrue(r.Budget))
			always += capabilityCount(r.Default != nil && *r.Default == "always_on")
		}
		if meta.ThinkingCapable != capable || meta.VisibleThinking != visible || meta.BudgetConfigurable != budget || meta.AlwaysOn != always {
			t.Errorf("%s: meta %+v, records say %d/%d/%d/%d", path, meta, capable, visible, budget, always)
		}
	}
	type r = capabilityThinking
	supported := catWhere(recs, func(x r) bool { return catTrue(x.Supported) })
	if len(supported) == 0 || len(supported) == len(recs) || len(catWhere(recs, func(x r) bool { return x.Default != nil && *x.Default == "always_on" })) == 0 {
		t.Fatal("the thinking data no longer tells the filters and counts apart")
	}
	check("/api/v1/thinking-support", recs)
	check("/api/v1/thinking-support?supported_only=false&visible_thinking=false&budget_configurable=false", recs)
	check("/api/v1/thinking-support?provider=google-gemini", catWhere(recs, func(x r) bool { return x.ProviderID == "google-gemini" }))
	check("/api/v1/thinking-support?model=o3", catWhere(recs, func(x r) bool { return strings.Contains(strings.ToLower(x.ModelID), "o3") }))
	check("/api/v1/thinking-support?supported_only=true", supported)
	check("/api/v1/thinking-support?visible_thinking=true", catWhere(recs, func(x r) bool { return catTrue(x.Visible) }))
	check("/api/v1/thinking-support?budget_configurable=true", catWhere(recs, func(x r) bool { return catTrue(x.Budget) }))
	check("/api/v1/thinking-support?provider=anthropic&supported_only=true&visible_thinking=true&budget_configurable=true",
		catWhere(supported, func(x r) bool { return x.ProviderID == "anthropic" && catTrue(x.Visible) && catTrue(x.Budget) }))
	check("/api/v1/thinking-support?provider=deepgram", nil)
	capabilityRefusals(t, s, "/api/v1/thinking-support", "supported_only", "visible_thinking", "budget_configurable")
}

func capabilityCount(b bool) int {
	if b {
		return 1
	}
	return 0
}

type capabilityMultimodal struct {
	capabilityModel
	Inputs  []string `json:"inputs"`
	Outputs []string `json:"outputs"`
}

func (r capabilityMultimodal) id() capabilityModel { return r.capabilityModel }

func testCapabilityMultimodal(t *testing.T, s *apitest.Server) {
	recs := catSorted(t, "multimodal", capabilityByModel[capabilityMultimodal])
	var meta api.MultimodalMeta
	records := catChecker(t, s, "multimodal", func(r capabilityMultimodal) string { return r.key() }, func(b api.MultimodalResponse) catAnswer {
		meta = b.Meta
		return catAnswer{catKeys(b.Multimodal, func(r api.MultimodalRecord) string { return r.ProviderId + "/" + r.ModelId }),
			b.Meta.AsOf.String(), b.Meta.Sources, len(b.Multimodal)}
	})
	type r = capabilityMultimodal
	takes := func(in string) func(r) bool { return func(x r) bool { return slices.Contains(x.Inputs, in) } }
	check := func(path string, want []capabilityMultimodal) {
		t.Helper()
		records(path, want)
		got := []int{meta.VisionCapable, meta.AudioInput, meta.VideoInput, meta.PdfInput}
		var counted []int
		for _, in := range []string{"image", "audio", "video", "pdf"} {
			counted = append(counted, len(catWhere(want, takes(in))))
		}
		if !slices.Equal(got, counted) {
			t.Errorf("%s: meta %v, records say %v", path, got, counted)
		}
	}
	check("/api/v1/multimodal", recs)
	for _, in := range []string{"text", "image", "audio", "video", "pdf"} {
		want := catWhere(recs, takes(in))
		if len(want) == 0 || len(want) == len(recs) && in != "text" {
			t.Errorf("input %s: %d of %d records: the data no longer tells the filter apart", in, len(want), len(recs))
		}
		check("/api/v1/multimodal?input_type="+in, want)
	}
	for _, out := range []string{"text", "image", "audio"} {
		check("/api/v1/multimodal?output_type="+out, catWhere(recs, func(x r) bool { return slices.Contains(x.Outputs, out) }))
	}
	check("/api/v1/multimodal?provider=openai&input_type=audio&output_type=audio", catWhere(recs, func(x r) bool {
		return x.ProviderID == "openai" && slices.Contains(x.Inputs, "audio") && slices.Contains(x.Outputs, "audio")
	}))
	check("/api/v1/multimodal?model=gemini&input_type=video", catWhere(recs, func(x r) bool {
		return strings.Contains(x.ModelID, "gemini") && slices.Contains(x.Inputs, "video")
	}))
	check("/api/v1/multimodal?provider=runway", nil)
	capabilityRefusals(t, s, "/api/v1/multimodal")
	catRefused(t, s, "/api/v1/multimodal?input_type=smell", 400, "input_type")
	catRefused(t, s, "/api/v1/multimodal?output_type=video", 400, "output_type")
}

type capabilityToolFormat struct {
	ProviderID string  `json:"provider_id"`
	ModelID    *string `json:"model_id"`
}

func (r capabilityToolFormat) key() string {
	if r.ModelID == nil {
		return r.ProviderID + "/*"
	}
	return r.ProviderID + "/" + *r.ModelID
}

func testCapabilityToolCallFormat(t *testing.T, s *apitest.Server) {
	recs := catSorted(t, "tool_call_format", func(a, b capabilityToolFormat) int {
		if c := strings.Compare(a.ProviderID, b.ProviderID); c != 0 || a.ModelID == nil || b.ModelID == nil {
			return cmp.Or(c, capabilityCount(a.ModelID != nil)-capabilityCount(b.ModelID != nil))
		}
		return strings.Compare(*a.ModelID, *b.ModelID)
	})
	check := catChecker(t, s, "tool_call_format", capabilityToolFormat.key, func(b api.ToolCallFormatResponse) catAnswer {
		return catAnswer{catKeys(b.Data, func(r api.ToolCallFormatRecord) string {
			return capabilityToolFormat{r.ProviderId, r.ModelId}.key()
		}), b.Meta.AsOf.String(), b.Meta.Sources, len(b.Data)}
	})
	type r = capabilityToolFormat
	perModel := catWhere(recs, func(x r) bool { return x.ModelID != nil })
	if len(perModel) == 0 || len(perModel) == len(recs) {
		t.Fatal("tool_call_format needs both provider-wide and per-model records for this test")
	}
	check("/api/v1/tool-call-format", recs)
	check("/api/v1/tool-call-format?provider=openai", catWhere(recs, func(x r) bool { return x.ProviderID == "openai" }))
	check("/api/v1/tool-call-format?provider=google-vertex-ai", catWhere(recs, func(x r) bool { return x.ProviderID == "google-vertex-ai" }))
	// A model filter keeps the matching per-model records and every provider-wide record.
	check("/api/v1/tool-call-format?model=Claude", catWhere(recs, func(x r) bool {
		return x.ModelID == nil || strings.Contains(strings.ToLower(*x.ModelID), "claude")
	}))
	check("/api/v1/tool-call-format?provider=google-vertex-ai&model=gemini", catWhere(recs, func(x r) bool {
		return x.ProviderID == "google-vertex-ai" && strings.Contains(*x.ModelID, "gemini")
	}))
	check("/api/v1/tool-call-format?provider=replicate", nil) // a provider whose format is not confirmed
	capabilityRefusals(t, s, "/api/v1/tool-call-format")
}

type capabilityContext struct {
	capabilityModel
	Advertised *int64 `json:"advertised_context"`
	Effective  *int64 `json:"effective_context"`
}

func (r capabilityContext) id() capabilityModel { return r.capabilityModel }

func testCapabilityContextWindow(t *testing.T, s *apitest.Server) {
	recs := catSorted(t, "context_window", func(a, b capabilityContext) int {
		return cmp.Or(catNilLast(a.Effective, b.Effective, true), catNilLast(a.Advertised, b.Advertised, true), capabilityByModel(a, b))
	})
	var meta api.ContextWindowMeta
	records := catChecker(t, s, "context_window", func(r capabilityContext) string { return r.key() }, func(b api.ContextWindowResponse) catAnswer {
		meta = b.Meta
		return catAnswer{catKeys(b.ContextWindows, func(r api.ContextWindowRecord) string { return r.ProviderId + "/" + r.ModelId }),
			b.Meta.AsOf.String(), b.Meta.Sources, b.Meta.Count}
	})
	check := func(path string, want []capabilityContext) {
		t.Helper()
		records(path, want)
		if n := len(catWhere(want, func(x capabilityContext) bool { return x.Effective != nil })); meta.EffectiveKnownCount != n {
			t.Errorf("%s: effective_known_count %d, records say %d", path, meta.EffectiveKnownCount, n)
		}
	}
	type r = capabilityContext
	if recs[len(recs)-1].Advertised != nil {
		t.Fatal("no model without an advertised context: the unknown-last order is not exercised")
	}
	atLeast := func(n int64) func(r) bool { return func(x r) bool { return x.Advertised != nil && *x.Advertised >= n } }
	check("/api/v1/context-window", recs)
	check("/api/v1/context-window?effective_only=false&min_context=0", recs)
	check("/api/v1/context-window?provider=anthropic", catWhere(recs, func(x r) bool { return x.ProviderID == "anthropic" }))
	check("/api/v1/context-window?model=llama", catWhere(recs, func(x r) bool { return strings.Contains(strings.ToLower(x.ModelID), "llama") }))
	check("/api/v1/context-window?min_context=1000000", catWhere(recs, atLeast(1000000)))
	check("/api/v1/context-window?min_context=1", catWhere(recs, atLeast(1)))
	check("/api/v1/context-window?effective_only=true", catWhere(recs, func(x r) bool { return x.Effective != nil }))
	check("/api/v1/context-window?provider=openai&min_context=200000", catWhere(recs, func(x r) bool {
		return x.ProviderID == "openai" && atLeast(200000)(x)
	}))
	check("/api/v1/context-window?provider=tavily", nil)
	capabilityRefusals(t, s, "/api/v1/context-window", "effective_only")
	catRefused(t, s, "/api/v1/context-window?min_context=-1", 400, "min_context")
	catRefused(t, s, "/api/v1/context-window?min_context=100000001", 400, "min_context")
}

type capabilityMaxOutput struct {
	capabilityModel
	MaxOutput *int64 `json:"max_output_tokens"`
}

func (r capabilityMaxOutput) id() capabilityModel { return r.capabilityModel }

func testCapabilityMaxOutput(t *testing.T, s *apitest.Server) {
	recs := catSorted(t, "max_output_tokens", func(a, b capabilityMaxOutput) int {
		return cmp.Or(catNilLast(a.MaxOutput, b.MaxOutput, true), capabilityByModel(a, b))
	})
	models, err := seeds.ModelRecords()
	if err != nil {
		t.Fatal(err)
	}
	task := map[string]string{}
	for _, m := range models {
		task[m.ProviderId+"/"+m.ModelId] = string(m.Task)
	}
	check := catChecker(t, s, "max_output_tokens", func(r capabilityMaxOutput) string { return r.key() }, func(b api.MaxOutputTokensResponse) catAnswer {
		return catAnswer{catKeys(b.MaxOutputTokens, func(r api.MaxOutputTokensRecord) string { return r.ProviderId + "/" + r.ModelId }),
			b.Meta.AsOf.String(), b.Meta.Sources, len(b.MaxOutputTokens)}
	})
	type r = capabilityMaxOutput
	first := func(want []r, n int) []r { return want[:min(n, len(want))] }
	docLimit := int(s.Doc.Paths.Find("/max-output-tokens").Get.Parameters.GetByInAndName("query", "limit").Schema.Value.Default.(float64))
	check("/api/v1/max-output-tokens", first(recs, docLimit))
	check("/api/v1/max-output-tokens?limit=100", first(recs, 100))
	check("/api/v1/max-output-tokens?limit=1", first(recs, 1))
	check("/api/v1/max-output-tokens?provider=anthropic&limit=100", first(catWhere(recs, func(x r) bool { return x.ProviderID == "anthropic" }), 100))
	check("/api/v1/max-output-tokens?min_output=0&limit=100", first(recs, 100))
	check("/api/v1/max-output-tokens?min_output=65536&limit=100", first(catWhere(recs, func(x r) bool {
		return x.MaxOutput != nil && *x.MaxOutput >= 65536
	}), 100))
	// Unknown maxima come last, and a minimum drops them.
	unknown := catWhere(recs, func(x r) bool { return x.MaxOutput == nil && x.ProviderID == "replicate" })
	if len(unknown) == 0 {
		t.Fatal("no replicate model without a maximum output: the unknown-last order is not exercised")
	}
	check("/api/v1/max-output-tokens?provider=replicate&limit=100", first(catWhere(recs, func(x r) bool { return x.ProviderID == "replicate" }), 100))
	check("/api/v1/max-output-tokens?provider=replicate&min_output=1&limit=100", first(catWhere(recs, func(x r) bool {
		return x.ProviderID == "replicate" && x.MaxOutput != nil
	}), 100))
	// task: llm keeps llm and multimodal models, code keeps code models, and other tasks have no language model.
	check("/api/v1/max-output-tokens?task=llm&limit=100", first(catWhere(recs, func(x r) bool {
		return task[x.key()] == "llm" || task[x.key()] == "multimodal"
	}), 100))
	code := catWhere(recs, func(x r) bool { return task[x.key()] == "code" })
	if len(code) == 0 {
		t.Fatal("no code model: the task filter is not exercised")
	}
	check("/api/v1/max-output-tokens?task=code&limit=100", first(code, 100))
	check("/api/v1/max-output-tokens?task=code&provider=mistral", first(catWhere(code, func(x r) bool { return x.ProviderID == "mistral" }), docLimit))
	check("/api/v1/max-output-tokens?task=image", nil)
	check("/api/v1/max-output-tokens?provider=luma", nil)

	catRefused(t, s, "/api/v1/max-output-tokens?provider=nope", 404, "provider")
	catRefused(t, s, "/api/v1/max-output-tokens?limit=0", 400, "limit")
	catRefused(t, s, "/api/v1/max-output-tokens?limit=101", 400, "limit")
	catRefused(t, s, "/api/v1/max-output-tokens?min_output=-1", 400, "min_output")
	catRefused(t, s, "/api/v1/max-output-tokens?task=poetry", 400, "task")
}
