package catalogbuild

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestWithProvenancePerModel: a record that names a page's URL cites that page; a record of one model that names no
// page cites the data sets that list the model, not every source of the catalog; a record of a model no data set
// lists falls back to the provider's pages.
func TestWithProvenancePerModel(t *testing.T) {
	mit := "MIT"
	env := map[string]any{
		"as_of": "2026-11-28",
		"sources": []Source{
			{ID: "acme-models", Name: "Acme: Models (official page)", URL: "https://docs.acme.example/models"},
			{ID: "other-models", Name: "Other: Models (official page)", URL: "https://docs.other.example/models"},
			{ID: SourceModelsDev, Name: "models.dev", URL: "https://models.dev", License: &mit},
			{ID: SourceLiteLLM, Name: "litellm", URL: "https://github.com/BerriAI/litellm", License: &mit},
		},
		"records": []map[string]any{
			{"provider_id": "acme", "model_id": "a-page", "notes": "See https://docs.acme.example/models."},
			{"provider_id": "acme", "model_id": "a-data", "notes": "From the data sets."},
			{"provider_id": "acme", "model_id": "a-none", "notes": "Nothing."},
			// A value the notes ground on a data set is not verified by the page cited beside it; the data set is
			// cited where it lists the model, and never where it does not.
			{"provider_id": "acme", "model_id": "a-mixed", "notes": "Support per models.dev support=true. Source: https://docs.acme.example/models"},
			{"provider_id": "acme", "model_id": "a-unlisted", "notes": "Not published in the source data (models.dev knowledge). Source: https://docs.acme.example/models"},
			// A provider no page names and no data set lists: what the rule read was the data sets, not the
			// other providers' pages.
			{"provider_id": "zeta", "model_id": "z-none", "notes": "Not confirmed."},
		},
	}
	data, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	out, err := WithProvenance(data, ProviderNames{"acme": "Acme AI"}, map[string][]string{
		"acme/a-data": {SourceModelsDev, SourceLiteLLM}, "acme/a-none-elsewhere": {SourceLiteLLM},
		"acme/a-mixed": {SourceModelsDev}, "acme/a-unlisted": {"acme-models"}})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Records []struct {
			ModelID    string   `json:"model_id"`
			Sources    []string `json:"sources"`
			Confidence string   `json:"confidence"`
		} `json:"records"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		sources []string
		conf    string
	}{
		"a-page":     {[]string{"acme-models"}, ConfidenceVerified},
		"a-data":     {[]string{SourceLiteLLM, SourceModelsDev}, ConfidenceSingle},
		"a-none":     {[]string{"acme-models"}, ConfidenceVerified},
		"a-mixed":    {[]string{"acme-models", SourceModelsDev}, ConfidenceSingle},
		"a-unlisted": {[]string{"acme-models"}, ConfidenceSingle},
		"z-none":     {[]string{SourceLiteLLM, SourceModelsDev}, ConfidenceSingle},
	}
	for _, r := range got.Records {
		w := want[r.ModelID]
		if !slices.Equal(r.Sources, w.sources) || r.Confidence != w.conf {
			t.Errorf("%s: sources %v, confidence %s; want %v, %s", r.ModelID, r.Sources, r.Confidence, w.sources, w.conf)
		}
	}
}

func TestCitesURL(t *testing.T) {
	const page = "https://docs.acme.example/models"
	for text, want := range map[string]bool{
		"See " + page + ".":                  true,
		"(" + page + ")":                     true,
		page:                                 true,
		"Source: " + page + ", checked":      true,
		"See " + page + "/gpt-4o.":           false,
		"See " + page + ".html for the list": false,
		"See " + page + "-v2 and more":       false,
		"See " + page + "/x and " + page:     true,
		"See " + page + ".md.txt":            true,
	} {
		if got := citesURL(text, page); got != want {
			t.Errorf("citesURL(%q) = %v, want %v", text, got, want)
		}
	}
}
