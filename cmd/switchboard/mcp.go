package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard/switchboard/config"
	"github.com/switchboard/switchboard/health"
	"github.com/switchboard/switchboard/impl"
	"github.com/switchboard/switchboard/netguard"
	"github.com/switchboard/switchboard/poller"
	"github.com/switchboard/switchboard/seeds"
	"github.com/switchboard/switchboard/server"
	"github.com/switchboard/switchboard/store"
	"github.com/switchboard/switchboard/tools"
)

const mcpUsage = `usage: switchboard mcp [flags]

Speaks MCP over stdin and stdout (one JSON-RPC message per line), for desktop agents such as Claude Desktop
and Cursor that start an MCP server as a command. The tools are those of the HTTP endpoint POST /api/v1/mcp.

By default the service runs in this process: its own database (SQLite in the user cache folder unless
--database-url says otherwise), the embedded catalogs, and the status-page poller; no HTTP server is started.
With --url it forwards every message to a running Switchboard instead.

Nothing but MCP messages is written to stdout; logs go to stderr.

flags:
`

// mcpSettings are the settings of `switchboard mcp`.
type mcpSettings struct {
	url           string
	databaseURL   string
	poll          bool
	pollInterval  time.Duration
	statusBaseURL string
	// allowLoopback lets the poller reach a simulator on loopback (SWITCHBOARD_OUTBOUND_ALLOW_LOOPBACK).
	allowLoopback bool
	timeout       time.Duration
	logLevel      slog.Level
	logFormat     string
}

// mcpCmd runs `switchboard mcp`.
func mcpCmd(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	st, err := parseMCPFlags(args, getenv, stderr)
	if err != nil {
		return err
	}
	var h slog.Handler = slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: st.logLevel})
	if st.logFormat == "text" {
		h = slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: st.logLevel})
	}
	log := slog.New(h).With("component", "mcp")
	// Anything logged through the default logger must not reach stdout either.
	slog.SetDefault(log)
	if st.url != "" {
		log.Info("mcp over stdio, forwarding to a running service", "url", st.url)
		return tools.ServeStdio(ctx, stdin, stdout, tools.NewProxy(st.url, &http.Client{Timeout: st.timeout}, log), tools.StdioOptions{Logger: log})
	}
	return mcpLocal(ctx, st, log, stdin, stdout)
}

func parseMCPFlags(args []string, getenv func(string) string, stderr io.Writer) (mcpSettings, error) {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, mcpUsage); fs.PrintDefaults() }
	env := func(name, def string) string { return cmp.Or(strings.TrimSpace(getenv(name)), def) }
	rawURL := fs.String("url", env("SWITCHBOARD_MCP_URL", ""),
		"forward to a running Switchboard: its base address (http://127.0.0.1:8080) or its MCP endpoint URL [SWITCHBOARD_MCP_URL]")
	db := fs.String("database-url", env("DATABASE_URL", ""),
		"database of the in-process service: sqlite:///path/file.db, a file path, or postgres://... (default: switchboard.db in the user cache folder) [DATABASE_URL]")
	poll := fs.String("poll", env("SWITCHBOARD_POLL", "true"), "poll the providers' status pages (false: answer from what the database holds) [SWITCHBOARD_POLL]")
	interval := fs.String("poll-interval", env("SWITCHBOARD_POLL_INTERVAL", config.DefaultPollInterval.String()),
		"time between status-page poll cycles (Go duration, at least 10s) [SWITCHBOARD_POLL_INTERVAL]")
	statusBase := fs.String("status-base-url", env("SWITCHBOARD_STATUS_BASE_URL", ""),
		"when set, every status page is fetched from this host instead (for the simulator) [SWITCHBOARD_STATUS_BASE_URL]")
	loopback := fs.String("outbound-allow-loopback", env("SWITCHBOARD_OUTBOUND_ALLOW_LOOPBACK", "false"),
		"let the poller reach 127.0.0.1 (a simulator on this machine) [SWITCHBOARD_OUTBOUND_ALLOW_LOOPBACK]")
	timeout := fs.Duration("timeout", tools.DefaultProxyTimeout, "with --url: the longest wait for the service's answer to one message")
	level := fs.String("log-level", env("SWITCHBOARD_LOG_LEVEL", "info"), "log level on stderr: debug, info, warn or error [SWITCHBOARD_LOG_LEVEL]")
	format := fs.String("log-format", env("SWITCHBOARD_LOG_FORMAT", "text"), "log format on stderr: text or json [SWITCHBOARD_LOG_FORMAT]")
	if err := fs.Parse(args); err != nil {
		return mcpSettings{}, err
	}
	if fs.NArg() > 0 {
		return mcpSettings{}, fmt.Errorf("mcp: unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	st := mcpSettings{databaseURL: *db, statusBaseURL: strings.TrimRight(*statusBase, "/"), timeout: *timeout, logFormat: *format}
	var err error
	if *rawURL != "" {
		if st.url, err = mcpEndpoint(*rawURL); err != nil {
			return mcpSettings{}, fmt.Errorf("mcp: --url: %w", err)
		}
	}
	if st.allowLoopback, err = strconv.ParseBool(*loopback); err != nil {
		return mcpSettings{}, fmt.Errorf("mcp: --outbound-allow-loopback %q: want true or false", *loopback)
	}
	if u, err := url.Parse(st.statusBaseURL); st.statusBaseURL != "" && err == nil {
		if err := (netguard.Options{AllowLoopback: st.allowLoopback}).CheckHost(u.Hostname()); err != nil {
			return mcpSettings{}, fmt.Errorf("mcp: --status-base-url %q: the poller may not reach it (%v): "+
				"for a simulator on this machine set --outbound-allow-loopback (SWITCHBOARD_OUTBOUND_ALLOW_LOOPBACK=true)", st.statusBaseURL, err)
		}
	}
	if st.poll, err = strconv.ParseBool(*poll); err != nil {
		return mcpSettings{}, fmt.Errorf("mcp: --poll %q: want true or false", *poll)
	}
	if st.pollInterval, err = time.ParseDuration(*interval); err != nil || st.pollInterval < config.MinPollInterval {
		return mcpSettings{}, fmt.Errorf("mcp: --poll-interval %q: want a Go duration of at least %s", *interval, config.MinPollInterval)
	}
	if st.timeout <= 0 {
		return mcpSettings{}, fmt.Errorf("mcp: --timeout %s: must be positive", st.timeout)
	}
	if err := st.logLevel.UnmarshalText([]byte(*level)); err != nil {
		return mcpSettings{}, fmt.Errorf("mcp: --log-level %q: want debug, info, warn or error", *level)
	}
	if st.logFormat != "text" && st.logFormat != "json" {
		return mcpSettings{}, fmt.Errorf("mcp: --log-format %q: want text or json", st.logFormat)
	}
	return st, nil
}

// mcpEndpoint is the MCP endpoint's URL: raw as given when it already ends in /mcp, else raw's /api/v1/mcp.
func mcpEndpoint(raw string) (string, error) {
	u, err := url.Parse(strings.TrimRight(raw, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("want an http:// or https:// address, got %q", raw)
	}
	if !strings.HasSuffix(u.Path, "/mcp") {
		u.Path += server.APIPrefix + "/mcp"
	}
	return u.String(), nil
}

// defaultMCPDatabase is the SQLite file of the in-process service: in the user cache folder, because a desktop
// agent starts the command in a working folder of its own choosing, often one that cannot be written.
func defaultMCPDatabase() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	dir = filepath.Join(dir, "switchboard")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("creating the database folder: %w", err)
	}
	return "sqlite://" + filepath.Join(dir, "switchboard.db"), nil
}

// mcpLocal serves the tools from a service built in this process: the same handler as `serve`, without a
// listener. Tool calls run through that handler exactly as they do behind the HTTP endpoint.
func mcpLocal(ctx context.Context, st mcpSettings, log *slog.Logger, stdin io.Reader, stdout io.Writer) error {
	if st.databaseURL == "" {
		var err error
		if st.databaseURL, err = defaultMCPDatabase(); err != nil {
			return err
		}
	}
	s, err := store.Open(ctx, st.databaseURL, store.Options{Migrate: true})
	if err != nil {
		return err
	}
	defer s.Close()
	reg := seeds.Providers()
	viewOpts := health.Options{Providers: reg, Logger: log, SLA: impl.SLATargetsFor(reg)}
	if !st.poll {
		// Another process may poll into this database: follow it.
		viewOpts.MaxAge = impl.DefaultHealthMaxAge
	}
	view := health.New(s, viewOpts)
	if err := view.Refresh(ctx, time.Now()); err != nil {
		return fmt.Errorf("loading the health view: %w", err)
	}
	api := impl.New(impl.Deps{Store: s, Logger: log, Providers: reg, Health: view, PollInterval: st.pollInterval})
	if _, err := server.NewHandler(ctx, server.Options{API: api, Store: s, Logger: log}); err != nil {
		return err
	}
	bridge := api.MCP()
	if bridge == nil {
		return errors.New("the MCP tools were not built")
	}
	pollCtx, stopPoll := context.WithCancel(context.WithoutCancel(ctx))
	pollDone := make(chan struct{})
	if st.poll {
		p, err := poller.New(poller.Config{
			Interval: st.pollInterval, StatusBaseURL: st.statusBaseURL, Outbound: netguard.Options{AllowLoopback: st.allowLoopback},
			UserAgent: "Switchboard-status-poller/" + version() + " (+https://github.com/switchboard/switchboard)",
			AfterCycle: func(ctx context.Context) {
				if err := view.Refresh(ctx, time.Now()); err != nil && ctx.Err() == nil {
					log.Error("refreshing the health view", "error", err)
				}
			},
		}, s, reg.All(), log.With("component", "poller"))
		if err != nil {
			stopPoll()
			return err
		}
		go func() {
			defer close(pollDone)
			if err := p.Run(pollCtx); err != nil && pollCtx.Err() == nil {
				log.Error("the poller stopped", "error", err)
			}
		}()
	} else {
		close(pollDone)
	}
	log.Info("mcp over stdio", "database", s.Engine(), "poll", st.poll, "tools", len(bridge.Tools()), "version", version())
	err = tools.ServeStdio(ctx, stdin, stdout, bridge, tools.StdioOptions{Logger: log})
	// A cycle in flight ends within its fetch timeout; its checks are written before the store closes.
	stopPoll()
	select {
	case <-pollDone:
	case <-time.After(15 * time.Second):
		log.Warn("the poller did not stop in time")
	}
	return err
}
