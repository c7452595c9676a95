package derive

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/seeds"
)

func init() {
	Register(Deriver{Name: "embedding_quality", Build: buildEmbeddingQuality})
}

// mtebFile is the part of mteb-leaderboard.json the rule reads: the rows of the English board (MTEB English v1).
type mtebFile struct {
	Boards map[string][]map[string]any `json:"boards"`
}

const (
	mtebFileName = "mteb-leaderboard.json"
	// mtebDate is the snapshot date of the legacy leaderboard (SOURCES.md).
	mtebDate  = "2025-02-04"
	mtebBoard = "en"
)

// mtebTaskColumns maps each task type of the endpoint to the English board's per-task average column.
var mtebTaskColumns = map[string]string{
	"retrieval":  "Retrieval Average (15 datasets)",
	"clustering": "Clustering Average (11 datasets)",
	"reranking":  "Reranking Average (4 datasets)",
	"sts":        "STS Average (10 datasets)",
}

// mtebServed says which provider serves a leaderboard model under which API name.
type mtebServed struct{ ProviderID, ModelID string }

// mtebModel is one leaderboard row the catalog uses: its model name and the start of its link (several rows share a
// name, for example re-uploads of a model under another Hugging Face account, so the link picks the original).
type mtebModel struct{ Name, LinkPrefix string }

// mtebModels is the explicit table from leaderboard rows to the providers that serve the same model, under their
// API names (each from the provider's model list, as in models.json, or from the page in the comment). Models the
// leaderboard gives no per-task average for (voyage-2, voyage-code-2, voyage-law-2, titan-embed-text-v1, bge-m3)
// yield no record; retired models (Google's text-embedding-004, voyage-large-2-instruct) are left out.
var mtebModels = map[mtebModel][]mtebServed{
	{"text-embedding-3-large", "https://openai.com/"}: {{"openai", "text-embedding-3-large"}, {"azure-openai", "text-embedding-3-large"}},
	{"text-embedding-3-small", "https://openai.com/"}: {{"openai", "text-embedding-3-small"}},
	{"text-embedding-ada-002", "https://openai.com/"}: {{"openai", "text-embedding-ada-002"}, {"azure-openai", "text-embedding-ada-002"}},
	{"Cohere-embed-english-v3.0", "https://huggingface.co/Cohere/"}: {
		{"cohere", "embed-english-v3.0"}, {"aws-bedrock", "cohere.embed-english-v3"}},
	{"Cohere-embed-multilingual-v3.0", "https://huggingface.co/Cohere/"}: {
		{"cohere", "embed-multilingual-v3.0"}, {"aws-bedrock", "cohere.embed-multilingual-v3"}},
	{"Cohere-embed-english-light-v3.0", "https://huggingface.co/Cohere/"}:      {{"cohere", "embed-english-light-v3.0"}},
	{"Cohere-embed-multilingual-light-v3.0", "https://huggingface.co/Cohere/"}: {{"cohere", "embed-multilingual-light-v3.0"}},
	{"voyage-3", "https://docs.voyageai.com/"}:                                 {{"voyage-ai", "voyage-3"}},
	{"voyage-3-lite", "https://docs.voyageai.com/"}:                            {{"voyage-ai", "voyage-3-lite"}},
	{"Titan-text-embeddings-v2", "https://huggingface.co/amazon/"}:             {{"aws-bedrock", "amazon.titan-embed-text-v2:0"}},
	{"NV-Embed-v1", "https://huggingface.co/nvidia/"}:                          {{"nvidia-nim", "nvidia/nv-embed-v1"}},
	{"bge-en-icl", "https://huggingface.co/BAAI/"}:                             {{"nebius", "BAAI/bge-en-icl"}},
	{"bge-multilingual-gemma2", "https://huggingface.co/BAAI/"}:                {{"nebius", "BAAI/bge-multilingual-gemma2"}},
	{"e5-mistral-7b-instruct", "https://huggingface.co/intfloat/"}:             {{"nebius", "intfloat/e5-mistral-7b-instruct"}},
	// Databricks serves BAAI/bge-large-en-v1.5 and Alibaba-NLP/gte-large-en-v1.5 as databricks-bge-large-en and
	// databricks-gte-large-en (https://docs.databricks.com/aws/en/machine-learning/foundation-model-apis/supported-models).
	{"bge-large-en-v1.5", "https://huggingface.co/BAAI/"}:         {{"databricks", "databricks-bge-large-en"}},
	{"gte-large-en-v1.5", "https://huggingface.co/Alibaba-NLP/"}:  {{"databricks", "databricks-gte-large-en"}},
	{"nomic-embed-text-v1", "https://huggingface.co/nomic-ai/"}:   {{"fireworks", "nomic-ai/nomic-embed-text-v1"}},
	{"nomic-embed-text-v1.5", "https://huggingface.co/nomic-ai/"}: {{"fireworks", "nomic-ai/nomic-embed-text-v1.5"}},
	{"gte-base", "https://huggingface.co/thenlper/"}:              {{"fireworks", "thenlper/gte-base"}},
	{"gte-large", "https://huggingface.co/thenlper/"}:             {{"fireworks", "thenlper/gte-large"}},
	// Jina AI's Embeddings API model names (https://jina.ai/embeddings/).
	{"jina-embeddings-v3", "https://huggingface.co/jinaai/"}:         {{"jina-ai", "jina-embeddings-v3"}},
	{"jina-embeddings-v2-base-en", "https://huggingface.co/jinaai/"}: {{"jina-ai", "jina-embeddings-v2-base-en"}},
}

var mtebSource = seeds.Source{
	Name: "MTEB leaderboard (embeddings-benchmark), legacy leaderboard commit ae7c5d4e, 2025-02-04; English board (MTEB English v1); " +
		"license not stated in the repository (results produced with the Apache-2.0 mteb package)",
	URL: "https://github.com/embeddings-benchmark/leaderboard",
}

// embeddingRecordsOf builds the records of the table's models from the English board's rows: one per served model
// and task type whose per-task average the row gives. The file's first row for a (name, link prefix) wins, which is
// the better ranked one.
func embeddingRecordsOf(rows []map[string]any, providerName func(string) string) []api.EmbeddingQualityRecord {
	var out []api.EmbeddingQualityRecord
	used := map[mtebModel]bool{}
	for _, row := range rows {
		name, _ := row["model"].(string)
		link, _ := row["link"].(string)
		var key mtebModel
		for m := range mtebModels {
			if m.Name == name && strings.HasPrefix(link, m.LinkPrefix) {
				key = m
			}
		}
		if key.Name == "" || used[key] {
			continue
		}
		used[key] = true
		var dims *int
		if d, ok := row["Embedding Dimensions"].(float64); ok && d >= 1 {
			n := int(d)
			dims = &n
		}
		for task, col := range mtebTaskColumns {
			score, ok := row[col].(float64)
			if !ok {
				continue
			}
			for _, s := range mtebModels[key] {
				note := fmt.Sprintf("MTEB English v1 %s (legacy leaderboard, %s), reported for %s (%s); the provider serves the same model as %s.",
					col, mtebDate, name, link, s.ModelID)
				out = append(out, api.EmbeddingQualityRecord{
					ProviderId: s.ProviderID, ProviderName: providerName(s.ProviderID), ModelId: s.ModelID, TaskType: api.EmbeddingQualityTaskType(task),
					MtebScore: score, Dimensions: dims, Notes: &note,
				})
			}
		}
	}
	slices.SortFunc(out, func(a, b api.EmbeddingQualityRecord) int {
		return cmp.Or(strings.Compare(a.ProviderId, b.ProviderId), strings.Compare(a.ModelId, b.ModelId), strings.Compare(string(a.TaskType), string(b.TaskType)))
	})
	return out
}

func buildEmbeddingQuality(in *Input) (*Catalog, error) {
	var f mtebFile
	if err := readDataJSON(in.DataDir, mtebFileName, &f); err != nil {
		return nil, err
	}
	reg := seeds.Providers()
	name := func(id string) string {
		p, _ := reg.Get(id)
		return p.Name
	}
	recs := embeddingRecordsOf(f.Boards[mtebBoard], name)
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: no row of the %s board matches the model table", mtebFileName, mtebBoard)
	}
	return &Catalog{AsOf: mtebDate, Sources: []seeds.Source{mtebSource}, Records: recs}, nil
}
