package parse

import (
	"testing"
	"time"
)

func TestAWSHealth(t *testing.T) {
	runCases(t, "aws-health", []pcase{
		{name: "empty channel", file: "empty_channel.rss", scope: bedrockScope, want: Operational},
		{name: "service degradation", file: "degradation.rss", scope: bedrockScope, want: Degraded,
			summary: "Service degradation: Increased error rates"},
		{name: "service degradation, no keywords", file: "degradation.rss", want: Degraded},
		{name: "keyword for another service", file: "degradation.rss", scope: Scope{Keywords: []string{"sagemaker"}}, want: Operational},
		{name: "keyword with region", file: "degradation.rss", scope: Scope{Keywords: []string{"bedrock-us-east-1"}}, want: Degraded},
		{name: "service disruption is an outage", file: "disruption.rss", scope: bedrockScope, want: Outage,
			summary: "Service disruption: InvokeModel requests failing"},
		{name: "resolved: newest item closes the incident", file: "resolved.rss", scope: bedrockScope, want: Operational},
		{name: "operating normally closes the incident", file: "operating_normally.rss", scope: bedrockScope, want: Operational},
		{name: "old unresolved item ignored", file: "old.rss", scope: bedrockScope, want: Operational},
		{name: "the old item when it was new", file: "old.rss", scope: bedrockScope,
			now: time.Date(2026, 9, 21, 18, 0, 0, 0, time.UTC), want: Degraded},
		{name: "a PDT pubDate is seven hours behind UTC, not zero", file: "degradation.rss", scope: bedrockScope,
			now: time.Date(2026, 10, 2, 13, 10, 0, 0, time.UTC), want: Degraded},
		{name: "informational message reads degraded", file: "informational.rss", scope: bedrockScope, want: Degraded},
		{name: "unknown elements", file: "unknown_field.rss", scope: bedrockScope, want: Degraded},
		{name: "JSON UTF-16LE with BOM, bedrock only", file: "currentevents_utf16le.json", scope: bedrockScope,
			want: Degraded, summary: "Amazon Bedrock: Increased Error Rates"},
		{name: "JSON UTF-16BE with BOM, bedrock only", file: "currentevents_utf16be.json", scope: bedrockScope, want: Degraded},
		{name: "JSON UTF-16LE, all services", file: "currentevents_utf16le.json", want: Outage,
			summary: "Amazon Elastic Compute Cloud: Instance impairments"},
		{name: "JSON UTF-8", file: "currentevents_utf8.json", scope: bedrockScope, want: Degraded},
		{name: "JSON empty array", file: "currentevents_empty.json", scope: bedrockScope, want: Operational},
		{name: "JSON null", file: "currentevents_null.json", want: Operational},
		{name: "JSON months-old event in another region ignored", file: "currentevents_utf16le.json",
			scope: Scope{Keywords: []string{"me-central-1"}}, want: Operational},
		{name: "JSON unknown fields, status from the newest log entry", file: "currentevents_unknown_field.json",
			scope: bedrockScope, want: Degraded, summary: "Increased Error Rates"},
		{name: "JSON status 0 is resolved", body: `[{"date":"1790950000","status":"0","service":"bedrock-us-east-1","summary":"x"}]`,
			scope: bedrockScope, want: Operational},
		{name: "JSON object, not an array", file: "currentevents_object.json", err: true},
		{name: "JSON truncated UTF-16", file: "currentevents_truncated.json", err: true},
		{name: "html", file: "html.html", err: true},
		{name: "truncated RSS", file: "truncated.rss", err: true},
		{name: "empty body", body: "", err: true},
	})
}

func FuzzAWSHealth(f *testing.F) { fuzzParser(f, "aws-health", parseAWSHealth) }
