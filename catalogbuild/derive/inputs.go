package derive

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/switchboard/switchboard/catalogbuild"
	"github.com/switchboard/switchboard/seeds"
)

// LLMTasks are the model catalog tasks of language models: the per-model catalogs (json-mode, structured output,
// thinking, context window, lifecycle...) cover exactly the models.json records with one of these tasks.
var LLMTasks = []string{"llm", "code", "multimodal"}

// CurrentLLMModels returns the language models of models.json (tasks LLMTasks), sorted by provider ID then
// model ID. models.json already leaves out retired models, so these are the current models the per-model
// catalogs must cover.
func CurrentLLMModels(in *Input) ([]seeds.ModelRecord, error) {
	all, err := Records[seeds.ModelRecord](in, seeds.CatalogModels)
	if err != nil {
		return nil, err
	}
	var out []seeds.ModelRecord
	for _, m := range all {
		if slices.Contains(LLMTasks, string(m.Task)) {
			out = append(out, m)
		}
	}
	slices.SortFunc(out, func(a, b seeds.ModelRecord) int {
		return cmp.Or(strings.Compare(a.ProviderId, b.ProviderId), strings.Compare(a.ModelId, b.ModelId))
	})
	return out, nil
}

var factsMu sync.Mutex

// ModelFacts returns the raw litellm and models.dev entries behind each models.json record, keyed
// "provider/model" (see catalogbuild.Facts). It is computed once per Build run.
func ModelFacts(in *Input) (map[string]catalogbuild.SourceFacts, error) {
	factsMu.Lock()
	defer factsMu.Unlock()
	if in.facts != nil {
		return in.facts, nil
	}
	known := map[string]bool{}
	for _, p := range seeds.Providers().All() {
		known[p.ID] = true
	}
	f, lin, err := catalogbuild.FactsAndLineage(in.converterInput(known))
	if err != nil {
		return nil, err
	}
	in.facts, in.lineage = f, lin
	return f, nil
}

// modelDataSets maps "provider/model" to the data sets that list the model (models.dev, litellm), or for a model
// no data set lists, to the pages its model record cites: what a derived record of that model that cites no page
// rests on (catalogbuild.WithProvenance).
func (in *Input) modelDataSets() (map[string][]string, error) {
	if in.modelSets != nil {
		return in.modelSets, nil
	}
	facts, err := ModelFacts(in)
	if err != nil {
		return nil, err
	}
	models, err := Records[seeds.ModelRecord](in, seeds.CatalogModels)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]string, len(facts))
	for _, m := range models {
		out[m.ProviderId+"/"+m.ModelId] = slices.Clone(m.Sources)
	}
	for k, f := range facts {
		var ids []string
		if f.ModelsDev != nil {
			ids = append(ids, catalogbuild.SourceModelsDev)
		}
		if f.LiteLLM != nil {
			ids = append(ids, catalogbuild.SourceLiteLLM)
		}
		if ids != nil {
			out[k] = ids
		}
	}
	in.modelSets = out
	return out, nil
}

// modelLineage is what the converter's lineage rules found (catalogbuild.FactsAndLineage), keyed
// "provider/model": the models that follow their alias's snapshot or their maker's shutdown day.
func modelLineage(in *Input) (map[string]catalogbuild.LineageFact, error) {
	if _, err := ModelFacts(in); err != nil {
		return nil, err
	}
	return in.lineage, nil
}

// currentModelFacts is CurrentLLMModels with ModelFacts, the input of the per-model derivers.
func currentModelFacts(in *Input) ([]seeds.ModelRecord, map[string]catalogbuild.SourceFacts, error) {
	models, err := CurrentLLMModels(in)
	if err != nil {
		return nil, nil, err
	}
	facts, err := ModelFacts(in)
	if err != nil {
		return nil, nil, err
	}
	return models, facts, nil
}

// perCurrentModel builds one record per current language model, in CurrentLLMModels' order, from the model and
// its source facts.
func perCurrentModel[R any](in *Input, of func(seeds.ModelRecord, catalogbuild.SourceFacts) R) ([]R, error) {
	models, facts, err := currentModelFacts(in)
	if err != nil {
		return nil, err
	}
	out := make([]R, 0, len(models))
	for _, m := range models {
		out = append(out, of(m, facts[m.ProviderId+"/"+m.ModelId]))
	}
	return out, nil
}

// readDataJSON decodes the file name of the reference data folder into v; a decoding error names the file.
func readDataJSON(dataDir, name string, v any) error {
	b, err := os.ReadFile(filepath.Join(dataDir, name))
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// anyStrings is the strings of a decoded JSON list; anything else in it, or a v that is no list, is left out.
func anyStrings(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func ptrTo[T any](v T) *T { return &v }

// intOf converts a known count to the API records' int; nil stays nil.
func intOf(p *int64) *int {
	if p == nil {
		return nil
	}
	return ptrTo(int(*p))
}

// calendarDate is s (YYYY-MM-DD) as the API records' date; false when s is not a calendar date.
func calendarDate(s string) (*openapi_types.Date, bool) {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return nil, false
	}
	return &openapi_types.Date{Time: t}, true
}

// optionalDate is s (YYYY-MM-DD) as the API records' date; nil stays nil, and a string that is no calendar date
// is an error.
func optionalDate(s *string) (*openapi_types.Date, error) {
	if s == nil {
		return nil, nil
	}
	d, ok := calendarDate(*s)
	if !ok {
		return nil, fmt.Errorf("%q is not a YYYY-MM-DD date", *s)
	}
	return d, nil
}

// enumsOf converts strings to the API's enum type T (the values are checked against the schema by the
// catalog tests).
func enumsOf[T ~string](ss []string) []T {
	out := make([]T, len(ss))
	for i, s := range ss {
		out[i] = T(s)
	}
	return out
}

// lifecycleFacts are the providers' curated lifecycle pages and the build's reference date.
type lifecycleFacts struct {
	files     map[string]*catalogbuild.LifecycleFile
	reference string
}

// lifecycle reads the curated lifecycle pages once per run (catalogbuild.Lifecycle).
func (in *Input) lifecycle() (*lifecycleFacts, error) {
	if in.lifecycleCache != nil {
		return in.lifecycleCache, nil
	}
	known := map[string]bool{}
	for _, p := range seeds.Providers().All() {
		known[p.ID] = true
	}
	files, ref, err := catalogbuild.Lifecycle(in.DataDir, known)
	if err != nil {
		return nil, err
	}
	in.lifecycleCache = &lifecycleFacts{files: files, reference: ref}
	return in.lifecycleCache, nil
}

// officialPageSource is the catalog source of a curated page.
func officialPageSource(p catalogbuild.OfficialPage) seeds.Source {
	src := p.Source()
	return seeds.Source{ID: src.ID, Name: src.Name, URL: src.URL, AsOf: src.AsOf}
}

// sortedMapKeys returns a map's keys in order.
func sortedMapKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// citedPages are the curated lifecycle pages that any retirement, current model or alias cites, as catalog sources
// sorted by id (an alias's verdict cites its own page beside its model's).
func citedPages(lf *lifecycleFacts) []seeds.Source {
	var out []seeds.Source
	for _, pid := range sortedMapKeys(lf.files) {
		f := lf.files[pid]
		used := map[string]bool{}
		for _, r := range f.Retired {
			used[r.Source] = true
		}
		for _, m := range f.Current {
			for _, s := range m.Sources {
				used[s] = true
			}
		}
		for _, a := range f.Aliases {
			used[a.Source] = true
		}
		for _, p := range f.Pages {
			if used[p.ID] {
				out = append(out, officialPageSource(p))
			}
		}
	}
	slices.SortFunc(out, func(a, b seeds.Source) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// withRetired appends, for every model a provider's page retires that recs do not hold yet, the record build makes
// of it, and sorts the whole by provider then model: the deprecation and lifecycle catalogs both keep retired models.
func withRetired[R any](recs []R, lf *lifecycleFacts, key func(R) (string, string),
	build func(provider string, r *catalogbuild.Retirement, f *catalogbuild.LifecycleFile) R) []R {
	have := map[string]bool{}
	for _, r := range recs {
		p, m := key(r)
		have[p+"/"+m] = true
	}
	for _, pid := range sortedMapKeys(lf.files) {
		f := lf.files[pid]
		for i := range f.Retired {
			r := &f.Retired[i]
			// A day set at release that has not come is no retirement yet: such a model has a record only as a
			// current language model (models.json), like any live one.
			if have[pid+"/"+r.ModelID] || (r.Scheduled && *r.Shutdown > lf.reference) {
				continue
			}
			recs = append(recs, build(pid, r, f))
		}
	}
	slices.SortFunc(recs, func(a, b R) int {
		pa, ma := key(a)
		pb, mb := key(b)
		return cmp.Or(strings.Compare(pa, pb), strings.Compare(ma, mb))
	})
	return recs
}

// dataSetDates reads the upstream manifests once per run (each read hashes the snapshot it describes).
func (in *Input) dataSetDates() (catalogbuild.DataSetDates, error) {
	if in.datesCache == nil {
		d, err := catalogbuild.ReadDataSetDates(in.DataDir)
		if err != nil {
			return nil, err
		}
		in.datesCache = d
	}
	return in.datesCache, nil
}

// lifecycleRecords is one record per current model (of), plus one per model a provider's page retires that holds
// no model record (retired), plus one per model retired with the model it follows (followed), sorted as
// withRetired sorts. The callbacks of perCurrentModel and withRetired cannot fail, so the first error any builder
// returns is kept and fails the whole.
func lifecycleRecords[R any](in *Input, lf *lifecycleFacts, lin map[string]catalogbuild.LineageFact, of func(seeds.ModelRecord, catalogbuild.SourceFacts) (R, error),
	key func(R) (string, string), retired func(string, *catalogbuild.Retirement, *catalogbuild.LifecycleFile) (R, error),
	followed func(string, string, catalogbuild.LineageFact) (R, error)) ([]R, error) {
	var first error
	keep := func(r R, err error) R {
		if err != nil && first == nil {
			first = err
		}
		return r
	}
	recs, err := perCurrentModel(in, func(m seeds.ModelRecord, f catalogbuild.SourceFacts) R { return keep(of(m, f)) })
	if err != nil {
		return nil, err
	}
	have := map[string]bool{}
	for _, r := range recs {
		p, m := key(r)
		have[p+"/"+m] = true
	}
	for _, k := range followedRetired(lin, lf.reference) {
		if !have[k] {
			p, m := splitKey(k)
			recs = append(recs, keep(followed(p, m, lin[k])))
		}
	}
	recs = withRetired(recs, lf, key, func(pid string, r *catalogbuild.Retirement, f *catalogbuild.LifecycleFile) R {
		return keep(retired(pid, r, f))
	})
	return recs, first
}
