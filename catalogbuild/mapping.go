package catalogbuild

import "strings"

// litellmProvider says how one `litellm_provider` value of litellm-model-prices.json maps onto our provider IDs.
type litellmProvider struct {
	// ID is our provider ID (seeds/providers.json).
	ID string
	// Prefixes are stripped from the model key to get the provider's own API name ("gemini/gemini-2.5-pro" ->
	// "gemini-2.5-pro"). The first that matches is stripped.
	Prefixes []string
	// RequirePrefix drops keys that carry none of Prefixes: for these providers litellm's unprefixed keys are
	// pseudo-entries (size buckets such as "together-ai-4.1b-8b") or typos ("replicateopenai/...").
	RequirePrefix bool
	// SlashOK allows "/" in the stripped model ID: the provider's own names are namespaced ("meta-llama/Llama-3.3-70B-
	// Instruct-Turbo", "accounts/fireworks/models/..."). Where it is false, a remaining "/" marks a region, size,
	// quality or commitment variant of another entry ("azure/eu/gpt-4o", "1024-x-1024/dall-e-2",
	// "bedrock/us-east-1/..."), which is dropped.
	SlashOK bool
	// Bedrock applies the Amazon Bedrock rules: the ID must be "<vendor>.<model>", and a cross-region inference
	// profile ("us.", "eu.", "global."...) is dropped when the base model ID is also listed.
	Bedrock bool
}

// litellmProviders is the explicit table from litellm's provider names to our 52 provider IDs. The order is the
// precedence when two litellm providers give the same (provider, model): earlier wins. litellm providers not
// listed here are not among our 52 (gateways and resellers such as vercel_ai_gateway, oci, snowflake, lambda_ai,
// github_copilot, chatgpt, ollama) and are skipped.
var litellmProviders = []struct {
	Name string
	litellmProvider
}{
	{"openai", litellmProvider{ID: "openai", Prefixes: []string{"openai/"}}},
	{"text-completion-openai", litellmProvider{ID: "openai"}},
	{"anthropic", litellmProvider{ID: "anthropic", Prefixes: []string{"anthropic/"}}},
	{"gemini", litellmProvider{ID: "google-gemini", Prefixes: []string{"gemini/"}}},
	// Vertex AI: litellm splits it by model family; every family is Google Vertex AI for us.
	{"vertex_ai-language-models", litellmProvider{ID: "google-vertex-ai", Prefixes: []string{"vertex_ai/"}}},
	{"vertex_ai", litellmProvider{ID: "google-vertex-ai", Prefixes: []string{"vertex_ai/"}, SlashOK: true}},
	{"vertex_ai-anthropic_models", litellmProvider{ID: "google-vertex-ai", Prefixes: []string{"vertex_ai/"}}},
	{"vertex_ai-embedding-models", litellmProvider{ID: "google-vertex-ai", Prefixes: []string{"vertex_ai/"}}},
	{"vertex_ai-image-models", litellmProvider{ID: "google-vertex-ai", Prefixes: []string{"vertex_ai/"}}},
	{"vertex_ai-video-models", litellmProvider{ID: "google-vertex-ai", Prefixes: []string{"vertex_ai/"}}},
	{"vertex_ai-mistral_models", litellmProvider{ID: "google-vertex-ai", Prefixes: []string{"vertex_ai/"}}},
	{"vertex_ai-llama_models", litellmProvider{ID: "google-vertex-ai", Prefixes: []string{"vertex_ai/"}, SlashOK: true}},
	{"vertex_ai-ai21_models", litellmProvider{ID: "google-vertex-ai", Prefixes: []string{"vertex_ai/"}}},
	{"vertex_ai-qwen_models", litellmProvider{ID: "google-vertex-ai", Prefixes: []string{"vertex_ai/"}, SlashOK: true}},
	{"vertex_ai-deepseek_models", litellmProvider{ID: "google-vertex-ai", Prefixes: []string{"vertex_ai/"}, SlashOK: true}},
	{"vertex_ai-openai_models", litellmProvider{ID: "google-vertex-ai", Prefixes: []string{"vertex_ai/"}, SlashOK: true}},
	{"vertex_ai-zai_models", litellmProvider{ID: "google-vertex-ai", Prefixes: []string{"vertex_ai/"}, SlashOK: true}},
	{"vertex_ai-minimax_models", litellmProvider{ID: "google-vertex-ai", Prefixes: []string{"vertex_ai/"}, SlashOK: true}},
	{"vertex_ai-moonshot_models", litellmProvider{ID: "google-vertex-ai", Prefixes: []string{"vertex_ai/"}, SlashOK: true}},
	{"vertex_ai-text-models", litellmProvider{ID: "google-vertex-ai", Prefixes: []string{"vertex_ai/"}}},
	// Amazon Bedrock: the Converse entries first (they carry the current models), then the Invoke ones.
	{"bedrock_converse", litellmProvider{ID: "aws-bedrock", Prefixes: []string{"bedrock/converse/", "bedrock/"}, Bedrock: true}},
	{"bedrock", litellmProvider{ID: "aws-bedrock", Prefixes: []string{"bedrock/"}, Bedrock: true}},
	// Azure OpenAI and the Azure AI Foundry catalog (our azure-openai is "Azure OpenAI (Microsoft Foundry)").
	{"azure", litellmProvider{ID: "azure-openai", Prefixes: []string{"azure/"}}},
	{"azure_text", litellmProvider{ID: "azure-openai", Prefixes: []string{"azure/"}}},
	{"azure_ai", litellmProvider{ID: "azure-openai", Prefixes: []string{"azure_ai/"}, RequirePrefix: true}},
	{"mistral", litellmProvider{ID: "mistral", Prefixes: []string{"mistral/"}, RequirePrefix: true}},
	{"codestral", litellmProvider{ID: "mistral", Prefixes: []string{"codestral/"}, RequirePrefix: true}},
	{"text-completion-codestral", litellmProvider{ID: "mistral", Prefixes: []string{"text-completion-codestral/"}, RequirePrefix: true}},
	{"cohere_chat", litellmProvider{ID: "cohere", Prefixes: []string{"cohere_chat/"}}},
	{"cohere", litellmProvider{ID: "cohere", Prefixes: []string{"cohere/"}}},
	{"groq", litellmProvider{ID: "groq", Prefixes: []string{"groq/"}, RequirePrefix: true, SlashOK: true}},
	{"together_ai", litellmProvider{ID: "together", Prefixes: []string{"together_ai/"}, RequirePrefix: true, SlashOK: true}},
	{"fireworks_ai", litellmProvider{ID: "fireworks", Prefixes: []string{"fireworks_ai/"}, RequirePrefix: true, SlashOK: true}},
	{"fireworks_ai-embedding-models", litellmProvider{ID: "fireworks", Prefixes: []string{"fireworks_ai/"}, RequirePrefix: true, SlashOK: true}},
	{"deepseek", litellmProvider{ID: "deepseek", Prefixes: []string{"deepseek/"}}},
	{"perplexity", litellmProvider{ID: "perplexity", Prefixes: []string{"perplexity/"}, RequirePrefix: true}},
	{"xai", litellmProvider{ID: "xai", Prefixes: []string{"xai/"}, RequirePrefix: true}},
	{"openrouter", litellmProvider{ID: "openrouter", Prefixes: []string{"openrouter/"}, RequirePrefix: true, SlashOK: true}},
	{"cerebras", litellmProvider{ID: "cerebras", Prefixes: []string{"cerebras/"}, RequirePrefix: true}},
	{"sambanova", litellmProvider{ID: "sambanova", Prefixes: []string{"sambanova/"}, RequirePrefix: true}},
	{"deepinfra", litellmProvider{ID: "deepinfra", Prefixes: []string{"deepinfra/"}, RequirePrefix: true, SlashOK: true}},
	{"ai21", litellmProvider{ID: "ai21", Prefixes: []string{"ai21/"}}},
	{"moonshot", litellmProvider{ID: "moonshot", Prefixes: []string{"moonshot/"}, RequirePrefix: true}},
	{"zai", litellmProvider{ID: "zhipu", Prefixes: []string{"zai/"}, RequirePrefix: true}},
	{"dashscope", litellmProvider{ID: "alibaba-dashscope", Prefixes: []string{"dashscope/"}, RequirePrefix: true}},
	{"minimax", litellmProvider{ID: "minimax", Prefixes: []string{"minimax/"}, RequirePrefix: true}},
	{"cloudflare", litellmProvider{ID: "cloudflare-workers-ai", Prefixes: []string{"cloudflare/"}, RequirePrefix: true, SlashOK: true}},
	{"nvidia_nim", litellmProvider{ID: "nvidia-nim", Prefixes: []string{"nvidia_nim/"}, RequirePrefix: true, SlashOK: true}},
	{"watsonx", litellmProvider{ID: "ibm-watsonx", Prefixes: []string{"watsonx/"}, RequirePrefix: true, SlashOK: true}},
	{"databricks", litellmProvider{ID: "databricks", Prefixes: []string{"databricks/"}, RequirePrefix: true}},
	{"nebius", litellmProvider{ID: "nebius", Prefixes: []string{"nebius/"}, RequirePrefix: true, SlashOK: true}},
	{"hyperbolic", litellmProvider{ID: "hyperbolic", Prefixes: []string{"hyperbolic/"}, RequirePrefix: true, SlashOK: true}},
	{"novita", litellmProvider{ID: "novita", Prefixes: []string{"novita/"}, RequirePrefix: true, SlashOK: true}},
	{"baseten", litellmProvider{ID: "baseten", Prefixes: []string{"baseten/"}, RequirePrefix: true, SlashOK: true}},
	{"replicate", litellmProvider{ID: "replicate", Prefixes: []string{"replicate/"}, RequirePrefix: true, SlashOK: true}},
	{"voyage", litellmProvider{ID: "voyage-ai", Prefixes: []string{"voyage/"}, RequirePrefix: true}},
	{"jina_ai", litellmProvider{ID: "jina-ai", Prefixes: []string{"jina_ai/"}}},
	{"elevenlabs", litellmProvider{ID: "elevenlabs", Prefixes: []string{"elevenlabs/"}, RequirePrefix: true}},
	{"assemblyai", litellmProvider{ID: "assemblyai", Prefixes: []string{"assemblyai/"}, RequirePrefix: true}},
	{"deepgram", litellmProvider{ID: "deepgram", Prefixes: []string{"deepgram/"}, RequirePrefix: true}},
	{"stability", litellmProvider{ID: "stability-ai", Prefixes: []string{"stability/"}, RequirePrefix: true}},
	{"black_forest_labs", litellmProvider{ID: "black-forest-labs", Prefixes: []string{"black_forest_labs/"}, RequirePrefix: true}},
	{"runwayml", litellmProvider{ID: "runway", Prefixes: []string{"runwayml/"}, RequirePrefix: true}},
	{"fal_ai", litellmProvider{ID: "fal", Prefixes: []string{"fal_ai/"}, RequirePrefix: true, SlashOK: true}},
	{"tavily", litellmProvider{ID: "tavily", Prefixes: []string{"tavily/"}, RequirePrefix: true}},
	{"exa_ai", litellmProvider{ID: "exa", Prefixes: []string{"exa_ai/"}, RequirePrefix: true}},
	{"firecrawl", litellmProvider{ID: "firecrawl", Prefixes: []string{"firecrawl/"}, RequirePrefix: true}},
}

// modelsDevProviders maps models.dev provider IDs to ours, in precedence order. Regional or plan variants of a
// provider (alibaba-cn, minimax-cn, moonshotai-cn, zhipuai, the *-coding-plan and *-token-plan entries,
// azure-cognitive-services, perplexity-agent) are left out: their prices are in another currency or belong to a
// subscription, and their model IDs repeat the main entry's.
var modelsDevProviders = []struct{ Name, ID string }{
	{"openai", "openai"},
	{"anthropic", "anthropic"},
	{"google", "google-gemini"},
	{"google-vertex", "google-vertex-ai"},
	{"google-vertex-anthropic", "google-vertex-ai"},
	{"amazon-bedrock", "aws-bedrock"},
	{"azure", "azure-openai"},
	{"mistral", "mistral"},
	{"cohere", "cohere"},
	{"groq", "groq"},
	{"togetherai", "together"},
	{"fireworks-ai", "fireworks"},
	{"deepseek", "deepseek"},
	{"perplexity", "perplexity"},
	{"xai", "xai"},
	{"openrouter", "openrouter"},
	{"cerebras", "cerebras"},
	{"deepinfra", "deepinfra"},
	{"moonshotai", "moonshot"},
	{"zai", "zhipu"},
	{"alibaba", "alibaba-dashscope"},
	{"minimax", "minimax"},
	{"cloudflare-workers-ai", "cloudflare-workers-ai"},
	{"nvidia", "nvidia-nim"},
	{"databricks", "databricks"},
	{"nebius", "nebius"},
	{"novita-ai", "novita"},
	{"baseten", "baseten"},
	{"huggingface", "huggingface"},
	{"upstage", "upstage"},
}

// genaiPricesProviders maps pydantic/genai-prices provider IDs to ours. The huggingface_* entries are Hugging
// Face's router priced per backend and are left out, as are providers that are not among our 52 (avian,
// doubleword, ovhcloud) and zhipuai (the bigmodel.cn platform; Z.ai is "zai").
var genaiPricesProviders = map[string]string{
	"anthropic":  "anthropic",
	"aws":        "aws-bedrock",
	"azure":      "azure-openai",
	"cerebras":   "cerebras",
	"cohere":     "cohere",
	"deepseek":   "deepseek",
	"fireworks":  "fireworks",
	"google":     "google-gemini",
	"groq":       "groq",
	"minimax":    "minimax",
	"mistral":    "mistral",
	"modal":      "modal",
	"moonshotai": "moonshot",
	"novita":     "novita",
	"openai":     "openai",
	"openrouter": "openrouter",
	"perplexity": "perplexity",
	"together":   "together",
	"voyageai":   "voyage-ai",
	"x-ai":       "xai",
	"zai":        "zhipu",
}

// benchmarkOrgs maps the organisation of a benchmark record (llm-stats.json, simple-evals) to the provider that
// serves that organisation's models under their own API names, and the prefix those API names carry. Open-weight
// publishers without a first-party API among our 52 (meta, microsoft, sakana, ...) are not listed: their scores
// are not attributed to a third-party host.
var benchmarkOrgs = map[string]struct{ ID, Prefix string }{
	"openai":     {"openai", ""},
	"anthropic":  {"anthropic", ""},
	"google":     {"google-gemini", ""},
	"mistral":    {"mistral", ""},
	"deepseek":   {"deepseek", ""},
	"xai":        {"xai", ""},
	"cohere":     {"cohere", ""},
	"ai21":       {"ai21", ""},
	"moonshotai": {"moonshot", ""},
	"zai-org":    {"zhipu", ""},
	"zhipuai":    {"zhipu", ""},
	"qwen":       {"alibaba-dashscope", ""},
	"alibaba":    {"alibaba-dashscope", ""},
	"amazon":     {"aws-bedrock", "amazon."},
	"ibm":        {"ibm-watsonx", "ibm/"},
	"nvidia":     {"nvidia-nim", "nvidia/"},
	"minimax":    {"minimax", ""},
	"perplexity": {"perplexity", ""},
}

// benchmarkAliases maps benchmark model IDs that are not API names to the provider's API name, where the model is
// unambiguous (Amazon Bedrock's model IDs for Nova, from the Bedrock model catalog).
var benchmarkAliases = map[string]string{
	"aws-bedrock/nova-lite":  "amazon.nova-lite-v1:0",
	"aws-bedrock/nova-micro": "amazon.nova-micro-v1:0",
	"aws-bedrock/nova-pro":   "amazon.nova-pro-v1:0",
}

// llmStatsFirstParty maps llm-stats inference-provider IDs to our IDs where the provider is the model's own
// publisher; their rows give `provider_model_id_used`, the API name of an llm-stats model ID.
var llmStatsFirstParty = map[string]string{
	"openai":    "openai",
	"anthropic": "anthropic",
	"google":    "google-gemini",
	"mistral":   "mistral",
	"deepseek":  "deepseek",
	"xai":       "xai",
	"cohere":    "cohere",
}

// bedrockGeoPrefixes are the cross-region inference-profile prefixes of Amazon Bedrock model IDs.
var bedrockGeoPrefixes = []string{"us-gov.", "us.", "eu.", "apac.", "jp.", "au.", "ca.", "global."}

func bedrockBase(id string) (string, bool) {
	for _, p := range bedrockGeoPrefixes {
		if strings.HasPrefix(id, p) {
			return strings.TrimPrefix(id, p), true
		}
	}
	return id, false
}
