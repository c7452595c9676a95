package derive

import (
	"slices"

	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/seeds"
)

func init() {
	Register(Deriver{Name: "batch_api", Build: buildBatchAPI})
}

// handCuratedAsOf is the date the hand-curated rule tables of the cost and batch catalogs were checked against
// the providers' pages.
const handCuratedAsOf = "2026-11-22"

// batchFact is what a provider's batch documentation (URL) says; nil pointers are facts it does not state.
type batchFact struct {
	Available  bool
	Discount   *float64
	MaxSize    *int64
	Turnaround *float64
	Endpoints  []string
	Notes      string
	URL        string
}

// batchFacts are the documented batch APIs, each from the page in URL. Providers not listed are null (not
// confirmed).
var batchFacts = map[string]batchFact{
	"openai": {Available: true, Discount: ptrTo(50.0), MaxSize: ptrTo[int64](50000), Turnaround: ptrTo(24.0),
		Endpoints: []string{"/v1/responses", "/v1/chat/completions", "/v1/embeddings", "/v1/completions", "/v1/moderations"},
		Notes: "Batch API: a JSONL file of up to 50,000 requests (200 MB) is processed within a 24-hour completion " +
			"window at 50% of synchronous prices, with its own rate-limit pool.",
		URL: "https://platform.openai.com/docs/guides/batch"},
	"anthropic": {Available: true, Discount: ptrTo(50.0), MaxSize: ptrTo[int64](100000), Turnaround: ptrTo(1.0),
		Endpoints: []string{"/v1/messages"},
		Notes: "Message Batches API: up to 100,000 Messages requests or 256 MB per batch, at 50% of standard prices; most " +
			"batches finish in less than 1 hour and any unfinished request expires after 24 hours.",
		URL: "https://docs.claude.com/en/docs/build-with-claude/batch-processing"},
	"google-gemini": {Available: true, Discount: ptrTo(50.0), Turnaround: ptrTo(24.0), Endpoints: []string{"generateContent"},
		Notes: "Batch Mode: inline requests or a JSONL file, at 50% of the interactive price; the target turnaround is " +
			"24 hours, often much faster.",
		URL: "https://ai.google.dev/gemini-api/docs/batch-mode"},
	"google-vertex-ai": {Available: true, Discount: ptrTo(50.0), Endpoints: []string{"generateContent"},
		Notes: "Batch prediction jobs for Gemini read requests from Cloud Storage or BigQuery and are billed at a 50% " +
			"discount on the online price.",
		URL: "https://cloud.google.com/vertex-ai/generative-ai/docs/multimodal/batch-prediction-gemini"},
	"aws-bedrock": {Available: true, Discount: ptrTo(50.0), Endpoints: []string{"InvokeModel"},
		Notes: "Batch inference jobs (CreateModelInvocationJob) read JSONL records from Amazon S3; supported models are " +
			"billed at 50% of the on-demand price. Job size limits are per-model service quotas.",
		URL: "https://docs.aws.amazon.com/bedrock/latest/userguide/batch-inference.html"},
	"azure-openai": {Available: true, Discount: ptrTo(50.0), MaxSize: ptrTo[int64](100000), Turnaround: ptrTo(24.0),
		Endpoints: []string{"/chat/completions", "/responses", "/embeddings"},
		Notes: "Global Batch and Data Zone Batch deployments: up to 100,000 requests per file, 24-hour target " +
			"turnaround, 50% less than Global Standard.",
		URL: "https://learn.microsoft.com/en-us/azure/ai-foundry/openai/how-to/batch"},
	"mistral": {Available: true, Discount: ptrTo(50.0),
		Endpoints: []string{"/v1/chat/completions", "/v1/embeddings", "/v1/fim/completions", "/v1/moderations", "/v1/chat/moderations"},
		Notes:     "Batch API over JSONL input files; batched requests cost 50% of the synchronous price.",
		URL:       "https://docs.mistral.ai/capabilities/batch/"},
	"groq": {Available: true, Discount: ptrTo(50.0), MaxSize: ptrTo[int64](50000), Turnaround: ptrTo(24.0),
		Endpoints: []string{"/v1/chat/completions", "/v1/audio/transcriptions", "/v1/audio/translations"},
		Notes: "Batch API: up to 50,000 lines (200 MB) per file, a completion window from 24 hours to 7 days, at 50% " +
			"of on-demand prices and outside the synchronous rate limits.",
		URL: "https://console.groq.com/docs/batch"},
	"together": {Available: true, Discount: ptrTo(50.0), Turnaround: ptrTo(24.0), Endpoints: []string{"/v1/chat/completions"},
		Notes: "Batch API over JSONL files at 50% of serverless prices; batches complete within 24 hours.",
		URL:   "https://docs.together.ai/docs/batch-inference"},
	"fireworks": {Available: true, Discount: ptrTo(50.0), Endpoints: []string{"/v1/chat/completions"},
		Notes: "Batch inference jobs over JSONL datasets, billed at 50% of serverless prices.",
		URL:   "https://docs.fireworks.ai/guides/batch-inference"},
	"alibaba-dashscope": {Available: true, Discount: ptrTo(50.0), Endpoints: []string{"/v1/chat/completions"},
		Notes: "OpenAI-compatible Batch API over JSONL files; batch calls cost 50% of real-time calls.",
		URL:   "https://www.alibabacloud.com/help/en/model-studio/batch-interfaces-compatible-with-openai"},
	"cohere": {Available: true, Endpoints: []string{"/v1/embed-jobs"},
		Notes: "Embed Jobs embed a whole uploaded dataset asynchronously; no batch discount is documented, so " +
			"discount_pct is null.",
		URL: "https://docs.cohere.com/docs/embed-jobs-api"},
}

// batchAPIOf builds one provider's /batch-api record: the documented facts, else not confirmed.
func batchAPIOf(p seeds.Provider) api.BatchApiRecord {
	r := api.BatchApiRecord{ProviderId: p.ID, ProviderName: p.Name, SupportedEndpoints: []string{}}
	f, ok := batchFacts[p.ID]
	if !ok {
		r.Notes = ptrTo("Batch API not confirmed: no official batch documentation was cited for this provider.")
		return r
	}
	r.BatchApiAvailable, r.DiscountPct, r.MaxBatchSize, r.TypicalTurnaroundHours = ptrTo(f.Available), f.Discount, intOf(f.MaxSize), f.Turnaround
	r.SupportedEndpoints = append(r.SupportedEndpoints, f.Endpoints...)
	r.Notes = ptrTo(f.Notes + " Source: " + f.URL + ".")
	return r
}

func buildBatchAPI(*Input) (*Catalog, error) {
	ps := sortedProviders()
	recs := make([]api.BatchApiRecord, 0, len(ps))
	urls := map[string]string{}
	for _, p := range ps {
		recs = append(recs, batchAPIOf(p))
		if f, ok := batchFacts[p.ID]; ok {
			urls[p.ID] = f.URL
		}
	}
	return &Catalog{AsOf: handCuratedAsOf, Sources: slices.Clip(officialSources("batch API", urls)), Records: recs}, nil
}
