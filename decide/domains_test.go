package decide

import (
	"testing"
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
