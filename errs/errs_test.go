package errs_test

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/errs"
)

func TestAnswer(t *testing.T) {
	for _, c := range []struct {
		err  error
		want int
	}{
		{errs.Input("parameter window: must be one of 1h, 6h, 24h"), http.StatusBadRequest},
		{fmt.Errorf("reading the latency: %w", errs.Input("parameter days: too many")), http.StatusBadRequest},
		{errs.NotFound("no llm model with vision"), http.StatusNotFound},
		{fmt.Errorf("loading: %w", &errs.UnknownProviderError{ID: "nope"}), http.StatusNotFound},
		{fmt.Errorf("saving: %w", errs.ErrConflict), http.StatusConflict},
		{fmt.Errorf("querying: %w", errs.ErrUnavailable), http.StatusServiceUnavailable},
		{errors.New("a bug"), http.StatusInternalServerError},
	} {
		if got, _ := errs.Answer(c.err); got != c.want {
			t.Errorf("Answer(%v) = %d, want %d", c.err, got, c.want)
		}
	}
	// The caller sees the kind's own message, not the context it was wrapped in.
	if _, msg := errs.Answer(fmt.Errorf("reading the store: %w", errs.Input("parameter days: too many"))); msg != "parameter days: too many" {
		t.Errorf("message %q", msg)
	}
	if _, msg := errs.Answer(fmt.Errorf("secret path /x: %w", errors.New("a bug"))); msg != "internal error" {
		t.Errorf("a fault of the service shows %q", msg)
	}
}

// TestOneDefinitionPerKind: no package but this one declares an error type of these kinds, so that a handler
// never has to know which package's InputError it holds.
func TestOneDefinitionPerKind(t *testing.T) {
	kinds := regexp.MustCompile(`^type\s+(\w*(InputError|NotFoundError|UnknownProviderError|PageError|ParamError))\s`)
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "gen" || strings.HasPrefix(d.Name(), ".")) && path != ".." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || filepath.Dir(path) == filepath.Join("..", "errs") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if m := kinds.FindStringSubmatch(line); m != nil {
				t.Errorf("%s:%d declares %s: use errs.%s", path, i+1, m[1], m[2])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
