package decide

import (
	"regexp"
	"slices"
	"strings"
)

// A failure domain is what can take several offers down at once. Two are recorded:
//   - a model family: the same model (Claude, GPT, Gemini, Llama, ...) served by several providers shares the
//     model's own failures (a bad release, a capacity cut, a safety rollback by its maker) wherever it runs:
//     Claude on Anthropic, Bedrock and Vertex AI; Llama on Groq, Together and Fireworks; GPT on OpenAI and Azure;
//   - an aggregator: a router that forwards to other providers (OpenRouter) fails with the upstreams it forwards to.
// A provider's families are those of its catalogued models (for the task asked), read off the model IDs the
// providers publish; a model matching no family rule is its provider's own and shares nothing.

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

// failureDomain is the candidate's domain relative to the primary, for task ("" any).
func (ix *Index) failureDomain(primary, candidate, task string) FailureDomain {
	fam := ix.families[candidate][task]
	d := FailureDomain{Families: fam, Shared: []string{}, Aggregator: aggregators[candidate]}
	if d.Families == nil {
		d.Families = []string{}
	}
	own := ix.families[primary][task]
	for _, f := range fam {
		if slices.Contains(own, f) {
			d.Shared = append(d.Shared, f)
		}
	}
	return d
}

// independent reports whether the candidate shares no model family with the primary. An aggregator shares the
// families of the upstream models it lists, so it is ranked by the same rule.
func (d FailureDomain) independent() bool { return len(d.Shared) == 0 }
