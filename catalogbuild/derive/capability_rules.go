package derive

// Per-provider rules of the capability catalogs of the capability catalogs (json_mode, structured_output, thinking_support,
// multimodal, tool_call_format, context_window, max_output_tokens). The per-model facts (which model supports a
// JSON schema, reasoning, images...) come from models.json and the raw source entries (ModelFacts); what these
// tables add is how a provider's API exposes a feature, which is the same for every model served through that API.
// Each rule names the official page it is taken from. A provider (or a model on a multi-vendor platform) without a
// rule here has the API-dependent fields null: they are unknown, not absent.

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/switchboard/switchboard/catalogbuild"
	"github.com/switchboard/switchboard/seeds"
)

// capabilityRule is how one API exposes structured output, reasoning, tool calls and images.
type capabilityRule struct {
	// Name says which API the rule describes (it is written into the records' notes).
	Name string

	// Structured output. SchemaParam is the request parameter carrying a JSON schema; JSONObject tells whether
	// the API also has a plain JSON-object mode (response_format json_object, responseMimeType).
	StructuredURL  string
	SchemaParam    string
	JSONObject     *bool
	Strict         *bool
	Constrained    *bool
	SchemaFeatures []string
	FailureMode    *string
	// ToolUseFallback: models without native structured output can still be given a schema through a forced
	// tool call (the tool's input schema), which is a workaround without strict enforcement.
	ToolUseFallback bool
	// ToolUseParam is where the fallback's schema goes.
	ToolUseParam string
	// NativeFlag is the litellm flag that marks a model with native structured output when the API has both
	// the native mode and the tool-use fallback; "" means every schema-capable model is native.
	NativeFlag string

	// Reasoning. EffortParam and BudgetParam name the parameters that bound reasoning by effort level or by a
	// token budget; ThinkingParam turns it on or sets it.
	ThinkingURL   string
	ThinkingParam string
	EffortParam   string
	BudgetParam   string
	Visible       *bool
	VisibleNote   string
	OptIn         bool // thinking is off unless the request turns it on
	// OnByDefault: reasoning models reason unless the request turns it off; a model that cannot turn it off is
	// always on, and SwitchableDefault is the default of one that can ("" when not confirmed).
	OnByDefault       bool
	SwitchableDefault string
	// AllBudgetParam bounds the reasoning of every reasoning model of the API, whatever models.dev lists.
	AllBudgetParam string
	BilledAsOutput bool // thinking tokens are billed at the output-token price

	// Tool calls.
	ToolsURL           string
	RoleOrder          []string
	ToolCallRole       string
	ToolResultRole     string
	ToolResultKey      string
	ParallelToolCalls  *bool
	StrictRoleOrdering *bool
	ToolSchemaFormat   string
	ToolsNote          string

	// Images.
	ImagesURL    string
	MaxImages    *int64
	MaxImageMB   *float64
	ImageFormats []string
}

func capabilityInt(v int64) *int64       { return &v }
func capabilityFloat(v float64) *float64 { return &v }

// The schema features OpenAI lists as supported with strict Structured Outputs
// (https://platform.openai.com/docs/guides/structured-outputs#supported-schemas).
var capabilityOpenAIStrictFeatures = []string{"$defs", "$ref", "anyOf", "array", "boolean", "description", "enum", "integer",
	"null", "number", "object", "string"}

var capabilityOpenAIToolOrder = []string{"system", "user", "assistant", "tool", "assistant"}

// capabilityRuleOpenAI: OpenAI's Chat Completions. Structured Outputs are `response_format` {type: json_schema, strict: true},
// enforced by constrained decoding, and a schema outside the supported subset is refused with an error; JSON mode is
// {type: json_object}. Reasoning models take `reasoning_effort` (effort levels, the only bound on reasoning), reason
// on every request unless an effort of "none" exists for the model (its default is not carried here), bill
// reasoning tokens as output tokens, and never return the raw reasoning (the Responses API returns a summary,
// `reasoning.summary`). Tool calls: the assistant
// message carries `tool_calls`, each answered by a role `tool` message with `tool_call_id` and `content`; a tool
// message that does not answer a preceding tool call is refused (400); `parallel_tool_calls` switches parallel calls.
var capabilityRuleOpenAI = capabilityRule{
	Name:          "OpenAI Chat Completions",
	StructuredURL: "https://platform.openai.com/docs/guides/structured-outputs",
	SchemaParam:   "response_format", JSONObject: ptrTo(true), Strict: ptrTo(true), Constrained: ptrTo(true),
	SchemaFeatures: capabilityOpenAIStrictFeatures, FailureMode: ptrTo("error"),
	ThinkingURL:   "https://platform.openai.com/docs/guides/reasoning",
	ThinkingParam: "reasoning_effort", EffortParam: "reasoning_effort", Visible: ptrTo(true),
	VisibleNote:    "raw reasoning tokens are not returned; the Responses API returns a reasoning summary (reasoning.summary)",
	BilledAsOutput: true, OnByDefault: true, AllBudgetParam: "reasoning_effort",
	ToolsURL:  "https://platform.openai.com/docs/guides/function-calling",
	RoleOrder: capabilityOpenAIToolOrder, ToolCallRole: "assistant", ToolResultRole: "tool", ToolResultKey: "content",
	ParallelToolCalls: ptrTo(true), StrictRoleOrdering: ptrTo(true), ToolSchemaFormat: "json_schema",
	ToolsNote: "The assistant message carries tool_calls (id, function.name, function.arguments as a JSON string); " +
		"each call is answered by a role tool message with tool_call_id and content. A tool message that does not " +
		"answer a tool call of the preceding assistant message is refused with 400. parallel_tool_calls=false " +
		"turns parallel calls off; function.strict=true enforces the parameters schema.",
	ImagesURL:    "https://platform.openai.com/docs/guides/images-vision",
	ImageFormats: []string{"gif", "jpeg", "png", "webp"},
}

// capabilityRuleAzureOpenAI: Azure OpenAI serves the same models with the same request format as OpenAI.
var capabilityRuleAzureOpenAI = func() capabilityRule {
	r := capabilityRuleOpenAI
	r.Name = "Azure OpenAI Chat Completions (same request format as OpenAI)"
	r.StructuredURL = "https://learn.microsoft.com/en-us/azure/ai-foundry/openai/how-to/structured-outputs"
	r.ThinkingURL = "https://learn.microsoft.com/en-us/azure/ai-foundry/openai/how-to/reasoning"
	r.ToolsURL = "https://learn.microsoft.com/en-us/azure/ai-foundry/openai/how-to/function-calling"
	r.ImagesURL = "https://learn.microsoft.com/en-us/azure/ai-foundry/openai/how-to/gpt-with-vision"
	return r
}()

// capabilityRuleAnthropic: the Anthropic Messages API. It has no JSON-object mode; structured outputs (`output_format`, a
// JSON schema enforced by constrained decoding) exist for the models litellm marks
// supports_native_structured_output, and other models take a schema only as a forced tool's input_schema.
// Extended thinking is off unless `thinking` {type: enabled, budget_tokens} is sent; thinking blocks come back in
// the response and are billed as output tokens. Tool calls are `tool_use` blocks in the assistant message,
// answered by `tool_result` blocks (tool_use_id, content) at the start of the next user message; anything else is
// refused with 400. Images: JPEG, PNG, GIF, WebP, up to 100 per API request, 5 MB each.
var capabilityRuleAnthropic = capabilityRule{
	Name:          "Anthropic Messages API",
	StructuredURL: "https://docs.claude.com/en/docs/build-with-claude/structured-outputs",
	SchemaParam:   "output_format", JSONObject: ptrTo(false), Strict: ptrTo(true), Constrained: ptrTo(true),
	FailureMode: ptrTo("error"), ToolUseFallback: true, NativeFlag: "supports_native_structured_output",
	ToolUseParam:  "tools[].input_schema",
	ThinkingURL:   "https://docs.claude.com/en/docs/build-with-claude/extended-thinking",
	ThinkingParam: "thinking", BudgetParam: "thinking.budget_tokens", Visible: ptrTo(true),
	VisibleNote: "thinking content blocks are returned (summarized for Claude 4 and later models)",
	OptIn:       true, BilledAsOutput: true, AllBudgetParam: "thinking.budget_tokens",
	ToolsURL:  "https://docs.claude.com/en/docs/agents-and-tools/tool-use/implement-tool-use",
	RoleOrder: []string{"user", "assistant", "user", "assistant"}, ToolCallRole: "assistant", ToolResultRole: "user",
	ToolResultKey: "content", ParallelToolCalls: ptrTo(true), StrictRoleOrdering: ptrTo(true), ToolSchemaFormat: "json_schema",
	ToolsNote: "The assistant message carries tool_use content blocks (id, name, input); results go back as " +
		"tool_result blocks (tool_use_id, content, is_error) at the start of the next user message, or the request " +
		"is refused with 400. Tools are declared with input_schema (JSON Schema); " +
		"tool_choice.disable_parallel_tool_use=true turns parallel calls off.",
	ImagesURL: "https://docs.claude.com/en/docs/build-with-claude/vision",
	MaxImages: capabilityInt(100), MaxImageMB: capabilityFloat(5), ImageFormats: []string{"gif", "jpeg", "png", "webp"},
}

// capabilityRuleAnthropicVertex: Claude on Vertex AI takes the Anthropic Messages body (rawPredict / streamRawPredict).
var capabilityRuleAnthropicVertex = func() capabilityRule {
	r := capabilityRuleAnthropic
	r.Name = "Anthropic Messages format on Vertex AI (rawPredict)"
	r.ToolsURL = "https://cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude/use-claude"
	// Vertex AI's own image limits for Claude are not the API's: not confirmed here.
	r.ImagesURL, r.MaxImages, r.MaxImageMB = "", nil, nil
	return r
}()

// capabilityRuleGemini: the Gemini API (generateContent). JSON mode is responseMimeType application/json; a schema goes
// in generationConfig.responseSchema (or responseJsonSchema) and constrains the output (controlled generation).
// Thinking is set in generationConfig.thinkingConfig: thinkingBudget (Gemini 2.5) or thinkingLevel (Gemini 3); it
// is on by default (dynamic thinking), and off only where the budget can be 0; includeThoughts returns thought
// summaries; thinking tokens are billed at the output price. Function calls are
// functionCall parts in a role model turn, answered by functionResponse parts (name, response) in the next turn;
// a function call turn must follow a user or function response turn. Images: PNG, JPEG, WebP, HEIC, HEIF, up to
// 3,600 per request.
var capabilityRuleGemini = capabilityRule{
	Name:          "Gemini API generateContent",
	StructuredURL: "https://ai.google.dev/gemini-api/docs/structured-output",
	SchemaParam:   "generationConfig.responseSchema", JSONObject: ptrTo(true), Strict: ptrTo(true), Constrained: ptrTo(true),
	SchemaFeatures: []string{"anyOf", "array", "boolean", "enum", "format", "integer", "maxItems", "minItems",
		"nullable", "number", "object", "propertyOrdering", "required", "string"},
	FailureMode: ptrTo("error"),
	ThinkingURL: "https://ai.google.dev/gemini-api/docs/thinking", ThinkingParam: "generationConfig.thinkingConfig",
	EffortParam: "thinkingConfig.thinkingLevel", BudgetParam: "thinkingConfig.thinkingBudget", Visible: ptrTo(true),
	VisibleNote:    "thought summaries are returned with thinkingConfig.includeThoughts=true",
	BilledAsOutput: true, OnByDefault: true, SwitchableDefault: "on_by_default",
	ToolsURL:  "https://ai.google.dev/gemini-api/docs/function-calling",
	RoleOrder: []string{"user", "model", "user", "model"}, ToolCallRole: "model", ToolResultRole: "user",
	ToolResultKey: "functionResponse.response", ParallelToolCalls: ptrTo(true), StrictRoleOrdering: ptrTo(true),
	ToolSchemaFormat: "openapi_schema_subset",
	ToolsNote: "The model turn carries functionCall parts (name, args); results go back as functionResponse parts " +
		"(name, response object) in the next turn (role user; older samples use role function). Function " +
		"declarations take parameters as a subset of the OpenAPI 3.0 schema object (parametersJsonSchema takes " +
		"JSON Schema). A function call turn must come right after a user or function response turn.",
	ImagesURL: "https://ai.google.dev/gemini-api/docs/image-understanding",
	MaxImages: capabilityInt(3600), ImageFormats: []string{"heic", "heif", "jpeg", "png", "webp"},
}

// capabilityRuleGeminiVertex: Gemini on Vertex AI takes the same generateContent body; Vertex AI's own image limits differ
// from the Gemini API's and are not carried here.
var capabilityRuleGeminiVertex = func() capabilityRule {
	r := capabilityRuleGemini
	r.Name = "Gemini generateContent on Vertex AI"
	r.StructuredURL = "https://cloud.google.com/vertex-ai/generative-ai/docs/multimodal/control-generated-output"
	r.ThinkingURL = "https://cloud.google.com/vertex-ai/generative-ai/docs/thinking"
	r.ToolsURL = "https://cloud.google.com/vertex-ai/generative-ai/docs/multimodal/function-calling"
	r.ImagesURL = "https://cloud.google.com/vertex-ai/generative-ai/docs/multimodal/image-understanding"
	r.MaxImages = nil
	return r
}()

// capabilityRuleBedrock: the Amazon Bedrock Converse API, one format for every model. There is no JSON-object mode; a
// schema can be given as a forced tool's inputSchema, and litellm marks the models with native structured output.
// Reasoning is set per model through additionalModelRequestFields (not one parameter). Tool calls are toolUse
// blocks in the assistant message, answered by toolResult blocks (toolUseId, content) in the next user message;
// messages must alternate user and assistant. Images (ImageBlock): png, jpeg, gif, webp, up to 20 per request,
// 3.75 MB each.
var capabilityRuleBedrock = capabilityRule{
	Name:          "Amazon Bedrock Converse API",
	StructuredURL: "https://docs.aws.amazon.com/bedrock/latest/userguide/tool-use.html",
	JSONObject:    ptrTo(false), ToolUseFallback: true, NativeFlag: "supports_native_structured_output",
	ToolUseParam: "toolConfig.tools[].toolSpec.inputSchema",
	ToolsURL:     "https://docs.aws.amazon.com/bedrock/latest/userguide/tool-use-inference-call.html",
	RoleOrder:    []string{"user", "assistant", "user", "assistant"}, ToolCallRole: "assistant", ToolResultRole: "user",
	ToolResultKey: "toolResult.content", StrictRoleOrdering: ptrTo(true), ToolSchemaFormat: "json_schema",
	ToolsNote: "Converse API, the same for every model: the assistant message carries toolUse content blocks " +
		"(toolUseId, name, input); results go back as toolResult blocks (toolUseId, content, status) in the next " +
		"user message. Messages must alternate user and assistant. Tools are declared in toolConfig.tools[].toolSpec " +
		"with inputSchema.json (JSON Schema). Whether a model returns several toolUse blocks in one turn depends on " +
		"the model (not confirmed per model).",
	ImagesURL: "https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ImageBlock.html",
	MaxImages: capabilityInt(20), MaxImageMB: capabilityFloat(3.75), ImageFormats: []string{"gif", "jpeg", "png", "webp"},
}

// capabilityCompatRule is an OpenAI-compatible Chat Completions API as a provider documents it: schemas in
// `response_format`, tool calls as OpenAI's. Its enforcement (strict, constrained decoding), reasoning
// parameters, parallel calls and role checks are each provider's own and are not confirmed here unless set.
func capabilityCompatRule(name, structuredURL, toolsURL string) capabilityRule {
	return capabilityRule{
		Name: name, StructuredURL: structuredURL, SchemaParam: "response_format", ToolsURL: toolsURL,
		RoleOrder: capabilityOpenAIToolOrder, ToolCallRole: "assistant", ToolResultRole: "tool", ToolResultKey: "content",
		ToolSchemaFormat: "json_schema",
		ToolsNote: "The assistant message carries tool_calls; each call is " +
			"answered by a role tool message with tool_call_id and content. Tools are declared as " +
			"function.parameters (JSON Schema).",
	}
}

// capabilityRuleMistral: Mistral's chat API has OpenAI's shape: response_format json_object or json_schema, tool_calls and
// role tool messages (tool_call_id, name, content), parallel_tool_calls.
var capabilityRuleMistral = func() capabilityRule {
	r := capabilityCompatRule("Mistral AI chat completions", "https://docs.mistral.ai/capabilities/structured-output/custom_structured_output/",
		"https://docs.mistral.ai/capabilities/function_calling/")
	r.JSONObject, r.ParallelToolCalls = ptrTo(true), ptrTo(true)
	return r
}()

// capabilityRuleCohere: Cohere's v2 Chat API takes a schema in response_format {type: json_object, json_schema} and tool
// results as role tool messages (tool_call_id, content) after the assistant message with tool_calls.
var capabilityRuleCohere = func() capabilityRule {
	r := capabilityCompatRule("Cohere Chat API v2", "https://docs.cohere.com/v2/docs/structured-outputs",
		"https://docs.cohere.com/v2/docs/tool-use")
	r.JSONObject = ptrTo(true)
	r.ToolsNote = "Chat API v2: the assistant message carries tool_calls (and an optional tool_plan); each call is " +
		"answered by a role tool message with tool_call_id and content (a list of document or text items). Tools " +
		"are declared as function.parameters (JSON Schema)."
	return r
}()

// capabilityCompatProviders are the providers whose documented chat API is OpenAI-compatible, with the pages naming their
// structured output and tool calling.
var capabilityCompatProviders = map[string]capabilityRule{
	"groq": capabilityCompatRule("Groq OpenAI-compatible chat completions", "https://console.groq.com/docs/structured-outputs",
		"https://console.groq.com/docs/tool-use"),
	"together": capabilityCompatRule("Together AI OpenAI-compatible chat completions", "https://docs.together.ai/docs/json-mode",
		"https://docs.together.ai/docs/function-calling"),
	"fireworks": capabilityCompatRule("Fireworks AI OpenAI-compatible chat completions",
		"https://docs.fireworks.ai/structured-responses/structured-response-formatting",
		"https://docs.fireworks.ai/guides/function-calling"),
	"deepseek": capabilityCompatRule("DeepSeek OpenAI-compatible chat completions", "https://api-docs.deepseek.com/guides/json_mode",
		"https://api-docs.deepseek.com/guides/function_calling"),
	"xai": capabilityCompatRule("xAI OpenAI-compatible chat completions", "https://docs.x.ai/docs/guides/structured-outputs",
		"https://docs.x.ai/docs/guides/function-calling"),
	"openrouter": capabilityCompatRule("OpenRouter OpenAI-compatible chat completions (normalized across upstream providers)",
		"https://openrouter.ai/docs/features/structured-outputs", "https://openrouter.ai/docs/features/tool-calling"),
	"deepinfra": capabilityCompatRule("DeepInfra OpenAI-compatible chat completions", "https://deepinfra.com/docs/advanced/json_mode",
		"https://deepinfra.com/docs/advanced/function_calling"),
	"cerebras": capabilityCompatRule("Cerebras OpenAI-compatible chat completions",
		"https://inference-docs.cerebras.ai/capabilities/structured-outputs", "https://inference-docs.cerebras.ai/capabilities/tool-use"),
	"sambanova": capabilityCompatRule("SambaNova OpenAI-compatible chat completions",
		"https://docs.sambanova.ai/cloud/docs/capabilities/function-calling", "https://docs.sambanova.ai/cloud/docs/capabilities/function-calling"),
	"nebius": capabilityCompatRule("Nebius OpenAI-compatible chat completions", "https://docs.nebius.com/studio/inference/json-mode",
		"https://docs.nebius.com/studio/inference/tool-calling"),
	"novita": capabilityCompatRule("Novita AI OpenAI-compatible chat completions", "https://novita.ai/docs/guides/llm-structured-outputs",
		"https://novita.ai/docs/guides/llm-function-calling"),
	"moonshot": capabilityCompatRule("Moonshot AI (Kimi) OpenAI-compatible chat completions",
		"https://platform.moonshot.ai/docs/guide/use-json-mode-feature-of-kimi-api", "https://platform.moonshot.ai/docs/guide/use-kimi-api-to-complete-tool-calls"),
	"zhipu": capabilityCompatRule("Z.ai (GLM) chat completions", "https://docs.z.ai/guides/capabilities/struct-output",
		"https://docs.z.ai/guides/capabilities/function-calling"),
	"alibaba-dashscope": capabilityCompatRule("Alibaba Cloud Model Studio OpenAI-compatible chat completions",
		"https://www.alibabacloud.com/help/en/model-studio/json-mode", "https://www.alibabacloud.com/help/en/model-studio/qwen-function-calling"),
	"minimax": capabilityCompatRule("MiniMax OpenAI-compatible chat completions", "https://platform.minimax.io/docs/api-reference/text-openai-api",
		"https://platform.minimax.io/docs/guides/text-m2-function-call"),
	"databricks": capabilityCompatRule("Databricks Foundation Model APIs (OpenAI-compatible chat)",
		"https://docs.databricks.com/aws/en/machine-learning/model-serving/structured-outputs",
		"https://docs.databricks.com/aws/en/machine-learning/model-serving/function-calling"),
	"nvidia-nim": capabilityCompatRule("NVIDIA NIM for LLMs (OpenAI-compatible chat completions)",
		"https://docs.nvidia.com/nim/large-language-models/latest/structured-generation.html",
		"https://docs.nvidia.com/nim/large-language-models/latest/function-calling.html"),
	"huggingface": capabilityCompatRule("Hugging Face Inference Providers (OpenAI-compatible chat completions)",
		"https://huggingface.co/docs/inference-providers/guides/structured-output", "https://huggingface.co/docs/inference-providers/guides/function-calling"),
	"baseten": capabilityCompatRule("Baseten Model APIs (OpenAI-compatible chat completions)",
		"https://docs.baseten.co/development/model-apis/overview", "https://docs.baseten.co/development/model-apis/overview"),
	"ibm-watsonx": capabilityCompatRule("IBM watsonx.ai chat API", "https://www.ibm.com/docs/en/watsonx/saas?topic=solutions-chat-api",
		"https://www.ibm.com/docs/en/watsonx/saas?topic=solutions-chat-api"),
}

// Parallel calls and reasoning rules that providers of capabilityCompatProviders document.
func init() {
	for id, note := range map[string]string{
		// parallel_tool_calls is a documented request parameter of these APIs.
		"groq": "parallel_tool_calls", "xai": "parallel_function_calling", "openrouter": "parallel_tool_calls",
	} {
		r := capabilityCompatProviders[id]
		r.ParallelToolCalls = ptrTo(true)
		r.ToolsNote += " Parallel calls: " + note + "."
		capabilityCompatProviders[id] = r
	}
	// OpenRouter normalizes reasoning across upstream providers in one `reasoning` object
	// (https://openrouter.ai/docs/use-cases/reasoning-tokens): reasoning.effort or reasoning.max_tokens; the
	// reasoning is returned unless reasoning.exclude is set.
	or := capabilityCompatProviders["openrouter"]
	or.ThinkingURL, or.ThinkingParam = "https://openrouter.ai/docs/use-cases/reasoning-tokens", "reasoning"
	or.EffortParam, or.BudgetParam = "reasoning.effort", "reasoning.max_tokens"
	or.Visible, or.VisibleNote = ptrTo(true), "returned in the message's reasoning field unless reasoning.exclude=true"
	capabilityCompatProviders["openrouter"] = or
	// DeepSeek returns the reasoning of deepseek-reasoner in reasoning_content and bills it as output
	// (https://api-docs.deepseek.com/guides/reasoning_model).
	ds := capabilityCompatProviders["deepseek"]
	ds.ThinkingURL, ds.Visible = "https://api-docs.deepseek.com/guides/reasoning_model", ptrTo(true)
	ds.VisibleNote, ds.BilledAsOutput = "the chain of thought is returned in reasoning_content", true
	ds.JSONObject = ptrTo(true)
	capabilityCompatProviders["deepseek"] = ds
}

// capabilityRuleFor returns the rule of the API a model is called through, or nil when it is not confirmed here.
// Vertex AI is a multi-vendor platform: Gemini models take the Gemini body, Claude models the Anthropic body, and
// partner models (Llama, Mistral, Jamba, MaaS open models...) their own formats, which are not confirmed here.
func capabilityRuleFor(provider, model string) *capabilityRule {
	var r capabilityRule
	switch provider {
	case "openai":
		r = capabilityRuleOpenAI
	case "azure-openai":
		r = capabilityRuleAzureOpenAI
	case "anthropic":
		r = capabilityRuleAnthropic
	case "google-gemini":
		r = capabilityRuleGemini
	case "google-vertex-ai":
		switch {
		case strings.HasPrefix(model, "gemini-"):
			r = capabilityRuleGeminiVertex
		case strings.HasPrefix(model, "claude-"):
			r = capabilityRuleAnthropicVertex
		default:
			return nil
		}
	case "aws-bedrock":
		r = capabilityRuleBedrock
	case "mistral":
		r = capabilityRuleMistral
	case "cohere":
		r = capabilityRuleCohere
	default:
		c, ok := capabilityCompatProviders[provider]
		if !ok {
			return nil
		}
		r = c
	}
	return &r
}

// ---- reading the source facts ----

// capabilityModel is the per-model input of the capability derivers: the models.json record and its raw source entries.
type capabilityModel struct {
	Model seeds.ModelRecord
	catalogbuild.SourceFacts
}

// capabilityCurrentModels pairs every current language model with its source facts, in provider then model order.
func capabilityCurrentModels(in *Input) ([]capabilityModel, error) {
	return perCurrentModel(in, func(m seeds.ModelRecord, f catalogbuild.SourceFacts) capabilityModel {
		return capabilityModel{Model: m, SourceFacts: f}
	})
}

// liteFlag is a litellm boolean field; nil when litellm does not list the model or the field.
func (f capabilityModel) liteFlag(key string) *bool {
	if v, ok := f.LiteLLM[key].(bool); ok {
		return &v
	}
	return nil
}

// devFlag is a models.dev boolean field; nil when models.dev does not list the model or the field.
func (f capabilityModel) devFlag(key string) *bool {
	if v, ok := f.ModelsDev[key].(bool); ok {
		return &v
	}
	return nil
}

// devModalities is models.dev's modalities.input or .output; nil when models.dev does not list the model.
func (f capabilityModel) devModalities(dir string) []string {
	m, ok := f.ModelsDev["modalities"].(map[string]any)
	if !ok {
		return nil
	}
	list, _ := m[dir].([]any)
	out := []string{}
	for _, v := range list {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// capabilityReasoningOption is one entry of models.dev's reasoning_options: a toggle, effort levels or a token budget.
type capabilityReasoningOption struct {
	Type   string
	Values []string
	Min    *int64
}

func (f capabilityModel) reasoningOptions() []capabilityReasoningOption {
	list, _ := f.ModelsDev["reasoning_options"].([]any)
	var out []capabilityReasoningOption
	for _, v := range list {
		m, ok := v.(map[string]any)
		if !ok {
			continue
		}
		o := capabilityReasoningOption{}
		o.Type, _ = m["type"].(string)
		o.Values = append(o.Values, anyStrings(m["values"])...)
		if n, ok := m["min"].(float64); ok {
			o.Min = capabilityInt(int64(n))
		}
		out = append(out, o)
	}
	return out
}

// schemaSupport is whether the model accepts a JSON schema for its output, as the sources say it: models.dev's
// structured_output when present, else litellm's supports_response_schema when present, else unknown (nil).
// This is the precedence of models.json's json_mode, which is false where this is nil.
func (f capabilityModel) schemaSupport() *bool {
	if v := f.devFlag("structured_output"); v != nil {
		return v
	}
	return f.liteFlag("supports_response_schema")
}

// reasoningSupport is whether the model reasons before answering: models.dev's reasoning, else litellm's
// supports_reasoning, else unknown (nil).
func (f capabilityModel) reasoningSupport() *bool {
	if v := f.devFlag("reasoning"); v != nil {
		return v
	}
	return f.liteFlag("supports_reasoning")
}

// ---- catalog envelopes ----

// capabilitySources are the data sources of a capability catalog: models.dev and litellm as models.json names them (the facts
// come from both), then the official pages of the rules used, each once, in order.
func capabilitySources(in *Input, pages []string) ([]seeds.Source, string, error) {
	c, err := in.Catalog(seeds.CatalogModels)
	if err != nil {
		return nil, "", err
	}
	var out []seeds.Source
	for _, s := range c.Sources {
		if strings.Contains(s.URL, "models.dev") || strings.Contains(s.URL, "litellm") {
			out = append(out, s)
		}
	}
	if len(out) != 2 {
		return nil, "", fmt.Errorf("models.json names %d of the models.dev and litellm sources, want 2", len(out))
	}
	seen := map[string]bool{}
	for _, p := range pages {
		if p == "" || seen[p] {
			continue
		}
		seen[p] = true
		out = append(out, seeds.Source{Name: "Official documentation: " + capabilityPageName(p), URL: p})
	}
	return out, c.AsOf, nil
}

// capabilityPageName is a short readable name for an official page: its host and path.
func capabilityPageName(url string) string {
	return strings.TrimPrefix(url, "https://")
}

// capabilityPages collects one page field of the rules used by a catalog's records, sorted for a stable source list.
func capabilityPages(models []capabilityModel, page func(*capabilityRule) string) []string {
	set := map[string]bool{}
	for _, m := range models {
		if r := capabilityRuleFor(m.Model.ProviderId, m.Model.ModelId); r != nil && page(r) != "" {
			set[page(r)] = true
		}
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	slices.SortFunc(out, cmp.Compare)
	return out
}

// capabilityNotes joins the non-empty sentences of a note, and the official page it comes from last (url may be ""), or
// returns nil when there is nothing to say.
func capabilityNotes(url string, sentences ...string) *string {
	var kept []string
	for _, p := range sentences {
		if p = strings.TrimSuffix(strings.TrimSpace(p), "."); p != "" {
			kept = append(kept, strings.ToUpper(p[:1])+p[1:])
		}
	}
	if url != "" {
		kept = append(kept, "Source: "+url)
	}
	if len(kept) == 0 {
		return nil
	}
	s := strings.Join(kept, ". ")
	return &s
}
