package decide

import (
	"slices"
	"testing"

	"github.com/switchboard/switchboard/seeds"
)

func TestModelFamily(t *testing.T) {
	for id, want := range map[string]string{
		"claude-opus-5-5":             "claude",
		"anthropic.claude-sonnet-4-6": "claude",
		"claude-sonnet-4-5@20250929":  "claude",
		"gpt-4o":                      "gpt",
		"o3-mini":                     "gpt",
		"openai/gpt-oss-120b":         "gpt-oss",
		"gpt-oss-20b":                 "gpt-oss",
		"gemini-3.5-flash":            "gemini",
		"meta-llama/Llama-3.3-70B-Instruct-Turbo":          "llama",
		"accounts/fireworks/models/llama-v3p1-8b-instruct": "llama",
		"mistral-large-3":                "mistral",
		"command-a-03-2025":              "command",
		"deepseek-v4-pro":                "deepseek",
		"grok-4.7":                       "grok",
		"qwen.qwen3-235b-a22b-2507-v1:0": "qwen",
		"amazon.nova-2-lite-v1:0":        "nova",
		"sonar":                          "",
		"whisper-large-v3":               "whisper",
		"proto-3":                        "",
	} {
		if got := ModelFamily(id); got != want {
			t.Errorf("ModelFamily(%q) = %q, want %q", id, got, want)
		}
	}
}

// TestFailoverRanksIndependentFirst: with every provider equally up, failover for anthropic puts providers that
// serve no Claude model before Bedrock and Vertex AI, which do, and says so in failure_domain.
func TestFailoverRanksIndependentFirst(t *testing.T) {
	ix, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	live := Statuses{}
	for _, p := range seeds.Providers().All() {
		live[p.ID] = op(300)
	}
	chain, _, err := ix.Failover(FailoverQuery{Primary: "anthropic", Task: "llm", Limit: 10}, live)
	if err != nil {
		t.Fatal(err)
	}
	pos := map[string]int{}
	firstShared := len(chain)
	for i, e := range chain {
		pos[e.Provider] = i
		if len(e.Domain.Shared) > 0 && firstShared == len(chain) {
			firstShared = i
		}
		if len(e.Domain.Shared) == 0 && i > firstShared {
			t.Errorf("independent %s at %d after a shared one at %d", e.Provider, i, firstShared)
		}
	}
	if firstShared == 0 {
		t.Fatalf("no independent provider first: %+v", chain)
	}
	for _, p := range []string{"aws-bedrock", "google-vertex-ai"} {
		if i, ok := pos[p]; ok && (!slices.Contains(chain[i].Domain.Shared, "claude") || i < firstShared) {
			t.Errorf("%s at %d: domain %+v", p, i, chain[i].Domain)
		}
		// Whether in the top 10 or not, they share Claude with Anthropic.
		if d := ix.failureDomain("anthropic", p, "llm"); !slices.Contains(d.Shared, "claude") {
			t.Errorf("%s: domain %+v, want Claude shared", p, d)
		}
	}
}
