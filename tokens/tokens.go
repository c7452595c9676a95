// Package tokens estimates how many tokens a text takes with each provider's tokenizer. OpenAI's encodings
// (o200k_base, cl100k_base) are counted exactly with tiktoken-go, whose vocabularies are compiled into the
// binary (no download, works offline). Other providers' tokenizers are not all published, so their counts are
// estimates: a documented ratio applied to an exact count of a related encoding (see Tokenizers).
package tokens

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer"

	"github.com/switchboard/switchboard/errs"
)

// MaxChars is the longest text accepted, in characters (Unicode code points).
const MaxChars = 50000

// Confidence says how a count was made.
type Confidence string

const (
	// High is the provider's own tokenizer, counted exactly.
	High Confidence = "high"
	// Medium is a ratio applied to the exact count of a tokenizer of the same family (a BPE built from, or on
	// the same design as, the counted encoding).
	Medium Confidence = "medium"
	// Low is a ratio from published rules of thumb or third-party measurements of an unrelated tokenizer.
	Low Confidence = "low"
)

// Tokenizer names, as answered in `tokenizer`.
const (
	O200k    = "o200k_base"
	Cl100k   = "cl100k_base"
	Claude   = "claude_approx"
	Gemini   = "gemini_approx"
	Llama3   = "llama3_approx"
	Mistral  = "mistral_tekken_approx"
	Qwen     = "qwen_approx"
	DeepSeek = "deepseek_approx"
	Generic  = "generic_approx"
)

// Tokenizer is how one tokenizer's count is made: Ratio times the exact count of the encoding Base, with a
// likely range of plus or minus Spread (a fraction) around it.
type Tokenizer struct {
	Name       string
	Base       tokenizer.Encoding
	Ratio      float64
	Confidence Confidence
	Spread     float64
}

// estimateSpread is the half-width of the range of an estimate: the contract's "about plus or minus 10 percent".
const estimateSpread = 0.10

// Tokenizers lists every tokenizer, the exact ones first. Where each ratio comes from (the operation's
// description in openapi/openapi.yaml says the same to callers):
//   - o200k_base: OpenAI's encoding of gpt-4o, gpt-4.1, gpt-4.5, gpt-5, the o-series and gpt-oss; exact.
//   - cl100k_base: OpenAI's encoding of gpt-4, gpt-3.5-turbo and the text-embedding models; exact.
//   - claude: Anthropic does not publish its tokenizer. A published comparison of Claude 3.5 Sonnet with GPT-4o
//     (May 2025) measured 16% more tokens on English prose, 21% on math and 30% on code: 1.20 x o200k, whose
//     range (1.08 to 1.32) spans those measurements.
//   - gemini: Google documents about 4 characters per token for Gemini (ai.google.dev/gemini-api/docs/tokens),
//     the same rule of thumb OpenAI gives for its own tokenizers: 1.00 x o200k.
//   - llama3: Llama 3's 128K vocabulary is cl100k_base plus 28K tokens for other languages (Meta's Llama 3
//     release): 1.00 x cl100k.
//   - mistral_tekken: Tekken (Mistral NeMo and later) is a tiktoken-based BPE of 131K tokens (Mistral, July
//     2024): 1.00 x cl100k.
//   - qwen: Qwen's 151K BPE vocabulary starts from cl100k_base (Qwen technical report, 2023): 1.00 x cl100k.
//   - deepseek: DeepSeek-V3 uses a byte-level BPE of 128K tokens (DeepSeek-V3 technical report), the size and
//     design of cl100k_base: 1.00 x cl100k. DeepSeek's own rule of thumb (0.3 token per English character,
//     api-docs.deepseek.com) is a ceiling.
//   - generic: providers whose tokenizer is not published, or that do not bill text by tokens: the midpoint of
//     the ratios above (1.00 to 1.20), 1.10 x o200k.
var Tokenizers = []Tokenizer{
	{O200k, tokenizer.O200kBase, 1, High, 0},
	{Cl100k, tokenizer.Cl100kBase, 1, High, 0},
	{Claude, tokenizer.O200kBase, 1.20, Low, estimateSpread},
	{Gemini, tokenizer.O200kBase, 1.00, Low, estimateSpread},
	{Llama3, tokenizer.Cl100kBase, 1.00, Medium, estimateSpread},
	{Mistral, tokenizer.Cl100kBase, 1.00, Medium, estimateSpread},
	{Qwen, tokenizer.Cl100kBase, 1.00, Medium, estimateSpread},
	{DeepSeek, tokenizer.Cl100kBase, 1.00, Medium, estimateSpread},
	{Generic, tokenizer.O200kBase, 1.10, Low, estimateSpread},
}

// family maps parts of model names to the tokenizer of that model family, first match first: the open
// families first, so that OpenAI's short o-series names (o1, o3) cannot claim them, and among OpenAI's names
// the newer ones (gpt-4o) before the older ones they contain (gpt-4).
var family = []struct{ part, tokenizer string }{
	{"claude", Claude},
	{"gemini", Gemini}, {"gemma", Gemini},
	{"llama", Llama3},
	{"mistral", Mistral}, {"mixtral", Mistral}, {"codestral", Mistral}, {"ministral", Mistral},
	{"pixtral", Mistral}, {"magistral", Mistral}, {"devstral", Mistral},
	{"qwen", Qwen}, {"qwq", Qwen},
	{"deepseek", DeepSeek},
	{"gpt-4o", O200k}, {"gpt-4.1", O200k}, {"gpt-4.5", O200k}, {"gpt-5", O200k}, {"chatgpt", O200k},
	{"gpt-oss", O200k}, {"gpt-image", O200k}, {"codex", O200k}, {"o1", O200k}, {"o3", O200k}, {"o4", O200k},
	{"gpt-4", Cl100k}, {"gpt-3.5", Cl100k}, {"gpt-35", Cl100k}, {"text-embedding", Cl100k}, {"davinci", Cl100k},
	{"babbage", Cl100k},
}

// use is the tokenizers one provider's models use: the default, then the others a `model` can select.
type use struct {
	def    string
	others []string
}

var (
	openAIUse = use{O200k, []string{Cl100k}}
	// hostUse is the open-weight model hosts: Llama by default, the other open families by model name.
	hostUse = use{Llama3, []string{Mistral, Qwen, DeepSeek, O200k, Gemini}}
)

// providerUse is each provider's tokenizers; a provider not listed uses Generic only.
var providerUse = map[string]use{
	"openai": openAIUse, "azure-openai": openAIUse,
	"anthropic":         {Claude, nil},
	"google-gemini":     {Gemini, nil},
	"google-vertex-ai":  {Gemini, []string{Claude, Llama3, Mistral, Qwen, DeepSeek}},
	"aws-bedrock":       {Claude, []string{Llama3, Mistral, Qwen, DeepSeek, O200k, Generic}},
	"mistral":           {Mistral, nil},
	"deepseek":          {DeepSeek, nil},
	"alibaba-dashscope": {Qwen, []string{DeepSeek}},
	"openrouter":        {Generic, []string{O200k, Cl100k, Claude, Gemini, Llama3, Mistral, Qwen, DeepSeek}},
	"groq":              hostUse, "together": hostUse, "fireworks": hostUse, "cerebras": hostUse, "sambanova": hostUse,
	"deepinfra": hostUse, "nvidia-nim": hostUse, "nebius": hostUse, "hyperbolic": hostUse, "novita": hostUse,
	"baseten": hostUse, "modal": hostUse, "replicate": hostUse, "huggingface": hostUse,
	"cloudflare-workers-ai": hostUse, "databricks": hostUse, "ibm-watsonx": hostUse,
}

func useOf(provider string) use {
	if u, ok := providerUse[provider]; ok {
		return u
	}
	return use{Generic, nil}
}

// TokenizerFor is the tokenizer of a provider's model: the family model names (partial, case-insensitive;
// "meta-llama/Llama-3.3-70B" selects Llama 3) among the provider's tokenizers, else the provider's default.
func TokenizerFor(provider, model string) Tokenizer {
	u := useOf(provider)
	name := u.def
	m := strings.ToLower(model)
	for _, f := range family {
		if m != "" && strings.Contains(m, f.part) && (f.tokenizer == u.def || slices.Contains(u.others, f.tokenizer)) {
			name = f.tokenizer
			break
		}
	}
	t, _ := lookup(name)
	return t
}

func lookup(name string) (Tokenizer, bool) {
	i := slices.IndexFunc(Tokenizers, func(t Tokenizer) bool { return t.Name == name })
	if i < 0 {
		return Tokenizer{}, false
	}
	return Tokenizers[i], true
}

// Providers is the providers using a tokenizer (by default or for some of their models), ascending, out of
// the registry's IDs.
func Providers(tokenizerName string, ids []string) []string {
	out := []string{}
	for _, id := range ids {
		u := useOf(id)
		if u.def == tokenizerName || slices.Contains(u.others, tokenizerName) {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// codecs are the exact encodings, built once: building one loads its vocabulary (a few hundred milliseconds
// the first time). tiktoken-go codecs are safe for concurrent counting.
var codecs = sync.OnceValues(func() (map[tokenizer.Encoding]tokenizer.Codec, error) {
	out := map[tokenizer.Encoding]tokenizer.Codec{}
	for _, e := range []tokenizer.Encoding{tokenizer.O200kBase, tokenizer.Cl100kBase} {
		c, err := tokenizer.Get(e)
		if err != nil {
			return nil, fmt.Errorf("tokens: loading %s: %w", e, err)
		}
		out[e] = c
	}
	return out, nil
})

// Warm builds the exact encodings ahead of the first request.
func Warm() error {
	_, err := codecs()
	return err
}

// Count is the exact token count of text in an encoding (o200k_base or cl100k_base), as tiktoken's
// encode_ordinary counts it: special-token text such as <|endoftext|> is ordinary text.
func Count(enc tokenizer.Encoding, text string) (int, error) {
	cs, err := codecs()
	if err != nil {
		return 0, err
	}
	c, ok := cs[enc]
	if !ok {
		return 0, fmt.Errorf("tokens: no exact encoding %s", enc)
	}
	n, err := c.Count(text)
	if err != nil {
		return 0, fmt.Errorf("tokens: counting with %s: %w", enc, err)
	}
	return n, nil
}

// Input is the size of a text.
type Input struct{ Chars, Words int }

// Estimate is one tokenizer's count of a text.
type Estimate struct {
	Tokenizer  Tokenizer
	Tokens     int
	Low, High  int
	Confidence Confidence
}

// Estimator counts one text, counting each exact encoding at most once however many tokenizers ask for it.
type Estimator struct {
	text  string
	exact map[tokenizer.Encoding]int
}

// NewEstimator checks text (1 to MaxChars characters).
func NewEstimator(text string) (*Estimator, error) {
	n := utf8.RuneCountInString(text)
	if n == 0 {
		return nil, &errs.InputError{Msg: "text: must not be empty"}
	}
	if n > MaxChars {
		return nil, &errs.InputError{Msg: fmt.Sprintf("text: must be at most %d characters, got %d", MaxChars, n)}
	}
	return &Estimator{text: text, exact: map[tokenizer.Encoding]int{}}, nil
}

// Input is the text's size: characters (code points) and whitespace-separated words.
func (e *Estimator) Input() Input {
	return Input{Chars: utf8.RuneCountInString(e.text), Words: len(strings.Fields(e.text))}
}

// Estimate counts the text with t.
func (e *Estimator) Estimate(t Tokenizer) (Estimate, error) {
	base, ok := e.exact[t.Base]
	if !ok {
		var err error
		if base, err = Count(t.Base, e.text); err != nil {
			return Estimate{}, err
		}
		e.exact[t.Base] = base
	}
	n := int(math.Round(t.Ratio * float64(base)))
	return Estimate{
		Tokenizer: t, Tokens: n, Confidence: t.Confidence,
		Low:  int(math.Floor(float64(n) * (1 - t.Spread))),
		High: int(math.Ceil(float64(n) * (1 + t.Spread))),
	}, nil
}

// All is every tokenizer's estimate, by estimated tokens ascending, then tokenizer name.
func (e *Estimator) All() ([]Estimate, error) {
	out := make([]Estimate, 0, len(Tokenizers))
	for _, t := range Tokenizers {
		est, err := e.Estimate(t)
		if err != nil {
			return nil, err
		}
		out = append(out, est)
	}
	slices.SortStableFunc(out, func(a, b Estimate) int {
		if a.Tokens != b.Tokens {
			return a.Tokens - b.Tokens
		}
		return strings.Compare(a.Tokenizer.Name, b.Tokenizer.Name)
	})
	return out, nil
}

// Summary is the smallest, largest and mean of estimates (mean rounded to 0.01).
type Summary struct {
	Min, Max int
	Avg      float64
}

// Summarize sums up estimates; it is the zero Summary for none.
func Summarize(ests []Estimate) Summary {
	if len(ests) == 0 {
		return Summary{}
	}
	s := Summary{Min: ests[0].Tokens, Max: ests[0].Tokens}
	total := 0
	for _, e := range ests {
		s.Min, s.Max = min(s.Min, e.Tokens), max(s.Max, e.Tokens)
		total += e.Tokens
	}
	s.Avg = math.Round(float64(total)/float64(len(ests))*100) / 100
	return s
}
