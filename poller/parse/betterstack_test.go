package parse

import "testing"

func TestBetterstack(t *testing.T) {
	chat := Scope{Components: []string{"Chat Completions", "Inference API gateway"}}
	runCases(t, "betterstack", []pcase{
		{name: "operational", file: "operational.json", want: Operational},
		{name: "operational, scoped", file: "operational.json", scope: chat, want: Operational},
		{name: "API resource degraded while aggregate says operational, scoped", file: "resource_degraded.json",
			scope: chat, want: Degraded, summary: "Chat Completions: degraded"},
		{name: "API resource degraded while aggregate says operational, whole page", file: "resource_degraded.json",
			want: Degraded},
		{name: "scope by section name", file: "resource_degraded.json",
			scope: Scope{Components: []string{"Inference API"}}, want: Degraded},
		{name: "scope by section ID", file: "resource_degraded.json", scope: Scope{Components: []string{"501"}}, want: Degraded},
		{name: "open report", file: "report_open.json", want: Degraded, summary: "Higher latency on one model"},
		{name: "open report on a model outside the scope", file: "report_open.json", scope: chat, want: Operational},
		// Formats doc Pitfall 7: one model's monitor down is not an API outage, even with aggregate_state downtime.
		{name: "model downtime, whole page, reads degraded", file: "model_downtime.json", want: Degraded,
			summary: "llama-example-70b unavailable"},
		{name: "model downtime outside the scope", file: "model_downtime.json", scope: chat, want: Operational},
		{name: "API downtime, scoped", file: "downtime.json", scope: chat, want: Outage, summary: "Inference API is down"},
		{name: "maintenance in progress", file: "maintenance.json", want: Degraded, maint: true, summary: "Gateway maintenance"},
		{name: "maintenance in progress, scoped", file: "maintenance.json", scope: chat, want: Degraded, maint: true},
		{name: "maintenance on another resource", file: "maintenance.json",
			scope: Scope{Components: []string{"Chat Completions"}}, want: Operational},
		{name: "future maintenance ignored", file: "maintenance_future.json", want: Operational},
		{name: "resolved report with null ends_at ignored", file: "resolved_report.json", want: Operational},
		{name: "null included", file: "null_included.json", want: Operational},
		{name: "null included, scoped: falls back to aggregate", file: "null_included.json", scope: chat, want: Operational},
		{name: "unknown fields and types", file: "unknown_field.json", want: Operational},
		{name: "scope with no match falls back to aggregate state", file: "report_open.json", scope: rotatedScope,
			want: Degraded, summary: "Higher latency on one model"},
		{name: "data null", file: "wrong_shape.json", err: true},
		{name: "an error document", file: "no_data.json", err: true},
		{name: "html", file: "html.html", err: true},
		{name: "truncated", file: "truncated.json", err: true},
		{name: "empty body", body: "", err: true},
	})
}

func FuzzBetterstack(f *testing.F) { fuzzParser(f, "betterstack", parseBetterstack) }
