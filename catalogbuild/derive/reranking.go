package derive

import (
	"fmt"
	"slices"
	"strings"

	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/seeds"
)

func init() {
	Register(Deriver{Name: "reranking", Build: buildReranking})
}

// litellmFile and litellmSource are the litellm price file of sources/upstream and its credit (see SOURCES.md).
const (
	litellmFile = "litellm-model-prices.json"
	litellmDate = "2026-07-24"
)

var litellmSource = seeds.Source{
	Name:    "BerriAI/litellm model_prices_and_context_window.json (commit 8442b939, 2026-07-24)",
	URL:     "https://github.com/BerriAI/litellm/blob/main/model_prices_and_context_window.json",
	License: ptrTo("MIT"),
}

// rerankProviders maps the litellm_provider of litellm's rerank entries to our provider IDs; the key prefix
// "<litellm provider>/" is stripped to get the model ID.
var rerankProviders = map[string]string{
	"cohere": "cohere", "bedrock": "aws-bedrock", "azure_ai": "azure-openai", "jina_ai": "jina-ai",
	"nvidia_nim": "nvidia-nim", "voyage": "voyage-ai", "fireworks_ai": "fireworks", "novita": "novita",
}

// rerankModel is one litellm rerank entry.
type rerankModel struct {
	ID       string
	PerQuery *float64 // USD per query
	PerToken *float64 // USD per token
}

// rerankFact is what a provider's reranking documentation (URL) says; nil pointers are facts it does not state.
type rerankFact struct {
	Available    bool
	Models       []string // added to litellm's
	MaxDocuments *int64
	Multilingual *bool
	Notes        string
	URL          string
}

// rerankFacts are documented reranking offers (or their documented absence), each from the page in URL.
var rerankFacts = map[string]rerankFact{
	"cohere": {Available: true, Multilingual: ptrTo(true),
		Notes: "rerank-v3.5 and the multilingual models rank documents in over 100 languages; Cohere recommends at most " +
			"1,000 documents per request.",
		URL: "https://docs.cohere.com/reference/rerank"},
	"voyage-ai": {Available: true, MaxDocuments: ptrTo[int64](1000), Multilingual: ptrTo(true),
		Notes: "The rerank-2 family is multilingual; a request takes at most 1,000 documents.",
		URL:   "https://docs.voyageai.com/docs/reranker"},
	"jina-ai": {Available: true, Multilingual: ptrTo(true),
		Notes: "Jina's multilingual rerankers are served by its Reranker API.",
		URL:   "https://jina.ai/reranker/"},
	"pinecone": {Available: true, Models: []string{"bge-reranker-v2-m3", "cohere-rerank-3.5", "pinecone-rerank-v0"},
		Multilingual: ptrTo(true),
		Notes:        "Pinecone Inference hosts reranking models (bge-reranker-v2-m3 and cohere-rerank-3.5 are multilingual); document limits differ per model.",
		URL:          "https://docs.pinecone.io/guides/search/rerank-results"},
	"aws-bedrock": {Available: true, Multilingual: ptrTo(true),
		Notes: "The Rerank API serves Amazon Rerank and Cohere Rerank 3.5 (multilingual).",
		URL:   "https://docs.aws.amazon.com/bedrock/latest/userguide/rerank.html"},
	"azure-openai": {Available: true, Multilingual: ptrTo(true),
		Notes: "Cohere Rerank models (English and multilingual) are deployable from the Foundry model catalog.",
		URL:   "https://learn.microsoft.com/en-us/azure/ai-foundry/how-to/deploy-models-cohere-rerank"},
	"openai": {Available: false, Notes: "The OpenAI API has no rerank endpoint (embeddings can be used to score relevance).",
		URL: "https://platform.openai.com/docs/api-reference"},
	"anthropic": {Available: false, Notes: "The Claude API has no rerank or embedding endpoint.",
		URL: "https://docs.claude.com/en/api/overview"},
}

// readRerankModels reads litellm's rerank entries of our providers, by provider ID, each sorted by model ID.
func readRerankModels(dataDir string) (map[string][]rerankModel, error) {
	var raw map[string]map[string]any
	if err := readDataJSON(dataDir, litellmFile, &raw); err != nil {
		return nil, err
	}
	out := map[string][]rerankModel{}
	for key, e := range raw {
		lp, _ := e["litellm_provider"].(string)
		id, ok := rerankProviders[lp]
		if e["mode"] != "rerank" || !ok {
			continue
		}
		m := rerankModel{ID: strings.TrimPrefix(key, lp+"/")}
		if v, ok := e["input_cost_per_query"].(float64); ok {
			m.PerQuery = &v
		}
		if v, ok := e["input_cost_per_token"].(float64); ok && m.PerQuery == nil {
			m.PerToken = &v
		}
		out[id] = append(out[id], m)
	}
	for _, ms := range out {
		slices.SortFunc(ms, func(a, b rerankModel) int { return strings.Compare(a.ID, b.ID) })
	}
	return out, nil
}

// retrievalProvider reports whether a provider serves text or search models at all (providers.json categories
// llm, embedding or search); the others (speech, image and video APIs) have nothing to rerank with.
func retrievalProvider(p seeds.Provider) bool {
	return slices.ContainsFunc(p.Categories, func(c string) bool { return c == "llm" || c == "embedding" || c == "search" })
}

// rerankingOf builds one provider's /reranking record from litellm's rerank entries and the documented facts.
func rerankingOf(p seeds.Provider, models []rerankModel) api.RerankingRecord {
	r := api.RerankingRecord{ProviderId: p.ID, ProviderName: p.Name, Models: []string{}}
	fact, documented := rerankFacts[p.ID]
	var notes []string
	var perToken []string
	for _, m := range models {
		r.Models = append(r.Models, m.ID)
		switch {
		case m.PerQuery != nil:
			price := roundPrice(*m.PerQuery * 1000)
			if r.PricePer1kQueries == nil || price < *r.PricePer1kQueries {
				r.PricePer1kQueries = &price
			}
		case m.PerToken != nil:
			perToken = append(perToken, fmt.Sprintf("%s %s", m.ID, fmtPrice(roundPrice(*m.PerToken*1e6))))
		}
	}
	if len(models) > 0 {
		r.RerankingAvailable = ptrTo(true)
		notes = append(notes, fmt.Sprintf("litellm lists %d rerank model(s).", len(models)))
	}
	if len(perToken) > 0 {
		notes = append(notes, "Priced per token (USD per 1M tokens, litellm): "+strings.Join(perToken, ", ")+".")
	}
	switch {
	case documented:
		r.RerankingAvailable = ptrTo(fact.Available || len(models) > 0)
		for _, m := range fact.Models {
			if !slices.Contains(r.Models, m) {
				r.Models = append(r.Models, m)
			}
		}
		r.MaxDocuments, r.SupportsMultilingual = intOf(fact.MaxDocuments), fact.Multilingual
		notes = append(notes, fact.Notes+" Source: "+fact.URL+".")
	case len(models) > 0:
		notes = append(notes, "Multilingual support and document limits not confirmed.")
	case !retrievalProvider(p):
		r.RerankingAvailable = ptrTo(false)
		notes = append(notes, "A speech, image or video API without text or retrieval models: no reranking.")
	default:
		notes = append(notes, "Reranking not confirmed: litellm lists no rerank model and no official reranking "+
			"documentation was cited for this provider.")
	}
	r.Notes = ptrTo(strings.Join(notes, " "))
	return r
}

// roundPrice removes binary noise from a unit conversion (0.002 x 1000 = 2.0000000000000004).
func roundPrice(x float64) float64 {
	var v float64
	_, _ = fmt.Sscanf(fmt.Sprintf("%.9g", x), "%g", &v)
	return v
}

func buildReranking(in *Input) (*Catalog, error) {
	models, err := readRerankModels(in.DataDir)
	if err != nil {
		return nil, err
	}
	ps := sortedProviders()
	recs := make([]api.RerankingRecord, 0, len(ps))
	urls := map[string]string{}
	for _, p := range ps {
		recs = append(recs, rerankingOf(p, models[p.ID]))
		if f, ok := rerankFacts[p.ID]; ok {
			urls[p.ID] = f.URL
		}
	}
	src := append([]seeds.Source{litellmSource}, officialSources("reranking", urls)...)
	return &Catalog{AsOf: litellmDate, Sources: src, Records: recs}, nil
}
