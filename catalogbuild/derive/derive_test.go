package derive

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/seeds"
)

// dataDir is the upstream snapshots kept in the repository (the tests run in catalogbuild/derive).
func dataDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "sources", "upstream"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestDerivedCatalogsUpToDate re-runs every deriver and compares its output with the committed file: a
// difference means a generated file was edited by hand, or a rule or its input changed without
// `make catalogs`.
func TestDerivedCatalogsUpToDate(t *testing.T) {
	files, err := Build(context.Background(), dataDir(t), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range Names() {
		want, err := seeds.CatalogJSON(name)
		if err != nil {
			t.Errorf("%s: %v (run `make catalogs`)", name, err)
			continue
		}
		if !bytes.Equal(files[name], want) {
			t.Errorf("seeds/catalogs/%s.json is not what its deriver produces: run `make catalogs`", name)
		}
	}
}

func TestEncodeDeterministic(t *testing.T) {
	type rec struct {
		ProviderID string  `json:"provider_id"`
		Score      float64 `json:"score"`
		Note       *string `json:"note"`
	}
	c := &Catalog{AsOf: "2026-01-02", Sources: []seeds.Source{{Name: "a", URL: "https://a"}}, Records: []rec{{"x", 0.1, nil}}}
	a, err := Encode(c)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Encode(c)
	if !bytes.Equal(a, b) || !bytes.HasSuffix(a, []byte("}\n")) {
		t.Fatalf("Encode: %s", a)
	}
	if _, err := Encode(&Catalog{AsOf: "2026-01-02"}); err == nil {
		t.Error("Encode accepts a catalog without sources or records")
	}
}

func TestModelFacts(t *testing.T) {
	in := &Input{DataDir: dataDir(t)}
	facts, err := ModelFacts(in)
	if err != nil {
		t.Fatal(err)
	}
	models, err := CurrentLLMModels(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(models) < 1000 {
		t.Fatalf("%d current language models, expected more than 1,000", len(models))
	}
	lf, err := in.lifecycle()
	if err != nil {
		t.Fatal(err)
	}
	// A model that only a provider's own page lists (newer than every data set) has no data-set facts.
	official := map[string]bool{}
	for pid, f := range lf.files {
		for _, c := range f.Current {
			official[pid+"/"+c.ModelID] = true
		}
	}
	missing := 0
	for _, m := range models {
		f, ok := facts[m.ProviderId+"/"+m.ModelId]
		if (!ok || (f.LiteLLM == nil && f.ModelsDev == nil)) && !official[m.ProviderId+"/"+m.ModelId] {
			missing++
			t.Logf("no source facts: %s/%s", m.ProviderId, m.ModelId)
		}
	}
	if missing > 0 {
		t.Errorf("%d models of models.json have no source facts", missing)
	}
	if f := facts["openai/gpt-4o"]; f.LiteLLM["supports_response_schema"] != true {
		t.Errorf("openai/gpt-4o: litellm facts %v", f.LiteLLM)
	}
}

// TestEncodeSchemaOrder writes generated API records with their keys in the OpenAPI schema's order (provider_id,
// model_id, ... as the document lists them), without the provenance keys that WithProvenance adds, and keeps
// them when they are set.
func TestEncodeSchemaOrder(t *testing.T) {
	c := &Catalog{AsOf: "2026-01-02", Sources: []seeds.Source{{Name: "a", URL: "https://a"}}, Records: []api.ContextWindowRecord{
		{ProviderId: "x", ModelId: "m", AdvertisedContext: ptrTo(8192)},
		{ProviderId: "y", ModelId: "n", Confidence: api.Confidence("single"), Sources: api.RecordSources{"a"}},
	}}
	b, err := Encode(c)
	if err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, b); err != nil {
		t.Fatal(err)
	}
	want := `{"as_of":"2026-01-02","sources":[{"id":"","name":"a","url":"https://a","license":null}],"records":[` +
		`{"provider_id":"x","model_id":"m","advertised_context":8192,"effective_context":null,"recommended_max_fill":null,"usable_tokens":null,"degradation_note":null},` +
		`{"provider_id":"y","model_id":"n","advertised_context":null,"effective_context":null,"recommended_max_fill":null,"usable_tokens":null,"degradation_note":null,"sources":["a"],"confidence":"single"}]}`
	if compact.String() != want {
		t.Errorf("Encode =\n%s\nwant\n%s", compact.String(), want)
	}
}
