package impl_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/apitest"
	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/seeds"
	"github.com/switchboard/switchboard/tokens"
)

// TestTokenEstimate runs the token-estimate contract. The endpoint reads no store, so one engine is enough.
func TestTokenEstimate(t *testing.T) {
	s := apitest.Start(t, apitest.Options{})
	t.Run("Single", func(t *testing.T) { testTokenSingle(t, s) })
	t.Run("All", func(t *testing.T) { testTokenAll(t, s) })
	t.Run("Errors", func(t *testing.T) { testTokenErrors(t, s) })
	t.Run("DocumentedRatios", func(t *testing.T) { testTokenRatiosDocumented(t, s) })
}

// testTokenRatiosDocumented checks that the operation's description states every estimated tokenizer's ratio
// and confidence as the code applies them.
func testTokenRatiosDocumented(t *testing.T, s *apitest.Server) {
	desc := s.Doc.Paths.Find("/token-estimate").Post.Description
	for _, tk := range tokens.Tokenizers {
		if tk.Confidence == tokens.High {
			if !strings.Contains(desc, "`"+tk.Name+"`") {
				t.Errorf("the description does not name %s", tk.Name)
			}
			continue
		}
		base := strings.TrimSuffix(string(tk.Base), "_base")
		if want := fmt.Sprintf("`%s` = %.2f x %s, `%s`", tk.Name, tk.Ratio, base, tk.Confidence); !strings.Contains(desc, want) {
			t.Errorf("the description does not state %q", want)
		}
	}
}

func estimateSingle(t *testing.T, s *apitest.Server, body map[string]any) api.TokenEstimateSingleResponse {
	t.Helper()
	r := s.PostJSON("/api/v1/token-estimate", body)
	if r.Status != 200 {
		t.Fatalf("POST %v: %d %s", body, r.Status, r.Body)
	}
	var out api.TokenEstimateSingleResponse
	r.Decode(t, &out)
	return out
}

func testTokenSingle(t *testing.T, s *apitest.Server) {
	// "hello world" is 2 tokens in both OpenAI encodings (tiktoken: [24912, 2375] and [15339, 1917]).
	for _, c := range []struct{ model, tokenizer string }{{"", "o200k_base"}, {"gpt-4o", "o200k_base"}, {"gpt-4", "cl100k_base"}} {
		body := map[string]any{"text": "hello world", "provider": "openai"}
		if c.model != "" {
			body["model"] = c.model
		}
		got := estimateSingle(t, s, body)
		e := got.Estimate
		if e.ProviderId != "openai" || e.Tokenizer != c.tokenizer || e.EstimatedTokens != 2 || e.Confidence != "high" ||
			e.TokenRange.Low != 2 || e.TokenRange.High != 2 || got.Input.CharCount != 11 || got.Input.WordCount != 2 {
			t.Errorf("openai %q: %+v", c.model, got)
		}
	}
	// A longer text for Anthropic: an approximation, with a range of about plus or minus 10 percent.
	text := strings.Repeat("Switchboard tells agents which provider to call and what it will cost. ", 40)
	exact, err := tokens.Count("o200k_base", text)
	if err != nil {
		t.Fatal(err)
	}
	e := estimateSingle(t, s, map[string]any{"text": text, "provider": "anthropic"}).Estimate
	want := int(1.2*float64(exact) + 0.5)
	if e.Tokenizer != "claude_approx" || e.EstimatedTokens != want || e.Confidence != "low" ||
		e.TokenRange.Low > e.EstimatedTokens*9/10 || e.TokenRange.High < e.EstimatedTokens*11/10 {
		t.Errorf("anthropic: %+v, want %d tokens (1.20 x %d)", e, want, exact)
	}
	// model selects among the provider's tokenizers by family; an unknown family keeps the default.
	for model, tk := range map[string]string{"meta-llama/Llama-3.3-70B-Instruct": "llama3_approx", "Qwen/QwQ-32B": "qwen_approx", "some-new-model": "llama3_approx"} {
		if e := estimateSingle(t, s, map[string]any{"text": text, "provider": "together", "model": model}).Estimate; e.Tokenizer != tk || e.Confidence != "medium" {
			t.Errorf("together %s: %+v, want %s", model, e, tk)
		}
	}
	// Non-ASCII: characters are code points.
	got := estimateSingle(t, s, map[string]any{"text": "お誕生日おめでとう", "provider": "openai"})
	if got.Input.CharCount != 9 || got.Estimate.EstimatedTokens != 8 { // the OpenAI cookbook's o200k_base example
		t.Errorf("japanese: %+v", got)
	}
}

func testTokenAll(t *testing.T, s *apitest.Server) {
	text := "The quick brown fox jumps over the lazy dog. " + strings.Repeat("Token counts differ by tokenizer. ", 30)
	r := s.PostJSON("/api/v1/token-estimate", map[string]any{"text": text})
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	var got api.TokenEstimateAllResponse
	r.Decode(t, &got)
	if len(got.Estimates) != len(tokens.Tokenizers) {
		t.Fatalf("%d estimates for %d tokenizers", len(got.Estimates), len(tokens.Tokenizers))
	}
	o200k, _ := tokens.Count("o200k_base", text)
	cl100k, _ := tokens.Count("cl100k_base", text)
	covered := map[string]bool{}
	sum := 0
	for i, e := range got.Estimates {
		if i > 0 {
			prev := got.Estimates[i-1]
			if prev.EstimatedTokens > e.EstimatedTokens || prev.EstimatedTokens == e.EstimatedTokens && prev.Tokenizer > e.Tokenizer {
				t.Errorf("estimates out of order: %s %d after %s %d", e.Tokenizer, e.EstimatedTokens, prev.Tokenizer, prev.EstimatedTokens)
			}
		}
		switch e.Tokenizer {
		case "o200k_base":
			if e.EstimatedTokens != o200k {
				t.Errorf("o200k_base: %d, exact %d", e.EstimatedTokens, o200k)
			}
		case "cl100k_base":
			if e.EstimatedTokens != cl100k {
				t.Errorf("cl100k_base: %d, exact %d", e.EstimatedTokens, cl100k)
			}
		}
		if !sort.StringsAreSorted(e.Providers) || len(e.Providers) == 0 {
			t.Errorf("%s: providers %v", e.Tokenizer, e.Providers)
		}
		for _, p := range e.Providers {
			covered[p] = true
		}
		sum += e.EstimatedTokens
	}
	if len(covered) != len(seeds.Providers().All()) {
		t.Errorf("%d of %d providers appear under a tokenizer", len(covered), len(seeds.Providers().All()))
	}
	first, last := got.Estimates[0].EstimatedTokens, got.Estimates[len(got.Estimates)-1].EstimatedTokens
	avg := float64(sum) / float64(len(got.Estimates))
	if got.Summary.MinTokens != first || got.Summary.MaxTokens != last || got.Summary.AvgTokens < avg-0.01 || got.Summary.AvgTokens > avg+0.01 {
		t.Errorf("summary %+v; estimates from %d to %d, mean %.2f", got.Summary, first, last, avg)
	}
	if got.Input.CharCount != len(text) || got.Input.WordCount != len(strings.Fields(text)) {
		t.Errorf("input %+v", got.Input)
	}
}

func testTokenErrors(t *testing.T, s *apitest.Server) {
	for _, c := range []struct {
		body   any
		status int
		what   string
	}{
		{map[string]any{"text": "hi", "provider": "nope"}, 404, "provider"},
		{map[string]any{"provider": "openai"}, 400, "text"},
		{map[string]any{"text": ""}, 400, "text"},
		{map[string]any{"text": strings.Repeat("é", tokens.MaxChars+1)}, 400, "text"},
		{map[string]any{"text": 42}, 400, "text"},
		{map[string]any{"text": "hi", "provider": ""}, 400, "provider"},
		{map[string]any{"text": "hi", "colour": "red"}, 400, "colour"},
		{"{not json", 400, ""},
	} {
		r := s.PostJSON("/api/v1/token-estimate", c.body)
		if r.Status != c.status {
			t.Errorf("%.80v: %d %s, want %d", c.body, r.Status, r.Body, c.status)
			continue
		}
		if msg := r.Error(t); !strings.Contains(msg, c.what) {
			t.Errorf("%.80v: error %q does not name %q", c.body, msg, c.what)
		}
	}
	// The bound is in characters: 50000 two-byte characters pass.
	if r := s.PostJSON("/api/v1/token-estimate", map[string]any{"text": strings.Repeat("é", tokens.MaxChars), "provider": "mistral"}); r.Status != 200 {
		t.Errorf("%d characters: %d %s", tokens.MaxChars, r.Status, r.Body)
	}
}
