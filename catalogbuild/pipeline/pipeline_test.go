package pipeline

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/switchboard/switchboard/seeds"
	"github.com/switchboard/switchboard/sources"
)

// buildDirs lays out the embedded sources and catalogs as the run-time refresh does.
func buildDirs(t *testing.T) (data, out string) {
	t.Helper()
	tmp := t.TempDir()
	data, err := sources.Materialize(tmp)
	if err != nil {
		t.Fatal(err)
	}
	out = filepath.Join(tmp, "catalogs")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	emb, err := seeds.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range emb.Files() {
		if err := os.WriteFile(filepath.Join(out, name+".json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return data, out
}

// TestRunStopsWhenCancelled: the build stops with its context, between steps, so that the refresh's timeout
// and the server's shutdown end it (before, Run took no context and ran for minutes on a large source).
func TestRunStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	data, out := buildDirs(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	if _, err := Run(ctx, data, out); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled build: %v", err)
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("a cancelled build took %s", took)
	}

	// Cancelled while it runs: it returns within one step.
	ctx, cancel = context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start = time.Now()
	_, err := Run(ctx, data, out)
	took := time.Since(start)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a build past its deadline: %v", err)
	}
	t.Logf("stopped %s after its deadline", took-300*time.Millisecond)
	if took > 3*time.Second {
		t.Errorf("a build past its deadline ran %s", took)
	}
}
