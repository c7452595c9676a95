package impl_test

import (
	"context"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/switchboard/switchboard/apitest"
	"github.com/switchboard/switchboard/openapi"
)

var update = flag.Bool("update", false, "rewrite the README's coverage table from the code")

const (
	readme     = "../README.md"
	tableStart = "<!-- coverage:start -->"
	tableEnd   = "<!-- coverage:end -->"
)

// implementedMethods lists the methods declared on *Server in impl/'s own files: the operations that no longer
// fall through to the generated 501 stubs.
func implementedMethods(t *testing.T) map[string]bool {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || len(fd.Recv.List) != 1 {
				continue
			}
			if star, ok := fd.Recv.List[0].Type.(*ast.StarExpr); ok {
				if id, ok := star.X.(*ast.Ident); ok && id.Name == "Server" {
					out[fd.Name.Name] = true
				}
			}
		}
	}
	return out
}

func goName(operationID string) string {
	r := []rune(operationID)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

// TestCoverageTable keeps three things in step: the README's coverage table, the handlers written in impl/,
// and the 501 responses of the OpenAPI document (an operation lists 501 exactly while it is not implemented).
// Run `go test ./impl -run TestCoverageTable -update` after implementing an operation.
func TestCoverageTable(t *testing.T) {
	doc, err := openapi.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	impl := implementedMethods(t)
	type row struct{ method, path, id string }
	var rows []row
	done := 0
	for _, op := range apitest.Operations(doc) {
		name := goName(op.ID)
		implemented := impl[name]
		if implemented {
			done++
		}
		if lists501 := op.Op.Responses.Status(501) != nil; lists501 == implemented {
			t.Errorf("%s: implemented=%v but the document lists 501=%v", op.ID, implemented, lists501)
		}
		rows = append(rows, row{op.Method, "/api/v1" + op.Path, op.ID})
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].path != rows[j].path {
			return rows[i].path < rows[j].path
		}
		return rows[i].method < rows[j].method
	})
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n%d of %d operations implemented.\n\n| Endpoint | Operation | Status |\n|---|---|---|\n", tableStart, done, len(rows))
	for _, r := range rows {
		status := "not implemented (501)"
		if impl[goName(r.id)] {
			status = "implemented"
		}
		fmt.Fprintf(&b, "| `%s %s` | `%s` | %s |\n", r.method, r.path, r.id, status)
	}
	b.WriteString(tableEnd)
	want := b.String()

	text, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	s := string(text)
	i, j := strings.Index(s, tableStart), strings.Index(s, tableEnd)
	if i < 0 || j < i {
		t.Fatalf("README.md has no %s ... %s section", tableStart, tableEnd)
	}
	got := s[i : j+len(tableEnd)]
	if got == want {
		return
	}
	if *update {
		if err := os.WriteFile(readme, []byte(s[:i]+want+s[j+len(tableEnd):]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("the README's coverage table is out of date: run go test ./impl -run TestCoverageTable -update\n--- want\n%s", want)
}
