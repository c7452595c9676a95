// These tests work on the whole catalogs in one goroutine: they run without the race detector (make test runs
// the package twice, see DATA_ONLY_PKGS in the Makefile), where they take a tenth of the time.

//go:build !race

package catalogbuild

import (
	"reflect"
	"strings"
	"testing"
)

func TestParents(t *testing.T) {
	known := map[string]string{}
	for _, k := range []string{"openai/gpt-4-0613", "openai/gpt-4o-2024-08-06", "openai/gpt-4o", "anthropic/claude-3-5-sonnet-20240620",
		"mistral/mistral-large-2407", "ai21/jamba-1.5-large", "xai/grok-3", "anthropic/claude-3-5-sonnet-latest"} {
		_, m, _ := strings.Cut(k, "/")
		known[k] = m
	}
	for _, c := range []struct {
		provider, model string
		want            []LineageParent
	}{
		{"openai", "gpt-4o", []LineageParent{{"openai", "gpt-4o-2024-08-06", RuleAlias}}},
		{"openrouter", "openai/gpt-4-0613", []LineageParent{{"openai", "gpt-4-0613", RuleMaker}}},
		{"aws-bedrock", "anthropic.claude-3-5-sonnet-20240620-v1:0", []LineageParent{{"anthropic", "claude-3-5-sonnet-20240620", RuleMaker}}},
		{"aws-bedrock", "eu.anthropic.claude-3-5-sonnet-20240620-v1:0", []LineageParent{{"anthropic", "claude-3-5-sonnet-20240620", RuleMaker}}},
		{"google-vertex-ai", "claude-3-5-sonnet@20240620", []LineageParent{{"anthropic", "claude-3-5-sonnet-20240620", RuleMaker}}},
		{"google-vertex-ai", "jamba-1.5-large@001", []LineageParent{{"ai21", "jamba-1.5-large", RuleMaker}}},
		{"azure-openai", "Mistral-large-2407", []LineageParent{{"mistral", "mistral-large-2407", RuleMaker}}},
		{"azure-openai", "gpt-4-0613", []LineageParent{{"openai", "gpt-4-0613", RuleMaker}}},
		{"google-vertex-ai", "xai/grok-3", []LineageParent{{"xai", "grok-3", RuleMaker}}},
		// The maker's own IDs follow nobody; open-weight hub names and unknown spellings have no maker schedule.
		{"openai", "gpt-4-0613", nil},
		{"deepinfra", "meta-llama/Llama-3.3-70B-Instruct", nil},
		{"fireworks", "accounts/fireworks/models/deepseek-r1", nil},
		{"openrouter", "openai/gpt-99", nil},
	} {
		if got := Parents(c.provider, c.model, known); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Parents(%s, %s) = %v, want %v", c.provider, c.model, got, c.want)
		}
	}
}

// TestFollowLineage runs the lineage rules on a converter holding a few models: what retires with its parent, what
// keeps its own schedule, and that nothing runs from host to maker.
func TestFollowLineage(t *testing.T) {
	day := func(s string) *string { return &s }
	official := map[string]*LifecycleFile{
		"openai": {ProviderID: "openai", Pages: []OfficialPage{{ID: "oa-dep", Title: "Deprecations", URL: "https://platform.openai.com/docs/deprecations", Checked: "2026-11-24"}},
			Retired: []Retirement{
				{ModelID: "gpt-4-0613", Shutdown: day("2026-06-06"), Source: "oa-dep"},
				{ModelID: "gpt-4o-2024-08-06", Shutdown: day("2026-02-01"), Source: "oa-dep"},
				{ModelID: "o4-mini", Shutdown: day("2027-01-15"), Source: "oa-dep"},
			}},
		// Azure's own page keeps gpt-4-0613 running, and retires gpt-4.1 which OpenAI still serves.
		"azure-openai": {ProviderID: "azure-openai", Pages: []OfficialPage{{ID: "az", Title: "Retirements", URL: "https://learn.microsoft.com/x", Checked: "2026-11-24"}},
			Current: []CurrentModel{{ModelID: "gpt-4-0613", Task: "llm", Stage: "ga", Sources: []string{"az"}}},
			Retired: []Retirement{{ModelID: "gpt-4.1", Shutdown: day("2026-05-01"), Source: "az"}}},
	}
	c := &converter{asOf: "2026-11-25", official: official, deprecated: map[key]string{}, lm: map[key]*lModel{}, mm: map[key]*mModel{},
		litellmShutdown: map[key]string{{"openrouter", "openai/gpt-3.5-turbo"}: "2027-03-01"}}
	for _, k := range []key{
		{"openai", "gpt-4o"}, {"openai", "gpt-4.1"},
		{"openrouter", "openai/gpt-4-0613"}, {"openrouter", "openai/gpt-4o"}, {"openrouter", "openai/o4-mini"}, {"openrouter", "openai/gpt-4.1"},
		{"openrouter", "openai/gpt-3.5-turbo"}, {"azure-openai", "gpt-4-0613"}, {"azure-openai", "o4-mini"},
	} {
		c.lm[k] = &lModel{key: k}
	}
	c.deprecated[key{"openai", "gpt-4-0613"}] = "official"
	c.deprecated[key{"openai", "gpt-4o-2024-08-06"}] = "official"
	c.deprecated[key{"openai", "gpt-3.5-turbo"}] = "official"
	c.followLineage()
	for k, want := range map[key]string{
		{"openai", "gpt-4o"}:                   "2026-02-01", // alias follows its snapshot
		{"openrouter", "openai/gpt-4-0613"}:    "2026-06-06", // aggregator follows the maker
		{"openrouter", "openai/gpt-4o"}:        "2026-02-01", // ... and the maker's alias its snapshot
		{"openrouter", "openai/o4-mini"}:       "2027-01-15", // a shutdown ahead is carried, not applied
		{"azure-openai", "o4-mini"}:            "2027-01-15", // a host without its own entry follows the maker
		{"azure-openai", "gpt-4-0613"}:         "",           // the host's page keeps it live
		{"openai", "gpt-4.1"}:                  "",           // a host retiring a model does not retire it at the maker
		{"openrouter", "openai/gpt-4.1"}:       "",
		{"openrouter", "openai/gpt-3.5-turbo"}: "", // its own shutdown day (litellm's entry for OpenRouter) stands
	} {
		got := c.lineage[k].Shutdown
		if got != want {
			t.Errorf("%s: follows shutdown %q, want %q", k, got, want)
		}
		_, retired := c.deprecated[k]
		_, stillListed := c.lm[k]
		if gone := want != "" && want <= c.asOf; retired != gone || stillListed == gone {
			t.Errorf("%s: retired %v, still listed %v; want retired %v", k, retired, stillListed, gone)
		}
	}
}

// TestFollowLineageBedrockProfile: a Bedrock cross-Region inference profile follows the Bedrock model it invokes
// when Bedrock's lifecycle lists that model, not the maker's day (Bedrock's lifecycle page: only its dates apply on
// Bedrock); a profile of a model Bedrock does not list still follows the maker.
func TestFollowLineageBedrockProfile(t *testing.T) {
	day := func(s string) *string { return &s }
	official := map[string]*LifecycleFile{
		"anthropic": {ProviderID: "anthropic", Pages: []OfficialPage{{ID: "sdk", Title: "SDK", URL: "https://github.com/anthropics/anthropic-sdk-python", Checked: "2026-11-28"}},
			Retired: []Retirement{
				{ModelID: "claude-sonnet-4-20250514", Shutdown: day("2026-06-15"), Source: "sdk"},
				{ModelID: "claude-opus-4-20250514", Shutdown: day("2026-06-15"), Source: "sdk"},
				{ModelID: "claude-haiku-4-5-20251001", Shutdown: day("2027-10-01"), Source: "sdk"},
			}},
		"aws-bedrock": {ProviderID: "aws-bedrock", Pages: []OfficialPage{{ID: "legacy", Title: "Model lifecycle (Legacy)", URL: "https://docs.aws.amazon.com/bedrock/latest/userguide/model-lifecycle-legacy.html", Checked: "2026-11-25"}},
			Retired: []Retirement{{ModelID: "anthropic.claude-sonnet-4-20250514-v1:0", Shutdown: day("2026-10-14"), Source: "legacy"}},
			Current: []CurrentModel{{ModelID: "anthropic.claude-haiku-4-5-20251001-v1:0", Task: "llm", Stage: "ga", Sources: []string{"legacy"}}}},
	}
	c := &converter{asOf: "2026-11-28", official: official, deprecated: map[key]string{}, lm: map[key]*lModel{}, mm: map[key]*mModel{}}
	for _, k := range []key{
		{"aws-bedrock", "global.anthropic.claude-sonnet-4-20250514-v1:0"},
		{"aws-bedrock", "us.anthropic.claude-haiku-4-5-20251001-v1:0"},
		{"aws-bedrock", "us.anthropic.claude-opus-4-20250514-v1:0"},
	} {
		c.lm[k] = &lModel{key: k}
	}
	c.followLineage()
	for k, want := range map[key]LineageParent{
		// Bedrock's day for the model the profile invokes, not Anthropic's 2026-06-15.
		{"aws-bedrock", "global.anthropic.claude-sonnet-4-20250514-v1:0"}: {"aws-bedrock", "anthropic.claude-sonnet-4-20250514-v1:0", RuleProfile},
		// Bedrock lists the model without a day: no maker's day either.
		{"aws-bedrock", "us.anthropic.claude-haiku-4-5-20251001-v1:0"}: {},
		// Bedrock does not list the model: the maker's day.
		{"aws-bedrock", "us.anthropic.claude-opus-4-20250514-v1:0"}: {"anthropic", "claude-opus-4-20250514", RuleMaker},
	} {
		got, ok := c.lineage[k]
		if want == (LineageParent{}) {
			if ok {
				t.Errorf("%s: follows %v, want no lineage", k, got.Parent)
			}
			continue
		}
		if !ok || got.Parent != want {
			t.Errorf("%s: follows %v, want %v", k, got.Parent, want)
		}
	}
	if got := c.lineage[key{"aws-bedrock", "global.anthropic.claude-sonnet-4-20250514-v1:0"}].Shutdown; got != "2026-10-14" {
		t.Errorf("global profile of Claude Sonnet 4: shutdown %q, want Bedrock's 2026-10-14", got)
	}
	if _, still := c.lm[key{"aws-bedrock", "us.anthropic.claude-haiku-4-5-20251001-v1:0"}]; !still {
		t.Error("the profile of a model Bedrock lists as current was retired")
	}
}

// TestDataKeyTakesTheRetiringPagesSpelling: a data set's ID in another case than the provider's lifecycle page
// gives it (litellm's deepseek-r1, Azure's DeepSeek-R1) is keyed as the page spells it, so the page's shutdown
// reaches it; IDs the page does not retire, and IDs a page writes in two spellings, keep their own.
func TestDataKeyTakesTheRetiringPagesSpelling(t *testing.T) {
	c := &converter{official: map[string]*LifecycleFile{"azure-openai": {Retired: []Retirement{
		{ModelID: "DeepSeek-R1"}, {ModelID: "Mistral-small"}, {ModelID: "mistral-SMALL"},
	}}}}
	for _, tc := range []struct{ provider, id, want string }{
		{"azure-openai", "deepseek-r1", "DeepSeek-R1"},
		{"azure-openai", "DeepSeek-R1", "DeepSeek-R1"},
		{"azure-openai", "deepseek-v4-flash", "deepseek-v4-flash"},
		{"azure-openai", "mistral-small", "mistral-small"},
		{"together", "deepseek-r1", "deepseek-r1"},
	} {
		if got := c.dataKey(tc.provider, tc.id); got != (key{tc.provider, tc.want}) {
			t.Errorf("dataKey(%s, %s) = %v, want %s", tc.provider, tc.id, got, tc.want)
		}
	}
}
