package derive

import (
	"math"

	"github.com/switchboard/switchboard/gen/api"
)

func init() {
	Register(Deriver{Name: "max_output_tokens", Build: buildMaxOutputTokens})
}

// maxOutputOf carries models.json's maximum output and context window, and their ratio rounded to 4 decimals
// (null unless both are known). The notes name the source field of each value, with models.json's precedence.
func maxOutputOf(m capabilityModel) api.MaxOutputTokensRecord {
	rec := api.MaxOutputTokensRecord{
		ProviderId: m.Model.ProviderId, ModelId: m.Model.ModelId,
		MaxOutputTokens: m.Model.MaxOutputTokens, ContextWindow: m.Model.ContextWindow,
		OutputToContextRatio: outputRatio(m.Model.MaxOutputTokens, m.Model.ContextWindow),
	}
	rec.Notes = capabilityNotes("", limitSource(m, "output", "max_output_tokens", "maximum output", m.Model.MaxOutputTokens),
		limitSource(m, "context", "max_input_tokens", "context window", m.Model.ContextWindow))
	return rec
}

// outputRatio is maxOut / context rounded to 4 decimals, or nil when either is unknown (or the context is 0).
func outputRatio(maxOut, context *int) *float64 {
	if maxOut == nil || context == nil || *context == 0 {
		return nil
	}
	return capabilityFloat(math.Round(float64(*maxOut)/float64(*context)*1e4) / 1e4)
}

// limitSource names where a limit of models.json comes from: models.dev limit.<devKey> when set, else litellm's
// liteKey.
func limitSource(m capabilityModel, devKey, liteKey, what string, v *int) string {
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
	recs := make([]api.MaxOutputTokensRecord, len(models))
	for i, m := range models {
		recs[i] = maxOutputOf(m)
	}
	sources, asOf, err := capabilitySources(in, nil)
	if err != nil {
		return nil, err
	}
	return &Catalog{AsOf: asOf, Sources: sources, Records: recs}, nil
}
