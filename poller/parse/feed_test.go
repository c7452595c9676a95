package parse

import (
	"testing"
	"time"
)

func TestFeed(t *testing.T) {
	runCases(t, "rss", []pcase{
		{name: "empty RSS channel", file: "empty_channel.xml", want: Operational},
		{name: "empty Atom feed", file: "empty.atom", want: Operational},
		{name: "xAI: open API incident", file: "xai_open.xml", scope: xaiScope, want: Degraded,
			summary: "[API (us-west-2.api.x.ai)] Elevated latency on chat completions"},
		{name: "xAI: open Grok incident is out of the API scope", file: "xai_mixed.xml", scope: xaiScope, want: Operational},
		{name: "xAI: an open Grok login incident is an app's, whole feed", file: "xai_mixed.xml", want: Operational},
		{name: "xAI: major outage wording", file: "xai_outage.xml", scope: xaiScope, want: Outage, summary: "Major outage"},
		// Section 9: "disruption" is read against the feed's own scale; outage wording is major/full outage,
		// unavailable, down.
		{name: "xAI: a disruption reads degraded (xAI's scale has an outage level)", file: "xai_disruption.xml",
			scope: xaiScope, want: Degraded, summary: "Service disruption"},
		{name: "xAI: a partial outage, partially unavailable, reads degraded", file: "xai_partial_outage.xml",
			scope: xaiScope, want: Degraded},
		{name: "xAI: unavailable reads outage", file: "xai_unavailable.xml", scope: xaiScope, want: Outage},
		{name: "xAI: down reads outage", file: "xai_down.xml", scope: xaiScope, want: Outage},
		{name: "xAI: slow down and scaled down are not down", file: "xai_slow_down.xml", scope: xaiScope, want: Degraded},
		{name: "Status.io: disruption is the top of its scale", file: "statusio_disruption.rss",
			scope: Scope{DisruptionTop: true}, want: Outage, summary: "Model Serving"},
		{name: "Status.io: partial disruption stays degraded", file: "statusio_partial_disruption.rss",
			scope: Scope{DisruptionTop: true}, want: Degraded},
		{name: "a disruption on a feed whose scale has an outage level", file: "statusio_disruption.rss", want: Degraded},
		{name: "xAI: resolved", file: "xai_resolved.xml", scope: xaiScope, want: Operational},
		{name: "old unresolved entry ignored", file: "old.xml", want: Operational},
		{name: "the old entry when it was fresh", file: "old.xml", now: time.Date(2026, 9, 29, 9, 0, 0, 0, time.UTC), want: Degraded},
		{name: "unknown elements", file: "unknown_field.xml", scope: xaiScope, want: Degraded},
		{name: "Statuspage history: resolved", file: "statuspage_resolved.rss", want: Operational},
		{name: "Statuspage history: maintenance in progress", file: "statuspage_maintenance_in_progress.rss",
			want: Degraded, maint: true, summary: "Database maintenance"},
		{name: "Statuspage history: scheduled maintenance ignored", file: "statuspage_maintenance_scheduled.rss", want: Operational},
		{name: "Statuspage history: partial disruption is degraded", file: "statuspage_open.rss", want: Degraded,
			summary: "Partial disruption of file uploads"},
		{name: "Atom: open incident", file: "incidentio_open.atom", want: Degraded, summary: "Errors on file uploads"},
		{name: "Atom: keyword in the summary", file: "incidentio_open.atom", scope: Scope{Keywords: []string{"Files API"}}, want: Degraded},
		{name: "Atom: keyword matching nothing", file: "incidentio_open.atom", scope: Scope{Keywords: []string{"Embeddings"}}, want: Operational},
		{name: "Atom: resolved", file: "incidentio_resolved.atom", want: Operational},
		{name: "Atom: xhtml content, full outage", file: "atom_outage_xhtml.atom", want: Outage, summary: "Realtime API full outage"},
		{name: "IBM: watsonx incident", file: "ibm_incident.rss", scope: ibmScope, want: Degraded, summary: "watsonx.ai inference"},
		{name: "IBM: another service's incident", file: "ibm_other_service.rss", scope: ibmScope, want: Operational},
		{name: "IBM: another service's incident, whole feed", file: "ibm_other_service.rss", want: Degraded, summary: "Cloud Object Storage errors"},
		{name: "IBM: maintenance in progress", file: "ibm_maintenance_in_progress.rss", scope: ibmScope, want: Degraded, maint: true},
		{name: "IBM: future maintenance, announcements and ended incidents ignored", file: "ibm_maintenance_future.rss", want: Operational},
		{name: "RSS 1.0 (RDF)", file: "rdf.xml", want: Degraded, summary: "Model Serving"},
		{name: "ISO-8859-1 feed", file: "latin1.xml", want: Degraded, summary: "Dégradation"},
		{name: "UTF-16 feed with BOM", file: "utf16.xml", scope: xaiScope, want: Degraded},
		{name: "undated entry ignored", body: `<rss version="2.0"><channel><item><title>Something broke</title><description>Status: Investigating</description></item></channel></rss>`,
			want: Operational},
		{name: "rss without channel", file: "no_channel.xml", err: true},
		{name: "another XML document", file: "wrong_root.xml", err: true},
		{name: "JSON body", file: "json_body.xml", err: true},
		{name: "html (a challenge page)", file: "html.html", err: true},
		{name: "truncated", file: "truncated.xml", err: true},
		{name: "empty body", body: "", err: true},
		{name: "trailing garbage after the root", body: `<rss><channel></channel></rss><rss>`, err: true},
	})
}

func FuzzFeed(f *testing.F) { fuzzParser(f, "rss", parseFeed) }
