package store_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestStoreOwnsItsEdges: the generated query packages and the database drivers are the store's own business. No
// package but the store imports gen/pgdb or gen/litedb; besides the store, only the test fixtures (dbtest, which
// makes PostgreSQL schemas) and the fault tests (which break databases on purpose) import a driver.
func TestStoreOwnsItsEdges(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}|{{join .Imports " "}} {{join .TestImports " "}} {{join .XTestImports " "}}`, "../...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const mod = "github.com/switchboard/switchboard/"
	generated := []string{mod + "gen/pgdb", mod + "gen/litedb"}
	drivers := []string{"github.com/jackc/pgx", "modernc.org/sqlite"}
	driverUsers := map[string]bool{mod + "store": true, mod + "dbtest": true, mod + "faults": true, mod + "gen/pgdb": true, mod + "gen/litedb": true}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, "|")
		for _, imp := range strings.Fields(imports) {
			for _, g := range generated {
				if imp == g && pkg != mod+"store" {
					t.Errorf("%s imports %s: only the store may use its generated queries", pkg, g)
				}
			}
			for _, d := range drivers {
				if strings.HasPrefix(imp, d) && !driverUsers[pkg] {
					t.Errorf("%s imports the driver %s: ask the store (store.ErrNotFound, store.IsUnavailable) instead", pkg, imp)
				}
			}
		}
	}
}
