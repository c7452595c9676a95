package parse

import "testing"

func TestInstatus(t *testing.T) {
	runCases(t, "instatus", []pcase{
		{name: "up, arrays left out", file: "up.json", want: Operational},
		{name: "Exa's minimal page", file: "exa_up.json", want: Operational},
		{name: "one active incident", file: "incident.json", want: Degraded, summary: "Video jobs queued longer than usual"},
		{name: "major outage incident wins", file: "major_incident.json", want: Outage, summary: "Queue API returning 503"},
		{name: "resolved incident ignored", file: "resolved_incident.json", want: Operational},
		{name: "HASISSUES alone has a floor of degraded", file: "has_issues_only.json", want: Degraded},
		{name: "maintenance in progress", file: "maintenance_inprogress.json", want: Degraded, maint: true,
			summary: "GPU cluster upgrade"},
		{name: "maintenance not started ignored", file: "maintenance_notstarted.json", want: Operational},
		{name: "null arrays", file: "null_arrays.json", want: Operational},
		{name: "unknown fields", file: "unknown_field.json", want: Operational},
		{name: "unknown page status reads degraded (Exa note)", file: "unknown_status.json", want: Degraded},
		{name: "API component degraded while page says UP, scoped", file: "summary_with_components.json",
			scope: Scope{Components: []string{"Queue API"}}, want: Degraded, summary: "Queue API: degraded performance"},
		{name: "API component degraded while page says UP, whole page", file: "summary_with_components.json", want: Degraded},
		{name: "scope by group name", file: "summary_with_components.json", scope: Scope{Components: []string{"api"}}, want: Degraded},
		{name: "scope on an operational component ignores the rest", file: "summary_with_components.json",
			scope: Scope{Components: []string{"Playground"}}, want: Operational},
		{name: "v3 components: web outage outside the API scope", file: "components_v3.json",
			scope: Scope{Components: []string{"cg1"}}, want: Operational},
		{name: "v3 components: a Playground outage leaves the API operational, whole page", file: "components_v3.json",
			want: Operational},
		{name: "v3 components: one model in MAJOROUTAGE reads degraded", file: "per_model_major_outage.json",
			want: Degraded, summary: "Llama 3.3 70B"},
		{name: "v2 components: child partial outage", file: "components_v2.json",
			scope: Scope{Components: []string{"Search API"}}, want: Degraded, summary: "/search: partial outage"},
		{name: "v2 components: maintenance plus outage, whole page", file: "components_v2.json", want: Degraded},
		{name: "v2 components: maintenance only", file: "components_v2.json",
			scope: Scope{Components: []string{"Dashboard"}}, want: Degraded, maint: true},
		{name: "UNDERMAINTENANCE with every counted component operational", body: `{"page":{"status":"UNDERMAINTENANCE"},"components":[{"id":"a","name":"API","status":"OPERATIONAL"}]}`,
			want: Operational},
		{name: "scope with no match falls back to page status", file: "summary_with_components.json",
			scope: rotatedScope, want: Operational},
		{name: "no page and no components", file: "wrong_shape.json", err: true},
		{name: "html", file: "html.html", err: true},
		{name: "truncated", file: "truncated.json", err: true},
		{name: "empty body", body: "", err: true},
		{name: "page is a string", body: `{"page":"UP"}`, err: true},
	})
}

func FuzzInstatus(f *testing.F) { fuzzParser(f, "instatus", parseInstatus) }
