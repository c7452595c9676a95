package derive

import "github.com/switchboard/switchboard/gen/api"

func init() {
	Register(Deriver{Name: "context_window", Build: buildContextWindow})
}

// contextWindowOf is the advertised window of models.json (models.dev limit.context, else litellm
// max_input_tokens). The reference data publishes no tested effective size: its long-context benchmarks
// (OpenAI-MRCR, RULER, LongBench v2... in llm-stats) are single scores at one length, with no length at which
// quality stops holding up, so the effective context, recommended fill and usable tokens are null rather than
// estimated.
func contextWindowOf(m capabilityModel) api.ContextWindowRecord {
	return api.ContextWindowRecord{ProviderId: m.Model.ProviderId, ModelId: m.Model.ModelId, AdvertisedContext: m.Model.ContextWindow}
}

func buildContextWindow(in *Input) (*Catalog, error) {
	models, err := capabilityCurrentModels(in)
	if err != nil {
		return nil, err
	}
	recs := make([]api.ContextWindowRecord, len(models))
	for i, m := range models {
		recs[i] = contextWindowOf(m)
	}
	sources, asOf, err := capabilitySources(in, nil)
	if err != nil {
		return nil, err
	}
	return &Catalog{AsOf: asOf, Sources: sources, Records: recs}, nil
}
