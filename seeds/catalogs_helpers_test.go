package seeds

import "testing"

// Helpers the catalog group tests share.

// testCatalog loads a catalog file and decodes its records into T, the test's own type with the fields its
// checks read, failing the test on any error.
func testCatalog[T any](t *testing.T, name string) (*Catalog, []T) {
	t.Helper()
	c, err := LoadCatalog(name)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := Records[T](c)
	if err != nil {
		t.Fatal(err)
	}
	return c, recs
}

// testRecords is testCatalog without the envelope.
func testRecords[T any](t *testing.T, name string) []T {
	t.Helper()
	_, recs := testCatalog[T](t, name)
	return recs
}

// testModels is the records of models.json.
func testModels(t *testing.T) []ModelRecord {
	t.Helper()
	models, err := ModelRecords()
	if err != nil {
		t.Fatal(err)
	}
	return models
}

// catalogedModels is the set of "provider/model" keys of models.json.
func catalogedModels(t *testing.T) map[string]bool {
	t.Helper()
	have := map[string]bool{}
	for _, m := range testModels(t) {
		have[m.ProviderId+"/"+m.ModelId] = true
	}
	return have
}

// languageModels returns the language models of models.json (tasks llm, code, multimodal) by "provider/model".
func languageModels(t *testing.T) map[string]ModelRecord {
	t.Helper()
	out := map[string]ModelRecord{}
	for _, m := range testModels(t) {
		if m.Task == "llm" || m.Task == "code" || m.Task == "multimodal" {
			out[m.ProviderId+"/"+m.ModelId] = m
		}
	}
	return out
}

// isTrue reads a nullable boolean: unknown (nil) is not true.
func isTrue(b *bool) bool { return b != nil && *b }
