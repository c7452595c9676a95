// Package config reads the service's settings. Every setting is an environment variable with a matching flag,
// typed (string, duration, int, bool); a flag wins over the variable, the variable over the default. The variable names are fixed: other issues and
// outside checks use them.
package config

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard/switchboard/netguard"
)

// Settings are the service's settings after defaults are applied and values checked.
type Settings struct {
	Addr          string        // SWITCHBOARD_ADDR: listen address
	DatabaseURL   string        // DATABASE_URL: sqlite://file.db (default switchboard.db) or postgres://...
	BaseURL       string        // SWITCHBOARD_BASE_URL: public base address used in verify_url and the like
	PollInterval  time.Duration // SWITCHBOARD_POLL_INTERVAL: time between poll cycles
	StatusBaseURL string        // SWITCHBOARD_STATUS_BASE_URL: fetch every status page from this host instead
	SlowThreshold time.Duration // SWITCHBOARD_SLOW_THRESHOLD: an operational page fetched slower than this reads degraded
	Poll          bool          // SWITCHBOARD_POLL: false serves without polling (tests, read-only replicas)
	// WebhookAllowLoopback lets webhook callbacks reach 127.0.0.1 over http or https (local use and tests).
	WebhookAllowLoopback bool // SWITCHBOARD_WEBHOOK_ALLOW_LOOPBACK
	// WebhookLease is how long a delivery claimed by a worker is kept from the others, so that one claimed by a
	// replica that died is sent again after it (0: the delivery timeout plus a minute).
	WebhookLease time.Duration // SWITCHBOARD_WEBHOOK_LEASE
	// WebhookSecretKey is the raw text of the operator key that encrypts subscription secrets at rest (checked
	// by webhooks.ParseSecretKey); empty stores them as given, in a database file only the service can read.
	WebhookSecretKey string // SWITCHBOARD_WEBHOOK_SECRET_KEY
	// WebhookMaxPerClient subscriptions may be created per client per hour.
	WebhookMaxPerClient int // SWITCHBOARD_WEBHOOK_MAX_PER_CLIENT
	// WebhookMaxPerHost live subscriptions may share one callback host name.
	WebhookMaxPerHost int // SWITCHBOARD_WEBHOOK_MAX_PER_HOST
	// WebhookMaxTotal live subscriptions may exist in all.
	WebhookMaxTotal int // SWITCHBOARD_WEBHOOK_MAX_TOTAL
	// CatalogRefresh is the time between run-time catalog refreshes; 0 (the default) is off.
	CatalogRefresh time.Duration // SWITCHBOARD_CATALOG_REFRESH
	// CatalogSourcesURL replaces the scheme and host of every upstream catalog source (tests and mirrors).
	CatalogSourcesURL string // SWITCHBOARD_CATALOG_SOURCES_URL
	// CatalogNPMRegistry is the npm registry of the npm catalog sources; "off" skips them.
	CatalogNPMRegistry string // SWITCHBOARD_CATALOG_NPM_REGISTRY
	// Outbound configures every call the service makes on its own initiative (status pages, catalog sources, the
	// x402 facilitator); webhook callbacks keep their own loopback setting.
	Outbound OutboundSettings
	// X402 holds the premium route's payment settings, checked by package x402.
	X402      X402Settings
	LogFormat string // SWITCHBOARD_LOG_FORMAT: json or text
	LogLevel  string // SWITCHBOARD_LOG_LEVEL: debug, info, warn, error

	RateLimit      int           // SWITCHBOARD_RATE_LIMIT: requests per minute per client; 0 (default) is off
	TrustedProxies []string      // SWITCHBOARD_TRUSTED_PROXIES: comma-separated CIDRs whose X-Forwarded-For names the client
	MaxInFlight    int           // SWITCHBOARD_MAX_IN_FLIGHT: requests served at once before 503
	RequestTimeout time.Duration // SWITCHBOARD_REQUEST_TIMEOUT: every request's deadline
	MaxPerClient   int           // SWITCHBOARD_MAX_PER_CLIENT: requests of one client at once before 429
	// BodyReadTimeout is how long a request body may take to arrive; it is read before the request takes a slot.
	BodyReadTimeout time.Duration // SWITCHBOARD_BODY_READ_TIMEOUT
	// MetricsAddr is the listen address of /metrics, a listener of its own; empty (the default): not served.
	MetricsAddr string // SWITCHBOARD_METRICS_ADDR
	// TrustQuota is how many attestations and handoffs one client may create per day; 0 is no quota.
	TrustQuota int // SWITCHBOARD_TRUST_QUOTA
	// TrustRetention is how long attestations and handoffs are kept; WebhookRetention how long a deactivated
	// webhook subscription is kept. Older ones are purged hourly.
	TrustRetention   time.Duration // SWITCHBOARD_TRUST_RETENTION
	WebhookRetention time.Duration // SWITCHBOARD_WEBHOOK_RETENTION
	// MCPAllowedHosts are hosts the MCP endpoint accepts in Host and Origin besides the local names (bound to
	// loopback) or the base URL's host; "*" accepts any.
	MCPAllowedHosts []string // SWITCHBOARD_MCP_ALLOWED_HOSTS
}

// OutboundSettings are the guard of outbound calls (package netguard).
type OutboundSettings struct {
	// AllowLoopback lets the poller, the catalog refresh and the facilitator client reach 127.0.0.0/8 and ::1
	// (the simulator, a local facilitator stand-in, tests).
	AllowLoopback bool // SWITCHBOARD_OUTBOUND_ALLOW_LOOPBACK
	// AllowCIDRs are internal ranges they may reach anyway (a mirror or a facilitator on the operator's network).
	AllowCIDRs []netip.Prefix // SWITCHBOARD_OUTBOUND_ALLOW_CIDRS
	// Proxy is the HTTP proxy every outbound call goes through; nil: none (the proxy environment is not read).
	Proxy *url.URL // SWITCHBOARD_OUTBOUND_PROXY
	// RedirectHosts are hosts a redirect may lead to besides the host first asked.
	RedirectHosts []string // SWITCHBOARD_OUTBOUND_REDIRECT_HOSTS
}

// X402Settings are the raw x402 settings; package x402 validates them and fills network-dependent defaults.
type X402Settings struct {
	PayTo          string // SWITCHBOARD_X402_PAY_TO: the address paid; without it the premium route answers 503
	Network        string // SWITCHBOARD_X402_NETWORK: default base
	Asset          string // SWITCHBOARD_X402_ASSET: default the USDC contract of the network
	FacilitatorURL string // SWITCHBOARD_X402_FACILITATOR_URL
	PriceUSD       string // SWITCHBOARD_X402_PRICE_USD: default 0.001
	// The limits below bound what unpaid or unpayable attempts can cost (a store write and a facilitator call
	// each); package x402 checks them.
	ClientLimit string // SWITCHBOARD_X402_CLIENT_LIMIT: payment attempts per client per minute, default 20
	PayerLimit  string // SWITCHBOARD_X402_PAYER_LIMIT: payment attempts per payer per minute, default 10
	Concurrency string // SWITCHBOARD_X402_FACILITATOR_CONCURRENCY: payments with the facilitator at once, default 16
}

// Defaults.
const (
	DefaultAddr         = "127.0.0.1:8080"
	DefaultPollInterval = 10 * time.Minute
	// MinPollInterval keeps a misconfiguration from hammering 52 status pages.
	MinPollInterval = 10 * time.Second
	// MinCatalogRefresh keeps a misconfiguration from running refreshes (a few seconds of CPU and several MB of
	// downloads each) back to back.
	MinCatalogRefresh = 10 * time.Second
)

// kind is how a setting's text is read; it names the flag's type in -h.
type kind string

const (
	text     kind = "string"
	duration kind = "duration"
	number   kind = "int"
	boolean  kind = "bool"
)

// check reads v as a value of k.
func (k kind) check(v string) error {
	var err error
	switch k {
	case duration:
		_, err = time.ParseDuration(v)
	case number:
		_, err = strconv.Atoi(v)
	case boolean:
		_, err = strconv.ParseBool(v)
	}
	if err != nil {
		return fmt.Errorf("want a %s", map[kind]string{duration: "Go duration such as 30s", number: "whole number", boolean: "true or false"}[k])
	}
	return nil
}

// Which commands read a setting: every setting is serve's; migrate needs the database, simulate an address.
const (
	forServe    = 1 << iota
	forMigrate  = 1 << iota
	forSimulate = 1 << iota
	forAll      = forServe | forMigrate | forSimulate
)

var commands = map[string]int{"serve": forServe, "migrate": forMigrate, "simulate": forSimulate}

type setting struct {
	env, flag, def, usage string
	kind                  kind
	cmds                  int
	dst                   *string
}

// value is a setting's flag: typed for -h and checked as it is set, so a bad flag is named as the flag.
type value struct{ s *setting }

func (v value) String() string {
	if v.s == nil || v.s.dst == nil {
		return ""
	}
	return *v.s.dst
}
func (v value) Set(x string) error {
	if err := v.s.kind.check(x); err != nil {
		return err
	}
	*v.s.dst = x
	return nil
}
func (v value) IsBoolFlag() bool { return v.s.kind == boolean }

// Load parses args (without the program or subcommand name) of the command name (serve, migrate or simulate)
// with getenv supplying the variables: a command knows only the settings it reads, and the others keep their
// defaults. An error names what the user used: the flag when one was given, else the variable. output receives
// the usage text on -h.
func Load(name string, args []string, getenv func(string) string, output io.Writer) (Settings, error) {
	var raw struct {
		addr, db, base, poll, status, slow, polling, loopback, lease, logFormat, logLevel string
		rateLimit, proxies, inFlight, timeout, mcpHosts                                   string
		perClient, bodyTimeout, metricsAddr                                               string
		trustQuota, trustRetention, webhookRetention                                      string
		hookKey, hookPerClient, hookPerHost, hookTotal                                    string
		catalogRefresh, catalogSources, catalogNPM                                        string
		outLoopback, outCIDRs, outProxy, outRedirects                                     string
		x402                                                                              X402Settings
	}
	list := []*setting{
		{"SWITCHBOARD_ADDR", "addr", DefaultAddr, "listen address (host:port)", text, forServe | forSimulate, &raw.addr},
		{"DATABASE_URL", "database-url", "", "database: sqlite:///path/file.db, a file path, or postgres://... (default: SQLite file switchboard.db in the working folder)", text, forServe | forMigrate, &raw.db},
		{"SWITCHBOARD_BASE_URL", "base-url", "", "public base address used in verify_url and manage_url (default: http:// + the listen address)", text, forServe, &raw.base},
		{"SWITCHBOARD_POLL_INTERVAL", "poll-interval", DefaultPollInterval.String(), "time between status-page poll cycles (at least 10s)", duration, forServe, &raw.poll},
		{"SWITCHBOARD_STATUS_BASE_URL", "status-base-url", "", "when set, every status page is fetched from this host instead (for the simulator)", text, forServe, &raw.status},
		{"SWITCHBOARD_SLOW_THRESHOLD", "slow-threshold", "3s", "an operational status page fetched slower than this reads degraded", duration, forServe, &raw.slow},
		{"SWITCHBOARD_POLL", "poll", "true", "poll the status pages (false: serve what the database holds)", boolean, forServe, &raw.polling},
		{"SWITCHBOARD_WEBHOOK_ALLOW_LOOPBACK", "webhook-allow-loopback", "false", "let webhook callbacks reach 127.0.0.1 over http or https (local use and tests only)", boolean, forServe, &raw.loopback},
		{"SWITCHBOARD_WEBHOOK_LEASE", "webhook-lease", "0s", "how long a claimed webhook delivery is kept from other workers; one claimed by a replica that died is sent again after it (0: the delivery timeout plus a minute)", duration, forServe, &raw.lease},
		{"SWITCHBOARD_WEBHOOK_SECRET_KEY", "webhook-secret-key", "", "32-byte key (base64 or hex) that encrypts webhook secrets in the database with AES-GCM (openssl rand -base64 32); empty stores them as given", text, forServe, &raw.hookKey},
		{"SWITCHBOARD_WEBHOOK_MAX_PER_CLIENT", "webhook-max-per-client", "10", "webhook subscriptions one client may create per hour", number, forServe, &raw.hookPerClient},
		{"SWITCHBOARD_WEBHOOK_MAX_PER_HOST", "webhook-max-per-host", "10", "live webhook subscriptions one callback host name may have", number, forServe, &raw.hookPerHost},
		{"SWITCHBOARD_WEBHOOK_MAX_TOTAL", "webhook-max-total", "10000", "live webhook subscriptions in all", number, forServe, &raw.hookTotal},
		{"SWITCHBOARD_CATALOG_REFRESH", "catalog-refresh", "0s", "time between run-time catalog refreshes from the upstream sources (0: off; at least 10s otherwise; make run uses 24h)", duration, forServe, &raw.catalogRefresh},
		{"SWITCHBOARD_CATALOG_SOURCES_URL", "catalog-sources-url", "", "when set, every upstream catalog source is fetched from this host instead (tests, mirrors)", text, forServe, &raw.catalogSources},
		{"SWITCHBOARD_CATALOG_NPM_REGISTRY", "catalog-npm-registry", "", "npm registry the catalog refresh takes the npm catalog sources from (https://registry.npmjs.org; read as data, only releases the embedded manifest accepts); empty or off: the embedded release stays", text, forServe, &raw.catalogNPM},
		{"SWITCHBOARD_OUTBOUND_ALLOW_LOOPBACK", "outbound-allow-loopback", "false", "let the poller, the catalog refresh and the x402 facilitator client reach 127.0.0.1 (the simulator, local stand-ins and tests only)", boolean, forServe, &raw.outLoopback},
		{"SWITCHBOARD_OUTBOUND_ALLOW_CIDRS", "outbound-allow-cidrs", "", "comma-separated internal ranges (CIDR) outbound calls may reach anyway, such as a mirror on your network; private, link-local and metadata addresses are refused otherwise", text, forServe, &raw.outCIDRs},
		{"SWITCHBOARD_OUTBOUND_PROXY", "outbound-proxy", "", "HTTP proxy for outbound calls (http://host:port); empty: none, and HTTP(S)_PROXY are not read", text, forServe, &raw.outProxy},
		{"SWITCHBOARD_OUTBOUND_REDIRECT_HOSTS", "outbound-redirect-hosts", "", "comma-separated hosts an outbound call may be redirected to besides its own host (redirects must be https)", text, forServe, &raw.outRedirects},
		{"SWITCHBOARD_X402_PAY_TO", "x402-pay-to", "", "address paid for the premium endpoint (without it the route answers 503)", text, forServe, &raw.x402.PayTo},
		{"SWITCHBOARD_X402_NETWORK", "x402-network", "base", "x402 network of the payments: base or base-sepolia (or eip155:8453, eip155:84532)", text, forServe, &raw.x402.Network},
		{"SWITCHBOARD_X402_ASSET", "x402-asset", "", "token contract of the payments (default: USDC of the network)", text, forServe, &raw.x402.Asset},
		{"SWITCHBOARD_X402_FACILITATOR_URL", "x402-facilitator-url", "", "x402 facilitator that verifies and settles payments", text, forServe, &raw.x402.FacilitatorURL},
		{"SWITCHBOARD_X402_PRICE_USD", "x402-price-usd", "0.001", "price of one premium call in USD", text, forServe, &raw.x402.PriceUSD},
		{"SWITCHBOARD_X402_CLIENT_LIMIT", "x402-client-limit", "20", "payment attempts one client may make per minute on the paid route and tool before 429", number, forServe, &raw.x402.ClientLimit},
		{"SWITCHBOARD_X402_PAYER_LIMIT", "x402-payer-limit", "10", "payment attempts per minute from one payer address before 429", number, forServe, &raw.x402.PayerLimit},
		{"SWITCHBOARD_X402_FACILITATOR_CONCURRENCY", "x402-facilitator-concurrency", "16", "payments being verified or settled with the facilitator at once; beyond it 503", number, forServe, &raw.x402.Concurrency},
		{"SWITCHBOARD_LOG_FORMAT", "log-format", "json", "log format: json or text", text, forAll, &raw.logFormat},
		{"SWITCHBOARD_LOG_LEVEL", "log-level", "info", "log level: debug, info, warn or error", text, forAll, &raw.logLevel},
		{"SWITCHBOARD_RATE_LIMIT", "rate-limit", "0", "requests per minute per client before 429 (0: no limit)", number, forServe, &raw.rateLimit},
		{"SWITCHBOARD_TRUSTED_PROXIES", "trusted-proxies", "", "comma-separated CIDRs of reverse proxies whose X-Forwarded-For names the client for the rate limit", text, forServe, &raw.proxies},
		{"SWITCHBOARD_MAX_IN_FLIGHT", "max-in-flight", "256", "requests served at once; beyond it requests wait briefly, then get 503", number, forServe, &raw.inFlight},
		{"SWITCHBOARD_REQUEST_TIMEOUT", "request-timeout", "30s", "deadline of every request", duration, forServe, &raw.timeout},
		{"SWITCHBOARD_MAX_PER_CLIENT", "max-per-client", "64", "requests of one client at once, counted before the shared in-flight slots; beyond it 429", number, forServe, &raw.perClient},
		{"SWITCHBOARD_BODY_READ_TIMEOUT", "body-read-timeout", "5s", "how long a request body may take to arrive (read before the request takes an in-flight slot); beyond it 408", duration, forServe, &raw.bodyTimeout},
		{"SWITCHBOARD_METRICS_ADDR", "metrics-addr", "", "listen address of /metrics, a listener of its own such as 127.0.0.1:9090 (empty: metrics are not served)", text, forServe, &raw.metricsAddr},
		{"SWITCHBOARD_TRUST_QUOTA", "trust-quota", "1000", "attestations and handoffs one client may create per day; beyond it 429 (0: no quota)", number, forServe, &raw.trustQuota},
		{"SWITCHBOARD_TRUST_RETENTION", "trust-retention", "2160h", "how long attestations and handoffs are kept (default 90 days); older ones are purged", duration, forServe, &raw.trustRetention},
		{"SWITCHBOARD_WEBHOOK_RETENTION", "webhook-retention", "720h", "how long a deactivated webhook subscription is kept (default 30 days); older ones are purged with their deliveries", duration, forServe, &raw.webhookRetention},
		{"SWITCHBOARD_MCP_ALLOWED_HOSTS", "mcp-allowed-hosts", "", "comma-separated hosts (name or name:port) accepted in Host (and Origin on MCP) besides local names or the base URL's host: by the MCP endpoint, and by the whole API when bound to loopback; * for any", text, forServe, &raw.mcpHosts},
	}
	cmd, ok := commands[name]
	if !ok {
		return Settings{}, fmt.Errorf("config: unknown command %q", name)
	}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(output)
	fromEnv := map[string]string{} // flag -> the variable its value came from
	for _, s := range list {
		*s.dst = s.def
		if s.cmds&cmd == 0 {
			continue // not this command's: the default, whatever the environment says
		}
		if v := strings.TrimSpace(getenv(s.env)); v != "" {
			if err := s.kind.check(v); err != nil {
				return Settings{}, fmt.Errorf("%s %q: %w", s.env, v, err)
			}
			*s.dst, fromEnv[s.flag] = v, s.env
		}
		// The type name in backquotes is what -h shows after the flag.
		usage := s.usage + " [" + s.env + "]"
		if s.kind != boolean {
			usage = s.usage + " [" + s.env + "; `" + string(s.kind) + "`]"
		}
		fs.Var(value{s}, s.flag, usage)
	}
	if err := fs.Parse(args); err != nil {
		return Settings{}, err
	}
	if fs.NArg() > 0 {
		return Settings{}, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	// source names a setting as the user gave it: the flag, the variable, or the default.
	source := func(flagName string) string {
		switch {
		case given[flagName]:
			return "-" + flagName
		case fromEnv[flagName] != "":
			return fromEnv[flagName]
		}
		return "default " + flagName
	}

	st := Settings{Addr: raw.addr, DatabaseURL: raw.db, StatusBaseURL: strings.TrimRight(raw.status, "/"),
		LogFormat: raw.logFormat, LogLevel: raw.logLevel}
	if _, _, err := net.SplitHostPort(st.Addr); err != nil {
		return Settings{}, fmt.Errorf("%s %q: want host:port: %w", source("addr"), st.Addr, err)
	}
	d, err := time.ParseDuration(raw.poll)
	if err != nil {
		return Settings{}, fmt.Errorf("%s %q: %w", source("poll-interval"), raw.poll, err)
	}
	if d < MinPollInterval {
		return Settings{}, fmt.Errorf("%s %s: must be at least %s", source("poll-interval"), d, MinPollInterval)
	}
	st.PollInterval = d
	if st.SlowThreshold, err = time.ParseDuration(raw.slow); err != nil || st.SlowThreshold <= 0 {
		return Settings{}, fmt.Errorf("%s %q: want a positive Go duration such as 3s", source("slow-threshold"), raw.slow)
	}
	if st.Poll, err = strconv.ParseBool(raw.polling); err != nil {
		return Settings{}, fmt.Errorf("%s %q: want true or false", source("poll"), raw.polling)
	}
	if st.WebhookAllowLoopback, err = strconv.ParseBool(raw.loopback); err != nil {
		return Settings{}, fmt.Errorf("%s %q: want true or false", source("webhook-allow-loopback"), raw.loopback)
	}
	if st.WebhookLease, err = time.ParseDuration(raw.lease); err != nil || st.WebhookLease < 0 {
		return Settings{}, fmt.Errorf("%s %q: want 0 or a positive Go duration such as 90s", source("webhook-lease"), raw.lease)
	}
	st.WebhookSecretKey = raw.hookKey
	for _, n := range []struct {
		flag, raw string
		dst       *int
	}{
		{"webhook-max-per-client", raw.hookPerClient, &st.WebhookMaxPerClient},
		{"webhook-max-per-host", raw.hookPerHost, &st.WebhookMaxPerHost},
		{"webhook-max-total", raw.hookTotal, &st.WebhookMaxTotal},
	} {
		if *n.dst, err = strconv.Atoi(n.raw); err != nil || *n.dst < 1 {
			return Settings{}, fmt.Errorf("%s %q: want a positive whole number", source(n.flag), n.raw)
		}
	}
	st.X402 = raw.x402
	if st.Outbound, err = outbound(raw.outLoopback, raw.outCIDRs, raw.outProxy, raw.outRedirects, source); err != nil {
		return Settings{}, err
	}
	if st.CatalogRefresh, err = time.ParseDuration(raw.catalogRefresh); err != nil || st.CatalogRefresh < 0 || (st.CatalogRefresh > 0 && st.CatalogRefresh < MinCatalogRefresh) {
		return Settings{}, fmt.Errorf("%s %q: want 0 (off) or a Go duration of at least %s, such as 24h", source("catalog-refresh"), raw.catalogRefresh, MinCatalogRefresh)
	}
	st.CatalogSourcesURL = strings.TrimRight(raw.catalogSources, "/")
	if st.CatalogSourcesURL != "" {
		if err := checkHTTPURL(st.CatalogSourcesURL); err != nil {
			return Settings{}, fmt.Errorf("%s: %w", source("catalog-sources-url"), err)
		}
	}
	st.CatalogNPMRegistry = strings.TrimRight(raw.catalogNPM, "/")
	if st.CatalogNPMRegistry == "off" || st.CatalogNPMRegistry == "" {
		st.CatalogNPMRegistry = ""
	} else if err := checkHTTPURL(st.CatalogNPMRegistry); err != nil {
		return Settings{}, fmt.Errorf("%s: %w", source("catalog-npm-registry"), err)
	}
	if st.RateLimit, err = strconv.Atoi(raw.rateLimit); err != nil || st.RateLimit < 0 {
		return Settings{}, fmt.Errorf("%s %q: want a whole number of requests per minute, 0 for none", source("rate-limit"), raw.rateLimit)
	}
	for _, c := range strings.Split(raw.proxies, ",") {
		if c = strings.TrimSpace(c); c == "" {
			continue
		}
		if _, _, err := net.ParseCIDR(c); err != nil {
			return Settings{}, fmt.Errorf("%s %q: want CIDRs such as 10.0.0.0/8: %w", source("trusted-proxies"), c, err)
		}
		st.TrustedProxies = append(st.TrustedProxies, c)
	}
	if st.MaxInFlight, err = strconv.Atoi(raw.inFlight); err != nil || st.MaxInFlight < 1 {
		return Settings{}, fmt.Errorf("%s %q: want a positive whole number", source("max-in-flight"), raw.inFlight)
	}
	if st.RequestTimeout, err = time.ParseDuration(raw.timeout); err != nil || st.RequestTimeout <= 0 {
		return Settings{}, fmt.Errorf("%s %q: want a positive Go duration such as 30s", source("request-timeout"), raw.timeout)
	}
	if st.MaxPerClient, err = strconv.Atoi(raw.perClient); err != nil || st.MaxPerClient < 1 {
		return Settings{}, fmt.Errorf("%s %q: want a positive whole number", source("max-per-client"), raw.perClient)
	}
	if st.BodyReadTimeout, err = time.ParseDuration(raw.bodyTimeout); err != nil || st.BodyReadTimeout <= 0 {
		return Settings{}, fmt.Errorf("%s %q: want a positive Go duration such as 5s", source("body-read-timeout"), raw.bodyTimeout)
	}
	if st.MetricsAddr = raw.metricsAddr; st.MetricsAddr != "" {
		if _, _, err := net.SplitHostPort(st.MetricsAddr); err != nil {
			return Settings{}, fmt.Errorf("%s %q: want host:port: %w", source("metrics-addr"), st.MetricsAddr, err)
		}
	}
	if st.TrustQuota, err = strconv.Atoi(raw.trustQuota); err != nil || st.TrustQuota < 0 {
		return Settings{}, fmt.Errorf("%s %q: want a whole number of records per day, 0 for none", source("trust-quota"), raw.trustQuota)
	}
	if st.TrustRetention, err = time.ParseDuration(raw.trustRetention); err != nil || st.TrustRetention < time.Hour {
		return Settings{}, fmt.Errorf("%s %q: want a Go duration of at least 1h, such as 2160h", source("trust-retention"), raw.trustRetention)
	}
	if st.WebhookRetention, err = time.ParseDuration(raw.webhookRetention); err != nil || st.WebhookRetention < time.Hour {
		return Settings{}, fmt.Errorf("%s %q: want a Go duration of at least 1h, such as 720h", source("webhook-retention"), raw.webhookRetention)
	}

	for _, h := range strings.Split(raw.mcpHosts, ",") {
		if h = strings.TrimSpace(h); h == "" {
			continue
		}
		if h != "*" && (strings.ContainsAny(h, "/ @?#") || strings.HasPrefix(h, ":")) {
			return Settings{}, fmt.Errorf("%s %q: want host names or host:port, such as switchboard.example.com", source("mcp-allowed-hosts"), h)
		}
		st.MCPAllowedHosts = append(st.MCPAllowedHosts, h)
	}

	st.BaseURL = strings.TrimRight(raw.base, "/")
	if st.BaseURL == "" {
		st.BaseURL = "http://" + st.Addr
	}
	if err := checkHTTPURL(st.BaseURL); err != nil {
		return Settings{}, fmt.Errorf("%s: %w", source("base-url"), err)
	}
	if st.StatusBaseURL != "" {
		if err := checkHTTPURL(st.StatusBaseURL); err != nil {
			return Settings{}, fmt.Errorf("%s: %w", source("status-base-url"), err)
		}
	}
	if err := checkOutboundTargets(st, source); err != nil {
		return Settings{}, err
	}
	switch st.LogFormat {
	case "json", "text":
	default:
		return Settings{}, fmt.Errorf("%s %q: want json or text", source("log-format"), st.LogFormat)
	}
	switch st.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		return Settings{}, fmt.Errorf("%s %q: want debug, info, warn or error", source("log-level"), st.LogLevel)
	}
	return st, nil
}

// outbound reads the outbound settings.
func outbound(loopback, cidrs, proxy, redirects string, source func(string) string) (OutboundSettings, error) {
	var o OutboundSettings
	var err error
	if o.AllowLoopback, err = strconv.ParseBool(loopback); err != nil {
		return o, fmt.Errorf("%s %q: want true or false", source("outbound-allow-loopback"), loopback)
	}
	for _, c := range strings.Split(cidrs, ",") {
		if c = strings.TrimSpace(c); c == "" {
			continue
		}
		p, err := netip.ParsePrefix(c)
		if err != nil {
			return o, fmt.Errorf("%s %q: want CIDRs such as 10.1.2.0/24: %w", source("outbound-allow-cidrs"), c, err)
		}
		o.AllowCIDRs = append(o.AllowCIDRs, p.Masked())
	}
	if proxy = strings.TrimSpace(proxy); proxy != "" {
		if err := checkHTTPURL(proxy); err != nil {
			return o, fmt.Errorf("%s: %w", source("outbound-proxy"), err)
		}
		o.Proxy, _ = url.Parse(proxy)
	}
	for _, h := range strings.Split(redirects, ",") {
		if h = strings.TrimSpace(h); h == "" {
			continue
		}
		if strings.ContainsAny(h, "/ @?#:") {
			return o, fmt.Errorf("%s %q: want host names such as status.example.com", source("outbound-redirect-hosts"), h)
		}
		o.RedirectHosts = append(o.RedirectHosts, h)
	}
	return o, nil
}

// checkOutboundTargets refuses at start a configured upstream that the outbound guard would refuse on every
// call (a loopback simulator without SWITCHBOARD_OUTBOUND_ALLOW_LOOPBACK, a private address outside
// SWITCHBOARD_OUTBOUND_ALLOW_CIDRS), rather than letting every fetch fail later.
func checkOutboundTargets(st Settings, source func(string) string) error {
	guard := netguard.Options{AllowLoopback: st.Outbound.AllowLoopback, Allow: st.Outbound.AllowCIDRs}
	for _, t := range []struct{ flag, url string }{
		{"status-base-url", st.StatusBaseURL}, {"catalog-sources-url", st.CatalogSourcesURL},
		{"catalog-npm-registry", st.CatalogNPMRegistry}, {"x402-facilitator-url", st.X402.FacilitatorURL},
	} {
		u, err := url.Parse(t.url)
		if t.url == "" || err != nil {
			continue // unset, or refused by its own check
		}
		if err := guard.CheckHost(u.Hostname()); err != nil {
			hint := "list its range in SWITCHBOARD_OUTBOUND_ALLOW_CIDRS"
			if netguard.IsLoopbackHost(u.Hostname()) {
				hint = "set SWITCHBOARD_OUTBOUND_ALLOW_LOOPBACK=true (the simulator, local stand-ins and tests)"
			}
			return fmt.Errorf("%s %q: outbound calls may not reach it (%w): %s", source(t.flag), t.url, err, hint)
		}
	}
	return nil
}

func checkHTTPURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return err
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errors.New("want an absolute http:// or https:// address, got " + raw)
	}
	return nil
}
