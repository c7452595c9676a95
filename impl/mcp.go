package impl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/tools"
)

// UseHandler builds the MCP bridge: the tools generated from doc, whose calls run through h, the service's whole
// handler. The server package calls it once its handler is built (server.HandlerUser).
func (s *Server) UseHandler(doc *openapi3.T, h http.Handler) error {
	b, err := tools.New(doc, h, tools.Options{Logger: s.deps.Logger, Hooks: s.mcpHooks(), MaxAnswerBytes: s.deps.MCPMaxAnswerBytes})
	if err != nil {
		return fmt.Errorf("building the MCP tools from the OpenAPI document: %w", err)
	}
	if err := s.useDiscovery(b); err != nil {
		return fmt.Errorf("describing the paid route for x402 discovery: %w", err)
	}
	s.mcp.Store(b)
	return nil
}

// errNoBridge means the server was used without the handler that builds the MCP bridge (server.NewHandler).
var errNoBridge = errors.New("the MCP bridge is not built: the server was not handed its HTTP handler")

// PostMcp answers one MCP (JSON-RPC 2.0) message or batch. The request validator has already answered a body
// that is not JSON (parse error, 400); everything else, including malformed JSON-RPC, gets a JSON-RPC answer.
func (s *Server) PostMcp(ctx context.Context, req api.PostMcpRequestObject) (api.PostMcpResponseObject, error) {
	b := s.mcp.Load()
	if b == nil {
		return nil, errNoBridge
	}
	if tools.IsToolCall(ctx) {
		// A tool's request cannot reach here today (no tool wraps this operation); refuse rather than recurse.
		return nil, errors.New("a tool call reached the MCP endpoint")
	}
	var body any
	if req.Body != nil {
		body = *req.Body
	}
	// The generated handler decoded the body; encoding it again gives the bridge the same JSON (member order and
	// number spelling aside, which JSON-RPC does not depend on).
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("re-encoding the MCP request: %w", err)
	}
	out := b.Handle(ctx, raw)
	if out == nil {
		return api.PostMcp202Response{}, nil
	}
	return mcpAnswer(out), nil
}

// mcpAnswer writes the bridge's encoded JSON-RPC answer as it is.
type mcpAnswer []byte

func (a mcpAnswer) VisitPostMcpResponse(w http.ResponseWriter) error {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(a)
	return err
}

// MCP is the MCP bridge built by UseHandler (nil before), for the stdio transport (`switchboard mcp`), which
// speaks to it without the HTTP endpoint.
func (s *Server) MCP() *tools.Bridge { return s.mcp.Load() }
