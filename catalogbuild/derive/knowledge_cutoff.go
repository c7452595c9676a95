package derive

import (
	"slices"
	"strings"

	"github.com/switchboard/switchboard/catalogbuild"
	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/seeds"
)

func init() {
	Register(Deriver{Name: "knowledge_cutoff", Build: buildKnowledgeCutoff})
}

// perplexityModelsURL documents that Perplexity's Sonar models answer from a live web search.
const perplexityModelsURL = "https://docs.perplexity.ai/getting-started/models"

// knowledgeCutoffOf turns models.json's knowledge_cutoff (a month, YYYY-MM) into the record's date. models.dev's
// own value gives the day when it has one for the same month; otherwise the cutoff is the first day of the month
// and approximate. A model without a cutoff keeps null.
func knowledgeCutoffOf(m seeds.ModelRecord, f catalogbuild.SourceFacts) api.KnowledgeCutoffRecord {
	r := api.KnowledgeCutoffRecord{ProviderId: m.ProviderId, ModelId: m.ModelId}
	if oc := f.Cutoff; oc != nil {
		// The provider's page outranks the data sets; its URL in the notes makes the page the record's source.
		if d, ok := calendarDate(oc.Day); ok {
			r.CutoffDate, r.CutoffApproximate = d, oc.Approximate
			what := "gives the knowledge cutoff " + oc.Day
			if oc.Approximate {
				what = "gives the knowledge cutoff as the month " + oc.Day[:7] + " (the date is the month's first day)"
			}
			r.Notes = ptrTo("The provider's page " + oc.Title + " (" + oc.Page.URL + ") " + what + "; checked " + oc.Checked + ".")
			r.DocsUrl = ptrTo(oc.Page.URL)
			return r
		}
	}
	if m.KnowledgeCutoff == nil {
		note := "Not published in the source data (models.dev knowledge, llm-stats knowledge_cutoff)."
		if liveSearchModel(m) {
			note = "Answers from a live web search (" + perplexityModelsURL + "); no training cutoff is published in the source data."
			r.DocsUrl = ptrTo(perplexityModelsURL)
		}
		r.Notes = &note
		return r
	}
	month := *m.KnowledgeCutoff
	if day := lifecycleFullDate(lifecycleFactString(f.ModelsDev, "knowledge")); day != nil && strings.HasPrefix(*day, month+"-") {
		if d, ok := calendarDate(*day); ok {
			r.CutoffDate = d
			r.Notes = ptrTo("From models.dev knowledge (" + *day + ").")
			return r
		}
	}
	d, ok := calendarDate(month + "-01")
	if !ok {
		r.Notes = ptrTo("The source's cutoff (" + month + ") is not a calendar month.")
		return r
	}
	r.CutoffDate = d
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
	return m.ProviderId == "perplexity" && slices.ContainsFunc(lifecycleIDTokens(m.ModelId), func(w string) bool { return w == "sonar" })
}

// buildKnowledgeCutoff derives one record per current language model of models.json, with its cutoff.
func buildKnowledgeCutoff(in *Input) (*Catalog, error) {
	models, facts, err := currentModelFacts(in)
	if err != nil {
		return nil, err
	}
	recs := make([]api.KnowledgeCutoffRecord, 0, len(models))
	for _, m := range models {
		recs = append(recs, knowledgeCutoffOf(m, facts[m.ProviderId+"/"+m.ModelId]))
	}
	src, err := in.Catalog(seeds.CatalogModels)
	if err != nil {
		return nil, err
	}
	sources := append(slices.Clone(src.Sources), seeds.Source{Name: "Perplexity: Sonar models (live web search)", URL: perplexityModelsURL})
	// The pages that give a cutoff are sources of this catalog even where models.json cites them for nothing.
	var pages []catalogbuild.Source
	for _, m := range models {
		if f := facts[m.ProviderId+"/"+m.ModelId]; f.Cutoff != nil && !slices.ContainsFunc(sources, func(s seeds.Source) bool { return s.URL == f.Cutoff.Page.URL }) &&
			!slices.ContainsFunc(pages, func(s catalogbuild.Source) bool { return s.ID == f.Cutoff.Page.ID }) {
			pages = append(pages, f.Cutoff.Page)
		}
	}
	slices.SortFunc(pages, func(a, b catalogbuild.Source) int { return strings.Compare(a.ID, b.ID) })
	for _, p := range pages {
		sources = append(sources, seeds.Source{ID: p.ID, Name: p.Name, URL: p.URL, AsOf: p.AsOf})
	}
	return &Catalog{AsOf: src.AsOf, Sources: sources, Records: recs}, nil
}
