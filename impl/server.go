// Package impl fills the generated strict server interface. Handlers are thin: they translate between the
// generated request and response types and the plain functions that hold the logic.
package impl

import (
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/switchboard/switchboard/config"
	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/health"
	"github.com/switchboard/switchboard/seeds"
	"github.com/switchboard/switchboard/store"
	"github.com/switchboard/switchboard/tools"
	"github.com/switchboard/switchboard/trust"
	"github.com/switchboard/switchboard/webhooks"
	"github.com/switchboard/switchboard/x402"
)

// Deps are what the handlers need.
type Deps struct {
	Store   store.Store
	BaseURL string // public base address, without a trailing slash
	Logger  *slog.Logger
	// Now is the clock answers are computed at; time.Now when nil. Tests set it.
	Now func() time.Time
	// Providers is the registry of monitored providers; seeds.Providers() when nil.
	Providers *seeds.Registry
	// Health is the in-memory view of the polling history the live endpoints answer from. When nil, New makes
	// one over Store that loads itself at first use and reloads in the background once older than a minute;
	// the server command refreshes it at start and the poller after each cycle (Server.HealthView gives it).
	Health *health.View
	// Payments is the premium route's x402 setup (x402.ParseSettings). Without a payee (the zero value) the
	// route answers 503, never free data.
	Payments x402.Config
	// WebhookAllowLoopback lets webhook callbacks point at this machine (SWITCHBOARD_WEBHOOK_ALLOW_LOOPBACK).
	WebhookAllowLoopback bool
	// WebhookLimits bound subscriptions per client, per callback host and in all (zero fields: the defaults).
	WebhookLimits webhooks.Limits
	// WebhookSecrets seals subscription secrets at rest (SWITCHBOARD_WEBHOOK_SECRET_KEY); nil stores them as given.
	WebhookSecrets *webhooks.SecretBox
	// Catalogs reports the catalogs in service and their run-time refresh for /health (the server command
	// wires the refresher's state); nil: the catalogs in service with the refresh off.
	Catalogs func() api.CatalogsState
	// PollInterval is the time between poll cycles (config.DefaultPollInterval when not positive): the
	// Retry-After of a decision whose candidates are all down when no recovery estimate is known.
	PollInterval time.Duration
	// MCPMaxAnswerBytes bounds what one MCP request may gather from endpoint answers
	// (tools.DefaultMaxAnswerBytes when not positive); tests lower it.
	MCPMaxAnswerBytes int
	// TrustQuota is how many attestations and handoffs one client may create per day (SWITCHBOARD_TRUST_QUOTA);
	// 0 is no quota.
	TrustQuota int
}

// Server implements every operation of the document: the assertion below fails to compile when one is missing.
type Server struct {
	deps   Deps
	trust  *trust.Service
	health *health.View
	// healthBody is the last encoded /health answer (see GetHealth).
	healthBody atomic.Pointer[cachedHealth]
	// liveMemo are the decision endpoints' statuses of the current snapshot and second (see decisionInputs).
	liveMemo atomic.Pointer[liveStatuses]
	// mcp is the MCP bridge, built once the server's handler exists (see UseHandler).
	mcp atomic.Pointer[tools.Bridge]
	// payments guards the premium route; nil when payments are not configured (see premium.go).
	payments *x402.Service
	webhooks *webhooks.Service
	// catalogs are the reference catalogs, decoded and indexed once (see catalogs.go).
	catalogs func() (*catalogSet, error)
}

var _ api.StrictServerInterface = (*Server)(nil)

// New returns the handlers over deps.
func New(deps Deps) *Server {
	if deps.Logger == nil {
		deps.Logger = slog.Default()
	}
	if deps.Now == nil {
		deps.Now = time.Now
	}
	if deps.Providers == nil {
		deps.Providers = seeds.Providers()
	}
	if deps.PollInterval <= 0 {
		deps.PollInterval = config.DefaultPollInterval
	}
	catalogs := catalogsFor(deps.Providers)
	if deps.Health == nil {
		deps.Health = health.New(deps.Store, health.Options{
			Providers: deps.Providers, Logger: deps.Logger, MaxAge: DefaultHealthMaxAge, SLA: slaTargets(catalogs),
		})
	}
	s := &Server{
		catalogs: catalogs,
		deps:     deps,
		trust:    &trust.Service{Store: deps.Store, KnownProvider: deps.Providers.Known, Quota: deps.TrustQuota},
		health:   deps.Health,
		payments: newPayments(deps),
		webhooks: &webhooks.Service{
			Store: deps.Store, KnownProvider: deps.Providers.Known, AllowLoopback: deps.WebhookAllowLoopback, Now: deps.Now,
			Limits: deps.WebhookLimits, Secrets: deps.WebhookSecrets,
		},
	}
	// Build the catalogs now, off the caller's path, so the first catalog request does not pay for decoding
	// them (about 30 ms); a request arriving earlier waits for the same build.
	go func() {
		if _, err := s.catalogs(); err != nil {
			deps.Logger.Error("loading the catalogs", "err", err)
		}
	}()
	return s
}

func (s *Server) now() time.Time { return s.deps.Now().UTC() }
