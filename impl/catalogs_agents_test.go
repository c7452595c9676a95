package impl_test

import (
	"cmp"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/apitest"
	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/seeds"
)

// The agent intelligence endpoints (the agent catalogs). Expectations are computed from the seeds files, decoded here into
// local types, with plain loops; answers are compared in full and in order.

// TestAgentIntelligenceCatalogs runs every the agent catalogs endpoint against the real server (responses are validated
// against the OpenAPI document by apitest).
func TestAgentIntelligenceCatalogs(t *testing.T) {
	s := catServer(t)
	t.Run("AgentProtocols", func(t *testing.T) { testAgentProtocols(t, s) })
	t.Run("StreamingProtocols", func(t *testing.T) { testStreamingProtocols(t, s) })
	t.Run("OutputReproducibility", func(t *testing.T) { testOutputReproducibility(t, s) })
	t.Run("NativeTools", func(t *testing.T) { testNativeTools(t, s) })
	t.Run("PiiHandling", func(t *testing.T) { testPiiHandling(t, s) })
	t.Run("ContextCompression", func(t *testing.T) { testContextCompression(t, s) })
	t.Run("McpSupport", func(t *testing.T) { testMcpSupport(t, s) })
	t.Run("DelegationSupport", func(t *testing.T) { testDelegationSupport(t, s) })
	t.Run("PromptModeration", func(t *testing.T) { testPromptModeration(t, s) })
}

// gdRefusals checks the errors every the agent catalogs endpoint shares, plus its own bad parameters (name -> value).
func gdRefusals(t *testing.T, s *apitest.Server, path string, bad map[string]string) {
	t.Helper()
	catRefused(t, s, path+"?provider=nope", 404, "provider")
	catRefused(t, s, path+"?provider=", 400, "provider")
	for param, value := range bad {
		catRefused(t, s, path+"?"+param+"="+value, 400, "parameter "+param)
	}
}

type gdAgentProtocol struct {
	ProviderID   string `json:"provider_id"`
	ProviderName string `json:"provider_name"`
	Protocol     string `json:"protocol"`
	SupportLevel string `json:"support_level"`
}

func testAgentProtocols(t *testing.T, s *apitest.Server) {
	type r = gdAgentProtocol
	key := func(x r) string { return x.ProviderID + "/" + x.Protocol }
	recs := catSorted(t, "agent_protocols", func(a, b r) int {
		return cmp.Or(strings.Compare(a.ProviderID, b.ProviderID), strings.Compare(a.Protocol, b.Protocol))
	})
	check := catChecker(t, s, "agent_protocols", key, func(b api.AgentProtocolsResponse) catAnswer {
		keys := catKeys(b.Data, func(x api.AgentProtocolsRecord) string { return x.ProviderId + "/" + string(x.Protocol) })
		return catAnswer{keys, b.Meta.AsOf.String(), b.Meta.Sources, len(b.Data)}
	})
	check("/api/v1/agent-protocols", recs)
	check("/api/v1/agent-protocols?provider=google-vertex-ai", catSplits(t, "provider", catWhere(recs, func(x r) bool { return x.ProviderID == "google-vertex-ai" }), recs))
	check("/api/v1/agent-protocols?provider=cartesia", nil) // a known provider without a confirmed protocol
	check("/api/v1/agent-protocols?protocol=A2A", catSplits(t, "protocol", catWhere(recs, func(x r) bool { return x.Protocol == "A2A" }), recs))
	check("/api/v1/agent-protocols?protocol=MCP", catWhere(recs, func(x r) bool { return x.Protocol == "MCP" }))
	check("/api/v1/agent-protocols?protocol=ANP", nil) // a valid protocol no provider supports
	check("/api/v1/agent-protocols?support_level=partial", catSplits(t, "support_level", catWhere(recs, func(x r) bool { return x.SupportLevel == "partial" }), recs))
	check("/api/v1/agent-protocols?provider=google-gemini&protocol=MCP&support_level=partial", catWhere(recs, func(x r) bool {
		return x.ProviderID == "google-gemini" && x.Protocol == "MCP" && x.SupportLevel == "partial"
	}))
	// provider_name is the registry's display name.
	for _, x := range catGet[api.AgentProtocolsResponse](t, s, "/api/v1/agent-protocols").Data {
		if p, _ := seeds.Providers().Get(x.ProviderId); x.ProviderName != p.Name {
			t.Errorf("agent-protocols %s: provider_name %q, registry %q", x.ProviderId, x.ProviderName, p.Name)
		}
	}
	gdRefusals(t, s, "/api/v1/agent-protocols", map[string]string{"protocol": "mcp", "support_level": "full"})
}

type gdStreaming struct {
	ProviderID         string `json:"provider_id"`
	SseSupported       *bool  `json:"sse_supported"`
	WebsocketSupported *bool  `json:"websocket_supported"`
}

func testStreamingProtocols(t *testing.T, s *apitest.Server) {
	type r = gdStreaming
	recs := catSorted(t, "streaming_protocols", catByKey(func(x r) string { return x.ProviderID }))
	var websockets int
	check := catChecker(t, s, "streaming_protocols", func(x r) string { return x.ProviderID }, func(b api.StreamingProtocolsResponse) catAnswer {
		websockets = b.Meta.WebsocketCount
		return catAnswer{catKeys(b.Data, func(x api.StreamingProtocolsRecord) string { return x.ProviderId }), b.Meta.AsOf.String(), b.Meta.Sources, len(b.Data)}
	})
	for path, want := range map[string][]r{
		"/api/v1/streaming-protocols":                                       recs,
		"/api/v1/streaming-protocols?provider=anthropic":                    catWhere(recs, func(x r) bool { return x.ProviderID == "anthropic" }),
		"/api/v1/streaming-protocols?protocol=SSE":                          catSplits(t, "protocol=SSE", catWhere(recs, func(x r) bool { return catTrue(x.SseSupported) }), recs),
		"/api/v1/streaming-protocols?protocol=WebSocket":                    catSplits(t, "protocol=WebSocket", catWhere(recs, func(x r) bool { return catTrue(x.WebsocketSupported) }), recs),
		"/api/v1/streaming-protocols?provider=anthropic&protocol=WebSocket": nil, // SSE only
	} {
		check(path, want)
		if n := len(catWhere(want, func(x r) bool { return catTrue(x.WebsocketSupported) })); websockets != n {
			t.Errorf("%s: meta.websocket_count %d, records say %d", path, websockets, n)
		}
	}
	gdRefusals(t, s, "/api/v1/streaming-protocols", map[string]string{"protocol": "sse"})
}

type gdReproducibility struct {
	ProviderID             string  `json:"provider_id"`
	SeedSupported          *bool   `json:"seed_supported"`
	DeterministicGuarantee *string `json:"deterministic_guarantee"`
}

func testOutputReproducibility(t *testing.T, s *apitest.Server) {
	type r = gdReproducibility
	recs := catSorted(t, "output_reproducibility", catByKey(func(x r) string { return x.ProviderID }))
	check := catChecker(t, s, "output_reproducibility", func(x r) string { return x.ProviderID }, func(b api.OutputReproducibilityResponse) catAnswer {
		return catAnswer{catKeys(b.Data, func(x api.OutputReproducibilityRecord) string { return x.ProviderId }), b.Meta.AsOf.String(), b.Meta.Sources, len(b.Data)}
	})
	deterministic := catSplits(t, "deterministic_only", catWhere(recs, func(x r) bool {
		return catTrue(x.SeedSupported) && x.DeterministicGuarantee != nil && *x.DeterministicGuarantee != "none"
	}), recs)
	// The filter must drop seeded providers whose guarantee is unknown, not only those without a seed.
	if len(catWhere(recs, func(x r) bool { return catTrue(x.SeedSupported) && x.DeterministicGuarantee == nil })) == 0 {
		t.Error("no seeded provider with an unknown guarantee: deterministic_only's null case is not exercised")
	}
	check("/api/v1/output-reproducibility", recs)
	check("/api/v1/output-reproducibility?deterministic_only=false", recs)
	check("/api/v1/output-reproducibility?deterministic_only=true", deterministic)
	check("/api/v1/output-reproducibility?provider=openai&deterministic_only=true", catWhere(deterministic, func(x r) bool { return x.ProviderID == "openai" }))
	check("/api/v1/output-reproducibility?provider=anthropic&deterministic_only=true", nil) // no seed
	gdRefusals(t, s, "/api/v1/output-reproducibility", map[string]string{"deterministic_only": "maybe"})
}

type gdNativeTool struct {
	ProviderID       string   `json:"provider_id"`
	ToolName         string   `json:"tool_name"`
	ToolType         string   `json:"tool_type"`
	CompatibleModels []string `json:"compatible_models"`
}

func testNativeTools(t *testing.T, s *apitest.Server) {
	type r = gdNativeTool
	key := func(x r) string { return x.ProviderID + "/" + x.ToolType + "/" + x.ToolName }
	recs := catSorted(t, "native_tools", func(a, b r) int {
		return cmp.Or(strings.Compare(a.ProviderID, b.ProviderID), strings.Compare(a.ToolType, b.ToolType), strings.Compare(a.ToolName, b.ToolName))
	})
	check := catChecker(t, s, "native_tools", key, func(b api.NativeToolsResponse) catAnswer {
		keys := catKeys(b.Data, func(x api.NativeToolsRecord) string {
			return x.ProviderId + "/" + string(x.ToolType) + "/" + x.ToolName
		})
		return catAnswer{keys, b.Meta.AsOf.String(), b.Meta.Sources, len(b.Data)}
	})
	usable := func(needle string) func(r) bool {
		return func(x r) bool {
			for _, m := range x.CompatibleModels {
				if strings.Contains(strings.ToLower(m), strings.ToLower(needle)) {
					return true
				}
			}
			return false
		}
	}
	check("/api/v1/native-tools", recs)
	check("/api/v1/native-tools?provider=anthropic", catWhere(recs, func(x r) bool { return x.ProviderID == "anthropic" }))
	check("/api/v1/native-tools?provider=deepseek", nil) // a known provider without hosted tools
	check("/api/v1/native-tools?tool_type=web_search", catSplits(t, "tool_type", catWhere(recs, func(x r) bool { return x.ToolType == "web_search" }), recs))
	check("/api/v1/native-tools?tool_type=memory", catWhere(recs, func(x r) bool { return x.ToolType == "memory" }))
	// model: partial, case-insensitive, on any compatible model; tools with no published models never match.
	check("/api/v1/native-tools?model=GEMINI-2.5", catSplits(t, "model", catWhere(recs, usable("gemini-2.5")), recs))
	check("/api/v1/native-tools?model=gpt-4.1-nano", catWhere(recs, usable("gpt-4.1-nano")))
	check("/api/v1/native-tools?model=no-such-model", nil)
	check("/api/v1/native-tools?provider=openai&tool_type=web_search&model=o3", catWhere(recs, func(x r) bool {
		return x.ProviderID == "openai" && x.ToolType == "web_search" && usable("o3")(x)
	}))
	gdRefusals(t, s, "/api/v1/native-tools", map[string]string{"tool_type": "browser", "model": ""})
	catRefused(t, s, "/api/v1/native-tools?model="+strings.Repeat("m", 201), 400, "parameter model")
}

type gdPii struct {
	ProviderID            string `json:"provider_id"`
	PiiDetectionSupported *bool  `json:"pii_detection_supported"`
	PiiRedactionSupported *bool  `json:"pii_redaction_supported"`
}

func testPiiHandling(t *testing.T, s *apitest.Server) {
	type r = gdPii
	recs := catSorted(t, "pii_handling", catByKey(func(x r) string { return x.ProviderID }))
	check := catChecker(t, s, "pii_handling", func(x r) string { return x.ProviderID }, func(b api.PiiHandlingResponse) catAnswer {
		return catAnswer{catKeys(b.Data, func(x api.PiiHandlingRecord) string { return x.ProviderId }), b.Meta.AsOf.String(), b.Meta.Sources, len(b.Data)}
	})
	detect := catSplits(t, "detection_only", catWhere(recs, func(x r) bool { return catTrue(x.PiiDetectionSupported) }), recs)
	redact := catSplits(t, "redaction", catWhere(recs, func(x r) bool { return catTrue(x.PiiRedactionSupported) }), recs)
	if len(redact) == len(detect) {
		t.Error("every detecting provider also redacts: the two filters are not told apart")
	}
	check("/api/v1/pii-handling", recs)
	check("/api/v1/pii-handling?detection_only=false&redaction=false", recs)
	check("/api/v1/pii-handling?detection_only=true", detect)
	check("/api/v1/pii-handling?redaction=true", redact)
	check("/api/v1/pii-handling?detection_only=true&redaction=true", catWhere(detect, func(x r) bool { return catTrue(x.PiiRedactionSupported) }))
	check("/api/v1/pii-handling?provider=aws-bedrock&redaction=true", catWhere(redact, func(x r) bool { return x.ProviderID == "aws-bedrock" }))
	check("/api/v1/pii-handling?provider=openai&detection_only=true", nil)
	gdRefusals(t, s, "/api/v1/pii-handling", map[string]string{"detection_only": "2", "redaction": "yes"})
}

type gdCompression struct {
	ProviderID        string `json:"provider_id"`
	NativeCompression *bool  `json:"native_compression"`
}

func testContextCompression(t *testing.T, s *apitest.Server) {
	type r = gdCompression
	recs := catSorted(t, "context_compression", catByKey(func(x r) string { return x.ProviderID }))
	var native int
	check := catChecker(t, s, "context_compression", func(x r) string { return x.ProviderID }, func(b api.ContextCompressionResponse) catAnswer {
		native = b.Meta.NativeCompressionCount
		return catAnswer{catKeys(b.Data, func(x api.ContextCompressionRecord) string { return x.ProviderId }), b.Meta.AsOf.String(), b.Meta.Sources, len(b.Data)}
	})
	for path, want := range map[string][]r{
		"/api/v1/context-compression":                                    recs,
		"/api/v1/context-compression?native_only=false":                  recs,
		"/api/v1/context-compression?native_only=true":                   catSplits(t, "native_only", catWhere(recs, func(x r) bool { return catTrue(x.NativeCompression) }), recs),
		"/api/v1/context-compression?provider=anthropic":                 catWhere(recs, func(x r) bool { return x.ProviderID == "anthropic" }),
		"/api/v1/context-compression?provider=deepseek&native_only=true": nil,
	} {
		check(path, want)
		if n := len(catWhere(want, func(x r) bool { return catTrue(x.NativeCompression) })); native != n {
			t.Errorf("%s: meta.native_compression_count %d, records say %d", path, native, n)
		}
	}
	gdRefusals(t, s, "/api/v1/context-compression", map[string]string{"native_only": "maybe"})
}

type gdMcp struct {
	ProviderID         string `json:"provider_id"`
	McpServerSupported *bool  `json:"mcp_server_supported"`
	McpClientSupported *bool  `json:"mcp_client_supported"`
}

func testMcpSupport(t *testing.T, s *apitest.Server) {
	type r = gdMcp
	recs := catSorted(t, "mcp_support", catByKey(func(x r) string { return x.ProviderID }))
	var clients int
	check := catChecker(t, s, "mcp_support", func(x r) string { return x.ProviderID }, func(b api.McpSupportResponse) catAnswer {
		clients = b.Meta.McpClientCount
		return catAnswer{catKeys(b.Data, func(x api.McpSupportRecord) string { return x.ProviderId }), b.Meta.AsOf.String(), b.Meta.Sources, len(b.Data)}
	})
	server := catSplits(t, "server", catWhere(recs, func(x r) bool { return catTrue(x.McpServerSupported) }), recs)
	client := catSplits(t, "client", catWhere(recs, func(x r) bool { return catTrue(x.McpClientSupported) }), recs)
	both := catWhere(server, func(x r) bool { return catTrue(x.McpClientSupported) })
	if len(both) == 0 || len(both) == len(server) || len(both) == len(client) {
		t.Errorf("server and client overlap on %d of %d/%d providers: the combination is not exercised", len(both), len(server), len(client))
	}
	for path, want := range map[string][]r{
		"/api/v1/mcp-support":                             recs,
		"/api/v1/mcp-support?server=false&client=false":   recs,
		"/api/v1/mcp-support?server=true":                 server,
		"/api/v1/mcp-support?client=true":                 client,
		"/api/v1/mcp-support?server=true&client=true":     both,
		"/api/v1/mcp-support?provider=anthropic":          catWhere(recs, func(x r) bool { return x.ProviderID == "anthropic" }),
		"/api/v1/mcp-support?provider=tavily&client=true": nil, // server only
	} {
		check(path, want)
		if n := len(catWhere(want, func(x r) bool { return catTrue(x.McpClientSupported) })); clients != n {
			t.Errorf("%s: meta.mcp_client_count %d, records say %d", path, clients, n)
		}
	}
	gdRefusals(t, s, "/api/v1/mcp-support", map[string]string{"server": "maybe", "client": "1x"})
}

type gdDelegation struct {
	ProviderID string  `json:"provider_id"`
	Protocol   *string `json:"protocol"`
}

func testDelegationSupport(t *testing.T, s *apitest.Server) {
	type r = gdDelegation
	proto := func(x r) string {
		if x.Protocol == nil {
			return "(none)"
		}
		return *x.Protocol
	}
	key := func(x r) string { return x.ProviderID + "/" + proto(x) }
	// provider, then protocol ascending with null last.
	recs := catSorted(t, "delegation_support", func(a, b r) int {
		if c := strings.Compare(a.ProviderID, b.ProviderID); c != 0 {
			return c
		}
		switch {
		case a.Protocol == nil && b.Protocol == nil:
			return 0
		case a.Protocol == nil:
			return 1
		case b.Protocol == nil:
			return -1
		}
		return strings.Compare(*a.Protocol, *b.Protocol)
	})
	check := catChecker(t, s, "delegation_support", key, func(b api.DelegationSupportResponse) catAnswer {
		keys := catKeys(b.Data, func(x api.DelegationSupportRecord) string {
			return key(r{ProviderID: x.ProviderId, Protocol: x.Protocol})
		})
		return catAnswer{keys, b.Meta.AsOf.String(), b.Meta.Sources, len(b.Data)}
	})
	matching := func(needle string) func(r) bool {
		return func(x r) bool {
			return x.Protocol != nil && strings.Contains(strings.ToLower(*x.Protocol), strings.ToLower(needle))
		}
	}
	check("/api/v1/delegation-support", recs)
	check("/api/v1/delegation-support?provider=openai", catSplits(t, "provider", catWhere(recs, func(x r) bool { return x.ProviderID == "openai" }), recs))
	check("/api/v1/delegation-support?provider=aws-bedrock", catWhere(recs, func(x r) bool { return x.ProviderID == "aws-bedrock" }))
	check("/api/v1/delegation-support?protocol=oauth", catSplits(t, "protocol", catWhere(recs, matching("oauth")), recs))
	check("/api/v1/delegation-support?protocol=TOKEN", catWhere(recs, matching("token")))
	check("/api/v1/delegation-support?protocol=no-such-mechanism", nil)
	check("/api/v1/delegation-support?provider=anthropic&protocol=key", nil) // anthropic's record has no protocol
	gdRefusals(t, s, "/api/v1/delegation-support", map[string]string{"protocol": ""})
	catRefused(t, s, "/api/v1/delegation-support?protocol="+strings.Repeat("p", 101), 400, "parameter protocol")
}

type gdModeration struct {
	ProviderID               string `json:"provider_id"`
	PromptInjectionDetection *bool  `json:"prompt_injection_detection"`
	Configurable             *bool  `json:"configurable"`
}

func testPromptModeration(t *testing.T, s *apitest.Server) {
	type r = gdModeration
	recs := catSorted(t, "prompt_moderation", catByKey(func(x r) string { return x.ProviderID }))
	var injection int
	check := catChecker(t, s, "prompt_moderation", func(x r) string { return x.ProviderID }, func(b api.PromptModerationResponse) catAnswer {
		injection = b.Meta.InjectionDetectionCount
		return catAnswer{catKeys(b.Data, func(x api.PromptModerationRecord) string { return x.ProviderId }), b.Meta.AsOf.String(), b.Meta.Sources, len(b.Data)}
	})
	detects := catSplits(t, "injection_detection", catWhere(recs, func(x r) bool { return catTrue(x.PromptInjectionDetection) }), recs)
	configurable := catSplits(t, "configurable", catWhere(recs, func(x r) bool { return catTrue(x.Configurable) }), recs)
	for path, want := range map[string][]r{
		"/api/v1/prompt-moderation": recs,
		"/api/v1/prompt-moderation?injection_detection=false&configurable=false": recs,
		"/api/v1/prompt-moderation?injection_detection=true":                     detects,
		"/api/v1/prompt-moderation?configurable=true":                            configurable,
		"/api/v1/prompt-moderation?injection_detection=true&configurable=true":   catWhere(detects, func(x r) bool { return catTrue(x.Configurable) }),
		"/api/v1/prompt-moderation?provider=aws-bedrock":                         catWhere(recs, func(x r) bool { return x.ProviderID == "aws-bedrock" }),
		"/api/v1/prompt-moderation?provider=openai&injection_detection=true":     nil,
	} {
		check(path, want)
		if n := len(catWhere(want, func(x r) bool { return catTrue(x.PromptInjectionDetection) })); injection != n {
			t.Errorf("%s: meta.injection_detection_count %d, records say %d", path, injection, n)
		}
	}
	gdRefusals(t, s, "/api/v1/prompt-moderation", map[string]string{"injection_detection": "maybe", "configurable": "on"})
}
