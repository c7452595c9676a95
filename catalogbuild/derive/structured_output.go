package derive

import (
	"fmt"

	"github.com/switchboard/switchboard/gen/api"
)

func init() {
	Register(Deriver{Name: "structured_output", Build: buildStructuredOutput})
}

// Enforcement methods of a model's JSON schema support.
const (
	methodNative  = "native"   // the API's own schema parameter
	methodToolUse = "tool_use" // a forced tool call whose input schema is the output schema
)

// capabilitySchema is what the sources and the API rule say about one model's JSON schema support. It feeds both
// structured_output and json_mode, so the two catalogs cannot disagree.
type capabilitySchema struct {
	Supported   *bool   // the model accepts a JSON schema (nil: the sources do not say)
	Method      string  // methodNative, methodToolUse, or "" when unsupported or not confirmed
	Param       *string // where the schema goes
	Strict      *bool
	Constrained *bool
	Features    []string
	Failure     *string
	JSONObject  *bool // a mode that guarantees a syntactically valid JSON object
	Why         string
	Rule        *capabilityRule
}

// schemaOf applies the rule of the model's API to the sources' schema support:
//   - unknown support: everything unknown;
//   - no support: no strict mode, no constrained decoding, no parameter;
//   - support through an API whose schema mode is native: the API's parameter, strictness and decoding;
//   - support through an API that also has a tool-use fallback (Anthropic, Bedrock): native when litellm marks the
//     model (rule.NativeFlag), otherwise a forced tool call, which is neither strict nor constrained and can return
//     input that does not match the schema without an error (silent_invalid);
//   - support through an API without a rule here: how it is enforced is unknown.
func schemaOf(m capabilityModel) capabilitySchema {
	s := capabilitySchema{Supported: m.schemaSupport(), Features: []string{}, Rule: capabilityRuleFor(m.Model.ProviderId, m.Model.ModelId)}
	r := s.Rule
	switch {
	case s.Supported == nil:
		s.Why = "neither models.dev (structured_output) nor litellm (supports_response_schema) states structured-output support"
		if r != nil && r.JSONObject != nil && !*r.JSONObject {
			s.JSONObject = ptrTo(false)
		}
		return s
	case !*s.Supported:
		s.Why = "no structured output per " + schemaSource(m)
		s.Strict, s.Constrained = ptrTo(false), ptrTo(false)
		if r != nil && r.JSONObject != nil && !*r.JSONObject {
			s.JSONObject = ptrTo(false)
		}
		return s
	case r == nil:
		s.Why = "structured output per " + schemaSource(m) + "; how the provider's API enforces it is not confirmed here"
		return s
	}
	native := !r.ToolUseFallback || (r.NativeFlag != "" && m.liteFlag(r.NativeFlag) != nil && *m.liteFlag(r.NativeFlag))
	if !native {
		s.Method, s.Param = methodToolUse, ptrTo(r.ToolUseParam)
		s.Strict, s.Constrained, s.Failure, s.JSONObject = ptrTo(false), ptrTo(false), ptrTo("silent_invalid"), r.JSONObject
		s.Why = fmt.Sprintf("structured output per %s, through a forced tool call (%s): the API has no native schema "+
			"mode for this model and does not validate the tool input against the schema", schemaSource(m), r.ToolUseParam)
		return s
	}
	s.Method = methodNative
	if r.SchemaParam != "" {
		s.Param = ptrTo(r.SchemaParam)
	}
	s.Strict, s.Constrained, s.Failure = r.Strict, r.Constrained, r.FailureMode
	if r.SchemaFeatures != nil {
		s.Features = r.SchemaFeatures
	}
	// A mode that constrains decoding to a schema also guarantees a JSON object; otherwise the API's own
	// JSON-object mode says it.
	switch {
	case s.Constrained != nil && *s.Constrained:
		s.JSONObject = ptrTo(true)
	case r.JSONObject != nil && *r.JSONObject:
		s.JSONObject = ptrTo(true)
	}
	s.Why = "structured output per " + schemaSource(m) + "; " + r.Name
	if r.ToolUseFallback {
		s.Why += " (litellm " + r.NativeFlag + ")"
	}
	return s
}

// schemaSource names the source field schemaSupport read.
func schemaSource(m capabilityModel) string {
	if v := m.devFlag("structured_output"); v != nil {
		return fmt.Sprintf("models.dev structured_output=%t", *v)
	}
	if v := m.liteFlag("supports_response_schema"); v != nil {
		return fmt.Sprintf("litellm supports_response_schema=%t", *v)
	}
	return "no source"
}

func structuredOutputOf(m capabilityModel) api.StructuredOutputRecord {
	s := schemaOf(m)
	url := ""
	if s.Rule != nil && s.Supported != nil && *s.Supported {
		url = s.Rule.StructuredURL
	}
	return api.StructuredOutputRecord{
		ProviderId: m.Model.ProviderId, ModelId: m.Model.ModelId, JsonSchemaSupported: s.Supported,
		StrictEnforcement: s.Strict, ConstrainedDecoding: s.Constrained, ResponseFormatParam: s.Param,
		SupportedSchemaFeatures: s.Features, FailureMode: s.Failure, Notes: capabilityNotes(url, s.Why),
	}
}

func buildStructuredOutput(in *Input) (*Catalog, error) {
	models, err := capabilityCurrentModels(in)
	if err != nil {
		return nil, err
	}
	recs := make([]api.StructuredOutputRecord, len(models))
	for i, m := range models {
		recs[i] = structuredOutputOf(m)
	}
	sources, asOf, err := capabilitySources(in, capabilityPages(models, func(r *capabilityRule) string { return r.StructuredURL }))
	if err != nil {
		return nil, err
	}
	return &Catalog{AsOf: asOf, Sources: sources, Records: recs}, nil
}
