// Command switchboard runs the Switchboard service.
//
//	switchboard serve     serve the API (migrates the database first)
//	switchboard migrate   apply the database migrations and exit
//	switchboard simulate  serve simulated status pages of the 52 providers, with a control API
//	switchboard status    print the providers' live status from a running server (a terminal client)
//	switchboard mcp       speak MCP over stdin/stdout, for desktop agents (Claude Desktop, Cursor, ...)
//	switchboard catalogs  approve or reject a held catalog build: catalogs held | approve <digest> | reject <digest>
//	switchboard version   print the version
//
// Every setting is an environment variable with a matching flag; see `switchboard serve -h`.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/switchboard/switchboard/config"
	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/health"
	"github.com/switchboard/switchboard/impl"
	"github.com/switchboard/switchboard/metrics"
	"github.com/switchboard/switchboard/netguard"
	"github.com/switchboard/switchboard/poller"
	"github.com/switchboard/switchboard/refresh"
	"github.com/switchboard/switchboard/seeds"
	"github.com/switchboard/switchboard/server"
	"github.com/switchboard/switchboard/simulator"
	"github.com/switchboard/switchboard/store"
	"github.com/switchboard/switchboard/web"
	"github.com/switchboard/switchboard/webhooks"
	"github.com/switchboard/switchboard/x402"
)

const usage = `usage: switchboard <command> [flags]

commands:
  serve     serve the API on SWITCHBOARD_ADDR (applies migrations first)
  migrate   apply the database migrations and exit
  simulate  serve simulated status pages for the 52 providers on SWITCHBOARD_ADDR, with a control API
            (PUT /_control/{provider_id}); point serve at it with SWITCHBOARD_STATUS_BASE_URL
            and SWITCHBOARD_OUTBOUND_ALLOW_LOOPBACK=true
  status    print the providers' live status from a running server: status [provider] [--server URL] [--watch]
  mcp       speak MCP over stdin/stdout for desktop agents (Claude Desktop, Cursor): the service in process,
            or a running one with --url
  catalogs  decide a catalog build the refresh held: catalogs held | approve <digest> | reject <digest>
  version   print the version

Run 'switchboard <command> -h' for the settings.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			// The status command has printed the server's answer already.
			os.Exit(ee.code)
		}
		if errors.Is(err, flag.ErrHelp) {
			// -h asked for the usage, which has been printed: not a failure.
			os.Exit(0)
		}
		fatal(os.Stderr, os.Args[1:], os.Getenv, err)
		os.Exit(2)
	}
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errors.New("no command given")
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "version", "--version", "-version":
		v, commit, built := buildInfo()
		fmt.Fprintf(stdout, "switchboard %s (commit %s, built %s)\n", v, commit, built)
		return nil
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	case "status":
		return status(ctx, rest, getenv, stdout, stderr)
	case "mcp":
		return mcpCmd(ctx, rest, getenv, os.Stdin, stdout, stderr)
	case "catalogs":
		return catalogsCmd(ctx, rest, getenv, stdout, stderr)
	case "serve", "migrate", "simulate":
	default:
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("unknown command %q", cmd)
	}
	st, err := config.Load(cmd, rest, getenv, stderr)
	if err != nil {
		return err
	}
	log := newLogger(st, stderr)
	if cmd == "migrate" {
		s, err := store.Open(ctx, st.DatabaseURL, store.Options{Migrate: true})
		if err != nil {
			return err
		}
		log.Info("migrations applied", "database", s.Engine())
		return s.Close()
	}
	if cmd == "simulate" {
		return simulate(ctx, st, log, nil)
	}
	return serve(ctx, st, log, nil)
}

// simulate serves the status-page simulator until ctx ends.
func simulate(ctx context.Context, st config.Settings, log *slog.Logger, ready chan<- string) error {
	sim := simulator.New(seeds.Providers().All())
	srv := &http.Server{
		Handler:           sim.Handler(),
		ReadHeaderTimeout: 5 * time.Second,
		// No WriteTimeout: the "timeout" fail mode holds a request for up to two minutes on purpose.
		IdleTimeout: 120 * time.Second,
		ErrorLog:    slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	err := serveUntil(ctx, srv, st.Addr, ready, func(addr string) {
		log.Info("simulating status pages", "addr", addr, "providers", len(sim.Providers()),
			"control", "PUT /_control/{provider_id}")
	})
	if err != nil {
		return err
	}
	sim.Close() // releases requests held by the timeout mode
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return srv.Shutdown(shutdownCtx)
}

// serve runs the HTTP server until ctx ends, then drains it. When ready is not nil it receives the bound
// address once the server accepts connections (tests listen on port 0).
func serve(ctx context.Context, st config.Settings, log *slog.Logger, ready chan<- string) error {
	// Payment settings are checked before anything starts: a bad one fails serve, naming the setting.
	payments, err := x402.ParseSettings(st.X402)
	if err != nil {
		return err
	}
	payments.Outbound = outboundGuard(st.Outbound)
	// The webhook key is checked before anything starts too; without one, secrets are stored as given.
	var hookSecrets *webhooks.SecretBox
	if st.WebhookSecretKey != "" {
		key, err := webhooks.ParseSecretKey(st.WebhookSecretKey)
		if err != nil {
			return fmt.Errorf("SWITCHBOARD_WEBHOOK_SECRET_KEY: %w", err)
		}
		if hookSecrets, err = webhooks.NewSecretBox(key); err != nil {
			return err
		}
	}
	s, err := store.Open(ctx, st.DatabaseURL, store.Options{Migrate: true})
	if err != nil {
		return err
	}
	defer s.Close()

	reg := seeds.Providers()
	viewOpts := health.Options{Providers: reg, Logger: log, SLA: impl.SLATargetsFor(reg)}
	if !st.Poll {
		// Without a poller here, another process writes the checks: follow the store on our own.
		viewOpts.MaxAge = impl.DefaultHealthMaxAge
	}
	view := health.New(s, viewOpts)
	if err := view.Refresh(ctx, time.Now()); err != nil {
		return fmt.Errorf("loading the health view: %w", err)
	}
	// The catalog refresher loads the newest stored build at once (a restart keeps refreshed catalogs) and, when
	// SWITCHBOARD_CATALOG_REFRESH is set, rebuilds on that interval; hooks is set before it runs.
	var hooks *webhooks.Worker
	catalogs, err := refresh.New(refresh.Options{
		Interval: st.CatalogRefresh, SourcesBaseURL: st.CatalogSourcesURL, NPMRegistry: st.CatalogNPMRegistry, Outbound: outboundGuard(st.Outbound),
		Store: s, Logger: log.With("component", "catalogs"),
		OnInstall: func(*seeds.Set) { hooks.Notify() }, // the refresh's events go out now
	})
	if err != nil {
		return fmt.Errorf("starting the catalog refresh: %w", err)
	}
	mx := metrics.New(metrics.Options{Health: view, Logger: log})
	mx.RegisterCatalogRefresh(func() metrics.CatalogRefresh {
		st := catalogs.State()
		return metrics.CatalogRefresh{Held: st.Held != nil, HeldBuilds: st.HeldBuilds}
	})
	payments.OnOutcome = mx.ObservePayment
	pages, err := web.New(web.Options{Health: view, Logger: log})
	if err != nil {
		return fmt.Errorf("building the pages: %w", err)
	}
	hosts := server.NewHostPolicy(st.Addr, st.BaseURL, st.MCPAllowedHosts)
	h, err := server.NewHandler(ctx, server.Options{
		Pages: pages,
		API: impl.New(impl.Deps{Store: s, BaseURL: st.BaseURL, Logger: log, Providers: reg, Health: view, Payments: payments,
			WebhookAllowLoopback: st.WebhookAllowLoopback, PollInterval: st.PollInterval, WebhookSecrets: hookSecrets,
			WebhookLimits: webhooks.Limits{PerClient: st.WebhookMaxPerClient, PerHost: st.WebhookMaxPerHost, Total: st.WebhookMaxTotal},
			TrustQuota:    st.TrustQuota,
			Catalogs:      func() api.CatalogsState { return catalogsState(catalogs.State()) }}),
		Store:      s,
		Logger:     log,
		Instrument: mx.Middleware,

		MaxInFlight:        st.MaxInFlight,
		MaxPerClient:       st.MaxPerClient,
		BodyReadTimeout:    st.BodyReadTimeout,
		RequestTimeout:     st.RequestTimeout,
		RateLimitPerMinute: st.RateLimit,
		TrustedProxies:     st.TrustedProxies,
		MCPHosts:           hosts,
		GuardHosts:         !hosts.Public, // bound to loopback: DNS rebinding must not reach the API
		ObserveAdmission:   mx.RegisterAdmission,
	})
	if err != nil {
		return err
	}
	// The webhook worker drains the outbox the poller writes. It runs on a context the signal does not cancel:
	// it is stopped after the HTTP server has drained, and on any early return before the store closes.
	hooks, err = webhooks.New(webhooks.Config{
		AllowLoopback: st.WebhookAllowLoopback,
		Lease:         st.WebhookLease,
		Secrets:       hookSecrets,
		UserAgent:     "Switchboard-Webhooks/" + version() + " (+https://github.com/switchboard/switchboard)",
		Logger:        log.With("component", "webhooks"),
	}, s)
	if err != nil {
		return err
	}
	mx.RegisterWebhooks(hooks.Stats)
	if err := hooks.Start(context.WithoutCancel(ctx)); err != nil {
		return err
	}
	defer stopWebhooks(hooks, log)
	retentionDone := make(chan struct{})
	go func() {
		defer close(retentionDone)
		retention{store: s, trust: st.TrustRetention, webhooks: st.WebhookRetention, log: log.With("component", "retention")}.run(ctx)
	}()
	defer func() { <-retentionDone }() // ctx has ended by then; a purge in flight stops before the store closes
	catalogsCtx, stopCatalogs := context.WithCancel(ctx)
	catalogsDone := make(chan struct{})
	go func() {
		defer close(catalogsDone)
		catalogs.Run(catalogsCtx)
	}()
	defer func() { stopCatalogs(); <-catalogsDone }() // a refresh in flight stops before the store closes
	pollDone := make(chan struct{})
	if st.Poll {
		p, err := poller.New(poller.Config{
			Interval: st.PollInterval, SlowThreshold: st.SlowThreshold, StatusBaseURL: st.StatusBaseURL, Outbound: outboundGuard(st.Outbound),
			UserAgent: "Switchboard-status-poller/" + version() + " (+https://github.com/switchboard/switchboard)",
			AfterCycle: func(ctx context.Context) {
				if err := view.Refresh(ctx, time.Now()); err != nil && ctx.Err() == nil {
					log.Error("refreshing the health view", "error", err)
				}
				hooks.Notify() // events of this cycle go out now rather than at the worker's next poll
			},
			OnCycle: mx.ObserveCycle,
		}, s, reg.All(), log.With("component", "poller"))
		if err != nil {
			return err
		}
		go func() {
			defer close(pollDone)
			if err := p.Run(ctx); err != nil && ctx.Err() == nil {
				log.Error("the poller stopped", "error", err)
			}
		}()
	} else {
		close(pollDone)
	}
	if st.MetricsAddr != "" {
		stopMetrics, err := serveMetrics(ctx, st.MetricsAddr, mx.Handler(), log)
		if err != nil {
			return err
		}
		defer stopMetrics()
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		// Headers and body within 10 s (the body within SWITCHBOARD_BODY_READ_TIMEOUT, read before a slot is
		// taken); net/http lifts the deadline once the request is read, so it never cuts a long answer.
		ReadTimeout:    10 * time.Second,
		WriteTimeout:   60 * time.Second,
		IdleTimeout:    120 * time.Second,
		MaxHeaderBytes: 64 << 10,
		ErrorLog:       slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		// Requests do not inherit the signal's context: Shutdown lets those in flight finish instead of
		// cancelling them the moment SIGTERM arrives.
	}
	err = serveUntil(ctx, srv, st.Addr, ready, func(addr string) {
		log.Info("serving", "addr", addr, "base_url", st.BaseURL, "database", s.Engine(), "version", version())
		// Optional features are reported once the service runs, never ahead of a start-up error.
		if payments.Enabled() {
			log.Info("premium payments enabled", "network", payments.Network.Name, "pay_to", payments.PayTo.Hex(),
				"asset", payments.Asset.Hex(), "price", payments.Price.String(), "facilitator", payments.FacilitatorURL)
		} else {
			log.Warn("premium payments not configured (SWITCHBOARD_X402_PAY_TO is empty): the premium endpoint answers 503")
		}
		warnStaleCatalogs(log, time.Now())
		if hookSecrets == nil {
			log.Warn("webhook secrets are stored unencrypted (SWITCHBOARD_WEBHOOK_SECRET_KEY is empty): only file permissions protect them")
		}
	})
	if err != nil {
		return err
	}
	log.Info("shutting down: draining requests")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutting down: %w", err)
	}
	// A cycle in flight ends within its fetch timeout + 2 s; its checks are written before the store closes.
	select {
	case <-pollDone:
	case <-shutdownCtx.Done():
		log.Warn("the poller did not stop in time")
	}
	stopWebhooks(hooks, log)
	log.Info("stopped")
	return nil
}

// serveMetrics serves /metrics alone on a listener of its own (SWITCHBOARD_METRICS_ADDR): the metrics name
// internal state (routes, clients in the gate, payments) that the public listener does not show. It returns
// the function that stops it.
func serveMetrics(ctx context.Context, addr string, metrics http.Handler, log *slog.Logger) (func(), error) {
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listening for metrics on %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", metrics)
	nosniff := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff") // as on every answer of the service
		mux.ServeHTTP(w, r)
	})
	srv := &http.Server{Handler: nosniff, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second,
		WriteTimeout: 30 * time.Second, IdleTimeout: 120 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("the metrics listener stopped", "error", err)
		}
	}()
	log.Info("serving metrics", "addr", ln.Addr().String())
	return func() { _ = srv.Close() }, nil
}

// stopWebhooks lets the deliveries in flight finish (each within its 15 s timeout) and records them. Any it
// cannot wait for are sent again after their lease, with the same webhook-id.
func stopWebhooks(w *webhooks.Worker, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := w.Stop(ctx); err != nil {
		log.Warn("the webhook worker did not stop in time", "error", err)
	}
}

// serveUntil listens on addr, says so through started (with the bound address, which differs from addr for
// port 0) and on ready, then serves until ctx ends (nil) or the server fails. Shutting down is the caller's.
func serveUntil(ctx context.Context, srv *http.Server, addr string, ready chan<- string, started func(bound string)) error {
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", addr, err)
	}
	started(ln.Addr().String())
	if ready != nil {
		ready <- ln.Addr().String()
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serving: %w", err)
	case <-ctx.Done():
		return nil
	}
}

func newLogger(st config.Settings, w io.Writer) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(st.LogLevel)) // config.Load has checked it: the zero level (info) is never reached
	opts := &slog.HandlerOptions{Level: level}
	if st.LogFormat == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}

func version() string {
	v, _, _ := buildInfo()
	return v
}

// buildInfo is the module version ("dev" for a local build), the VCS commit and its time as the Go toolchain
// stamped them into the binary ("unknown" when it did not, as for go run or a build outside a checkout).
func buildInfo() (version, commit, built string) {
	version, commit, built = "dev", "unknown", "unknown"
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return
	}
	if bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			commit = s.Value
		case "vcs.time":
			built = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				defer func() { commit += "-dirty" }()
			}
		}
	}
	return
}

// fatal writes the error that stops the program as one log line, in the log format the command line or the
// environment asks for (JSON unless text is asked), so that a log collector reads it like every other line.
func fatal(w io.Writer, args []string, getenv func(string) string, err error) {
	format := getenv("SWITCHBOARD_LOG_FORMAT")
	for i, a := range args {
		switch {
		case a == "-log-format" || a == "--log-format":
			if i+1 < len(args) {
				format = args[i+1]
			}
		case strings.HasPrefix(a, "-log-format=") || strings.HasPrefix(a, "--log-format="):
			format = a[strings.IndexByte(a, '=')+1:]
		}
	}
	var h slog.Handler = slog.NewJSONHandler(w, nil)
	if strings.TrimSpace(format) == "text" {
		h = slog.NewTextHandler(w, nil)
	}
	slog.New(h).Error("switchboard stopped", "error", err.Error())
}

// warnStaleCatalogs says once, at start, which catalogs stand on sources older than seeds.StaleAfter, so that an
// operator knows to rebuild them (make catalogs-fetch, make catalogs) before a stale price misleads a caller.
func warnStaleCatalogs(log *slog.Logger, now time.Time) {
	stale, err := seeds.StaleCatalogs(now)
	if err != nil {
		log.Error("checking catalog ages", "err", err)
		return
	}
	if len(stale) == 0 {
		return
	}
	names := make([]string, len(stale))
	for i, c := range stale {
		names[i] = c.Catalog
	}
	log.Warn("catalog data is stale: the newest source behind these catalogs is older than 45 days; rebuild them with make catalogs-fetch and make catalogs",
		"catalogs", strings.Join(names, ","), "count", len(stale), "oldest_newest_source", stale[0].Newest.Format(time.DateOnly))
}

// outboundGuard is the guard of every call the service makes on its own initiative, from the settings.
func outboundGuard(o config.OutboundSettings) netguard.Options {
	return netguard.Options{AllowLoopback: o.AllowLoopback, Allow: o.AllowCIDRs, Proxy: o.Proxy, RedirectHosts: o.RedirectHosts}
}

// catalogsState is the refresher's state as /health shows it.
func catalogsState(st refresh.State) api.CatalogsState {
	out := api.CatalogsState{Refresh: api.CatalogsStateRefresh(st.Mode), Origin: api.CatalogsStateOrigin(st.Origin), Digest: st.Digest,
		LastAttempt: st.LastAttempt, LastSuccess: st.LastSuccess}
	if h := st.Held; h != nil {
		shrunk := make([]api.ShrunkCatalog, len(h.Hold.Shrunk))
		for i, s := range h.Hold.Shrunk {
			shrunk[i] = api.ShrunkCatalog{Catalog: s.Catalog, Before: s.Before, After: s.After}
		}
		held := api.HeldCatalogBuild{Digest: h.Digest, BuiltAt: h.BuiltAt, PricesChanged: h.Hold.PricesChanged, PricesTotal: h.Hold.PricesTotal,
			RecordsRemoved: h.Hold.RecordsRemoved, RecordsTotal: h.Hold.RecordsTotal, PricesHeld: h.Hold.PricesHeld, ShrunkCatalogs: shrunk}
		out.Held = &held
	}
	if st.LastError != "" {
		e := st.LastError
		out.LastError = &e
	}
	return out
}
