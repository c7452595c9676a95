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
}

// TestNoRacePackagesStartNoGoroutines: the packages `make test` runs without -race (NORACE_PKGS in the Makefile)
// start no goroutine in their code or tests, and use nothing that does, so the race detector has nothing to see
// there. A package that starts one must leave the list.
func TestNoRacePackagesStartNoGoroutines(t *testing.T) {
	makefile, err := os.ReadFile(filepath.Join("..", "..", "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	pkgs := makeList(t, makefile, "NORACE_PKGS")
	if len(pkgs) < 5 {
		t.Fatalf("NORACE_PKGS = %v: the pattern did not read the list", pkgs)
	}
	for _, pkg := range pkgs {
		for _, f := range goFiles(t, pkg) {
			for _, problem := range concurrency(t, f) {
				t.Errorf("%s: %s, but the Makefile runs it without -race (NORACE_PKGS)", f, problem)
			}
		}
	}
	// DATA_ONLY_PKGS: only their files marked //go:build !race run without the race detector alone.
	data := makeList(t, makefile, "DATA_ONLY_PKGS")
	if len(data) == 0 {
		t.Fatal("the Makefile has no DATA_ONLY_PKGS")
	}
	for _, pkg := range data {
		marked := 0
		for _, f := range goFiles(t, pkg) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if !regexp.MustCompile(`(?m)^//go:build !race$`).Match(src) {
				continue
			}
			marked++
			if !strings.HasSuffix(f, "_test.go") {
				t.Errorf("%s: only test files may leave the race detector", f)
			}
			for _, problem := range concurrency(t, f) {
				t.Errorf("%s: %s, but it is marked //go:build !race (DATA_ONLY_PKGS)", f, problem)
			}
		}
		if marked == 0 {
			t.Errorf("%s is in DATA_ONLY_PKGS but has no file marked //go:build !race", pkg)
		}
	}
}

// makeList reads the packages of a Makefile variable (NAME := ./a ./b \ ./c).
func makeList(t *testing.T, makefile []byte, name string) []string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + name + ` := ((?:.*\\\n)*.*)$`).FindSubmatch(makefile)
	if m == nil {
		return nil
	}
	return strings.Fields(strings.ReplaceAll(string(m[1]), "\\\n", " "))
}

// goFiles are the Go files of a package given as ./dir from the repository's root.
func goFiles(t *testing.T, pkg string) []string {
	t.Helper()
	dir := filepath.Join("..", "..", filepath.FromSlash(strings.TrimPrefix(pkg, "./")))
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		t.Errorf("%s: no Go files (%v)", pkg, err)
	}
	return files
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
			sel, ok := n.Fun.(*ast.SelectorExpr)
			if !ok {
				break
			}
			if sel.Sel.Name == "Parallel" && len(n.Args) == 0 {
				out = append(out, fset.Position(n.Pos()).String()+": t.Parallel")
			}
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == "store" && sel.Sel.Name == "Open" {
				out = append(out, fset.Position(n.Pos()).String()+": store.Open (a database pool)")
			}
		}
		return true
	})
	return out
}

// TestConcurrencyCheckSeesGoroutines: the check above finds a go statement, a parallel test, a server and a
// database pool.
func TestConcurrencyCheckSeesGoroutines(t *testing.T) {
	dir := t.TempDir()
	src := "package x\nimport \"net/http/httptest\"\nvar _ = httptest.NewServer\ntype s struct{ Parallel bool }\nfunc f(t interface{ Parallel() }, v s) { go f(t, v); t.Parallel(); _ = v.Parallel; store.Open(nil) }\n"
	p := filepath.Join(dir, "x.go")
	if err := os.WriteFile(p, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := concurrency(t, p); len(got) != 4 {
		t.Errorf("concurrency = %v, want the import, the go statement, t.Parallel and store.Open", got)
	}
}
