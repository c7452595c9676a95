// These tests work on the whole catalogs in one goroutine: they run without the race detector (make test runs
// the package twice, see DATA_ONLY_PKGS in the Makefile), where they take a tenth of the time.

//go:build !race

package catalogbuild

import (
	"strings"
	"testing"
)

// TestReportLeavesOutWhatDoesNotApply: a provider without an SLA has no uptime or credit to state, so those nulls
// are not counted as gaps; a provider whose SLA is unknown still counts them.
func TestReportLeavesOutWhatDoesNotApply(t *testing.T) {
	sla := `{"as_of":"2026-11-25","sources":[],"records":[
		{"provider_id":"openai","sla_available":true,"guaranteed_uptime_pct":99.9,"max_credit_pct":null},
		{"provider_id":"anthropic","sla_available":false,"guaranteed_uptime_pct":null,"max_credit_pct":null},
		{"provider_id":"mistral","sla_available":null,"guaranteed_uptime_pct":null,"max_credit_pct":null}]}`
	out, err := BuildReport(map[string][]byte{"sla": []byte(sla)}, Report{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Counted (provider_id included): openai's 4 values (1 null), anthropic's id and gate only, mistral's 4 (3
	// null): 4 of 10 null; over 20%: sla_available (1 of 3), uptime (1 of 2), max_credit (2 of 2). Counting
	// anthropic's two null values would give 6 of 12.
	if !strings.Contains(string(out), "| sla | 3 | 40% | 3 | max_credit_pct (100%) |") {
		t.Errorf("main-provider row:\n%s", out)
	}
}
