package derive

import (
	"cmp"
	"slices"
	"strings"
	"sync"

	"github.com/switchboard/switchboard/seeds"
	"github.com/switchboard/switchboard/seeds/cmd/convert/conv"
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
		if slices.Contains(LLMTasks, m.Task) {
			out = append(out, m)
		}
	}
	slices.SortFunc(out, func(a, b seeds.ModelRecord) int {
		return cmp.Or(strings.Compare(a.ProviderID, b.ProviderID), strings.Compare(a.ModelID, b.ModelID))
	})
	return out, nil
}

var factsMu sync.Mutex

// ModelFacts returns the raw litellm and models.dev entries behind each models.json record, keyed
// "provider/model" (see conv.Facts). It is computed once per Build run.
func ModelFacts(in *Input) (map[string]conv.SourceFacts, error) {
	factsMu.Lock()
	defer factsMu.Unlock()
	if in.facts != nil {
		return in.facts, nil
	}
	known := map[string]bool{}
	for _, p := range seeds.Providers().All() {
		known[p.ID] = true
	}
	f, err := conv.Facts(conv.Input{DataDir: in.DataDir, KnownProviders: known})
	if err != nil {
		return nil, err
	}
	in.facts = f
	return f, nil
}
