package decide

import (
	"cmp"
	"slices"
)

// ExportTask is the task of the models a failover export names when the request gives none: gateways route chat
// completions, so the models are the providers' llm models.
const ExportTask = "llm"

// Ranked is a provider of a failover ranking with its candidate models, best first.
type Ranked struct {
	Provider string
	Models   []string
	Score    *float64 // nil for the primary
}

// FailoverRanking is the ranking a failover export configures: the primary, then the chain Failover gives for q
// (the same providers, models, order and scores as GET /failover). Each provider's models are the one the
// chain offers (the reference model for the primary), then the rest of ProviderModels of the task, which a
// gateway falls back to when it cannot name the first. MaxCost bounds the chain's models as it bounds the chain;
// the primary keeps all of its own.
func (ix *Index) FailoverRanking(q FailoverQuery, live Statuses) ([]Ranked, string, error) {
	chain, note, err := ix.Failover(q, live)
	if err != nil {
		return nil, "", err
	}
	ref, task, _, err := ix.FailoverReference(q)
	if err != nil {
		return nil, "", err
	}
	first := func(id string, rest []string) []string {
		if id == "" {
			return rest
		}
		return append([]string{id}, slices.DeleteFunc(rest, func(m string) bool { return m == id })...)
	}
	refID := ""
	if ref != nil && ref.Ending == "" && slices.Contains(ref.Tasks, task) {
		refID = ref.ID
	}
	out := make([]Ranked, 0, len(chain)+1)
	out = append(out, Ranked{Provider: q.Primary, Models: first(refID, ix.ProviderModels(q.Primary, task, nil))})
	for _, e := range chain {
		score := e.Score
		out = append(out, Ranked{Provider: e.Provider, Models: first(e.Model, ix.ProviderModels(e.Provider, task, q.MaxCost)), Score: &score})
	}
	return out, note, nil
}

// ProviderModels lists the provider's priced candidate models of task, best first in the order GET /pick ranks
// them on that provider: generally available models before preview, beta and deprecated ones, then by pick's
// model part at prefer=quality (quality, price, context, capabilities) descending, then by model ID. With maxInput, only models
// whose input price per 1M tokens is known and at most that.
func (ix *Index) ProviderModels(provider, task string, maxInput *float64) []string {
	type cand struct {
		m      *Model
		part   float64
		second bool
	}
	var cs []cand
	for _, m := range ix.byProvider[provider] {
		// A pinned version that is its alias again is ranked under the alias, as in Pick.
		if m.AliasOf != "" || m.UnitPrice == nil || !slices.Contains(m.Tasks, task) {
			continue
		}
		if maxInput != nil && (m.Input == nil || m.Input.USD > *maxInput) {
			continue
		}
		cs = append(cs, cand{m, pickModelPart(m, task, pickWeights[PreferQuality]), secondChoice(m.Stage)})
	}
	slices.SortFunc(cs, func(a, b cand) int {
		if a.second != b.second {
			if a.second {
				return 1
			}
			return -1
		}
		return cmp.Or(cmp.Compare(b.part, a.part), cmp.Compare(a.m.ID, b.m.ID))
	})
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.m.ID
	}
	return out
}
