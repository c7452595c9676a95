package tokens

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/tiktoken-go/tokenizer"

	"github.com/switchboard/switchboard/errs"
	"github.com/switchboard/switchboard/seeds"
)

// cookbook is the OpenAI cookbook's "How to count tokens with tiktoken" (openai/openai-cookbook,
// examples/How_to_count_tokens_with_tiktoken.ipynb): token IDs printed by Python tiktoken for each encoding.
// Matching IDs, not only counts, shows the compiled vocabularies are the real ones.
var cookbook = []struct {
	text          string
	o200k, cl100k []uint
}{
	{"hello world", []uint{24912, 2375}, []uint{15339, 1917}},
	{"antidisestablishmentarianism", []uint{493, 129901, 376, 160388, 21203, 2367}, []uint{519, 85342, 34500, 479, 8997, 2191}},
	{"2 + 2 = 4", []uint{17, 659, 220, 17, 314, 220, 19}, []uint{17, 489, 220, 17, 284, 220, 19}},
	{"お誕生日おめでとう", []uint{8930, 9697, 243, 128225, 8930, 17693, 4344, 48669},
		[]uint{33334, 45918, 243, 21990, 9080, 33334, 62004, 16556, 78699}},
}

func TestExactCountsMatchTiktoken(t *testing.T) {
	for _, c := range cookbook {
		for enc, want := range map[tokenizer.Encoding][]uint{tokenizer.O200kBase: c.o200k, tokenizer.Cl100kBase: c.cl100k} {
			codec, err := tokenizer.Get(enc)
			if err != nil {
				t.Fatal(err)
			}
			ids, _, err := codec.Encode(c.text)
			if err != nil || !slices.Equal(ids, want) {
				t.Errorf("%s %q: ids %v (%v), want %v", enc, c.text, ids, err, want)
			}
			if n, err := Count(enc, c.text); err != nil || n != len(want) {
				t.Errorf("Count(%s, %q) = %d, %v; want %d", enc, c.text, n, err, len(want))
			}
		}
	}
}

// TestChatCountMatchesOpenAIAPI recounts the cookbook's longer example: six chat messages whose prompt tokens
// the OpenAI API itself reported as 129 for gpt-4 (cl100k_base) and 124 for gpt-4o (o200k_base), with the
// cookbook's framing of 3 tokens per message, 1 per name and 3 to prime the reply.
func TestChatCountMatchesOpenAIAPI(t *testing.T) {
	messages := [][]string{ // role, content, then name when present
		{"system", "You are a helpful, pattern-following assistant that translates corporate jargon into plain English."},
		{"system", "New synergies will help drive top-line growth.", "example_user"},
		{"system", "Things working well together will increase revenue.", "example_assistant"},
		{"system", "Let's circle back when we have more bandwidth to touch base on opportunities for increased leverage.", "example_user"},
		{"system", "Let's talk later when we're less busy about how to do better.", "example_assistant"},
		{"user", "This late pivot means we don't have time to boil the ocean for the client deliverable."},
	}
	for enc, want := range map[tokenizer.Encoding]int{tokenizer.Cl100kBase: 129, tokenizer.O200kBase: 124} {
		total := 3
		for _, m := range messages {
			total += 3
			for i, v := range m {
				n, err := Count(enc, v)
				if err != nil {
					t.Fatal(err)
				}
				total += n
				if i == 2 {
					total++
				}
			}
		}
		if total != want {
			t.Errorf("%s: %d prompt tokens, the OpenAI API counted %d", enc, total, want)
		}
	}
}

// prose is English text to estimate.
const prose = `The service polls the official status pages of many AI providers every ten minutes and tells developers
which provider to call for a task, what it will cost and what each provider offers. Prices, models, rate limits and
benchmarks come from catalogs that name their sources and the date their data was checked. A failed fetch is never
read as an outage; a provider without a recent observation reads unknown until the next poll sees it again.`

func TestEstimates(t *testing.T) {
	e, err := NewEstimator(prose)
	if err != nil {
		t.Fatal(err)
	}
	o200k, _ := Count(tokenizer.O200kBase, prose)
	cl100k, _ := Count(tokenizer.Cl100kBase, prose)
	all, err := e.All()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != len(Tokenizers) {
		t.Fatalf("%d estimates for %d tokenizers", len(all), len(Tokenizers))
	}
	for i, est := range all {
		base := map[tokenizer.Encoding]int{tokenizer.O200kBase: o200k, tokenizer.Cl100kBase: cl100k}[est.Tokenizer.Base]
		if want := int(math.Round(est.Tokenizer.Ratio * float64(base))); est.Tokens != want {
			t.Errorf("%s: %d tokens, want %.2f x %d = %d", est.Tokenizer.Name, est.Tokens, est.Tokenizer.Ratio, base, want)
		}
		exact := est.Confidence == High
		if exact != (est.Low == est.Tokens && est.High == est.Tokens) {
			t.Errorf("%s (%s): range %d-%d around %d", est.Tokenizer.Name, est.Confidence, est.Low, est.High, est.Tokens)
		}
		if !exact && (float64(est.Low) > 0.9*float64(est.Tokens) || float64(est.High) < 1.1*float64(est.Tokens)) {
			t.Errorf("%s: range %d-%d is narrower than plus or minus 10%% of %d", est.Tokenizer.Name, est.Low, est.High, est.Tokens)
		}
		if i > 0 && (all[i-1].Tokens > est.Tokens || all[i-1].Tokens == est.Tokens && all[i-1].Tokenizer.Name > est.Tokenizer.Name) {
			t.Errorf("estimates out of order at %d: %s %d after %s %d", i, est.Tokenizer.Name, est.Tokens, all[i-1].Tokenizer.Name, all[i-1].Tokens)
		}
	}
	s := Summarize(all)
	if s.Min != all[0].Tokens || s.Max != all[len(all)-1].Tokens || s.Avg < float64(s.Min) || s.Avg > float64(s.Max) {
		t.Errorf("summary %+v over %v", s, all)
	}
	if in := e.Input(); in.Chars != len(prose) || in.Words != len(strings.Fields(prose)) {
		t.Errorf("input %+v", in)
	}
}

func TestInputBounds(t *testing.T) {
	if _, err := NewEstimator(""); err == nil {
		t.Error("empty text accepted")
	}
	// Characters are code points: 50000 two-byte characters are accepted, one more is not.
	if _, err := NewEstimator(strings.Repeat("é", MaxChars)); err != nil {
		t.Errorf("%d characters refused: %v", MaxChars, err)
	}
	_, err := NewEstimator(strings.Repeat("é", MaxChars+1))
	if !errs.IsInput(err) || !strings.HasPrefix(err.Error(), "text:") {
		t.Errorf("%d characters: %v", MaxChars+1, err)
	}
}

func TestTokenizerFor(t *testing.T) {
	for _, c := range []struct{ provider, model, want string }{
		{"openai", "", O200k},
		{"openai", "gpt-4o-mini", O200k},
		{"openai", "GPT-4.1", O200k},
		{"openai", "o3-mini", O200k},
		{"openai", "gpt-4-turbo", Cl100k},
		{"openai", "gpt-3.5-turbo", Cl100k},
		{"openai", "text-embedding-3-small", Cl100k},
		{"azure-openai", "gpt-35-turbo", Cl100k},
		{"anthropic", "", Claude},
		{"anthropic", "llama", Claude}, // a family the provider does not serve: its default
		{"aws-bedrock", "meta.llama3-70b-instruct-v1:0", Llama3},
		{"aws-bedrock", "anthropic.claude-3-5-sonnet", Claude},
		{"groq", "", Llama3},
		{"groq", "qwen/qwen3-32b", Qwen},
		{"groq", "openai/gpt-oss-120b", O200k},
		{"together", "mistralai/Mixtral-8x7B", Mistral},
		{"together", "deepseek-ai/DeepSeek-V3", DeepSeek},
		{"google-gemini", "gemini-2.5-pro", Gemini},
		{"mistral", "", Mistral},
		{"alibaba-dashscope", "", Qwen},
		{"openrouter", "anthropic/claude-sonnet-4", Claude},
		{"openrouter", "", Generic},
		{"cohere", "command-r", Generic},
		{"elevenlabs", "", Generic},
	} {
		if got := TokenizerFor(c.provider, c.model).Name; got != c.want {
			t.Errorf("TokenizerFor(%s, %q) = %s, want %s", c.provider, c.model, got, c.want)
		}
	}
}

// TestEveryProviderHasATokenizer checks the provider table against the registry: every ID it names exists,
// and every monitored provider shows up under at least one tokenizer.
func TestEveryProviderHasATokenizer(t *testing.T) {
	reg := seeds.Providers()
	for id, u := range providerUse {
		if !reg.Known(id) {
			t.Errorf("tokenizer table names unknown provider %q", id)
		}
		for _, name := range append([]string{u.def}, u.others...) {
			if _, ok := lookup(name); !ok {
				t.Errorf("%s uses unknown tokenizer %q", id, name)
			}
		}
	}
	var ids []string
	for _, p := range reg.All() {
		ids = append(ids, p.ID)
	}
	seen := map[string]bool{}
	for _, tk := range Tokenizers {
		for _, id := range Providers(tk.Name, ids) {
			seen[id] = true
		}
	}
	if len(seen) != len(ids) {
		t.Errorf("%d of %d providers have a tokenizer", len(seen), len(ids))
	}
}

func BenchmarkEstimateAll(b *testing.B) {
	text := strings.Repeat(prose+"\n", 10) // about 4,500 characters
	if err := Warm(); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		e, err := NewEstimator(text)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := e.All(); err != nil {
			b.Fatal(err)
		}
	}
}
