package config_test

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/switchboard/switchboard/config"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestDefaults(t *testing.T) {
	st, err := config.Load("serve", nil, env(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if st.Addr != "127.0.0.1:8080" || st.DatabaseURL != "" || st.BaseURL != "http://127.0.0.1:8080" ||
		st.PollInterval != 10*time.Minute || st.StatusBaseURL != "" || st.SlowThreshold != 3*time.Second || !st.Poll {
		t.Errorf("defaults = %+v", st)
	}
	if st.RateLimit != 0 || st.TrustedProxies != nil || st.MaxInFlight != 256 || st.RequestTimeout != 30*time.Second {
		t.Errorf("limit defaults = %d %v %d %v", st.RateLimit, st.TrustedProxies, st.MaxInFlight, st.RequestTimeout)
	}
	if st.TrustQuota != 1000 || st.TrustRetention != 90*24*time.Hour || st.WebhookRetention != 30*24*time.Hour {
		t.Errorf("quota and retention defaults = %d %v %v", st.TrustQuota, st.TrustRetention, st.WebhookRetention)
	}
	if st.MaxPerClient != 64 || st.BodyReadTimeout != 5*time.Second || st.MetricsAddr != "" {
		t.Errorf("admission defaults = %d %v, metrics %q (want not served)", st.MaxPerClient, st.BodyReadTimeout, st.MetricsAddr)
	}
}

func TestAdmissionSettings(t *testing.T) {
	st, err := config.Load("serve", []string{"-metrics-addr", "127.0.0.1:9090"}, env(map[string]string{
		"SWITCHBOARD_MAX_PER_CLIENT": "8", "SWITCHBOARD_BODY_READ_TIMEOUT": "2s",
	}), io.Discard)
	if err != nil || st.MaxPerClient != 8 || st.BodyReadTimeout != 2*time.Second || st.MetricsAddr != "127.0.0.1:9090" {
		t.Errorf("settings = %d %v %q, %v", st.MaxPerClient, st.BodyReadTimeout, st.MetricsAddr, err)
	}
	for k, v := range map[string]string{"SWITCHBOARD_MAX_PER_CLIENT": "0", "SWITCHBOARD_BODY_READ_TIMEOUT": "-1s", "SWITCHBOARD_METRICS_ADDR": "9090",
		"SWITCHBOARD_TRUST_QUOTA": "-1", "SWITCHBOARD_TRUST_RETENTION": "1m", "SWITCHBOARD_WEBHOOK_RETENTION": "soon"} {
		if _, err := config.Load("serve", nil, env(map[string]string{k: v}), io.Discard); err == nil || !strings.Contains(err.Error(), k) {
			t.Errorf("%s=%s: %v, want an error naming it", k, v, err)
		}
	}
}

func TestLimits(t *testing.T) {
	st, err := config.Load("serve", []string{"-rate-limit", "600"}, env(map[string]string{
		"SWITCHBOARD_TRUSTED_PROXIES": " 10.0.0.0/8 ,192.168.0.0/16", "SWITCHBOARD_REQUEST_TIMEOUT": "5s",
	}), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if st.RateLimit != 600 || len(st.TrustedProxies) != 2 || st.TrustedProxies[0] != "10.0.0.0/8" || st.RequestTimeout != 5*time.Second {
		t.Errorf("limits = %d %v %v", st.RateLimit, st.TrustedProxies, st.RequestTimeout)
	}
}

func TestMCPAllowedHosts(t *testing.T) {
	st, err := config.Load("serve", nil, env(nil), io.Discard)
	if err != nil || st.MCPAllowedHosts != nil {
		t.Fatalf("default %v %v", st.MCPAllowedHosts, err)
	}
	st, err = config.Load("serve", []string{"-mcp-allowed-hosts", " sb.example.com, 10.0.0.5:8080 ,[::1]:9,*"}, env(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"sb.example.com", "10.0.0.5:8080", "[::1]:9", "*"}; strings.Join(st.MCPAllowedHosts, " ") != strings.Join(want, " ") {
		t.Errorf("hosts %q, want %q", st.MCPAllowedHosts, want)
	}
}

func TestEnvAndFlags(t *testing.T) {
	e := env(map[string]string{
		"SWITCHBOARD_ADDR": "0.0.0.0:9000", "DATABASE_URL": "postgres://x@h/db", "SWITCHBOARD_POLL_INTERVAL": "2m",
		"SWITCHBOARD_BASE_URL": "https://sb.example.com/", "SWITCHBOARD_STATUS_BASE_URL": "http://127.0.0.1:9999/",
		"SWITCHBOARD_OUTBOUND_ALLOW_LOOPBACK": "true",
	})
	st, err := config.Load("serve", []string{"--poll-interval", "30s"}, e, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if st.Addr != "0.0.0.0:9000" || st.DatabaseURL != "postgres://x@h/db" || st.PollInterval != 30*time.Second ||
		st.BaseURL != "https://sb.example.com" || st.StatusBaseURL != "http://127.0.0.1:9999" {
		t.Errorf("settings = %+v", st)
	}
}

func TestInvalid(t *testing.T) {
	cases := map[string]map[string]string{
		"SWITCHBOARD_ADDR":              {"SWITCHBOARD_ADDR": "nohostport"},
		"SWITCHBOARD_POLL_INTERVAL":     {"SWITCHBOARD_POLL_INTERVAL": "soon"},
		"SWITCHBOARD_BASE_URL":          {"SWITCHBOARD_BASE_URL": "ftp://x"},
		"SWITCHBOARD_STATUS_BASE_URL":   {"SWITCHBOARD_STATUS_BASE_URL": "localhost:80"},
		"SWITCHBOARD_LOG_LEVEL":         {"SWITCHBOARD_LOG_LEVEL": "loud"},
		"SWITCHBOARD_SLOW_THRESHOLD":    {"SWITCHBOARD_SLOW_THRESHOLD": "-1s"},
		"SWITCHBOARD_POLL":              {"SWITCHBOARD_POLL": "sometimes"},
		"SWITCHBOARD_RATE_LIMIT":        {"SWITCHBOARD_RATE_LIMIT": "-5"},
		"SWITCHBOARD_TRUSTED_PROXIES":   {"SWITCHBOARD_TRUSTED_PROXIES": "10.0.0.0/8, nonsense"},
		"SWITCHBOARD_MAX_IN_FLIGHT":     {"SWITCHBOARD_MAX_IN_FLIGHT": "0"},
		"SWITCHBOARD_REQUEST_TIMEOUT":   {"SWITCHBOARD_REQUEST_TIMEOUT": "soon"},
		"SWITCHBOARD_MCP_ALLOWED_HOSTS": {"SWITCHBOARD_MCP_ALLOWED_HOSTS": "ok.example.com, https://sb.example.com/"},
	}
	for name, vars := range cases {
		_, err := config.Load("serve", nil, env(vars), io.Discard)
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: error %v does not name the setting", name, err)
		}
	}
	if _, err := config.Load("serve", nil, env(map[string]string{"SWITCHBOARD_POLL_INTERVAL": "1s"}), io.Discard); err == nil {
		t.Error("a 1s poll interval was accepted")
	}
	if _, err := config.Load("serve", []string{"extra"}, env(nil), io.Discard); err == nil {
		t.Error("a stray argument was accepted")
	}
}

// TestErrorsNameWhatWasUsed: a bad value is named as the user gave it, the flag or the variable.
func TestErrorsNameWhatWasUsed(t *testing.T) {
	for _, c := range []struct {
		args []string
		vars map[string]string
		want string
	}{
		{[]string{"-poll-interval", "1s"}, nil, "-poll-interval"},
		{nil, map[string]string{"SWITCHBOARD_POLL_INTERVAL": "1s"}, "SWITCHBOARD_POLL_INTERVAL"},
		{[]string{"-max-in-flight", "0"}, map[string]string{"SWITCHBOARD_MAX_IN_FLIGHT": "5"}, "-max-in-flight"},
		{[]string{"-rate-limit", "many"}, nil, "-rate-limit"},
		{[]string{"-poll=sometimes"}, nil, "-poll"},
		{[]string{"-log-level", "loud"}, nil, "-log-level"},
	} {
		_, err := config.Load("serve", c.args, env(c.vars), io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v %v: error %v does not name %s", c.args, c.vars, err, c.want)
		}
		if c.want[0] == '-' && err != nil && strings.Contains(err.Error(), "SWITCHBOARD_") {
			t.Errorf("%v: error %v names the variable, the user gave the flag", c.args, err)
		}
	}
}

// TestCommandsKnowTheirFlags: -h lists a command's own settings, typed, and a setting of another command is
// neither a flag nor read from the environment.
func TestCommandsKnowTheirFlags(t *testing.T) {
	var help strings.Builder
	if _, err := config.Load("migrate", []string{"-h"}, env(nil), &help); err == nil {
		t.Fatal("-h gave no error (flag.ErrHelp)")
	}
	if h := help.String(); !strings.Contains(h, "-database-url") || strings.Contains(h, "-poll-interval") || strings.Contains(h, "-addr") {
		t.Errorf("migrate -h:\n%s", h)
	}
	help.Reset()
	_, _ = config.Load("serve", []string{"-h"}, env(nil), &help)
	if h := help.String(); !strings.Contains(h, "-poll-interval duration") || !strings.Contains(h, "-rate-limit int") || strings.Contains(h, "-poll string") {
		t.Errorf("serve -h does not type its flags:\n%s", h)
	}
	if _, err := config.Load("migrate", []string{"-poll-interval", "1m"}, env(nil), io.Discard); err == nil {
		t.Error("migrate took serve's -poll-interval")
	}
	if _, err := config.Load("simulate", nil, env(map[string]string{"SWITCHBOARD_POLL_INTERVAL": "soon"}), io.Discard); err != nil {
		t.Errorf("simulate read serve's variable: %v", err)
	}
}

func TestOutboundSettings(t *testing.T) {
	st, err := config.Load("serve", nil, env(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o := st.Outbound; o.AllowLoopback || o.AllowCIDRs != nil || o.Proxy != nil || o.RedirectHosts != nil {
		t.Errorf("outbound defaults are not the strict ones: %+v", o)
	}
	st, err = config.Load("serve", []string{"-outbound-allow-loopback"}, env(map[string]string{
		"SWITCHBOARD_OUTBOUND_ALLOW_CIDRS": "10.1.2.3/24, fd00::/8", "SWITCHBOARD_OUTBOUND_PROXY": "http://proxy.internal:3128",
		"SWITCHBOARD_OUTBOUND_REDIRECT_HOSTS": "status.claude.com ,models.dev",
	}), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	o := st.Outbound
	if !o.AllowLoopback || len(o.AllowCIDRs) != 2 || o.AllowCIDRs[0].String() != "10.1.2.0/24" || o.Proxy == nil ||
		o.Proxy.Host != "proxy.internal:3128" || strings.Join(o.RedirectHosts, " ") != "status.claude.com models.dev" {
		t.Errorf("outbound = %+v", o)
	}
	for k, v := range map[string]string{
		"SWITCHBOARD_OUTBOUND_ALLOW_CIDRS": "10.0.0.1", "SWITCHBOARD_OUTBOUND_PROXY": "proxy:3128",
		"SWITCHBOARD_OUTBOUND_REDIRECT_HOSTS": "https://x.example", "SWITCHBOARD_X402_CLIENT_LIMIT": "many",
	} {
		if _, err := config.Load("serve", nil, env(map[string]string{k: v}), io.Discard); err == nil || !strings.Contains(err.Error(), k) {
			t.Errorf("%s=%q: error %v, want one naming the variable", k, v, err)
		}
	}
	// An upstream the guard would refuse on every call fails the start, naming the setting that opens it.
	for k, v := range map[string]string{
		"SWITCHBOARD_STATUS_BASE_URL": "http://127.0.0.1:8090", "SWITCHBOARD_CATALOG_SOURCES_URL": "http://localhost:9",
		"SWITCHBOARD_X402_FACILITATOR_URL": "http://[::1]:9", "SWITCHBOARD_CATALOG_NPM_REGISTRY": "https://169.254.169.254",
	} {
		_, err := config.Load("serve", nil, env(map[string]string{k: v}), io.Discard)
		if err == nil || !strings.Contains(err.Error(), k) || !strings.Contains(err.Error(), "SWITCHBOARD_OUTBOUND_ALLOW_") {
			t.Errorf("%s=%q: error %v", k, v, err)
		}
		if _, err := config.Load("serve", nil, env(map[string]string{k: v, "SWITCHBOARD_OUTBOUND_ALLOW_LOOPBACK": "true",
			"SWITCHBOARD_OUTBOUND_ALLOW_CIDRS": "169.254.169.254/32"}), io.Discard); err != nil {
			t.Errorf("%s=%q with the allowance: %v", k, v, err)
		}
	}
}
