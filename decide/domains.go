package decide

import (
	"regexp"
	"slices"
	"strings"
)

// A failure domain is what can take several offers down at once (docs/decisions.md, "Failure domains"):
//   - infrastructure: a provider's outage takes down what runs on it, and what reaches it through another
//     provider: an aggregator (OpenRouter) routing to it, or a reseller of a closed-weight model that can only
//     forward to the model's licensed hosts. The same model on another licensed host (Claude on Bedrock or
//     Vertex AI, GPT on Azure) runs on infrastructure of its own and is the best backup when a provider fails;
//   - a model family: a model withdrawn everywhere (a safety rollback, a retirement by its maker) takes every
//     host of it down; only then does the family matter (scope=model).
// Families are read off the model IDs the providers publish; a model matching no family rule is its provider's
// own and shares nothing.

// familyRules map model IDs (lower case) to their family; the first match wins, so gpt-oss comes before gpt.
var familyRules = []struct {
	family string
	re     *regexp.Regexp
}{
	{"claude", regexp.MustCompile(`claude`)},
	{"gpt-oss", regexp.MustCompile(`gpt-oss`)},
	{"gpt", regexp.MustCompile(`(^|[/.:_-])(gpt-|chatgpt|o1|o3|o4-|dall-e|davinci|babbage|sora)`)},
	{"whisper", regexp.MustCompile(`whisper`)},
	{"gemini", regexp.MustCompile(`gemini`)},
	{"gemma", regexp.MustCompile(`gemma`)},
	{"llama", regexp.MustCompile(`llama`)},
	{"mistral", regexp.MustCompile(`mistral|mixtral|codestral|ministral|magistral|pixtral|devstral|voxtral`)},
	{"command", regexp.MustCompile(`(^|[/.])(command|c4ai-command)`)},
	{"deepseek", regexp.MustCompile(`deepseek`)},
	{"grok", regexp.MustCompile(`grok`)},
	{"qwen", regexp.MustCompile(`qwen|qwq`)},
	{"kimi", regexp.MustCompile(`kimi|moonshot`)},
	{"glm", regexp.MustCompile(`glm`)},
	{"jamba", regexp.MustCompile(`jamba`)},
	{"minimax", regexp.MustCompile(`minimax`)},
	{"nova", regexp.MustCompile(`amazon\.nova|(^|[/.])nova-`)},
}

// aggregators are the monitored providers that forward requests to other providers' infrastructure: OpenRouter
// routes each request to an upstream provider of the model asked for (openrouter.ai/docs, "Provider Routing").
var aggregators = map[string]bool{"openrouter": true}

// familyHosts are, per closed-weight family, the providers that run the weights on their own infrastructure:
// the maker first, then the clouds its maker licenses (Anthropic: "Claude on Amazon Bedrock, Google Cloud's
// Vertex AI and Microsoft Foundry", docs.anthropic.com; OpenAI models on Azure OpenAI and Bedrock, and on
// Databricks for GPT-5: "hosted by Databricks Inc. within the Databricks security perimeter",
// docs.databricks.com foundation-model-apis/supported-models; Gemini on Vertex AI). Any other provider serving
// such a family is taken as a reseller forwarding to one of them: where it is not known to run the weights
// itself, its backup may share the primary's outage, so it ranks last.
var familyHosts = map[string][]string{
	"claude": {"anthropic", "aws-bedrock", "google-vertex-ai", "azure-openai"},
	"gpt":    {"openai", "azure-openai", "aws-bedrock", "databricks"},
	"gemini": {"google-gemini", "google-vertex-ai"},
	"grok":   {"xai", "azure-openai"},
	"nova":   {"aws-bedrock"},
}

// What a failover candidate shares with the primary (FailureDomain.Shares): ShareMayInfrastructure is a host
// that may run the model on the primary's infrastructure (operatorHosts).
const (
	ShareInfrastructure    = "infrastructure"
	ShareMayInfrastructure = "may_share_infrastructure"
	ShareModelFamily       = "model_family"
)

// operatorHosts are, per family, the licensed hosts whose offer of it may run on its maker's own infrastructure:
// Microsoft's "Data, privacy, and security for Claude models in Microsoft Foundry"
// (https://learn.microsoft.com/en-ca/azure/foundry/responsible-ai/claude-models/data-privacy, checked
// 2026-11-28) gives Foundry two hosting options for Claude, "Hosted on Azure" and "Hosted on Anthropic
// infrastructure", with Anthropic the operator in both; a caller cannot tell which one serves it, so when
// Anthropic fails, Claude on Foundry may fail with it and ranks after Bedrock and Vertex AI.
var operatorHosts = map[string][]string{"claude": {"azure-openai"}}

// mayShareOperator reports whether m, at its provider, may run on the primary's infrastructure: the primary is
// the maker of m's family (its first familyHosts entry) and m's provider is one of the family's operatorHosts.
func mayShareOperator(primary string, m *Model) bool {
	hosts := familyHosts[m.Family]
	return len(hosts) > 0 && hosts[0] == primary && slices.Contains(operatorHosts[m.Family], m.Provider)
}

// routesToPrimary reports whether calling m at its provider can reach the primary's infrastructure: an
// aggregator serving a family the primary serves, or a reseller (not one of familyHosts) of a closed-weight
// family the primary hosts.
func (ix *Index) routesToPrimary(primary string, m *Model) bool {
	if m.Family == "" || !slices.Contains(ix.families[primary][""], m.Family) {
		return false
	}
	if aggregators[m.Provider] {
		return true
	}
	hosts, closed := familyHosts[m.Family]
	return closed && !slices.Contains(hosts, m.Provider)
}

// ModelFamily is the family of a model ID, "" when it matches no family rule (the model is its provider's own).
func ModelFamily(modelID string) string {
	id := strings.ToLower(modelID)
	for _, r := range familyRules {
		if r.re.MatchString(id) {
			return r.family
		}
	}
	return ""
}

// FailureDomain is a failover candidate's failure domain as the failover decision reads it.
type FailureDomain struct {
	// Families are the model families the candidate serves for the task, sorted.
	Families []string
	// Shared are the families it shares with the primary (empty: independent of it).
	Shared []string
	// Aggregator is true for a router to other providers; it shares the domain of every upstream it forwards to.
	Aggregator bool
	// Shares says what the offered model shares with the primary's: ShareInfrastructure, ShareModelFamily.
	Shares []string
}

// indexFamilies records, per provider and task ("" for any), the families of its models.
func (ix *Index) indexFamilies() {
	ix.families = map[string]map[string][]string{}
	for p, models := range ix.byProvider {
		byTask := map[string][]string{}
		for _, m := range models {
			f := ModelFamily(m.ID)
			if f == "" {
				continue
			}
			for _, t := range append([]string{""}, m.Tasks...) {
				if !slices.Contains(byTask[t], f) {
					byTask[t] = append(byTask[t], f)
				}
			}
		}
		for t := range byTask {
			slices.Sort(byTask[t])
		}
		ix.families[p] = byTask
	}
}
