package derive

func init() {
	Register(Deriver{Name: "json_mode", Build: buildJSONMode})
}

// jsonModeRecord is the JsonModeRecord schema, fields in schema order.
type jsonModeRecord struct {
	ProviderID                 string  `json:"provider_id"`
	ModelID                    string  `json:"model_id"`
	JSONObjectSupported        *bool   `json:"json_object_supported"`
	SchemaEnforcementSupported *bool   `json:"schema_enforcement_supported"`
	StrictModeSupported        *bool   `json:"strict_mode_supported"`
	EnforcementMethod          *string `json:"enforcement_method"`
	WorkaroundRequired         *bool   `json:"workaround_required"`
	Notes                      *string `json:"notes"`
}

// jsonModeOf reads the same schema facts as structured_output (schemaOf). A workaround is needed when the
// schema goes through a forced tool call, or when the model has neither a schema mode nor a JSON-object mode
// (prompting and validating only); a native schema mode needs none.
func jsonModeOf(m capabilityModel) jsonModeRecord {
	s := schemaOf(m)
	r := jsonModeRecord{
		ProviderID: m.Model.ProviderID, ModelID: m.Model.ModelID, JSONObjectSupported: s.JSONObject,
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
	recs := make([]jsonModeRecord, len(models))
	for i, m := range models {
		recs[i] = jsonModeOf(m)
	}
	sources, asOf, err := capabilitySources(in, capabilityPages(models, func(r *capabilityRule) string { return r.StructuredURL }))
	if err != nil {
		return nil, err
	}
	return &Catalog{AsOf: asOf, Sources: sources, Records: recs}, nil
}
