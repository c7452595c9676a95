package derive

func init() {
	Register(Deriver{Name: "context_window", Build: buildContextWindow})
}

// contextWindowRecord is the ContextWindowRecord schema, fields in schema order.
type contextWindowRecord struct {
	ProviderID         string   `json:"provider_id"`
	ModelID            string   `json:"model_id"`
	AdvertisedContext  *int64   `json:"advertised_context"`
	EffectiveContext   *int64   `json:"effective_context"`
	RecommendedMaxFill *float64 `json:"recommended_max_fill"`
	UsableTokens       *int64   `json:"usable_tokens"`
	DegradationNote    *string  `json:"degradation_note"`
}

// contextWindowOf is the advertised window of models.json (models.dev limit.context, else litellm
// max_input_tokens). The reference data publishes no tested effective size: its long-context benchmarks
// (OpenAI-MRCR, RULER, LongBench v2... in llm-stats) are single scores at one length, with no length at which
// quality stops holding up, so the effective context, recommended fill and usable tokens are null rather than
// estimated.
func contextWindowOf(m capabilityModel) contextWindowRecord {
	return contextWindowRecord{ProviderID: m.Model.ProviderID, ModelID: m.Model.ModelID, AdvertisedContext: m.Model.ContextWindow}
}

func buildContextWindow(in *Input) (*Catalog, error) {
	models, err := capabilityCurrentModels(in)
	if err != nil {
		return nil, err
	}
	recs := make([]contextWindowRecord, len(models))
	for i, m := range models {
		recs[i] = contextWindowOf(m)
	}
	sources, asOf, err := capabilitySources(in, nil)
	if err != nil {
		return nil, err
	}
	return &Catalog{AsOf: asOf, Sources: sources, Records: recs}, nil
}
