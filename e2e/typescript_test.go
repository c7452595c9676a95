// Package e2e holds tests that drive the service with clients other people wrote.
package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard/switchboard/apitest"
)

// nodeTool returns the path of a tool installed by `npm ci`. Under `make test` (SWITCHBOARD_REQUIRE_NODE=1)
// a missing tool fails the test; a bare `go test` on a machine without the npm packages skips it.
func nodeTool(t *testing.T, name string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: needs node and the npm packages")
	}
	p, err := filepath.Abs(filepath.Join("..", "node_modules", ".bin", name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("SWITCHBOARD_REQUIRE_NODE") != "" {
			t.Fatalf("%s is not installed (run npm ci): %v", name, err)
		}
		t.Skipf("%s is not installed; run `make test` or npm ci", name)
	}
	return p
}

func run(t *testing.T, dir string, name string, args ...string) string {
	t.Helper()
	return runEnv(t, dir, nil, name, args...)
}

// runEnv is run with env added to the process's environment (the tests run in parallel, so none sets its own).
func runEnv(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestTypeScriptClient generates a TypeScript client from the served document with openapi-typescript,
// type-checks a script that uses it through openapi-fetch, and runs that script against the server.
func TestTypeScriptClient(t *testing.T) {
	t.Parallel()
	gen := nodeTool(t, "openapi-typescript")
	tsc := nodeTool(t, "tsc")
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not installed")
	}
	s := apitest.Start(t, apitest.Options{})
	dir, _ := filepath.Abs("ts")
	os.RemoveAll(filepath.Join(dir, "generated"))
	os.RemoveAll(filepath.Join(dir, "dist"))
	run(t, dir, gen, s.URL+"/api/v1/openapi.json", "-o", "generated/schema.d.ts")
	run(t, dir, tsc, "-p", ".")
	out := run(t, dir, node, "dist/client.js", s.URL)
	if !strings.Contains(out, "typescript client: ok") {
		t.Fatalf("client output: %s", out)
	}
}
