package impl

import (
	"cmp"
	"context"

	"github.com/switchboard/switchboard/catalog"
	"github.com/switchboard/switchboard/gen/api"
)

// The agent intelligence catalogs (seeds/catalogs/<name>.json), hand-curated from the providers' official pages.
const (
	catalogAgentProtocols        = "agent_protocols"
	catalogStreamingProtocols    = "streaming_protocols"
	catalogOutputReproducibility = "output_reproducibility"
	catalogNativeTools           = "native_tools"
	catalogPiiHandling           = "pii_handling"
	catalogContextCompression    = "context_compression"
	catalogMcpSupport            = "mcp_support"
	catalogDelegationSupport     = "delegation_support"
	catalogPromptModeration      = "prompt_moderation"
)

// guaranteeNone is the deterministic_guarantee of a provider that promises no determinism.
const guaranteeNone = "none"

// Record fields the specs and filters read.
func agentProtocolProvider(r *api.AgentProtocolsRecord) string { return r.ProviderId }
func agentProtocolName(r *api.AgentProtocolsRecord) string     { return string(r.Protocol) }
func streamingProvider(r *api.StreamingProtocolsRecord) string { return r.ProviderId }
func reproducibilityProvider(r *api.OutputReproducibilityRecord) string {
	return r.ProviderId
}
func nativeToolProvider(r *api.NativeToolsRecord) string { return r.ProviderId }
func nativeToolType(r *api.NativeToolsRecord) string     { return string(r.ToolType) }
func nativeToolName(r *api.NativeToolsRecord) string     { return r.ToolName }
func piiProvider(r *api.PiiHandlingRecord) string        { return r.ProviderId }
func compressionProvider(r *api.ContextCompressionRecord) string {
	return r.ProviderId
}
func mcpProvider(r *api.McpSupportRecord) string               { return r.ProviderId }
func delegationProvider(r *api.DelegationSupportRecord) string { return r.ProviderId }
func moderationProvider(r *api.PromptModerationRecord) string  { return r.ProviderId }

// delegationProtocol is the record's protocol for the partial `protocol` match; a record without one ("")
// matches no needle.
func delegationProtocol(r *api.DelegationSupportRecord) string {
	if r.Protocol == nil {
		return ""
	}
	return *r.Protocol
}

// delegationNatural is the documented order of GET /delegation-support: provider ID, then protocol ascending
// with records without a protocol last.
func delegationNatural(a, b *api.DelegationSupportRecord) int {
	return cmp.Or(cmp.Compare(a.ProviderId, b.ProviderId), catalog.KnownFirst(a.Protocol, b.Protocol, false))
}

// isDeterministic is what `deterministic_only` keeps: a supported seed and a guarantee other than none (an
// unknown guarantee is not a guarantee).
func isDeterministic(r *api.OutputReproducibilityRecord) bool {
	return isTrue(r.SeedSupported) && r.DeterministicGuarantee != nil && *r.DeterministicGuarantee != guaranteeNone
}

// The catalogs of this file.
var (
	agentProtocolsCatalog = declare(catalog.Spec[api.AgentProtocolsRecord]{
		Name: catalogAgentProtocols, Provider: agentProtocolProvider,
		Natural: catalog.ByKeys(agentProtocolProvider, agentProtocolName),
	})
	streamingProtocolsCatalog = declare(catalog.Spec[api.StreamingProtocolsRecord]{
		Name: catalogStreamingProtocols, Provider: streamingProvider, Natural: catalog.ByKeys(streamingProvider),
	})
	outputReproducibilityCatalog = declare(catalog.Spec[api.OutputReproducibilityRecord]{
		Name: catalogOutputReproducibility, Provider: reproducibilityProvider, Natural: catalog.ByKeys(reproducibilityProvider),
	})
	nativeToolsCatalog = declare(catalog.Spec[api.NativeToolsRecord]{
		Name: catalogNativeTools, Provider: nativeToolProvider,
		Natural: catalog.ByKeys(nativeToolProvider, nativeToolType, nativeToolName),
	})
	piiHandlingCatalog = declare(catalog.Spec[api.PiiHandlingRecord]{
		Name: catalogPiiHandling, Provider: piiProvider, Natural: catalog.ByKeys(piiProvider),
	})
	contextCompressionCatalog = declare(catalog.Spec[api.ContextCompressionRecord]{
		Name: catalogContextCompression, Provider: compressionProvider, Natural: catalog.ByKeys(compressionProvider),
	})
	mcpSupportCatalog = declare(catalog.Spec[api.McpSupportRecord]{
		Name: catalogMcpSupport, Provider: mcpProvider, Natural: catalog.ByKeys(mcpProvider),
	})
	delegationSupportCatalog = declare(catalog.Spec[api.DelegationSupportRecord]{
		Name: catalogDelegationSupport, Provider: delegationProvider, Natural: delegationNatural,
	})
	promptModerationCatalog = declare(catalog.Spec[api.PromptModerationRecord]{
		Name: catalogPromptModeration, Provider: moderationProvider, Natural: catalog.ByKeys(moderationProvider),
	})
)

// The 200 answers. Counts in meta are computed over the records returned, after filtering.
func agentProtocolsOK(recs []api.AgentProtocolsRecord, m listMeta) api.GetAgentProtocolsResponseObject {
	return api.GetAgentProtocols200JSONResponse{Data: recs, Meta: api.AgentProtocolsMeta{Total: m.Total, NextCursor: m.NextCursor, AsOf: m.AsOf, Sources: m.Sources}}
}
func streamingProtocolsOK(recs []api.StreamingProtocolsRecord, m listMeta) api.GetStreamingProtocolsResponseObject {
	return api.GetStreamingProtocols200JSONResponse{Data: recs, Meta: api.StreamingProtocolsMeta{Total: m.Total, NextCursor: m.NextCursor,
		WebsocketCount: countTrue(recs, func(r *api.StreamingProtocolsRecord) *bool { return r.WebsocketSupported }),
		AsOf:           m.AsOf, Sources: m.Sources,
	}}
}
func outputReproducibilityOK(recs []api.OutputReproducibilityRecord, m listMeta) api.GetOutputReproducibilityResponseObject {
	return api.GetOutputReproducibility200JSONResponse{Data: recs, Meta: api.OutputReproducibilityMeta{Total: m.Total, NextCursor: m.NextCursor, AsOf: m.AsOf, Sources: m.Sources}}
}
func nativeToolsOK(recs []api.NativeToolsRecord, m listMeta) api.GetNativeToolsResponseObject {
	return api.GetNativeTools200JSONResponse{Data: recs, Meta: api.NativeToolsMeta{Total: m.Total, NextCursor: m.NextCursor, AsOf: m.AsOf, Sources: m.Sources}}
}
func piiHandlingOK(recs []api.PiiHandlingRecord, m listMeta) api.GetPiiHandlingResponseObject {
	return api.GetPiiHandling200JSONResponse{Data: recs, Meta: api.PiiHandlingMeta{Total: m.Total, NextCursor: m.NextCursor, AsOf: m.AsOf, Sources: m.Sources}}
}
func contextCompressionOK(recs []api.ContextCompressionRecord, m listMeta) api.GetContextCompressionResponseObject {
	return api.GetContextCompression200JSONResponse{Data: recs, Meta: api.ContextCompressionMeta{Total: m.Total, NextCursor: m.NextCursor,
		NativeCompressionCount: countTrue(recs, func(r *api.ContextCompressionRecord) *bool { return r.NativeCompression }),
		AsOf:                   m.AsOf, Sources: m.Sources,
	}}
}
func mcpSupportOK(recs []api.McpSupportRecord, m listMeta) api.GetMcpSupportResponseObject {
	return api.GetMcpSupport200JSONResponse{Data: recs, Meta: api.McpSupportMeta{Total: m.Total, NextCursor: m.NextCursor,
		McpClientCount: countTrue(recs, func(r *api.McpSupportRecord) *bool { return r.McpClientSupported }),
		AsOf:           m.AsOf, Sources: m.Sources,
	}}
}
func delegationSupportOK(recs []api.DelegationSupportRecord, m listMeta) api.GetDelegationSupportResponseObject {
	return api.GetDelegationSupport200JSONResponse{Data: recs, Meta: api.DelegationSupportMeta{Total: m.Total, NextCursor: m.NextCursor, AsOf: m.AsOf, Sources: m.Sources}}
}
func promptModerationOK(recs []api.PromptModerationRecord, m listMeta) api.GetPromptModerationResponseObject {
	return api.GetPromptModeration200JSONResponse{Data: recs, Meta: api.PromptModerationMeta{Total: m.Total, NextCursor: m.NextCursor,
		InjectionDetectionCount: countTrue(recs, func(r *api.PromptModerationRecord) *bool { return r.PromptInjectionDetection }),
		AsOf:                    m.AsOf, Sources: m.Sources,
	}}
}

// providerQuery is the query of every endpoint here: one provider or all, in the natural order.
func providerQuery[T any](provider *api.ProviderFilter) catalog.Query[T] {
	return catalog.Query[T]{Provider: orDefault(provider, "")}
}

// The handlers below only say which records each parameter keeps; answer does the rest.

// GetAgentProtocols serves agent protocol support per provider and protocol.
func (s *Server) GetAgentProtocols(ctx context.Context, req api.GetAgentProtocolsRequestObject) (api.GetAgentProtocolsResponseObject, error) {
	p := req.Params
	return answer[api.GetAgentProtocols404JSONResponse, api.GetAgentProtocols400JSONResponse](ctx, s, pageOf(req.Params.Limit, req.Params.Cursor), agentProtocolsCatalog.from, agentProtocolsOK,
		providerQuery[api.AgentProtocolsRecord](p.Provider),
		catalog.Equal(p.Protocol, func(r *api.AgentProtocolsRecord) api.AgentProtocolsProtocol { return r.Protocol }),
		catalog.Equal(p.SupportLevel, func(r *api.AgentProtocolsRecord) api.AgentProtocolsSupportLevel { return r.SupportLevel }))
}

// GetStreamingProtocols serves how each provider streams responses.
func (s *Server) GetStreamingProtocols(ctx context.Context, req api.GetStreamingProtocolsRequestObject) (api.GetStreamingProtocolsResponseObject, error) {
	p := req.Params
	proto := orDefault(p.Protocol, "")
	return answer[api.GetStreamingProtocols404JSONResponse, api.GetStreamingProtocols400JSONResponse](ctx, s, pageOf(req.Params.Limit, req.Params.Cursor), streamingProtocolsCatalog.from, streamingProtocolsOK,
		providerQuery[api.StreamingProtocolsRecord](p.Provider),
		catalog.Flag(proto == api.GetStreamingProtocolsParamsProtocolSSE,
			func(r *api.StreamingProtocolsRecord) bool { return isTrue(r.SseSupported) }),
		catalog.Flag(proto == api.GetStreamingProtocolsParamsProtocolWebSocket,
			func(r *api.StreamingProtocolsRecord) bool { return isTrue(r.WebsocketSupported) }))
}

// GetOutputReproducibility serves seed support and determinism per provider.
func (s *Server) GetOutputReproducibility(ctx context.Context, req api.GetOutputReproducibilityRequestObject) (api.GetOutputReproducibilityResponseObject, error) {
	p := req.Params
	return answer[api.GetOutputReproducibility404JSONResponse, api.GetOutputReproducibility400JSONResponse](ctx, s, pageOf(req.Params.Limit, req.Params.Cursor), outputReproducibilityCatalog.from, outputReproducibilityOK,
		providerQuery[api.OutputReproducibilityRecord](p.Provider),
		catalog.Flag(orDefault(p.DeterministicOnly, false), isDeterministic))
}

// GetNativeTools serves the tools providers run on their own side.
func (s *Server) GetNativeTools(ctx context.Context, req api.GetNativeToolsRequestObject) (api.GetNativeToolsResponseObject, error) {
	p := req.Params
	return answer[api.GetNativeTools404JSONResponse, api.GetNativeTools400JSONResponse](ctx, s, pageOf(req.Params.Limit, req.Params.Cursor), nativeToolsCatalog.from, nativeToolsOK,
		providerQuery[api.NativeToolsRecord](p.Provider),
		catalog.Equal(p.ToolType, func(r *api.NativeToolsRecord) api.NativeToolsToolType { return r.ToolType }),
		catalog.AnyContains(orDefault(p.Model, ""), func(r *api.NativeToolsRecord) []string { return r.CompatibleModels }))
}

// GetPiiHandling serves PII detection and redaction per provider.
func (s *Server) GetPiiHandling(ctx context.Context, req api.GetPiiHandlingRequestObject) (api.GetPiiHandlingResponseObject, error) {
	p := req.Params
	return answer[api.GetPiiHandling404JSONResponse, api.GetPiiHandling400JSONResponse](ctx, s, pageOf(req.Params.Limit, req.Params.Cursor), piiHandlingCatalog.from, piiHandlingOK,
		providerQuery[api.PiiHandlingRecord](p.Provider),
		trueFlag(p.DetectionOnly, func(r *api.PiiHandlingRecord) *bool { return r.PiiDetectionSupported }),
		trueFlag(p.Redaction, func(r *api.PiiHandlingRecord) *bool { return r.PiiRedactionSupported }))
}

// GetContextCompression serves context compression per provider.
func (s *Server) GetContextCompression(ctx context.Context, req api.GetContextCompressionRequestObject) (api.GetContextCompressionResponseObject, error) {
	p := req.Params
	return answer[api.GetContextCompression404JSONResponse, api.GetContextCompression400JSONResponse](ctx, s, pageOf(req.Params.Limit, req.Params.Cursor), contextCompressionCatalog.from, contextCompressionOK,
		providerQuery[api.ContextCompressionRecord](p.Provider),
		trueFlag(p.NativeOnly, func(r *api.ContextCompressionRecord) *bool { return r.NativeCompression }))
}

// GetMcpSupport serves providers' Model Context Protocol support.
func (s *Server) GetMcpSupport(ctx context.Context, req api.GetMcpSupportRequestObject) (api.GetMcpSupportResponseObject, error) {
	p := req.Params
	return answer[api.GetMcpSupport404JSONResponse, api.GetMcpSupport400JSONResponse](ctx, s, pageOf(req.Params.Limit, req.Params.Cursor), mcpSupportCatalog.from, mcpSupportOK,
		providerQuery[api.McpSupportRecord](p.Provider),
		trueFlag(p.Server, func(r *api.McpSupportRecord) *bool { return r.McpServerSupported }),
		trueFlag(p.Client, func(r *api.McpSupportRecord) *bool { return r.McpClientSupported }))
}

// GetDelegationSupport serves delegation mechanisms per provider.
func (s *Server) GetDelegationSupport(ctx context.Context, req api.GetDelegationSupportRequestObject) (api.GetDelegationSupportResponseObject, error) {
	p := req.Params
	return answer[api.GetDelegationSupport404JSONResponse, api.GetDelegationSupport400JSONResponse](ctx, s, pageOf(req.Params.Limit, req.Params.Cursor), delegationSupportCatalog.from, delegationSupportOK,
		providerQuery[api.DelegationSupportRecord](p.Provider),
		catalog.Contains(orDefault(p.Protocol, ""), delegationProtocol))
}

// GetPromptModeration serves input moderation and prompt-injection detection per provider.
func (s *Server) GetPromptModeration(ctx context.Context, req api.GetPromptModerationRequestObject) (api.GetPromptModerationResponseObject, error) {
	p := req.Params
	return answer[api.GetPromptModeration404JSONResponse, api.GetPromptModeration400JSONResponse](ctx, s, pageOf(req.Params.Limit, req.Params.Cursor), promptModerationCatalog.from, promptModerationOK,
		providerQuery[api.PromptModerationRecord](p.Provider),
		trueFlag(p.InjectionDetection, func(r *api.PromptModerationRecord) *bool { return r.PromptInjectionDetection }),
		trueFlag(p.Configurable, func(r *api.PromptModerationRecord) *bool { return r.Configurable }))
}
