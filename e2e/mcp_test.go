package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard/switchboard/apitest"
	"github.com/switchboard/switchboard/impl"
)

// nodeModule returns the folder of an npm package installed by `npm ci`; like nodeTool, a missing package fails
// the test under `make test` (SWITCHBOARD_REQUIRE_NODE=1) and skips it otherwise.
func nodeModule(t *testing.T, name string) string {
	t.Helper()
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

// TestMCPClient runs the official MCP TypeScript SDK's client (Client + StreamableHTTPClientTransport) against
// the MCP endpoint: initialize, tools/list (34 tools), tool calls compared with plain HTTP, an unknown tool.
func TestMCPClient(t *testing.T) {
	nodeModule(t, "@modelcontextprotocol/sdk")
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("SWITCHBOARD_REQUIRE_NODE") != "" {
			t.Fatal("node is not installed")
		}
		t.Skip("node is not installed")
	}
	// A fixed clock: GET /health carries the time it was made, and the script compares it with the tool's text.
	now := time.Now().UTC().Truncate(time.Second)
	st := apitest.OpenStore(t, "sqlite://"+filepath.Join(t.TempDir(), "mcp.db"))
	s := apitest.Start(t, apitest.Options{Store: st, API: impl.New(impl.Deps{Store: st, Now: func() time.Time { return now }})})
	dir, _ := filepath.Abs("mcp")
	out := run(t, dir, node, "client.mjs", s.URL)
	t.Logf("client output:\n%s", out)
	if !strings.Contains(out, "mcp client: ok") {
		t.Fatalf("client output: %s", out)
	}
}
