package catalogbuild

import "sort"

// LiteLLMRoutes maps our (provider ID, model ID) pairs to the model string LiteLLM routes them by: the route prefix
// of the litellm provider (the first of its Prefixes in litellmProviders, "gemini/", "bedrock/converse/"...) and
// the provider's own model ID, for every entry of litellm-model-prices.json in dir that the catalogs' own mapping
// (litellmKey) reads as one of our models. It is the knowledge the catalogs are built with, reused by the
// gateway export (package gateway) so that a LiteLLM model name is one LiteLLM lists, never a made-up one.
// litellm providers without a route prefix in the table (text-completion-openai) are left out: their models are
// routed under another provider's prefix. When two litellm providers give the same pair, the earlier in the
// table wins, then the shorter key, as in the catalogs.
func LiteLLMRoutes(dir string) (map[string]map[string]string, error) {
	entries, err := loadLiteLLM(dir)
	if err != nil {
		return nil, err
	}
	// Deterministic whatever the map order of the file: by key.
	sort.Slice(entries, func(i, j int) bool { return entries[i].Key < entries[j].Key })
	type choice struct {
		name     string
		priority int
		srcKey   string
	}
	chosen := map[key]choice{}
	for priority, p := range litellmProviders {
		if len(p.Prefixes) == 0 {
			continue
		}
		for _, e := range entries {
			if e.Provider != p.Name {
				continue
			}
			id, ok := litellmKey(e, p.litellmProvider)
			if !ok {
				continue
			}
			k := key{p.ID, id}
			c := choice{p.Prefixes[0] + id, priority, e.Key}
			if prev, ok := chosen[k]; ok && (prev.priority < c.priority || (prev.priority == c.priority && len(prev.srcKey) <= len(c.srcKey))) {
				continue
			}
			chosen[k] = c
		}
	}
	out := map[string]map[string]string{}
	for k, c := range chosen {
		if out[k.provider] == nil {
			out[k.provider] = map[string]string{}
		}
		out[k.provider][k.model] = c.name
	}
	return out, nil
}
