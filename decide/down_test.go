package decide

import (
	"slices"
	"testing"
	"time"

	"github.com/switchboard/switchboard/errs"
)

// outageFor is every monitored provider operational except ids, in outage.
func outageFor(ix *Index, ids ...string) Statuses {
	live := Statuses{}
	for _, p := range ix.reg.All() {
		live[p.ID] = op(300)
	}
	for _, id := range ids {
		live[id] = down()
	}
	return live
}

// The candidates are exactly the providers whose outage leaves the decision empty: all of them down empties it,
// any one of them back up fills it again.
func TestCandidatesAreWhatOutageEmpties(t *testing.T) {
	ix := testIndex(t)
	mmlu80 := &Quality{Metric: "mmlu", Score: 80}
	cases := []struct {
		name  string
		cands []string
		want  []string // nil: only checked against the decision
		empty func(Statuses) bool
	}{
		{name: "pick llm", cands: ix.PickCandidates(PickQuery{Task: "llm"}), want: []string{"anthropic", "deepseek", "groq", "mistral", "openai"},
			empty: func(l Statuses) bool { _, _, _, err := ix.Pick(PickQuery{Task: "llm"}, l); return errs.IsNotFound(err) }},
		{name: "pick llm with budget", cands: ix.PickCandidates(PickQuery{Task: "llm", Budget: f(0.1)}), want: []string{"anthropic", "groq"},
			empty: func(l Statuses) bool {
				_, _, _, err := ix.Pick(PickQuery{Task: "llm", Budget: f(0.1)}, l)
				return errs.IsNotFound(err)
			}},
		{name: "pick with vision avoiding nobody", cands: ix.PickCandidates(PickQuery{Task: "llm", Needs: []string{"vision"}}), want: []string{"openai"},
			empty: func(l Statuses) bool {
				_, _, _, err := ix.Pick(PickQuery{Task: "llm", Needs: []string{"vision"}}, l)
				return errs.IsNotFound(err)
			}},
		{name: "failover under a price cap", cands: ix.FailoverCandidates(FailoverQuery{Primary: "openai", Task: "llm", Limit: 1, MaxCost: f(0.1)}),
			want: []string{"anthropic", "groq"},
			empty: func(l Statuses) bool {
				c, _, _ := ix.Failover(FailoverQuery{Primary: "openai", Task: "llm", Limit: 5, MaxCost: f(0.1)}, l)
				return len(c) == 0
			}},
		{name: "failover of any task", cands: ix.FailoverCandidates(FailoverQuery{Primary: "openai", Limit: 1}),
			empty: func(l Statuses) bool {
				c, _, _ := ix.Failover(FailoverQuery{Primary: "openai", Limit: 10}, l)
				return len(c) == 0
			}},
		{name: "recommend free only", cands: ix.RecommendCandidates(RecommendQuery{FreeOnly: true, Limit: 1}), want: []string{"groq", "mistral"},
			empty: func(l Statuses) bool {
				r, _, _ := ix.Recommend(RecommendQuery{FreeOnly: true, Limit: 5}, l)
				return len(r) == 0
			}},
		{name: "cheapest llm", cands: ix.CheapestCandidates(CheapestQuery{Task: "llm"}), want: []string{"anthropic", "deepseek", "groq", "mistral", "openai"},
			empty: func(l Statuses) bool {
				r, _ := ix.Cheapest(CheapestQuery{Task: "llm", Input: 1, Limit: 5}, l)
				return len(r) == 0
			}},
		{name: "cheapest llm with mmlu 80", cands: ix.CheapestCandidates(CheapestQuery{Task: "llm", MinQuality: mmlu80}), want: []string{"openai"},
			empty: func(l Statuses) bool {
				r, _ := ix.Cheapest(CheapestQuery{Task: "llm", Input: 1, Limit: 5, MinQuality: mmlu80}, l)
				return len(r) == 0
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if len(tc.cands) == 0 {
				t.Fatal("no candidates")
			}
			if tc.want != nil && !slices.Equal(tc.cands, tc.want) {
				t.Fatalf("candidates %v, want %v", tc.cands, tc.want)
			}
			if !tc.empty(outageFor(ix, tc.cands...)) {
				t.Errorf("every candidate (%v) in outage, the decision is not empty", tc.cands)
			}
			for _, up := range tc.cands {
				others := slices.DeleteFunc(slices.Clone(tc.cands), func(id string) bool { return id == up })
				if tc.empty(outageFor(ix, others...)) {
					t.Errorf("%s up, the decision is still empty: it is no candidate", up)
				}
			}
		})
	}
	if c := ix.PickCandidates(PickQuery{Task: "video"}); len(c) != 0 {
		t.Errorf("a task without models has candidates: %v", c)
	}
}

func TestRetryAfter(t *testing.T) {
	live := Statuses{"openai": down(), "anthropic": down(), "groq": deg(300), "mistral": op(300)}
	const poll = 10 * time.Minute
	for _, tc := range []struct {
		name    string
		cands   []string
		medians map[string]float64
		want    int
		ok      bool
	}{
		{name: "no candidate", ok: false},
		{name: "one candidate degraded", cands: []string{"anthropic", "groq", "openai"}, ok: false},
		{name: "one candidate unknown (absent)", cands: []string{"openai", "perplexity"}, ok: false},
		{name: "all down, no estimate: the poll interval", cands: []string{"anthropic", "openai"}, want: 600, ok: true},
		{name: "all down: the smallest median", cands: []string{"anthropic", "openai"}, medians: map[string]float64{"openai": 42, "anthropic": 17.5},
			want: 1050, ok: true},
		{name: "an estimate of a provider that is no candidate does not count", cands: []string{"openai"},
			medians: map[string]float64{"openai": 42, "mistral": 1}, want: 2520, ok: true},
		{name: "rounded up to whole seconds", cands: []string{"openai"}, medians: map[string]float64{"openai": 0.51}, want: 31, ok: true},
		{name: "at least a second", cands: []string{"openai"}, medians: map[string]float64{"openai": 0}, want: 1, ok: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := RetryAfter(tc.cands, live, tc.medians, poll)
			if got != tc.want || ok != tc.ok {
				t.Fatalf("RetryAfter = %d, %v; want %d, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestCandidatesOfARefusedRequest(t *testing.T) {
	ix := testIndex(t)
	if c := ix.PickCandidates(PickQuery{Task: "llm", Avoid: []string{"nobody"}}); c != nil {
		t.Errorf("pick avoiding an unknown provider: %v", c)
	}
	if c := ix.FailoverCandidates(FailoverQuery{Primary: "nobody"}); c != nil {
		t.Errorf("failover of an unknown primary: %v", c)
	}
	if c := ix.RecommendCandidates(RecommendQuery{Avoid: []string{"nobody"}}); c != nil {
		t.Errorf("recommend avoiding an unknown provider: %v", c)
	}
}
