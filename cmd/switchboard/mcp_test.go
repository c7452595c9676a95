package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/apitest"
)

// mcpSession runs `switchboard mcp args` with the given stdin lines and returns stdout's messages by id and
// stderr.
func mcpSession(t *testing.T, args []string, lines ...string) (map[string]map[string]any, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	in := strings.NewReader(strings.Join(lines, "\n") + "\n")
	if err := mcpCmd(context.Background(), args, func(string) string { return "" }, in, &out, &errOut); err != nil {
		t.Fatalf("mcp %v: %v\n%s", args, err, errOut.String())
	}
	answers := map[string]map[string]any{}
	for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil || m["jsonrpc"] != "2.0" {
			t.Fatalf("stdout carries something other than JSON-RPC messages: %q", l)
		}
		id, _ := json.Marshal(m["id"])
		answers[string(id)] = m
	}
	return answers, errOut.String()
}

var mcpLines = []string{
	`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
	`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"service_health","arguments":{}}}`,
}

func checkSession(t *testing.T, answers map[string]map[string]any) {
	t.Helper()
	if len(answers) != 3 {
		t.Fatalf("%d answers, want 3: %v", len(answers), answers)
	}
	if v := answers["1"]["result"].(map[string]any)["protocolVersion"]; v != "2025-11-25" {
		t.Errorf("protocolVersion %v", v)
	}
	if n := len(answers["2"]["result"].(map[string]any)["tools"].([]any)); n != 36 {
		t.Errorf("%d tools", n)
	}
	res := answers["3"]["result"].(map[string]any)
	sc, _ := res["structuredContent"].(map[string]any)
	if res["isError"] == true || len(sc["providers"].(map[string]any)) != 52 {
		t.Errorf("service_health: %.300v", res)
	}
}

// TestMCPCommandInProcess: the default mode serves the tools from its own database and the embedded catalogs.
func TestMCPCommandInProcess(t *testing.T) {
	db := "sqlite://" + filepath.Join(t.TempDir(), "mcp.db")
	answers, logs := mcpSession(t, []string{"--poll=false", "--database-url", db, "--log-format", "json"}, mcpLines...)
	checkSession(t, answers)
	if !strings.Contains(logs, `"msg":"mcp over stdio"`) || !strings.Contains(logs, `"path":"/api/v1/health"`) {
		t.Errorf("stderr lacks the start line or the request log:\n%s", logs)
	}
}

// TestMCPCommandURL: with --url the command forwards to a running service.
func TestMCPCommandURL(t *testing.T) {
	s := apitest.Start(t, apitest.Options{})
	for _, u := range []string{s.URL, s.URL + "/", s.URL + "/api/v1/mcp"} {
		answers, _ := mcpSession(t, []string{"--url", u}, mcpLines...)
		checkSession(t, answers)
	}
	if !strings.Contains(s.Logs.String(), `"path":"/api/v1/mcp"`) {
		t.Error("the service saw no MCP request")
	}
}

func TestMCPCommandFlags(t *testing.T) {
	run := func(args ...string) error {
		return mcpCmd(context.Background(), args, func(string) string { return "" }, strings.NewReader(""), io.Discard, io.Discard)
	}
	if err := run("--help"); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("--help: %v", err)
	}
	for args, want := range map[string]string{
		"--poll=maybe":         "--poll",
		"--poll-interval=1s":   "--poll-interval",
		"--url=ftp://x":        "--url",
		"--url=127.0.0.1:8080": "--url",
		"--log-level=loud":     "--log-level",
		"--log-format=xml":     "--log-format",
		"--timeout=0s":         "--timeout",
		"stray":                "unexpected arguments",
		"--status-base-url=http://127.0.0.1:8090":    "--outbound-allow-loopback",
		"--outbound-allow-loopback=perhaps":          "--outbound-allow-loopback",
		"--status-base-url=http://169.254.169.254/x": "--status-base-url",
	} {
		if err := run(strings.Split(args, " ")...); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error naming %s", args, err, want)
		}
	}
	for raw, want := range map[string]string{
		"http://127.0.0.1:8080":             "http://127.0.0.1:8080/api/v1/mcp",
		"https://sb.example.com/":           "https://sb.example.com/api/v1/mcp",
		"https://sb.example.com/api/v1/mcp": "https://sb.example.com/api/v1/mcp",
		"https://example.com/switchboard":   "https://example.com/switchboard/api/v1/mcp",
	} {
		if got, err := mcpEndpoint(raw); err != nil || got != want {
			t.Errorf("mcpEndpoint(%s) = %s %v, want %s", raw, got, err, want)
		}
	}
}
