package derive

import (
	"slices"
	"strings"

	"github.com/switchboard/switchboard/catalogbuild"
	"github.com/switchboard/switchboard/seeds"
)

func init() {
	Register(Deriver{Name: "knowledge_cutoff", Build: buildKnowledgeCutoff})
}

// knowledgeCutoffRecord is the OpenAPI KnowledgeCutoffRecord schema.
type knowledgeCutoffRecord struct {
	ProviderID        string  `json:"provider_id"`
	ModelID           string  `json:"model_id"`
	CutoffDate        *string `json:"cutoff_date"`
	CutoffApproximate bool    `json:"cutoff_approximate"`
	Notes             *string `json:"notes"`
	DocsURL           *string `json:"docs_url"`
}

// perplexityModelsURL documents that Perplexity's Sonar models answer from a live web search.
const perplexityModelsURL = "https://docs.perplexity.ai/getting-started/models"

// knowledgeCutoffOf turns models.json's knowledge_cutoff (a month, YYYY-MM) into the record's date. models.dev's
// own value gives the day when it has one for the same month; otherwise the cutoff is the first day of the month
// and approximate. A model without a cutoff keeps null.
func knowledgeCutoffOf(m seeds.ModelRecord, f catalogbuild.SourceFacts) knowledgeCutoffRecord {
	r := knowledgeCutoffRecord{ProviderID: m.ProviderID, ModelID: m.ModelID}
	if m.KnowledgeCutoff == nil {
		note := "Not published in the source data (models.dev knowledge, llm-stats knowledge_cutoff)."
		if liveSearchModel(m) {
			note = "Answers from a live web search (" + perplexityModelsURL + "); no training cutoff is published in the source data."
			r.DocsURL = ptrTo(perplexityModelsURL)
		}
		r.Notes = &note
		return r
	}
	month := *m.KnowledgeCutoff
	if day := lifecycleFullDate(lifecycleFactString(f.ModelsDev, "knowledge")); day != nil && strings.HasPrefix(*day, month+"-") {
		r.CutoffDate = day
		r.Notes = ptrTo("From models.dev knowledge (" + *day + ").")
		return r
	}
	r.CutoffDate = ptrTo(month + "-01")
	r.CutoffApproximate = true
	src := "models.dev knowledge"
	if lifecycleFactString(f.ModelsDev, "knowledge") == "" {
		src = "llm-stats knowledge_cutoff"
	}
	r.Notes = ptrTo("From " + src + ", which gives the month only (" + month + "); the date is the month's first day.")
	return r
}

// liveSearchModel reports the Perplexity Sonar models, whose answers come from a web search at request time.
func liveSearchModel(m seeds.ModelRecord) bool {
	return m.ProviderID == "perplexity" && slices.ContainsFunc(lifecycleIDTokens(m.ModelID), func(w string) bool { return w == "sonar" })
}

// buildKnowledgeCutoff derives one record per current language model of models.json, with its cutoff.
func buildKnowledgeCutoff(in *Input) (*Catalog, error) {
	recs, err := perCurrentModel(in, knowledgeCutoffOf)
	if err != nil {
		return nil, err
	}
	src, err := in.Catalog(seeds.CatalogModels)
	if err != nil {
		return nil, err
	}
	sources := append(slices.Clone(src.Sources), seeds.Source{Name: "Perplexity: Sonar models (live web search)", URL: perplexityModelsURL})
	return &Catalog{AsOf: src.AsOf, Sources: sources, Records: recs}, nil
}
