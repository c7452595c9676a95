package gateway

import (
	"fmt"
	"maps"
	"slices"
)

// Format is a gateway whose configuration Build writes.
type Format string

// The formats of GET /failover/export.
const (
	LiteLLM    Format = "litellm"
	Portkey    Format = "portkey"
	OpenRouter Format = "openrouter"
)

// Documentation the configurations follow; the OpenAPI description of getFailoverExport cites the same pages.
const (
	// LiteLLMDoc shows model_list entries {model_name, litellm_params: {model}} and router_settings.fallbacks as
	// [{"<model_name>": ["<model_name>", ...]}].
	LiteLLMDoc = "https://docs.litellm.ai/docs/proxy/reliability"
	// PortkeyDoc shows {"strategy": {"mode": "fallback"}, "targets": [{"provider", "override_params": {"model"}}]}.
	PortkeyDoc = "https://portkey.ai/docs/product/ai-gateway/fallbacks"
	// OpenRouterDoc shows the chat completions `models` list tried in order.
	OpenRouterDoc = "https://openrouter.ai/docs/guides/routing/model-fallbacks"
)

// openRouterMaxModels is the length OpenRouter accepts for `models`: longer lists are refused with "'models' array
// must have 3 items or fewer" (reported against the live API in github.com/ever-co/ever-gauzy pull 9915).
const openRouterMaxModels = 3

// deploymentNamed are providers a gateway reaches by the caller's own deployment name (Azure OpenAI: LiteLLM's
// "azure/<your-deployment-name>", Portkey's deployment_id), which no catalog can know.
var deploymentNamed = map[string]bool{"azure-openai": true}

// portkeyProviders maps our provider IDs to Portkey's provider slugs, each among the VALID_PROVIDERS of Portkey's
// own gateway (@portkey-ai/gateway 1.15.2; e2e/gateway/validate.mjs checks every one with its config schema). A
// provider not listed is one Portkey does not serve.
var portkeyProviders = map[string]string{
	"openai": "openai", "anthropic": "anthropic", "google-gemini": "google", "google-vertex-ai": "vertex-ai",
	"aws-bedrock": "bedrock", "mistral": "mistral-ai", "cohere": "cohere", "groq": "groq", "together": "together-ai",
	"fireworks": "fireworks-ai", "deepseek": "deepseek", "perplexity": "perplexity-ai", "xai": "x-ai",
	"cerebras": "cerebras", "sambanova": "sambanova", "deepinfra": "deepinfra", "ai21": "ai21", "moonshot": "moonshot",
	"zhipu": "z-ai", "alibaba-dashscope": "dashscope", "cloudflare-workers-ai": "workers-ai", "nebius": "nebius",
	"novita": "novita-ai", "hyperbolic": "hyperbolic", "replicate": "replicate", "huggingface": "huggingface",
	"upstage": "upstage", "voyage-ai": "voyage", "jina-ai": "jina", "stability-ai": "stability-ai",
	"openrouter": "openrouter",
}

// openRouterProviders maps our provider IDs to the provider names OpenRouter routes to (its ProviderName enum in
// @openrouter/sdk; e2e/gateway/validate.mjs checks every one). "Google" is Vertex AI, "Google AI Studio" the
// Gemini API. A provider not listed is one OpenRouter does not route to.
var openRouterProviders = map[string]string{
	"openai": "OpenAI", "anthropic": "Anthropic", "google-gemini": "Google AI Studio", "google-vertex-ai": "Google",
	"aws-bedrock": "Amazon Bedrock", "azure-openai": "Azure", "mistral": "Mistral", "cohere": "Cohere", "groq": "Groq",
	"together": "Together", "fireworks": "Fireworks", "deepseek": "DeepSeek", "perplexity": "Perplexity", "xai": "xAI",
	"cerebras": "Cerebras", "sambanova": "SambaNova", "deepinfra": "DeepInfra", "ai21": "AI21", "moonshot": "Moonshot AI",
	"zhipu": "Z.AI", "alibaba-dashscope": "Alibaba", "minimax": "Minimax", "cloudflare-workers-ai": "Cloudflare",
	"databricks": "Databricks", "nebius": "Nebius", "novita": "Novita", "baseten": "BaseTen", "modal": "Modal",
	"upstage": "Upstage",
}

// PortkeyProviders returns a copy of the table from our provider IDs to Portkey's provider slugs.
func PortkeyProviders() map[string]string { return maps.Clone(portkeyProviders) }

// OpenRouterProviders returns a copy of the table from our provider IDs to OpenRouter's provider names.
func OpenRouterProviders() map[string]string { return maps.Clone(openRouterProviders) }

// Candidate is one provider of a failover ranking, with its candidate models best first.
type Candidate struct {
	Provider string
	Models   []string
	Score    *float64 // the failover score; nil for the primary, which is not scored
}

// Target is a provider the configuration routes to, with the model and its gateway name.
type Target struct {
	Provider, Model, GatewayModel string
	Score                         *float64
}

// Skip is a provider of the ranking left out of the configuration, and why.
type Skip struct{ Provider, Reason string }

// Export is a gateway configuration and how it was made.
type Export struct {
	Config  any // LiteLLMConfig, PortkeyConfig or OpenRouterRequest
	Targets []Target
	Skipped []Skip
	Note    string
}

// LiteLLMConfig is a LiteLLM Router (proxy config.yaml) configuration, as LiteLLMDoc shows it.
type LiteLLMConfig struct {
	ModelList      []LiteLLMModel        `json:"model_list"`
	RouterSettings LiteLLMRouterSettings `json:"router_settings"`
}

// LiteLLMModel is one model_list entry.
type LiteLLMModel struct {
	ModelName     string        `json:"model_name"`
	LiteLLMParams LiteLLMParams `json:"litellm_params"`
}

// LiteLLMParams names the provider route and model.
type LiteLLMParams struct {
	Model string `json:"model"`
}

// LiteLLMRouterSettings carries the fallbacks: one entry, from the first model_name to the others in order.
type LiteLLMRouterSettings struct {
	Fallbacks []map[string][]string `json:"fallbacks"`
}

// PortkeyConfig is a Portkey gateway config in fallback mode, as PortkeyDoc shows it.
type PortkeyConfig struct {
	Strategy PortkeyStrategy `json:"strategy"`
	Targets  []PortkeyTarget `json:"targets"`
}

// PortkeyStrategy is the routing strategy.
type PortkeyStrategy struct {
	Mode string `json:"mode"`
}

// PortkeyTarget is one target with placeholders for the credentials Portkey's config schema asks of it.
type PortkeyTarget struct {
	Provider           string                `json:"provider"`
	APIKey             string                `json:"api_key,omitempty"`
	AWSAccessKeyID     string                `json:"aws_access_key_id,omitempty"`
	AWSSecretAccessKey string                `json:"aws_secret_access_key,omitempty"`
	AWSRegion          string                `json:"aws_region,omitempty"`
	VertexProjectID    string                `json:"vertex_project_id,omitempty"`
	VertexRegion       string                `json:"vertex_region,omitempty"`
	OverrideParams     PortkeyOverrideParams `json:"override_params"`
}

// PortkeyOverrideParams sets the model of a target.
type PortkeyOverrideParams struct {
	Model string `json:"model"`
}

// OpenRouterRequest is the routing part of an OpenRouter chat completions request body, as OpenRouterDoc shows
// it; the caller adds messages.
type OpenRouterRequest struct {
	Models   []string                   `json:"models"`
	Provider *OpenRouterProviderOptions `json:"provider,omitempty"`
}

// OpenRouterProviderOptions puts the ranking's providers first when OpenRouter picks who serves each model;
// allow_fallbacks lets it use others when they fail.
type OpenRouterProviderOptions struct {
	Order          []string `json:"order"`
	AllowFallbacks bool     `json:"allow_fallbacks"`
}

// namer gives a gateway's name for a provider's model; ok false with why when it has none.
type namer struct {
	gateway  string
	provider func(id string) (why string, ok bool)
	model    func(provider, model string) (name, why string, ok bool)
	max      int // most targets the gateway takes; 0 for no bound
}

func (n *Names) namer(f Format) (namer, error) {
	switch f {
	case LiteLLM:
		return namer{gateway: "LiteLLM",
			provider: func(id string) (string, bool) {
				if deploymentNamed[id] {
					return "LiteLLM reaches " + id + " by your own deployment name (azure/<your-deployment-name>), which the catalogs cannot know", false
				}
				if len(n.LiteLLM[id]) == 0 {
					return "LiteLLM's model map lists no model of " + id, false
				}
				return "", true
			},
			model: func(provider, model string) (string, string, bool) {
				if name, ok := n.LiteLLM[provider][model]; ok {
					return name, "", true
				}
				return "", "LiteLLM's model map does not list " + provider + "/" + model, false
			}}, nil
	case Portkey:
		return namer{gateway: "Portkey",
			provider: func(id string) (string, bool) {
				if deploymentNamed[id] {
					return "Portkey reaches " + id + " by your own resource and deployment names, which the catalogs cannot know", false
				}
				if _, ok := portkeyProviders[id]; !ok {
					return "Portkey has no provider for " + id, false
				}
				return "", true
			},
			// Portkey passes override_params.model to the provider as is, and the catalogs' model IDs are the
			// providers' own API names.
			model: func(_, model string) (string, string, bool) { return model, "", true }}, nil
	case OpenRouter:
		return namer{gateway: "OpenRouter", max: openRouterMaxModels,
			provider: func(id string) (string, bool) {
				if _, ok := openRouterProviders[id]; !ok && id != "openrouter" {
					return "OpenRouter does not route to " + id, false
				}
				return "", true
			},
			model: func(_, model string) (string, string, bool) { return n.OpenRouterSlug(model) }}, nil
	}
	return namer{}, fmt.Errorf("gateway: unknown format %q", f)
}

// Build writes the configuration of format f for a ranking, best first (the primary, then its failover chain).
// Each provider's model is the first of its Models the gateway can name (Models are best first, so the best the
// gateway knows); a provider the gateway does not serve, or none of whose models it can name, is skipped with the
// reason, as is one that would repeat a gateway model already targeted or exceed what the gateway takes. task
// names the models' task in the reasons.
func (n *Names) Build(f Format, task string, ranking []Candidate) (Export, error) {
	nm, err := n.namer(f)
	if err != nil {
		return Export{}, err
	}
	ex := Export{Targets: []Target{}, Skipped: []Skip{}}
	seen := map[string]string{} // gateway model -> provider
	for _, c := range ranking {
		skip := func(why string) { ex.Skipped = append(ex.Skipped, Skip{c.Provider, why}) }
		if len(c.Models) == 0 {
			skip(fmt.Sprintf("no priced %s model of %s fits", task, c.Provider))
			continue
		}
		if why, ok := nm.provider(c.Provider); !ok {
			skip(why)
			continue
		}
		if nm.max > 0 && len(ex.Targets) == nm.max {
			skip(fmt.Sprintf("%s tries at most %d models", nm.gateway, nm.max))
			continue
		}
		var t *Target
		var first string
		for _, m := range c.Models {
			name, why, ok := nm.model(c.Provider, m)
			if ok {
				t = &Target{Provider: c.Provider, Model: m, GatewayModel: name, Score: c.Score}
				break
			}
			if first == "" {
				first = why
			}
		}
		switch {
		case t == nil && len(c.Models) == 1:
			skip(first)
		case t == nil:
			skip(fmt.Sprintf("%s knows none of the %d candidate %s models of %s (best: %s)", nm.gateway, len(c.Models), task, c.Provider, first))
		case seen[t.GatewayModel] != "":
			skip(fmt.Sprintf("its model %s is %s's target already", t.GatewayModel, seen[t.GatewayModel]))
		default:
			seen[t.GatewayModel] = c.Provider
			ex.Targets = append(ex.Targets, *t)
		}
	}
	switch f {
	case LiteLLM:
		ex.Config, ex.Note = litellmConfig(ex.Targets), "LiteLLM reads each provider's key from its usual environment variable "+
			"(OPENAI_API_KEY, ANTHROPIC_API_KEY...). Save config as the proxy's config.yaml (YAML or JSON) and run "+
			"`litellm --config config.yaml`; requests to the first model_name fall back to the others in order ("+LiteLLMDoc+")."
	case Portkey:
		ex.Config, ex.Note = portkeyConfig(ex.Targets), "Replace each <...> placeholder with your credentials and send config in "+
			"the x-portkey-config header; on Portkey's hosted app a target's provider may instead be your integration's "+
			"\"@slug\" with no credentials ("+PortkeyDoc+")."
	case OpenRouter:
		ex.Config, ex.Note = openRouterRequest(ex.Targets), "Add messages (and any other chat parameters) and POST it to "+
			"https://openrouter.ai/api/v1/chat/completions; OpenRouter tries models in order, at most 3, preferring the "+
			"ranking's providers ("+OpenRouterDoc+")."
	}
	return ex, nil
}

func litellmConfig(ts []Target) LiteLLMConfig {
	c := LiteLLMConfig{ModelList: make([]LiteLLMModel, len(ts)), RouterSettings: LiteLLMRouterSettings{Fallbacks: []map[string][]string{}}}
	for i, t := range ts {
		// The model_name clients ask for is the LiteLLM model string itself: unique per target and telling.
		c.ModelList[i] = LiteLLMModel{ModelName: t.GatewayModel, LiteLLMParams: LiteLLMParams{Model: t.GatewayModel}}
	}
	if len(ts) > 1 {
		backups := make([]string, 0, len(ts)-1)
		for _, t := range ts[1:] {
			backups = append(backups, t.GatewayModel)
		}
		c.RouterSettings.Fallbacks = append(c.RouterSettings.Fallbacks, map[string][]string{ts[0].GatewayModel: backups})
	}
	return c
}

// placeholder marks a value the user fills in.
func placeholder(what string) string { return "<" + what + ">" }

func portkeyConfig(ts []Target) PortkeyConfig {
	c := PortkeyConfig{Strategy: PortkeyStrategy{Mode: "fallback"}, Targets: make([]PortkeyTarget, len(ts))}
	for i, t := range ts {
		slug := portkeyProviders[t.Provider]
		pt := PortkeyTarget{Provider: slug, OverrideParams: PortkeyOverrideParams{Model: t.GatewayModel}}
		// The credentials Portkey's config schema requires of a target: AWS keys for Bedrock, a project and region
		// (with an access token) for Vertex AI, an API key for the others.
		switch slug {
		case "bedrock":
			pt.AWSAccessKeyID, pt.AWSSecretAccessKey, pt.AWSRegion = placeholder("AWS access key ID"), placeholder("AWS secret access key"), placeholder("AWS region")
		case "vertex-ai":
			pt.APIKey, pt.VertexProjectID, pt.VertexRegion = placeholder("Google Cloud access token"), placeholder("Google Cloud project ID"), placeholder("Vertex AI region")
		default:
			pt.APIKey = placeholder(slug + " API key")
		}
		c.Targets[i] = pt
	}
	return c
}

func openRouterRequest(ts []Target) OpenRouterRequest {
	r := OpenRouterRequest{Models: make([]string, len(ts))}
	var order []string
	for i, t := range ts {
		r.Models[i] = t.GatewayModel
		if name, ok := openRouterProviders[t.Provider]; ok && !slices.Contains(order, name) {
			order = append(order, name)
		}
	}
	if len(order) > 0 {
		r.Provider = &OpenRouterProviderOptions{Order: order, AllowFallbacks: true}
	}
	return r
}
