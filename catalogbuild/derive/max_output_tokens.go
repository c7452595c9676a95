package derive

import "math"

func init() {
	Register(Deriver{Name: "max_output_tokens", Build: buildMaxOutputTokens})
}

// maxOutputTokensRecord is the MaxOutputTokensRecord schema, fields in schema order.
type maxOutputTokensRecord struct {
	ProviderID           string   `json:"provider_id"`
	ModelID              string   `json:"model_id"`
	MaxOutputTokens      *int64   `json:"max_output_tokens"`
	ContextWindow        *int64   `json:"context_window"`
	OutputToContextRatio *float64 `json:"output_to_context_ratio"`
	Notes                *string  `json:"notes"`
}

// maxOutputOf carries models.json's maximum output and context window, and their ratio rounded to 4 decimals
// (null unless both are known). The notes name the source field of each value, with models.json's precedence.
func maxOutputOf(m capabilityModel) maxOutputTokensRecord {
	rec := maxOutputTokensRecord{
		ProviderID: m.Model.ProviderID, ModelID: m.Model.ModelID,
		MaxOutputTokens: m.Model.MaxOutputTokens, ContextWindow: m.Model.ContextWindow,
		OutputToContextRatio: outputRatio(m.Model.MaxOutputTokens, m.Model.ContextWindow),
	}
	rec.Notes = capabilityNotes("", limitSource(m, "output", "max_output_tokens", "maximum output", rec.MaxOutputTokens),
		limitSource(m, "context", "max_input_tokens", "context window", rec.ContextWindow))
	return rec
}

// outputRatio is maxOut / context rounded to 4 decimals, or nil when either is unknown (or the context is 0).
func outputRatio(maxOut, context *int64) *float64 {
	if maxOut == nil || context == nil || *context == 0 {
		return nil
	}
	return capabilityFloat(math.Round(float64(*maxOut)/float64(*context)*1e4) / 1e4)
}

// limitSource names where a limit of models.json comes from: models.dev limit.<devKey> when set, else litellm's
// liteKey.
func limitSource(m capabilityModel, devKey, liteKey, what string, v *int64) string {
	if v == nil {
		return what + " not stated by models.dev or litellm"
	}
	if limit, ok := m.ModelsDev["limit"].(map[string]any); ok {
		if n, ok := limit[devKey].(float64); ok && n > 0 {
			return what + " from models.dev limit." + devKey
		}
	}
	return what + " from litellm " + liteKey
}

func buildMaxOutputTokens(in *Input) (*Catalog, error) {
	models, err := capabilityCurrentModels(in)
	if err != nil {
		return nil, err
	}
	recs := make([]maxOutputTokensRecord, len(models))
	for i, m := range models {
		recs[i] = maxOutputOf(m)
	}
	sources, asOf, err := capabilitySources(in, nil)
	if err != nil {
		return nil, err
	}
	return &Catalog{AsOf: asOf, Sources: sources, Records: recs}, nil
}
