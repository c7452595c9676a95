// Package impl fills the generated strict server interface. Handlers are thin: they translate between the
// generated request and response types and the plain functions that hold the logic.
package impl

import (
	"log/slog"

	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/seeds"
	"github.com/switchboard/switchboard/store"
	"github.com/switchboard/switchboard/trust"
)

// Deps are what the handlers need.
type Deps struct {
	Store   store.Store
	BaseURL string // public base address, without a trailing slash
	Logger  *slog.Logger
	// Providers is the registry of monitored providers; seeds.Providers() when nil.
	Providers *seeds.Registry
}

// Server implements api.StrictServerInterface. Operations not written yet fall through to the embedded
// api.StrictUnimplemented and answer 501; the README's coverage table lists them.
type Server struct {
	api.StrictUnimplemented
	deps  Deps
	trust *trust.Service
}

var _ api.StrictServerInterface = (*Server)(nil)

// New returns the handlers over deps.
func New(deps Deps) *Server {
	if deps.Logger == nil {
		deps.Logger = slog.Default()
	}
	if deps.Providers == nil {
		deps.Providers = seeds.Providers()
	}
	return &Server{
		deps:  deps,
		trust: &trust.Service{Store: deps.Store, KnownProvider: deps.Providers.Known},
	}
}
