package impl

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/switchboard/switchboard/catalog"
	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/seeds"
)

// defaultMaxOutputLimit is the document's default `limit` of GET /max-output-tokens.
const defaultMaxOutputLimit = 50

// the capability catalogs: per-model capability catalogs (JSON mode, structured output, reasoning, modalities, tool-call format,
// context window, maximum output), all derived from models.json and the source facts by catalogbuild/derive.

// The catalogs of this file.
var (
	jsonModeCatalog = declare(catalog.Spec[api.JsonModeRecord]{
		Name: "json_mode", Provider: jsonModeProvider, Model: jsonModeModel, Natural: catalog.ByKeys(jsonModeProvider, jsonModeModel),
	})
	structuredOutputCatalog = declare(catalog.Spec[api.StructuredOutputRecord]{
		Name: "structured_output", Provider: structuredProvider, Model: structuredModel, Natural: catalog.ByKeys(structuredProvider, structuredModel),
	})
	toolCallFormatCatalog = declare(catalog.Spec[api.ToolCallFormatRecord]{
		Name: "tool_call_format", Provider: toolFormatProvider, Natural: toolFormatNatural,
	})
	thinkingCatalog = declare(catalog.Spec[api.ThinkingSupportRecord]{
		Name: "thinking_support", Provider: thinkingProvider, Model: thinkingModel, Natural: catalog.ByKeys(thinkingProvider, thinkingModel),
	})
	multimodalCatalog = declare(catalog.Spec[api.MultimodalRecord]{
		Name: "multimodal", Provider: multimodalProvider, Model: multimodalModel, Natural: catalog.ByKeys(multimodalProvider, multimodalModel),
	})
	// Largest effective context first, then (for the unknown ones) largest advertised context, unknown last.
	contextWindowCatalog = declare(catalog.Spec[api.ContextWindowRecord]{
		Name: "context_window", Provider: contextProvider, Model: contextModel,
		Natural: catalog.Then(catalog.Descending(contextEffective), catalog.Descending(contextAdvertised),
			catalog.ByKeys(contextProvider, contextModel)),
	})
	maxOutputCatalog = declare(catalog.Spec[api.MaxOutputTokensRecord]{
		Name: "max_output_tokens", Provider: maxOutputProvider, Model: maxOutputModel,
		Natural: catalog.Then(catalog.Descending(maxOutputTokens), catalog.ByKeys(maxOutputProvider, maxOutputModel)),
	})
)

// Record fields the specs and filters read.
func jsonModeProvider(r *api.JsonModeRecord) string           { return r.ProviderId }
func jsonModeModel(r *api.JsonModeRecord) string              { return r.ModelId }
func structuredProvider(r *api.StructuredOutputRecord) string { return r.ProviderId }
func structuredModel(r *api.StructuredOutputRecord) string    { return r.ModelId }
func toolFormatProvider(r *api.ToolCallFormatRecord) string   { return r.ProviderId }
func thinkingProvider(r *api.ThinkingSupportRecord) string    { return r.ProviderId }
func thinkingModel(r *api.ThinkingSupportRecord) string       { return r.ModelId }
func multimodalProvider(r *api.MultimodalRecord) string       { return r.ProviderId }
func multimodalModel(r *api.MultimodalRecord) string          { return r.ModelId }
func contextProvider(r *api.ContextWindowRecord) string       { return r.ProviderId }
func contextModel(r *api.ContextWindowRecord) string          { return r.ModelId }
func contextEffective(r *api.ContextWindowRecord) *int        { return r.EffectiveContext }
func contextAdvertised(r *api.ContextWindowRecord) *int       { return r.AdvertisedContext }
func maxOutputProvider(r *api.MaxOutputTokensRecord) string   { return r.ProviderId }
func maxOutputModel(r *api.MaxOutputTokensRecord) string      { return r.ModelId }
func maxOutputTokens(r *api.MaxOutputTokensRecord) *int       { return r.MaxOutputTokens }

// toolFormatNatural is provider ID, then model ID with the provider-wide record (model_id null) first.
func toolFormatNatural(a, b *api.ToolCallFormatRecord) int {
	if c := strings.Compare(a.ProviderId, b.ProviderId); c != 0 {
		return c
	}
	switch {
	case a.ModelId == nil && b.ModelId == nil:
		return 0
	case a.ModelId == nil:
		return -1
	case b.ModelId == nil:
		return 1
	}
	return strings.Compare(*a.ModelId, *b.ModelId)
}

// jsonModeOK answers the JSON-mode records with their meta counts, computed over the records returned.
func jsonModeOK(recs []api.JsonModeRecord, m listMeta) api.GetJsonModeResponseObject {
	return api.GetJsonMode200JSONResponse{JsonMode: recs, Meta: api.JsonModeMeta{Total: m.Total, NextCursor: m.NextCursor,
		SchemaEnforcementCount: countTrue(recs, func(r *api.JsonModeRecord) *bool { return r.SchemaEnforcementSupported }),
		JsonObjectCount:        countTrue(recs, func(r *api.JsonModeRecord) *bool { return r.JsonObjectSupported }),
		NoNativeSupportCount:   catalog.Count(recs, noNativeJSON),
		AsOf:                   m.AsOf, Sources: m.Sources,
	}}
}

// noNativeJSON is a record known to have neither a JSON-object mode nor schema enforcement.
func noNativeJSON(r *api.JsonModeRecord) bool {
	return isFalse(r.JsonObjectSupported) && isFalse(r.SchemaEnforcementSupported)
}

// GetJsonMode serves JSON mode and schema enforcement per model.
func (s *Server) GetJsonMode(ctx context.Context, req api.GetJsonModeRequestObject) (api.GetJsonModeResponseObject, error) {
	p := req.Params
	q := catalog.Query[api.JsonModeRecord]{Provider: orDefault(p.Provider, "")}
	return answer[api.GetJsonMode404JSONResponse, api.GetJsonMode400JSONResponse](ctx, s, pageOf(req.Params.Limit, req.Params.Cursor), jsonModeCatalog.from, jsonModeOK, q,
		catalog.Contains(orDefault(p.Model, ""), jsonModeModel),
		trueFlag(p.SchemaEnforcementOnly, func(r *api.JsonModeRecord) *bool { return r.SchemaEnforcementSupported }),
		trueFlag(p.JsonModeOnly, func(r *api.JsonModeRecord) *bool { return r.JsonObjectSupported }))
}

// structuredOutputOK answers the structured-output records with their meta counts over the records returned.
func structuredOutputOK(recs []api.StructuredOutputRecord, m listMeta) api.GetStructuredOutputResponseObject {
	return api.GetStructuredOutput200JSONResponse{StructuredOutput: recs, Meta: api.StructuredOutputMeta{Total: m.Total, NextCursor: m.NextCursor,
		StrictEnforcement:   countTrue(recs, func(r *api.StructuredOutputRecord) *bool { return r.StrictEnforcement }),
		ConstrainedDecoding: countTrue(recs, func(r *api.StructuredOutputRecord) *bool { return r.ConstrainedDecoding }),
		NoStructuredOutput:  catalog.Count(recs, func(r *api.StructuredOutputRecord) bool { return isFalse(r.JsonSchemaSupported) }),
		AsOf:                m.AsOf, Sources: m.Sources,
	}}
}

// GetStructuredOutput serves structured-output (JSON schema) support per model.
func (s *Server) GetStructuredOutput(ctx context.Context, req api.GetStructuredOutputRequestObject) (api.GetStructuredOutputResponseObject, error) {
	p := req.Params
	q := catalog.Query[api.StructuredOutputRecord]{Provider: orDefault(p.Provider, "")}
	return answer[api.GetStructuredOutput404JSONResponse, api.GetStructuredOutput400JSONResponse](ctx, s, pageOf(req.Params.Limit, req.Params.Cursor), structuredOutputCatalog.from, structuredOutputOK, q,
		catalog.Contains(orDefault(p.Model, ""), structuredModel),
		trueFlag(p.StrictOnly, func(r *api.StructuredOutputRecord) *bool { return r.StrictEnforcement }),
		trueFlag(p.ConstrainedDecoding, func(r *api.StructuredOutputRecord) *bool { return r.ConstrainedDecoding }),
		trueFlag(p.SchemaSupported, func(r *api.StructuredOutputRecord) *bool { return r.JsonSchemaSupported }))
}

// toolFormatModel keeps the records of models whose ID contains the `model` needle, and the provider-wide
// records (model_id null), which apply to every model of their provider.
func toolFormatModel(needle string) catalog.Filter[api.ToolCallFormatRecord] {
	match := catalog.Contains(needle, func(r *api.ToolCallFormatRecord) string { return *r.ModelId })
	if match == nil {
		return nil
	}
	return func(r *api.ToolCallFormatRecord) bool { return r.ModelId == nil || match(r) }
}

func toolCallFormatOK(recs []api.ToolCallFormatRecord, m listMeta) api.GetToolCallFormatResponseObject {
	return api.GetToolCallFormat200JSONResponse{Data: recs, Meta: api.ToolCallFormatMeta{Total: m.Total, NextCursor: m.NextCursor, AsOf: m.AsOf, Sources: m.Sources}}
}

// GetToolCallFormat serves the tool-call message format per provider, or per model where it differs.
func (s *Server) GetToolCallFormat(ctx context.Context, req api.GetToolCallFormatRequestObject) (api.GetToolCallFormatResponseObject, error) {
	q := catalog.Query[api.ToolCallFormatRecord]{Provider: orDefault(req.Params.Provider, "")}
	return answer[api.GetToolCallFormat404JSONResponse, api.GetToolCallFormat400JSONResponse](ctx, s, pageOf(req.Params.Limit, req.Params.Cursor), toolCallFormatCatalog.from, toolCallFormatOK, q,
		toolFormatModel(orDefault(req.Params.Model, "")))
}

// thinkingOK answers the thinking records with their meta counts over the records returned.
func thinkingOK(recs []api.ThinkingSupportRecord, m listMeta) api.GetThinkingSupportResponseObject {
	return api.GetThinkingSupport200JSONResponse{ThinkingSupport: recs, Meta: api.ThinkingSupportMeta{Total: m.Total, NextCursor: m.NextCursor,
		ThinkingCapable:    countTrue(recs, func(r *api.ThinkingSupportRecord) *bool { return r.ThinkingSupported }),
		VisibleThinking:    countTrue(recs, func(r *api.ThinkingSupportRecord) *bool { return r.ThinkingVisible }),
		BudgetConfigurable: countTrue(recs, func(r *api.ThinkingSupportRecord) *bool { return r.BudgetConfigurable }),
		AlwaysOn:           catalog.Count(recs, thinkingAlwaysOn),
		AsOf:               m.AsOf, Sources: m.Sources,
	}}
}

// thinkingAlwaysOn is a model whose reasoning cannot be turned off (default_behavior always_on).
func thinkingAlwaysOn(r *api.ThinkingSupportRecord) bool {
	return r.DefaultBehavior != nil && *r.DefaultBehavior == "always_on"
}

// GetThinkingSupport serves reasoning ("thinking") support per model.
func (s *Server) GetThinkingSupport(ctx context.Context, req api.GetThinkingSupportRequestObject) (api.GetThinkingSupportResponseObject, error) {
	p := req.Params
	q := catalog.Query[api.ThinkingSupportRecord]{Provider: orDefault(p.Provider, "")}
	return answer[api.GetThinkingSupport404JSONResponse, api.GetThinkingSupport400JSONResponse](ctx, s, pageOf(req.Params.Limit, req.Params.Cursor), thinkingCatalog.from, thinkingOK, q,
		catalog.Contains(orDefault(p.Model, ""), thinkingModel),
		trueFlag(p.SupportedOnly, func(r *api.ThinkingSupportRecord) *bool { return r.ThinkingSupported }),
		trueFlag(p.VisibleThinking, func(r *api.ThinkingSupportRecord) *bool { return r.ThinkingVisible }),
		trueFlag(p.BudgetConfigurable, func(r *api.ThinkingSupportRecord) *bool { return r.BudgetConfigurable }))
}

// capabilityTakes tells whether a model accepts an input modality.
func capabilityTakes(r *api.MultimodalRecord, in api.MultimodalInputType) bool {
	return slices.Contains(r.Inputs, in)
}

// multimodalOK answers the modality records with their meta counts over the records returned.
func multimodalOK(recs []api.MultimodalRecord, m listMeta) api.GetMultimodalResponseObject {
	count := func(in api.MultimodalInputType) int {
		return catalog.Count(recs, func(r *api.MultimodalRecord) bool { return capabilityTakes(r, in) })
	}
	return api.GetMultimodal200JSONResponse{Multimodal: recs, Meta: api.MultimodalMeta{Total: m.Total, NextCursor: m.NextCursor,
		VisionCapable: count(api.MultimodalInputTypeImage), AudioInput: count(api.MultimodalInputTypeAudio),
		VideoInput: count(api.MultimodalInputTypeVideo), PdfInput: count(api.MultimodalInputTypePdf),
		AsOf: m.AsOf, Sources: m.Sources,
	}}
}

// GetMultimodal serves the input and output modalities per model.
func (s *Server) GetMultimodal(ctx context.Context, req api.GetMultimodalRequestObject) (api.GetMultimodalResponseObject, error) {
	p := req.Params
	q := catalog.Query[api.MultimodalRecord]{Provider: orDefault(p.Provider, "")}
	var input, output catalog.Filter[api.MultimodalRecord]
	if p.InputType != nil {
		input = func(r *api.MultimodalRecord) bool { return capabilityTakes(r, *p.InputType) }
	}
	if p.OutputType != nil {
		output = func(r *api.MultimodalRecord) bool { return slices.Contains(r.Outputs, *p.OutputType) }
	}
	return answer[api.GetMultimodal404JSONResponse, api.GetMultimodal400JSONResponse](ctx, s, pageOf(req.Params.Limit, req.Params.Cursor), multimodalCatalog.from, multimodalOK, q,
		catalog.Contains(orDefault(p.Model, ""), multimodalModel), input, output)
}

func contextWindowOK(recs []api.ContextWindowRecord, m listMeta) api.GetContextWindowResponseObject {
	return api.GetContextWindow200JSONResponse{ContextWindows: recs, Meta: api.ContextWindowMeta{Total: m.Total, NextCursor: m.NextCursor,
		Count:               m.Count,
		EffectiveKnownCount: catalog.Count(recs, func(r *api.ContextWindowRecord) bool { return r.EffectiveContext != nil }),
		AsOf:                m.AsOf, Sources: m.Sources,
	}}
}

// GetContextWindow serves the advertised and tested effective context windows per model.
func (s *Server) GetContextWindow(ctx context.Context, req api.GetContextWindowRequestObject) (api.GetContextWindowResponseObject, error) {
	p := req.Params
	q := catalog.Query[api.ContextWindowRecord]{Provider: orDefault(p.Provider, "")}
	return answer[api.GetContextWindow404JSONResponse, api.GetContextWindow400JSONResponse](ctx, s, pageOf(req.Params.Limit, req.Params.Cursor), contextWindowCatalog.from, contextWindowOK, q,
		catalog.Contains(orDefault(p.Model, ""), contextModel),
		catalog.AtLeast(orDefault(p.MinContext, 0), contextAdvertised),
		catalog.Flag(orDefault(p.EffectiveOnly, false), func(r *api.ContextWindowRecord) bool { return r.EffectiveContext != nil }))
}

// modelTasksByKey maps "provider/model" to the task of that model in the model catalog (GET /models), which the
// max-output-tokens records do not carry.
var modelTasksByKey = perSet(func() (map[string]string, error) {
	models, err := seeds.ModelRecords()
	if err != nil {
		return nil, fmt.Errorf("reading the model catalog for task filters: %w", err)
	}
	out := make(map[string]string, len(models))
	for _, m := range models {
		out[m.ProviderId+"/"+m.ModelId] = string(m.Task)
	}
	return out, nil
})

// modelTasksOf lists the model-catalog tasks a Task filter keeps: `llm` keeps chat models of either kind (llm,
// multimodal), `code` keeps code models, and the other tasks have no language model.
func modelTasksOf(t api.Task) []string {
	switch t {
	case api.TaskLlm:
		return []string{"llm", "multimodal"}
	case api.TaskCode:
		return []string{"code"}
	}
	return nil
}

// maxOutputTask keeps the records whose model serves task; nil is no filter.
func maxOutputTask(task *api.Task) (catalog.Filter[api.MaxOutputTokensRecord], error) {
	if task == nil {
		return nil, nil
	}
	tasks, err := modelTasksByKey()
	if err != nil {
		return nil, err
	}
	keep := modelTasksOf(*task)
	return func(r *api.MaxOutputTokensRecord) bool {
		return slices.Contains(keep, tasks[r.ProviderId+"/"+r.ModelId])
	}, nil
}

func maxOutputOK(recs []api.MaxOutputTokensRecord, m listMeta) api.GetMaxOutputTokensResponseObject {
	return api.GetMaxOutputTokens200JSONResponse{MaxOutputTokens: recs, Meta: api.MaxOutputTokensMeta{AsOf: m.AsOf, Sources: m.Sources}}
}

// GetMaxOutputTokens serves the maximum output per model, largest first.
func (s *Server) GetMaxOutputTokens(ctx context.Context, req api.GetMaxOutputTokensRequestObject) (api.GetMaxOutputTokensResponseObject, error) {
	p := req.Params
	task, err := maxOutputTask(p.Task)
	if err != nil {
		return nil, err
	}
	q := catalog.Query[api.MaxOutputTokensRecord]{Provider: orDefault(p.Provider, ""), Limit: orDefault(p.Limit, defaultMaxOutputLimit)}
	return answer[api.GetMaxOutputTokens404JSONResponse, api.GetMaxOutputTokens400JSONResponse](ctx, s, wholeList, maxOutputCatalog.from, maxOutputOK, q,
		catalog.AtLeast(orDefault(p.MinOutput, 0), maxOutputTokens), task)
}
