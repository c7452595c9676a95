package catalogbuild

import "fmt"

// SourceFacts are the raw source entries behind one (provider, model) of the converted catalogs, for rules that
// read fields the converter does not carry into models.json (litellm's supports_* flags, models.dev's
// reasoning, release_date, status, modalities...). Both maps are shared: do not modify them.
type SourceFacts struct {
	// LiteLLMKey is the litellm-model-prices.json key the entry comes from; "" when litellm does not list it.
	LiteLLMKey string
	// LiteLLM is that entry's fields; nil when litellm does not list the model.
	LiteLLM map[string]any
	// ModelsDevProvider is the models.dev provider the entry comes from; "" when models.dev does not list it.
	ModelsDevProvider string
	// ModelsDev is the models.dev entry's fields; nil when models.dev does not list the model.
	ModelsDev map[string]any
	// Cutoff is the knowledge cutoff the provider's own page states, where a curated entry gives it.
	Cutoff *OfficialCutoff
}

// OfficialCutoff is a training cutoff read on a provider's page: the day (the month's first, approximate, where the
// page names only the month) and the page.
type OfficialCutoff struct {
	Day         string
	Approximate bool
	Page        Source
	// Title and Checked are the page's own title and the day it was read, for the record's note.
	Title, Checked string
}

// Facts maps "provider/model" (our provider ID and the provider's own model ID, as in models.json) to the
// source entries the converter matched to it, with the same mapping and precedence rules as Convert. Retired
// models are left out, as in models.json.
func Facts(in Input) (map[string]SourceFacts, error) {
	f, _, err := FactsAndLineage(in)
	return f, err
}

// FactsAndLineage is Facts with the lineage the same run found: the models, keyed "provider/model", that follow
// the shutdown day of the snapshot their alias points to or of their maker's model (retired ones included).
func FactsAndLineage(in Input) (map[string]SourceFacts, map[string]LineageFact, error) {
	c, err := matched(in)
	if err != nil {
		return nil, nil, err
	}
	var raw struct {
		Providers map[string]struct {
			Models map[string]map[string]any `json:"models"`
		} `json:"providers"`
	}
	if err := readJSON(in.DataDir, snapModelsDev.File, &raw); err != nil {
		return nil, nil, fmt.Errorf("models.dev: %w", err)
	}
	byKey := map[string]map[string]any{}
	for _, e := range c.litellm {
		byKey[e.Key] = e.Fields
	}
	out := map[string]SourceFacts{}
	for k, l := range c.lm {
		f := out[k.String()]
		f.LiteLLMKey, f.LiteLLM = l.srcKey, byKey[l.srcKey]
		out[k.String()] = f
	}
	for k, m := range c.mm {
		f := out[k.String()]
		name := modelsDevProviders[m.priority].Name
		f.ModelsDevProvider, f.ModelsDev = name, raw.Providers[name].Models[m.srcID]
		out[k.String()] = f
	}
	// An alias's facts are its model's, as in models.json (build.go): the data sets' entry under the alias may be an
	// older model the alias once named.
	for k := range c.lm {
		c.aliasFacts(out, k)
	}
	for k := range c.mm {
		c.aliasFacts(out, k)
	}
	c.officialCutoffs(out)
	return out, c.lineageByName(), nil
}

// officialCutoffs adds the knowledge cutoffs the providers' pages state to their models, and to the aliases of
// those models.
func (c *converter) officialCutoffs(out map[string]SourceFacts) {
	for pid, f := range c.official {
		cut := map[string]*OfficialCutoff{}
		for _, m := range f.Current {
			if m.KnowledgeCutoff == nil {
				continue
			}
			day, approx, _ := CutoffDate(*m.KnowledgeCutoff)
			p, _ := f.Page(*m.KnowledgeCutoffSource)
			cut[m.ModelID] = &OfficialCutoff{Day: day, Approximate: approx, Page: p.Source(), Title: p.Title, Checked: p.Checked}
		}
		for _, a := range f.Aliases {
			if oc := cut[a.Model]; oc != nil {
				cut[a.Alias] = oc
			}
		}
		for id, oc := range cut {
			k := key{pid, id}.String()
			sf := out[k]
			sf.Cutoff = oc
			out[k] = sf
		}
	}
}

// aliasFacts gives an alias the source facts of the model it names, where the data sets list that model.
func (c *converter) aliasFacts(out map[string]SourceFacts, k key) {
	if t := c.priceKey(k); t != k {
		if f, ok := out[t.String()]; ok && (c.mm[t] != nil || c.lm[t] != nil) {
			out[k.String()] = f
		}
	}
}
