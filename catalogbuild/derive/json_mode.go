package derive

import "github.com/switchboard/switchboard/gen/api"

func init() {
	Register(Deriver{Name: "json_mode", Build: buildJSONMode})
}

// jsonModeOf reads the same schema facts as structured_output (schemaOf). A workaround is needed when the
// schema goes through a forced tool call, or when the model has neither a schema mode nor a JSON-object mode
// (prompting and validating only); a native schema mode needs none.
func jsonModeOf(m capabilityModel) api.JsonModeRecord {
	s := schemaOf(m)
	r := api.JsonModeRecord{
		ProviderId: m.Model.ProviderId, ModelId: m.Model.ModelId, JsonObjectSupported: s.JSONObject,
		SchemaEnforcementSupported: s.Supported, StrictModeSupported: s.Strict,
	}
	switch {
	case s.Method == methodNative:
		r.EnforcementMethod, r.WorkaroundRequired = ptrTo(methodNative), ptrTo(false)
	case s.Method == methodToolUse:
		r.EnforcementMethod, r.WorkaroundRequired = ptrTo(methodToolUse), ptrTo(true)
	case s.Supported != nil && !*s.Supported && s.JSONObject != nil && !*s.JSONObject:
		r.WorkaroundRequired = ptrTo(true)
	}
	objectWhy := ""
	if s.JSONObject == nil {
		objectWhy = "JSON-object mode not confirmed for this model"
	}
	url := ""
	if s.Rule != nil && s.Supported != nil {
		url = s.Rule.StructuredURL
	}
	r.Notes = capabilityNotes(url, s.Why, objectWhy)
	return r
}

func buildJSONMode(in *Input) (*Catalog, error) {
	models, err := capabilityCurrentModels(in)
	if err != nil {
		return nil, err
	}
	recs := make([]api.JsonModeRecord, len(models))
	for i, m := range models {
		recs[i] = jsonModeOf(m)
	}
	sources, asOf, err := capabilitySources(in, capabilityPages(models, func(r *capabilityRule) string { return r.StructuredURL }))
	if err != nil {
		return nil, err
	}
	return &Catalog{AsOf: asOf, Sources: sources, Records: recs}, nil
}
