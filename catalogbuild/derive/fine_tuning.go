package derive

import (
	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/seeds"
)

func init() {
	Register(Deriver{Name: "fine_tuning", Build: buildFineTuning})
}

// Fine-tuning methods (the FineTuningMethod enum).
const (
	tuneLoRA       = "lora"
	tuneFull       = "full"
	tuneSupervised = "supervised"
	tuneDPO        = "dpo"
)

// fineTuningFact is what a provider's fine-tuning documentation (URL) says; nil pointers are facts it does not
// state.
type fineTuningFact struct {
	Available  bool
	Methods    []string
	Models     []string
	Training   *float64
	Multiplier *float64
	Notes      string
	URL        string
}

// fineTuningFacts are the documented fine-tuning offers (or their documented absence), each from the page in URL.
// Providers not listed are null (not confirmed).
var fineTuningFacts = map[string]fineTuningFact{
	"openai": {Available: true, Methods: []string{tuneSupervised, tuneDPO},
		Models: []string{"gpt-4.1-2025-04-14", "gpt-4.1-mini-2025-04-14", "gpt-4.1-nano-2025-04-14", "gpt-4o-2024-08-06", "gpt-4o-mini-2024-07-18"},
		// gpt-4.1-nano: training 1.50 USD per 1M tokens (openai.com/api/pricing); tuned inference 0.20/0.80 against
		// 0.10/0.40 for the base model (litellm ft:gpt-4.1-nano-2025-04-14 and gpt-4.1-nano).
		Training: ptrTo(1.5), Multiplier: ptrTo(2.0),
		Notes: "Supervised fine-tuning and DPO; reinforcement fine-tuning for o-series reasoning models. Training prices " +
			"per 1M tokens: gpt-4.1 25, gpt-4.1-mini 5, gpt-4.1-nano 1.50, gpt-4o 25, gpt-4o-mini 3 (openai.com/api/pricing). " +
			"Tuned models cost about twice the base model's inference price (litellm ft: entries).",
		URL: "https://platform.openai.com/docs/guides/fine-tuning"},
	"azure-openai": {Available: true, Methods: []string{tuneSupervised, tuneDPO},
		Models: []string{"gpt-4.1", "gpt-4.1-mini", "gpt-4.1-nano", "gpt-4o", "gpt-4o-mini"},
		Notes: "Supervised fine-tuning and DPO of OpenAI models (reinforcement fine-tuning for o4-mini); deployed " +
			"fine-tuned models also carry an hourly hosting charge.",
		URL: "https://learn.microsoft.com/en-us/azure/ai-foundry/openai/how-to/fine-tuning"},
	"google-gemini": {Available: false,
		Notes: "The Gemini API no longer offers model tuning (its last tunable model was retired); Google directs tuning " +
			"to Vertex AI.",
		URL: "https://ai.google.dev/gemini-api/docs/model-tuning"},
	"google-vertex-ai": {Available: true, Methods: []string{tuneSupervised, tuneLoRA},
		Models: []string{"gemini-2.5-pro", "gemini-2.5-flash", "gemini-2.5-flash-lite"},
		Notes:  "Supervised fine-tuning of Gemini models trains parameter-efficient adapters (adapter size is a setting).",
		URL:    "https://cloud.google.com/vertex-ai/generative-ai/docs/models/gemini-use-supervised-tuning"},
	"aws-bedrock": {Available: true, Methods: []string{tuneSupervised},
		Models: []string{"amazon.nova-micro-v1:0", "amazon.nova-lite-v1:0", "amazon.nova-pro-v1:0", "anthropic.claude-3-haiku-20240307-v1:0"},
		Notes: "Custom models by fine-tuning (and continued pre-training or distillation); running a custom model " +
			"generally needs Provisioned Throughput, priced separately.",
		URL: "https://docs.aws.amazon.com/bedrock/latest/userguide/custom-models.html"},
	"anthropic": {Available: false,
		Notes: "The Claude API offers no fine-tuning; Claude 3 Haiku can be fine-tuned through Amazon Bedrock.",
		URL:   "https://www.anthropic.com/news/fine-tune-claude-3-haiku"},
	"mistral": {Available: true, Methods: []string{tuneSupervised, tuneLoRA},
		Models: []string{"open-mistral-7b", "mistral-small-latest", "codestral-latest", "open-mistral-nemo", "mistral-large-latest", "ministral-8b-latest", "ministral-3b-latest"},
		Notes:  "Fine-tuning API (LoRA-based) with a minimum fee per job and a monthly storage fee per tuned model.",
		URL:    "https://docs.mistral.ai/capabilities/finetuning/"},
	"cohere": {Available: true, Methods: []string{tuneSupervised, tuneLoRA}, Models: []string{"command-r-08-2024"},
		// Training 3.00 USD per 1M tokens; tuned Command R 0.30/1.20 against 0.15/0.60 (cohere.com/pricing).
		Training: ptrTo(3.0), Multiplier: ptrTo(2.0),
		Notes: "Chat fine-tuning of Command R (LoRA), plus Classify and Rerank fine-tuning. Prices from " +
			"cohere.com/pricing: training 3 USD per 1M tokens, tuned inference 0.30/1.20 USD per 1M input/output tokens.",
		URL: "https://docs.cohere.com/docs/fine-tuning"},
	"together": {Available: true, Methods: []string{tuneLoRA, tuneFull, tuneSupervised, tuneDPO},
		Notes: "LoRA and full fine-tuning with supervised (SFT) and preference (DPO) training, over a large and changing " +
			"catalog of open models (listed on the page); priced per training token by model size.",
		URL: "https://docs.together.ai/docs/fine-tuning-overview"},
	"fireworks": {Available: true, Methods: []string{tuneLoRA, tuneSupervised, tuneDPO},
		Notes: "LoRA-based supervised fine-tuning, DPO and reinforcement fine-tuning of open models in Fireworks' " +
			"catalog (listed on the page).",
		URL: "https://docs.fireworks.ai/fine-tuning/fine-tuning-models"},
	"alibaba-dashscope": {Available: true, Methods: []string{tuneSupervised, tuneLoRA, tuneFull, tuneDPO},
		Notes: "Model Studio fine-tunes Qwen models with SFT (full-parameter or LoRA) and DPO; models listed on the page.",
		URL:   "https://www.alibabacloud.com/help/en/model-studio/model-training"},
	"ibm-watsonx": {Available: true, Methods: []string{tuneFull, tuneLoRA},
		Notes: "Tuning Studio: prompt tuning, full fine-tuning and LoRA fine-tuning of supported foundation models.",
		URL:   "https://www.ibm.com/docs/en/watsonx/saas?topic=models-tuning-foundation"},
	"databricks": {Available: true, Methods: []string{tuneSupervised, tuneFull},
		Notes: "Foundation Model Fine-tuning (Mosaic AI Model Training): supervised fine-tuning, chat completion and " +
			"continued pre-training of open models.",
		URL: "https://docs.databricks.com/en/large-language-models/foundation-model-training/index.html"},
	"replicate": {Available: true, Methods: []string{tuneLoRA},
		Notes: "The trainings API fine-tunes image models such as FLUX into LoRA weights.",
		URL:   "https://replicate.com/docs/get-started/fine-tune-with-flux"},
	"fal": {Available: true, Methods: []string{tuneLoRA},
		Notes: "Training endpoints such as fal-ai/flux-lora-fast-training produce LoRA weights for FLUX.",
		URL:   "https://fal.ai/models/fal-ai/flux-lora-fast-training"},
	"openrouter": {Available: false,
		Notes: "A router to other providers' models: its API has no fine-tuning.",
		URL:   "https://openrouter.ai/docs/api-reference/overview"},
	"deepseek": {Available: false,
		Notes: "The DeepSeek API reference has no fine-tuning endpoints.",
		URL:   "https://api-docs.deepseek.com/"},
	"cloudflare-workers-ai": {Available: false,
		Notes: "Workers AI serves LoRA adapters trained elsewhere (bring your own LoRA) but does not train them.",
		URL:   "https://developers.cloudflare.com/workers-ai/features/fine-tunes/loras/"},
	"tavily": {Available: false, Notes: "A search API: there is no model to fine-tune.", URL: "https://docs.tavily.com/"},
	"exa":    {Available: false, Notes: "A search API: there is no model to fine-tune.", URL: "https://docs.exa.ai/"},
	"firecrawl": {Available: false, Notes: "A crawling and scraping API: there is no model to fine-tune.",
		URL: "https://docs.firecrawl.dev/"},
}

// fineTuningOf builds one provider's /fine-tuning record: the documented facts, else not confirmed.
func fineTuningOf(p seeds.Provider) api.FineTuningRecord {
	r := api.FineTuningRecord{ProviderId: p.ID, ProviderName: p.Name, Methods: []api.FineTuningMethod{}, SupportedModels: []string{}}
	f, ok := fineTuningFacts[p.ID]
	if !ok {
		r.Notes = ptrTo("Fine-tuning not confirmed: no official fine-tuning documentation was cited for this provider.")
		return r
	}
	r.Available = ptrTo(f.Available)
	r.Methods = append(r.Methods, enumsOf[api.FineTuningMethod](f.Methods)...)
	r.SupportedModels = append(r.SupportedModels, f.Models...)
	r.TrainingCostPer1mTokens, r.InferenceCostMultiplier = f.Training, f.Multiplier
	r.Notes = ptrTo(f.Notes + " Source: " + f.URL + ".")
	return r
}

func buildFineTuning(*Input) (*Catalog, error) {
	ps := sortedProviders()
	recs := make([]api.FineTuningRecord, 0, len(ps))
	urls := map[string]string{}
	for _, p := range ps {
		recs = append(recs, fineTuningOf(p))
		if f, ok := fineTuningFacts[p.ID]; ok {
			urls[p.ID] = f.URL
		}
	}
	src := officialSources("fine-tuning", urls)
	src = append(src,
		seeds.Source{Name: "OpenAI API pricing (fine-tuning prices)", URL: "https://openai.com/api/pricing/"},
		seeds.Source{Name: "Cohere pricing (fine-tuning prices)", URL: "https://cohere.com/pricing"},
		litellmSource)
	return &Catalog{AsOf: handCuratedAsOf, Sources: src, Records: recs}, nil
}
