package parse

import "testing"

func TestIncidentio(t *testing.T) {
	runCases(t, "incidentio", []pcase{
		{name: "all clear with null arrays", file: "all_clear.json", want: Operational},
		{name: "API component degraded, indicator none, scoped", file: "api_degraded.json", scope: openaiScope,
			want: Degraded, summary: "Chat Completions: degraded performance"},
		{name: "API component degraded, indicator none, whole page", file: "api_degraded.json", want: Degraded},
		{name: "ChatGPT incident does not degrade the scoped API", file: "chatgpt_incident.json",
			scope: openaiScope, want: Operational},
		// Status is about the API (DESIGN 2026-11-28): an app's incident leaves the API operational even unscoped.
		{name: "ChatGPT incident leaves the API operational, whole page", file: "chatgpt_incident.json", want: Operational},
		{name: "ChatGPT incident with rotated IDs: the page's only trouble is ChatGPT's", file: "chatgpt_incident.json",
			scope: rotatedScope, want: Operational},
		{name: "widget: a Playground full outage leaves the API operational", file: "widget_console_incident.json",
			want: Operational},
		{name: "a dashboard incident leaves the API operational", file: "console_incident.json", want: Operational},
		{name: "an incident on the API and the dashboard counts", file: "api_and_console_incident.json", want: Degraded,
			summary: "Elevated errors on the API and the dashboard"},
		{name: "open API incident, major indicator, no major_outage: degraded", file: "incident_open.json",
			scope: openaiScope, want: Degraded, summary: "Chat Completions: partial outage"},
		{name: "open API incident, whole page", file: "incident_open.json", want: Degraded,
			summary: "Increased error rates on Chat Completions"},
		{name: "maintenance in progress, whole page", file: "maintenance_in_progress.json", want: Degraded,
			maint: true, summary: "Files API storage upgrade"},
		{name: "maintenance in progress on Files, scoped to Files", file: "maintenance_in_progress.json",
			scope: Scope{Components: []string{"Files"}}, want: Degraded, maint: true, summary: "Files: under maintenance"},
		{name: "maintenance in progress on Files, scoped to Chat Completions", file: "maintenance_in_progress.json",
			scope: openaiScope, want: Operational},
		{name: "future scheduled maintenance ignored", file: "maintenance_scheduled.json", want: Operational},
		{name: "null everywhere", file: "null_arrays.json", want: Operational},
		{name: "null components with a scope falls back", file: "null_arrays.json", scope: openaiScope, want: Operational},
		{name: "unknown fields", file: "unknown_field.json", scope: openaiScope, want: Operational},
		{name: "widget: one incident", file: "widget_incident.json", want: Degraded, summary: "Errors on image generation"},
		{name: "widget: scoped to the affected component by group name", file: "widget_incident.json",
			scope: Scope{Components: []string{"API"}}, want: Degraded},
		{name: "widget: incident on another component", file: "widget_incident.json",
			scope: Scope{Components: []string{"01JBBBBBBBBBBBBBBBBBBBBBBB"}}, want: Operational},
		{name: "widget: full outage", file: "widget_full_outage.json", want: Outage, summary: "Inference API unavailable"},
		{name: "widget: full outage elsewhere, scoped to the dashboard", file: "widget_full_outage.json",
			scope: Scope{Components: []string{"Dashboard"}}, want: Degraded, summary: "Dashboard slow"},
		{name: "widget: maintenance in progress", file: "widget_maintenance.json", want: Degraded, maint: true,
			summary: "Database failover test"},
		{name: "widget: scheduled maintenance only", file: "widget_scheduled_only.json", want: Operational},
		{name: "neither summary nor widget", file: "wrong_shape.json", err: true},
		{name: "html (a redirect to another page)", file: "html.html", err: true},
		{name: "truncated", file: "truncated.json", err: true},
		{name: "empty body", body: " \n", err: true},
		{name: "incidents is an object", body: `{"status":{"indicator":"none"},"incidents":{}}`, err: true},
	})
}

func FuzzIncidentio(f *testing.F) { fuzzParser(f, "incidentio", parseIncidentio) }
