package catalogbuild

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Plausibility bounds: a value outside them is rejected into the build report, never written to a catalog.
// They sit well above every price and window a provider publishes today, so they only catch unit slips (a
// per-1K price read as per-token, a per-image price read as per-token) and copied numbers.
const (
	MaxLLMInputPer1M  = 150.0
	MaxLLMOutputPer1M = 600.0
	MaxContextWindow  = 10_000_000
	// MaxEmbeddingInputPer1M bounds an embedding model's token price: the dearest rate an official page in
	// sources/official gives is $0.20 per 1M (Gemini Embedding 2), while litellm prices Cohere's
	// embed-multilingual-light-v3.0 at $100 per 1M, a unit slip.
	MaxEmbeddingInputPer1M = 10.0
	// MinImageTokenPer1M is the least a token price of an image generator can be: the token-priced ones (gpt-image,
	// Gemini image) cost dollars per 1M tokens, while litellm writes Fireworks' per-step prices (for example
	// $0.00013 per step of SSD-1B) as per-token prices, which read as $0.00013 per 1M tokens.
	MinImageTokenPer1M = 0.01
	// AgreeTolerance is how far apart two sources' values may be and still agree (relative).
	AgreeTolerance = 0.02
)

// Confidence levels of a record (the OpenAPI Confidence schema).
const (
	ConfidenceVerified = "verified" // from the provider's own documentation
	ConfidenceAgreed   = "agreed"   // two or more data sets give the same value (within AgreeTolerance)
	ConfidenceSingle   = "single"   // one data set gives it
	ConfidenceDisputed = "disputed" // data sets disagree and no official page settles it: the value is null
)

// Source ids of the upstream data sets (meta.sources[].id).
const (
	SourceLiteLLM     = "litellm"
	SourceModelsDev   = "models-dev"
	SourceGenAI       = "genai-prices"
	SourceLLMStats    = "llm-stats"
	SourceSimpleEvals = "simple-evals"
)

// Rejection is a value the bounds kept out of a catalog.
type Rejection struct {
	Catalog, Provider, Model, Field string
	Value                           string
	Reason                          string
}

// Dispute is a value two sources disagree on.
type Dispute struct {
	Catalog, Provider, Model, Field string
	Values                          []string // "source=value", sorted
	Outcome                         string
}

// Report is what a build kept out or could not settle; REPORT.md lists it.
type Report struct {
	Rejected []Rejection
	Disputed []Dispute
	// IDChecks are the model IDs held to the providers' official ID lists (apimodels.go).
	IDChecks []IDCheck
	// Reviews are the reviewer notes of the curated lifecycle files: kept for review, never served.
	Reviews []ReviewNote
	// Followed are the models retired with the alias snapshot or maker's model they follow (followLineage).
	Followed []string
	// Aliases are the aliases the providers' pages name (LifecycleFile.Aliases) and the price each was served with.
	Aliases []AliasPrice
}

// AliasPrice is an alias a provider's page names and what the price catalog made of it: priced as its model, or
// not priced (its model has no price the build serves).
type AliasPrice struct {
	Provider, Alias, Model, Outcome string
}

func (r *Report) reject(catalog string, k key, field string, v any, reason string) {
	r.Rejected = append(r.Rejected, Rejection{catalog, k.provider, k.model, field, fmt.Sprint(v), reason})
}

func (r *Report) sort() {
	slices.SortFunc(r.IDChecks, func(x, y IDCheck) int {
		return strings.Compare(strings.Join([]string{x.Provider, x.Model, x.Outcome, x.Target, x.Why}, "\x00"),
			strings.Join([]string{y.Provider, y.Model, y.Outcome, y.Target, y.Why}, "\x00"))
	})
	// The notes of one model come from a map walk in any order: the note itself breaks the tie, so that a
	// rebuild writes the same bytes.
	slices.SortFunc(r.Reviews, func(x, y ReviewNote) int {
		return strings.Compare(x.Provider+"\x00"+x.Model+"\x00"+x.Note, y.Provider+"\x00"+y.Model+"\x00"+y.Note)
	})
	slices.Sort(r.Followed)
	slices.SortFunc(r.Aliases, func(x, y AliasPrice) int {
		return strings.Compare(x.Provider+"\x00"+x.Alias, y.Provider+"\x00"+y.Alias)
	})
	slices.SortFunc(r.Rejected, func(a, b Rejection) int {
		return strings.Compare(a.Catalog+"\x00"+a.Provider+"\x00"+a.Model+"\x00"+a.Field, b.Catalog+"\x00"+b.Provider+"\x00"+b.Model+"\x00"+b.Field)
	})
	slices.SortFunc(r.Disputed, func(a, b Dispute) int {
		return strings.Compare(a.Catalog+"\x00"+a.Provider+"\x00"+a.Model+"\x00"+a.Field, b.Catalog+"\x00"+b.Provider+"\x00"+b.Model+"\x00"+b.Field)
	})
}

// agree reports whether every value is within AgreeTolerance of the others.
func agree(vals []float64) bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range vals {
		lo, hi = min(lo, v), max(hi, v)
	}
	if hi == 0 {
		return true
	}
	return (hi-lo)/hi <= AgreeTolerance
}

// sourced is one source's value of a field.
type sourced struct {
	src string
	v   float64
}

// crossCheck settles one price field given by several data sets. It returns the value kept (nil when disputed),
// the sources behind it and whether they agreed.
func crossCheck(vals []sourced) (kept *float64, srcs []string, agreed bool) {
	if len(vals) == 0 {
		return nil, nil, false
	}
	if len(vals) == 1 {
		v := vals[0].v
		return &v, []string{vals[0].src}, false
	}
	nums := make([]float64, len(vals))
	for i, s := range vals {
		nums[i] = s.v
		srcs = append(srcs, s.src)
	}
	if agree(nums) {
		v := vals[0].v
		return &v, srcs, true
	}
	return nil, srcs, false
}

func fmtValues(vals []sourced) []string {
	out := make([]string, len(vals))
	for i, s := range vals {
		out[i] = s.src + "=" + strconv.FormatFloat(s.v, 'f', -1, 64)
	}
	slices.Sort(out)
	return out
}

// tokenTask reports whether a task is priced per token in the LLM bounds' sense.
func tokenTask(task string) bool { return task == "llm" || task == "code" }
