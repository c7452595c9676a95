package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// concurrentImports are packages whose use in a test starts goroutines that meet the test's own (servers,
// groups of workers): a package that imports one keeps the race detector.
var concurrentImports = map[string]bool{
	"net/http/httptest":          true,
	"net/http":                   true,
	"golang.org/x/sync/errgroup": true,
	"os/exec":                    true,
	"github.com/switchboard/switchboard/apitest": true,
	"github.com/switchboard/switchboard/dbtest":  true,
	"github.com/switchboard/switchboard/store":   true,
}

// TestNoRacePackagesStartNoGoroutines: the packages `make test` runs without -race (NORACE_PKGS in the Makefile)
// start no goroutine in their code or tests, and use nothing that does, so the race detector has nothing to see
// there. A package that starts one must leave the list.
func TestNoRacePackagesStartNoGoroutines(t *testing.T) {
	makefile, err := os.ReadFile(filepath.Join("..", "..", "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^NORACE_PKGS := ((?:.*\\\n)*.*)$`).FindSubmatch(makefile)
	if m == nil {
		t.Fatal("the Makefile has no NORACE_PKGS")
	}
	pkgs := strings.Fields(strings.ReplaceAll(string(m[1]), "\\\n", " "))
	if len(pkgs) < 5 {
		t.Fatalf("NORACE_PKGS = %v: the pattern did not read the list", pkgs)
	}
	for _, pkg := range pkgs {
		dir := filepath.Join("..", "..", filepath.FromSlash(strings.TrimPrefix(pkg, "./")))
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Errorf("%s: no Go files (%v)", pkg, err)
			continue
		}
		for _, f := range files {
			for _, problem := range concurrency(t, f) {
				t.Errorf("%s: %s, but the Makefile runs it without -race (NORACE_PKGS)", f, problem)
			}
		}
	}
}

// concurrency lists what in a Go file starts goroutines.
func concurrency(t *testing.T, path string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); concurrentImports[p] {
			out = append(out, "imports "+p)
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GoStmt:
			out = append(out, fset.Position(n.Pos()).String()+": go statement")
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Parallel" && len(n.Args) == 0 {
				out = append(out, fset.Position(n.Pos()).String()+": t.Parallel")
			}
		}
		return true
	})
	return out
}

// TestConcurrencyCheckSeesGoroutines: the check above finds a go statement, a parallel test and a server.
func TestConcurrencyCheckSeesGoroutines(t *testing.T) {
	dir := t.TempDir()
	src := "package x\nimport \"net/http/httptest\"\nvar _ = httptest.NewServer\ntype s struct{ Parallel bool }\nfunc f(t interface{ Parallel() }, v s) { go f(t, v); t.Parallel(); _ = v.Parallel }\n"
	p := filepath.Join(dir, "x.go")
	if err := os.WriteFile(p, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := concurrency(t, p); len(got) != 3 {
		t.Errorf("concurrency = %v, want the import, the go statement and t.Parallel", got)
	}
}
