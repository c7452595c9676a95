package parse

import "testing"

func TestAzure(t *testing.T) {
	runCases(t, "azure-status", []pcase{
		{name: "empty channel", file: "empty.rss", scope: azureScope, want: Operational},
		{name: "Azure OpenAI incident", file: "openai_active.rss", scope: azureScope, want: Degraded,
			summary: "Azure OpenAI - Elevated errors in East US 2"},
		{name: "another service's incident", file: "other_service.rss", scope: azureScope, want: Operational},
		{name: "another service's incident, no keywords", file: "other_service.rss", want: Degraded,
			summary: "Azure Storage"},
		{name: "outage wording", file: "outage.rss", scope: azureScope, want: Outage, summary: "Outage - Azure AI Foundry"},
		// Status is about the API (DESIGN 2026-11-28): the Foundry portal is a console.
		{name: "a Foundry portal incident leaves Azure OpenAI operational", file: "foundry_portal.rss", scope: azureScope,
			want: Operational},
		{name: "partial outage is not an outage", file: "partial_outage.rss", scope: azureScope, want: Degraded},
		{name: "old item ignored", file: "old.rss", scope: azureScope, want: Operational},
		{name: "mitigated item ignored", file: "mitigated.rss", scope: azureScope, want: Operational},
		{name: "maintenance in progress", file: "maintenance.rss", scope: azureScope, want: Degraded, maint: true},
		{name: "future maintenance ignored", file: "maintenance_future.rss", scope: azureScope, want: Operational},
		{name: "unknown elements", file: "unknown_field.rss", scope: azureScope, want: Degraded},
		{name: "html", file: "html.html", err: true},
		{name: "truncated", file: "truncated.rss", err: true},
		{name: "json", body: `{"items":[]}`, err: true},
		{name: "empty body", body: "", err: true},
	})
}

func FuzzAzure(f *testing.F) { fuzzParser(f, "azure-status", parseAzure) }
