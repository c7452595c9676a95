// Package testbin gives tests the switchboard binary to run as a user would: the one `make test` built once for
// every package (SWITCHBOARD_TEST_BINARY), or, when a package's tests run alone, one built for that test binary.
// Building and linking the service costs seconds of CPU; three packages used to build it each.
package testbin

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"
)

// Env names the prebuilt binary.
const Env = "SWITCHBOARD_TEST_BINARY"

var (
	mu    sync.Mutex
	built string // the binary this process built, removed by Cleanup
	path  = sync.OnceValues(find)
)

// Switchboard returns the path of the switchboard binary, building it on first use when Env is not set.
func Switchboard() (string, error) { return path() }

func find() (string, error) {
	if p := os.Getenv(Env); p != "" {
		abs, err := filepath.Abs(p)
		if err != nil {
			return "", fmt.Errorf("%s: %w", Env, err)
		}
		if _, err := os.Stat(abs); err != nil {
			return "", fmt.Errorf("%s names no binary: %w", Env, err)
		}
		return abs, nil
	}
	dir, err := os.MkdirTemp("", "switchboard-test")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "switchboard")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute) // a cold build under load takes minutes
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/switchboard/switchboard/cmd/switchboard").CombinedOutput()
	if err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("go build ./cmd/switchboard: %w\n%s", err, out)
	}
	mu.Lock()
	built = bin
	mu.Unlock()
	return bin, nil
}

// Cleanup removes a binary this process built (TestMain calls it after the tests); a prebuilt one stays.
func Cleanup() {
	mu.Lock()
	defer mu.Unlock()
	if built != "" {
		os.RemoveAll(filepath.Dir(built))
		built = ""
	}
}
