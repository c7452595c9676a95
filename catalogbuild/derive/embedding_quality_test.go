package derive

import "testing"

func TestEmbeddingRecordsOf(t *testing.T) {
	row := func(name, link string, dims any, retrieval, sts any) map[string]any {
		return map[string]any{"model": name, "link": link, "Embedding Dimensions": dims,
			mtebTaskColumns["retrieval"]: retrieval, mtebTaskColumns["sts"]: sts,
			mtebTaskColumns["clustering"]: nil, mtebTaskColumns["reranking"]: nil}
	}
	rows := []map[string]any{
		// A re-upload under another account has the same name but not the table's link: ignored.
		row("jina-embeddings-v3", "https://huggingface.co/Daxtra/jina-embeddings-v3", 1024.0, 99.0, 99.0),
		row("text-embedding-3-large", "https://openai.com/blog/new-embedding-models", 3072.0, 55.43, 81.73),
		// A later row of the same model (a reduced-dimension run) does not count twice.
		row("text-embedding-3-large", "https://openai.com/blog/new-embedding-models", 256.0, 51.0, 80.0),
		row("jina-embeddings-v3", "https://huggingface.co/jinaai/jina-embeddings-v3", nil, 53.88, nil),
		row("not-in-the-table", "https://example.com", 1.0, 50.0, 50.0),
	}
	got := embeddingRecordsOf(rows, func(id string) string { return "Name of " + id })
	type k struct{ provider, model, task string }
	want := map[k]float64{
		{"openai", "text-embedding-3-large", "retrieval"}:       55.43,
		{"openai", "text-embedding-3-large", "sts"}:             81.73,
		{"azure-openai", "text-embedding-3-large", "retrieval"}: 55.43,
		{"azure-openai", "text-embedding-3-large", "sts"}:       81.73,
		{"jina-ai", "jina-embeddings-v3", "retrieval"}:          53.88,
	}
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d: %+v", len(got), len(want), got)
	}
	for i, r := range got {
		score, ok := want[k{r.ProviderId, r.ModelId, string(r.TaskType)}]
		if !ok || score != r.MtebScore || r.ProviderName != "Name of "+r.ProviderId || r.Notes == nil {
			t.Errorf("record %+v unexpected", r)
		}
		if i > 0 && got[i-1].ProviderId > r.ProviderId {
			t.Errorf("records not sorted by provider: %s before %s", got[i-1].ProviderId, r.ProviderId)
		}
		switch r.ModelId {
		case "text-embedding-3-large":
			if r.Dimensions == nil || *r.Dimensions != 3072 {
				t.Errorf("%s: dimensions %v, want the first row's 3072", r.ModelId, r.Dimensions)
			}
		case "jina-embeddings-v3":
			if r.Dimensions != nil {
				t.Errorf("%s: dimensions %v, want null (the row gives none)", r.ModelId, *r.Dimensions)
			}
		}
	}
}
