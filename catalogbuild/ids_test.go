// These tests work on the whole catalogs in one goroutine: they run without the race detector (make test runs
// the package twice, see DATA_ONLY_PKGS in the Makefile), where they take a tenth of the time.

//go:build !race

package catalogbuild

import (
	"strings"
	"testing"
)

// TestValidIDRejectsMarkupAndEscapes: the converter's ID pattern takes the providers' real IDs and refuses
// markup, whitespace, quotes, control characters and terminal escapes.
func TestValidIDRejectsMarkupAndEscapes(t *testing.T) {
	for _, id := range []string{"gpt-4o-2024-08-06", "accounts/fireworks/models/llama-v3p1-8b-instruct", "anthropic.claude-3-5-sonnet-20240620-v1:0",
		"@cf/meta/llama-3-8b-instruct", "~moonshotai/kimi-latest", "google/gemma-4-31b-it:free", "gemini-1.5-pro@001", "openai", "a", strings.Repeat("x", 200)} {
		if !ValidID(id) {
			t.Errorf("%q refused", id)
		}
	}
	for _, id := range []string{"", "<script>alert(1)</script>", "gpt-4o\x1b[31m", "gpt 4o", "gpt-4o\n", "-flag", `a"b`, "a'b", "a\\b",
		"a\u202eb", "ａｂ", strings.Repeat("x", 201), "accounts/fireworks/models/", "meta/"} {
		if ValidID(id) {
			t.Errorf("%q accepted", id)
		}
	}
}

// TestNameNeverMakesAModelFree: an all-zero price is taken as free only where the entry cites a pricing page; a
// name ending in ":free" or "-free" is no such source.
func TestNameNeverMakesAModelFree(t *testing.T) {
	for _, id := range []string{"evil/gpt-5:free", "gpt-5-free", "GPT-5:FREE"} {
		if trustedZero(litellmEntry{Key: id, Fields: map[string]any{}}, id) {
			t.Errorf("%s: the name made a $0 price a fact", id)
		}
	}
	if !trustedZero(litellmEntry{Fields: map[string]any{"source": "https://example.com/pricing"}}, "m") {
		t.Error("a $0 price citing the provider's pricing page is not taken")
	}
}

// TestSessionResourceIsNoModel: litellm prices OpenAI's Code Interpreter sandbox as "openai/container", billed per
// session; such an entry is a tool resource and must not become a model, while a model that also carries a
// per-session or per-query charge next to its token prices stays a model.
func TestSessionResourceIsNoModel(t *testing.T) {
	container := litellmEntry{Key: "openai/container", Provider: "openai", Mode: "chat",
		Fields: map[string]any{"code_interpreter_cost_per_session": 0.03, "litellm_provider": "openai", "mode": "chat"}}
	if !sessionResource(container) {
		t.Error("a per-session-only entry was taken for a model")
	}
	model := litellmEntry{Key: "gpt-x", Provider: "openai", Mode: "chat",
		Fields: map[string]any{"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6, "code_interpreter_cost_per_session": 0.03}}
	if sessionResource(model) {
		t.Error("a token-priced model with a session charge was dropped")
	}
	if sessionResource(litellmEntry{Key: "m", Fields: map[string]any{"mode": "chat"}}) {
		t.Error("an entry with no charges at all was taken for a session resource")
	}
	for _, f := range []string{"models", "pricing", "deprecations", "model_lifecycle"} {
		_, recs := catalogFile(t, f)
		for _, r := range recs {
			id, _ := r["model"].(string)
			if id == "" {
				id, _ = r["model_id"].(string)
			}
			if id == "container" {
				t.Errorf("%s serves %s/container, the Code Interpreter sandbox, as a model", f, r["provider_id"])
			}
		}
	}
}
