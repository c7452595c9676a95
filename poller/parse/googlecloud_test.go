package parse

import (
	"testing"
	"time"
)

func TestGoogleCloud(t *testing.T) {
	runCases(t, "google-cloud", []pcase{
		{name: "no incidents", file: "empty.json", want: Operational},
		{name: "no incidents, scoped", file: "empty.json", scope: geminiScope, want: Operational},
		{name: "open Gemini incident, Gemini scope", file: "gemini_open.json", scope: geminiScope, want: Degraded,
			summary: "Some requests to the Vertex Gemini API return 503"},
		{name: "open Gemini incident, Vertex scope", file: "gemini_open.json", scope: vertexScope, want: Degraded},
		{name: "open Gemini incident, by product ID only", file: "gemini_open.json",
			scope: Scope{Keywords: []string{"z0fzjamveb4j3nbcjs6b"}}, want: Degraded},
		{name: "open incident for another product", file: "other_product_open.json", scope: geminiScope, want: Operational},
		{name: "open incident for another product, no keywords", file: "other_product_open.json", want: Outage,
			summary: "BigQuery jobs failing"},
		{name: "Vertex outage", file: "vertex_outage.json", scope: vertexScope, want: Outage},
		// Status is about the API (DESIGN 2026-11-28): apps named "Gemini" are not the Gemini API.
		{name: "Gemini Enterprise and Code Assist incidents leave the Gemini API operational", file: "gemini_apps_open.json",
			scope: geminiScope, want: Operational},
		{name: "Gemini apps leave Vertex operational", file: "gemini_apps_open.json", scope: vertexScope, want: Operational},
		{name: "Gemini apps, whole feed", file: "gemini_apps_open.json", want: Outage, summary: "Gemini Enterprise"},
		{name: "the Gemini API under its current title", file: "agent_platform_open.json", scope: geminiScope, want: Degraded,
			summary: "Gemini on Agent Platform"},
		{name: "the Gemini API under its current title, Vertex scope", file: "agent_platform_open.json", scope: vertexScope,
			want: Degraded},
		{name: "a renamed Vertex product is Vertex, not the Gemini API", file: "agent_platform_prediction_outage.json",
			scope: vertexScope, want: Outage},
		{name: "a renamed Vertex product, Gemini scope", file: "agent_platform_prediction_outage.json", scope: geminiScope,
			want: Operational},
		{name: "closed incidents ignored", file: "resolved.json", scope: vertexScope, want: Operational},
		{name: "an incident open for weeks without news is ignored", file: "stale.json", scope: geminiScope, want: Operational},
		{name: "the same incident read when it was fresh", file: "stale.json", scope: geminiScope,
			now: time.Date(2026, 9, 3, 9, 0, 0, 0, time.UTC), want: Degraded},
		{name: "service information reads operational", file: "information.json", scope: geminiScope, want: Operational},
		{name: "no status_impact: severity high reads outage", file: "severity_fallback.json", scope: geminiScope, want: Outage},
		{name: "recovered (AVAILABLE) without an end", file: "available.json", scope: geminiScope, want: Operational},
		{name: "begins in the future", file: "future_begin.json", scope: geminiScope, want: Operational},
		{name: "no products: service name matched", file: "no_products.json", scope: geminiScope, want: Degraded},
		{name: "null body", file: "null.json", want: Operational},
		{name: "null nested arrays", file: "null_fields.json", scope: geminiScope, want: Degraded},
		{name: "unknown fields", file: "unknown_field.json", scope: geminiScope, want: Degraded},
		{name: "end in the future is still open", body: `[{"begin":"2026-10-02T10:00:00Z","end":"2026-10-02T18:00:00Z","external_desc":"Gemini quota errors","status_impact":"SERVICE_DISRUPTION","affected_products":[{"title":"Vertex Gemini API","id":"Z0FZJAMvEB4j3NbCJs6B"}]}]`,
			scope: geminiScope, want: Degraded},
		{name: "open incident without any severity reads degraded", body: `[{"begin":"2026-10-02T10:00:00Z","external_desc":"Gemini errors","affected_products":[{"title":"Vertex Gemini API","id":"x"}]}]`,
			scope: geminiScope, want: Degraded},
		{name: "an object, not the incidents array", file: "wrong_shape.json", err: true},
		{name: "html", file: "html.html", err: true},
		{name: "truncated", file: "truncated.json", err: true},
		{name: "empty body", body: "", err: true},
		{name: "array of strings", body: `["a","b"]`, err: true},
	})
}

func FuzzGoogleCloud(f *testing.F) { fuzzParser(f, "google-cloud", parseGoogleCloud) }
