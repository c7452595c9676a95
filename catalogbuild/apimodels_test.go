// These tests work on the whole catalogs in one goroutine: they run without the race detector (make test runs
// the package twice, see DATA_ONLY_PKGS in the Makefile), where they take a tenth of the time.

//go:build !race

package catalogbuild

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/gen/api"
)

func upstreamDir() string { return filepath.Join("..", "sources", "upstream") }

// TestAPIModelListsLoad: the committed SDK lists load under their manifests, with the facts the build relies on.
func TestAPIModelListsLoad(t *testing.T) {
	lists, err := LoadAPIModels(upstreamDir())
	if err != nil {
		t.Fatal(err)
	}
	a := lists["anthropic"]
	if a == nil || !a.Complete || a.EndOfLife == nil {
		t.Fatalf("anthropic list: %+v", a)
	}
	if !slices.Contains(a.Lists[0].ModelIDs, "claude-opus-4-6") {
		t.Error("claude-opus-4-6 is not in Anthropic's Model list")
	}
	i := slices.IndexFunc(a.EndOfLife.Models, func(m struct {
		ModelID   string `json:"model_id"`
		EndOfLife string `json:"end_of_life"`
	}) bool {
		return m.ModelID == "claude-opus-4-20250514"
	})
	if i < 0 || a.EndOfLife.Models[i].EndOfLife != "2026-06-15" {
		t.Errorf("claude-opus-4-20250514's end of life: %d", i)
	}
	if m := lists["mistral"]; m == nil || !m.Complete || m.EndOfLife == nil {
		t.Errorf("mistral's docs list must load, complete, with retirement dates: %+v", m)
	}
	if o := lists["openai"]; o == nil || o.Complete {
		t.Errorf("openai's SDK list must load and be partial: %+v", o)
	}
}

// TestLoadAPIModelsRejects: a list that does not match its manifest, or holds a value that is not a model ID,
// stops the build.
func TestLoadAPIModelsRejects(t *testing.T) {
	good, err := os.ReadFile(filepath.Join(upstreamDir(), "anthropic-sdk-models.json"))
	if err != nil {
		t.Fatal(err)
	}
	var man Manifest
	b, err := os.ReadFile(filepath.Join(upstreamDir(), "anthropic-sdk-models.json"+ManifestSuffix))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &man); err != nil {
		t.Fatal(err)
	}
	write := func(data []byte, sha string) string {
		dir := t.TempDir()
		for _, f := range APIModelFiles {
			src := data
			m := man
			m.File, m.SHA256 = f, sha
			if f != "anthropic-sdk-models.json" {
				if src, err = os.ReadFile(filepath.Join(upstreamDir(), f)); err != nil {
					t.Fatal(err)
				}
				mb, err := os.ReadFile(filepath.Join(upstreamDir(), f+ManifestSuffix))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, f+ManifestSuffix), mb, 0o644); err != nil {
					t.Fatal(err)
				}
			} else {
				mb, _ := json.Marshal(m)
				if err := os.WriteFile(filepath.Join(dir, f+ManifestSuffix), mb, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(filepath.Join(dir, f), src, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	if _, err := LoadAPIModels(write(good, SHA256Hex(good))); err != nil {
		t.Fatalf("an unchanged copy fails: %v", err)
	}
	edited := []byte(strings.Replace(string(good), `"claude-opus-4-6"`, `"claude-opus-4-6 "`, 1))
	if _, err := LoadAPIModels(write(edited, SHA256Hex(good))); err == nil {
		t.Error("a list that no longer matches its manifest's sha256 loads")
	}
	if _, err := LoadAPIModels(write(edited, SHA256Hex(edited))); err == nil || !strings.Contains(err.Error(), "model ID") {
		t.Errorf("a list holding a value that is not a model ID loads: %v", err)
	}
}

// TestOfficialSpelling: a foreign spelling maps to the provider's own ID (reordered words, a date suffix the
// provider does not use), an end-of-life day on or before the reference day ends acceptance, and an ID that
// matches nothing has no official form.
func TestOfficialSpelling(t *testing.T) {
	lists, err := LoadAPIModels(upstreamDir())
	if err != nil {
		t.Fatal(err)
	}
	a := Accepted(lists["anthropic"], nil, "2026-11-28")
	for in, want := range map[string]string{
		"claude-4-opus-20250514":   "claude-opus-4-20250514",
		"claude-opus-4-6-20260205": "claude-opus-4-6",
		"claude-sonnet-4-6":        "claude-sonnet-4-6",
	} {
		if got, ok := a.Official(in); !ok || got != want {
			t.Errorf("Official(%s) = %q %v, want %s", in, got, ok, want)
		}
	}
	if _, ok := a.Official("claude-nonexistent-9"); ok {
		t.Error("an unknown ID found an official spelling")
	}
	if a.Has("claude-opus-4-20250514") || !a.Has("claude-opus-4-6") {
		t.Error("acceptance does not follow the end-of-life table")
	}
	if !Accepted(lists["anthropic"], nil, "2026-06-14").Has("claude-opus-4-20250514") {
		t.Error("a model is refused before its end of life")
	}
	m := Accepted(lists["mistral"], nil, "2026-11-28")
	for in, want := range map[string]string{
		"mistral-medium-3-1-2508": "mistral-medium-2508",
		"ministral-3-14b-2512":    "ministral-14b-2512",
		"voxtral-small-24b-2507":  "voxtral-small-2507",
	} {
		if got, ok := m.Official(in); !ok || got != want {
			t.Errorf("Official(%s) = %q %v, want %s", in, got, ok, want)
		}
	}
	for _, in := range []string{"mistral-small-24b-instruct-2501", "mistral-large-3"} {
		if got, ok := m.Official(in); ok {
			t.Errorf("Official(%s) = %s: a name with other words is not a spelling of an API name", in, got)
		}
	}
}

// TestPricedIDsAreAccepted is the build check: for a provider whose official list is complete, every priced or
// offered model ID is one its API accepts, and each foreign ID a data set gave is named in the report.
func TestPricedIDsAreAccepted(t *testing.T) {
	res, err := Convert(Input{DataDir: upstreamDir(), KnownProviders: knownAll(t)})
	if err != nil {
		t.Fatal(err)
	}
	lists, official := listsAndLifecycle(t)
	pricing, models := builtPricingAndModels(t, res)
	asOf := pricing.AsOf
	checked := 0
	judged := map[string]bool{}
	for pid, l := range lists {
		judged[pid] = l.Complete
	}
	for pid, f := range official {
		judged[pid] = judged[pid] || f.NamedOnly
	}
	priceFiles, err := LoadPrices(OfficialPricesDir(upstreamDir()), knownAll(t))
	if err != nil {
		t.Fatal(err)
	}
	for pid, complete := range judged {
		if !complete {
			continue
		}
		a := Accepted(lists[pid], official[pid], asOf)
		prices := priceFiles[pid]
		for _, r := range pricing.Records {
			if r.ProviderId == pid {
				checked++
				if !a.Has(r.Model) && prices.Model(r.Model) == nil {
					t.Errorf("pricing serves %s/%s, which the API does not accept", pid, r.Model)
				}
			}
		}
		for _, r := range models.Records {
			if r.ProviderId == pid && !a.Has(r.ModelId) && prices.Model(r.ModelId) == nil {
				t.Errorf("models serves %s/%s, which the API does not accept", pid, r.ModelId)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no priced model of a provider with a complete list: the check checked nothing")
	}
	if !slices.ContainsFunc(res.Report.IDChecks, func(x IDCheck) bool {
		return x.Provider == "anthropic" && x.Model == "claude-4-opus-20250514" && x.Outcome == "dropped" && x.Target == "claude-opus-4-20250514"
	}) {
		t.Errorf("the report does not name claude-4-opus-20250514: %+v", res.Report.IDChecks)
	}
	if !slices.ContainsFunc(res.Report.IDChecks, func(x IDCheck) bool {
		return x.Provider == "mistral" && x.Model == "mistral-medium-3-1-2508" && x.Target == "mistral-medium-2508"
	}) {
		t.Error("the report does not name mistral-medium-3-1-2508 as a spelling of mistral-medium-2508")
	}
	// Vertex AI's Llama list: litellm's meta/llama-4-scout-17b-128e-instruct-maas mixes Scout (16E) and Maverick
	// (128E) and is no model Google's page names; Gemini models stay outside the list's judgement.
	const mixed = "meta/llama-4-scout-17b-128e-instruct-maas"
	if !slices.ContainsFunc(res.Report.IDChecks, func(x IDCheck) bool {
		return x.Provider == "google-vertex-ai" && x.Model == mixed && x.Outcome == "dropped"
	}) {
		t.Errorf("the report does not name google-vertex-ai/%s as dropped", mixed)
	}
	vertexPriced := map[string]bool{}
	for _, r := range pricing.Records {
		if r.ProviderId == "google-vertex-ai" {
			vertexPriced[r.Model] = true
		}
	}
	if vertexPriced[mixed] || !vertexPriced["meta/llama-4-scout-17b-16e-instruct-maas"] {
		t.Errorf("google-vertex-ai pricing: %s served %v, the 16E Scout served %v", mixed, vertexPriced[mixed],
			vertexPriced["meta/llama-4-scout-17b-16e-instruct-maas"])
	}
	if !slices.ContainsFunc(models.Records, func(r api.ModelRecord) bool {
		return r.ProviderId == "google-vertex-ai" && strings.HasPrefix(r.ModelId, "gemini-")
	}) {
		t.Error("no Gemini model of google-vertex-ai is served: the Llama list judged IDs outside its family")
	}
}

// TestFamilyList: a list of one family (Vertex AI's Llama models) refuses the family's IDs it does not name,
// leaves every other ID of the provider alone, and loads only when it is complete and every ID is of the family.
func TestFamilyList(t *testing.T) {
	lists, official := listsAndLifecycle(t)
	l := lists["google-vertex-ai"]
	if l == nil || l.Family != "meta/llama" {
		t.Fatalf("google-vertex-ai list: %+v", l)
	}
	// The family rule alone: the committed file also serves only the IDs it names (TestNamedOnly).
	f := *official["google-vertex-ai"]
	f.NamedOnly = false
	a := Accepted(l, &f, "2026-11-28")
	for id, want := range map[string]bool{
		"meta/llama-4-scout-17b-16e-instruct-maas":     true,
		"meta/llama-4-maverick-17b-128e-instruct-maas": true,
		"meta/llama-4-scout-17b-128e-instruct-maas":    false, // mixes Scout's 16E and Maverick's 128E
		"meta/llama-4-maverick-17b-16e-instruct-maas":  false,
		"meta/llama3-405b-instruct-maas":               false,
		"gemini-3.5-flash":                             true, // outside the family: not the list's to judge
		"claude-sonnet-4-6@default":                    true,
	} {
		if a.Has(id) != want {
			t.Errorf("Has(%s) = %v, want %v", id, !want, want)
		}
	}
	if got, ok := a.Official("meta/llama-4-scout-17b-128e-instruct-maas"); ok {
		t.Errorf("the mixed Scout ID maps to %s; no single official ID matches it", got)
	}
	man := Manifest{UpstreamURL: l.URL, Date: l.Date}
	partial := *l
	partial.Complete = false
	if err := partial.check(&man); err == nil {
		t.Error("a family list that is not complete loads")
	}
	other := *l
	other.Lists = append(other.Lists[:0:0], l.Lists...)
	other.Lists[0].ModelIDs = append(slices.Clone(l.Lists[0].ModelIDs), "gemini-3.5-flash")
	if err := other.check(&man); err == nil || !strings.Contains(err.Error(), "family") {
		t.Errorf("a family list naming an ID outside the family loads: %v", err)
	}
}

// TestReviewNotesNotServed: the reviewer notes of the lifecycle files reach REPORT.md and no served catalog.
func TestReviewNotesNotServed(t *testing.T) {
	files, err := LoadLifecycle(OfficialLifecycleDir(upstreamDir()), knownAll(t))
	if err != nil {
		t.Fatal(err)
	}
	var reviews []string
	for _, f := range files {
		for _, p := range f.Pages {
			if p.Review != nil {
				reviews = append(reviews, *p.Review)
			}
		}
		for _, r := range f.Retired {
			if r.Review != nil {
				reviews = append(reviews, *r.Review)
			}
		}
		for _, m := range f.Current {
			if m.Review != nil {
				reviews = append(reviews, *m.Review)
			}
		}
	}
	if len(reviews) == 0 {
		t.Fatal("no review notes: the check checks nothing")
	}
	served, err := filepath.Glob(filepath.Join("..", "seeds", "catalogs", "*.json"))
	if err != nil || len(served) == 0 {
		t.Fatalf("no committed catalogs: %v", err)
	}
	for _, file := range served {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		// JSON escapes quotes and some characters; compare on a long plain prefix of each note.
		for _, r := range reviews {
			probe := r
			if i := strings.IndexAny(probe, "\"\\<>&"); i >= 0 {
				probe = probe[:i]
			}
			if len(probe) >= 40 && strings.Contains(text, probe) {
				t.Errorf("%s serves a reviewer note: %.60s", filepath.Base(file), probe)
			}
		}
	}
	report, err := os.ReadFile(filepath.Join("..", "seeds", "catalogs", "REPORT.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(report), strings.ReplaceAll(reviews[0], "|", "/")) {
		t.Errorf("REPORT.md lacks the reviewer note %.60s", reviews[0])
	}
}

// TestPageReadListRejects: a list read from a provider's page is pinned by its page address and check day, so a
// manifest naming a commit, another address, or a list path that is no page address stops the build.
func TestPageReadListRejects(t *testing.T) {
	l := &APIModelList{ProviderID: "deepseek", URL: "https://api-docs.deepseek.com/quick_start/pricing", Date: "2026-11-28"}
	l.Lists = append(l.Lists, struct {
		Path     string   `json:"path"`
		What     string   `json:"what"`
		ModelIDs []string `json:"model_ids"`
	}{Path: l.URL, What: "model table", ModelIDs: []string{"deepseek-flash"}})
	commit := strings.Repeat("a", 40)
	good := Manifest{UpstreamURL: l.URL, Date: "2026-11-28"}
	if err := l.check(&good); err != nil {
		t.Fatalf("a page-read list with its manifest fails: %v", err)
	}
	withCommit := good
	withCommit.Commit = &commit
	otherURL := good
	otherURL.UpstreamURL = "https://api-docs.deepseek.com/"
	for name, m := range map[string]Manifest{"a manifest commit": withCommit, "another address": otherURL} {
		if err := l.check(&m); err == nil {
			t.Errorf("%s loads", name)
		}
	}
	l.Lists[0].Path = "quick_start/pricing.md"
	if err := l.check(&good); err == nil || !strings.Contains(err.Error(), "page address") {
		t.Errorf("a list path that is no page address loads: %v", err)
	}
	l.Lists[0].Path, l.Commit = l.URL, commit
	if err := l.check(&good); err == nil {
		t.Error("a page-read list that also names a commit loads")
	}
}

// TestPageReadListsDrop: the DeepSeek and Perplexity lists read from their pages are complete, keep the legacy
// names DeepSeek still accepts, and refuse IDs those APIs never took or retired long ago.
func TestPageReadListsDrop(t *testing.T) {
	lists, official := listsAndLifecycle(t)
	d := Accepted(lists["deepseek"], official["deepseek"], "2026-11-28")
	if !d.Complete || !d.Has("deepseek-flash") || !d.Has("deepseek-v4-flash") || d.Has("deepseek-r1") || d.Has("deepseek-chat") {
		t.Errorf("deepseek: complete %v, flash %v, v4-flash %v, r1 %v, chat %v", d.Complete, d.Has("deepseek-flash"),
			d.Has("deepseek-v4-flash"), d.Has("deepseek-r1"), d.Has("deepseek-chat"))
	}
	p := Accepted(lists["perplexity"], official["perplexity"], "2026-11-28")
	if !p.Complete || !p.Has("perplexity/sonar") || !p.Has("pplx-embed-context-v1-4b") || p.Has("llama-2-70b-chat") || p.Has("sonar-pro") {
		t.Error("perplexity: the Agent API and embedding models must be accepted, llama-2-70b-chat and the retired sonar-pro not")
	}
	if !Accepted(lists["perplexity"], official["perplexity"], "2026-09-26").Has("sonar-pro") {
		t.Error("sonar-pro is refused before its shutdown day")
	}
}

// TestCurrentModelWithShutdownDay: a model its provider's pages list as available and also give a shutdown day
// (Azure's retirement schedule dates every GA version) is live, accepted and unretired until that day, and retired
// and refused from it on, whatever order the lists come in.
func TestCurrentModelWithShutdownDay(t *testing.T) {
	day := "2027-05-15"
	f := &LifecycleFile{ProviderID: "azure-openai",
		Current: []CurrentModel{{ModelID: "gpt-5.1-codex-mini", Task: "llm", Stage: "ga"}},
		Retired: []Retirement{{ModelID: "gpt-5.1-codex-mini", Shutdown: &day}}}
	k := key{"azure-openai", "gpt-5.1-codex-mini"}
	for asOf, live := range map[string]bool{"2026-11-28": true, "2027-05-14": true, "2027-05-15": false, "2027-06-01": false} {
		if got := Accepted(nil, f, asOf).Has(k.model); got != live {
			t.Errorf("on %s Accepted.Has = %v, want %v", asOf, got, live)
		}
		c := &converter{official: map[string]*LifecycleFile{"azure-openai": f}, asOf: asOf}
		c.collectDeprecated()
		if _, retired := c.deprecated[k]; retired == live {
			t.Errorf("on %s retired = %v, want %v", asOf, retired, !live)
		}
	}
}

// listsAndLifecycle loads the official model-ID lists and lifecycle files of the repository's sources.
func listsAndLifecycle(t *testing.T) (map[string]*APIModelList, map[string]*LifecycleFile) {
	t.Helper()
	lists, err := LoadAPIModels(upstreamDir())
	if err != nil {
		t.Fatal(err)
	}
	official, err := LoadLifecycle(OfficialLifecycleDir(upstreamDir()), knownAll(t))
	if err != nil {
		t.Fatal(err)
	}
	return lists, official
}

// TestAliasesFollowTheirModel: an alias a provider's page names (LifecycleFile.Aliases) is priced as its model,
// never at a data set's price for the alias, and is not priced where its model has none; the report says which.
// Mistral's ministral-3b-latest was priced at $0.04, the retired Ministral 3B 24.10's price, although Mistral's
// card names it an API name of Ministral 3 3B 25.12 ($0.10).
func TestAliasesFollowTheirModel(t *testing.T) {
	res, err := Convert(Input{DataDir: upstreamDir(), KnownProviders: knownAll(t)})
	if err != nil {
		t.Fatal(err)
	}
	_, official := listsAndLifecycle(t)
	pricing, _ := builtPricingAndModels(t, res)
	priced := map[string]api.PricingRecord{}
	for _, r := range pricing.Records {
		priced[r.ProviderId+"/"+r.Model] = r
	}
	checked := 0
	for pid, f := range official {
		for _, a := range f.Aliases {
			ar, aliasPriced := priced[pid+"/"+a.Alias]
			mr, modelPriced := priced[pid+"/"+a.Model]
			switch {
			case aliasPriced && !modelPriced:
				t.Errorf("%s/%s is priced, its model %s is not", pid, a.Alias, a.Model)
			case aliasPriced:
				checked++
				if ja, jm := mustJSON(t, ar.Pricing), mustJSON(t, mr.Pricing); ja != jm {
					t.Errorf("%s/%s is priced %s, its model %s %s", pid, a.Alias, ja, a.Model, jm)
				}
				if ar.Confidence != mr.Confidence {
					t.Errorf("%s/%s: confidence %s, its model's %s", pid, a.Alias, ar.Confidence, mr.Confidence)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no alias is priced: the check checked nothing")
	}
	r, ok := priced["mistral/ministral-3b-latest"]
	if !ok || r.Pricing.InputPer1mTokens == nil || *r.Pricing.InputPer1mTokens != 0.1 || r.Confidence != api.ConfidenceVerified {
		t.Errorf("mistral/ministral-3b-latest: %+v", r)
	}
	for _, k := range []string{"cohere/command-r-plus", "cohere/command-r"} {
		if _, ok := priced[k]; ok {
			t.Errorf("%s is priced, but the model it is an alias of has no price", k)
		}
	}
	if !slices.ContainsFunc(res.Report.Aliases, func(a AliasPrice) bool {
		return a.Provider == "cohere" && a.Alias == "command-r-plus" && strings.HasPrefix(a.Outcome, "not priced")
	}) {
		t.Errorf("the report does not name cohere/command-r-plus as not priced: %+v", res.Report.Aliases)
	}
}

// TestForeignIDsOnPartialLists: on a partial list an ID the provider's pages show is not its own
// (LifecycleFile.Foreign) is refused, mapped to the official spelling where one is given; and a model only
// genai-prices names is served only where the provider's list or pages name it.
func TestForeignIDsOnPartialLists(t *testing.T) {
	official := "gemma-3-27b-it"
	f := &LifecycleFile{ProviderID: "google-gemini",
		Current: []CurrentModel{{ModelID: official, Task: "llm", Stage: "ga"}},
		Foreign: []ForeignID{{ModelID: "gemini-gemma-3-27b-it", Official: &official, Why: "w"}, {ModelID: "gemini-gemma-2-9b-it", Why: "w"}}}
	l := &APIModelList{ProviderID: "google-gemini", Complete: false}
	a := Accepted(l, f, "2026-11-28")
	for id, want := range map[string]bool{official: true, "gemini-gemma-3-27b-it": false, "gemini-gemma-2-9b-it": false} {
		if a.Has(id) != want {
			t.Errorf("Has(%s) = %v, want %v", id, !want, want)
		}
	}
	c := &converter{accepted: map[string]*AcceptedIDs{"google-gemini": a}}
	m := map[key]int{{"google-gemini", "gemini-gemma-3-27b-it"}: 1, {"google-gemini", "gemini-gemma-2-9b-it"}: 2, {"google-gemini", "veo-9"}: 3}
	checkIDs(c, m, func(v int, _ key) int { return v })
	if m[key{"google-gemini", official}] != 1 || len(m) != 2 || m[key{"google-gemini", "veo-9"}] != 3 {
		t.Errorf("after the check: %v (want the foreign spelling mapped, the other foreign ID dropped, the unlisted one kept)", m)
	}
	res, err := Convert(Input{DataDir: upstreamDir(), KnownProviders: knownAll(t)})
	if err != nil {
		t.Fatal(err)
	}
	pricing, _ := builtPricingAndModels(t, res)
	for _, r := range pricing.Records {
		switch r.ProviderId + "/" + r.Model {
		case "openai/gpt-chat-latest", "cohere/command-r7b", "google-gemini/gemini-gemma-2-9b-it":
			t.Errorf("%s/%s is priced: no official list or page names it", r.ProviderId, r.Model)
		}
	}
	for _, want := range []string{"openai/gpt-chat-latest", "cohere/command-r7b", "google-gemini/gemini-gemma-2-9b-it"} {
		if !slices.ContainsFunc(res.Report.IDChecks, func(x IDCheck) bool { return x.Provider+"/"+x.Model == want && x.Outcome == "dropped" }) {
			t.Errorf("the report does not name %s as dropped", want)
		}
	}
}

// TestNamedOnly: a lifecycle file marked named_only makes the provider's accepted set complete, list or no list:
// its current, dated-ahead, undated deprecated and alias entries are served, a retired or unnamed ID is not, and a
// family list no longer leaves the other IDs alone; a data set's spelling of a named ID moves to it.
func TestNamedOnly(t *testing.T) {
	past, ahead, cur := "2026-01-05", "2027-03-01", "nova-9"
	f := &LifecycleFile{ProviderID: "aws-bedrock", NamedOnly: true,
		Current: []CurrentModel{{ModelID: cur, Task: "llm", Stage: "ga"}},
		Retired: []Retirement{{ModelID: "old-1", Shutdown: &past}, {ModelID: "soon-2", Shutdown: &ahead}, {ModelID: "dep-3"}},
		Aliases: []Alias{{Alias: "nova-latest", Model: cur}},
		Foreign: []ForeignID{{ModelID: "nova-9-v1", Official: &cur, Why: "w"}}}
	for _, l := range []*APIModelList{nil, {ProviderID: "aws-bedrock", Complete: false}, {ProviderID: "aws-bedrock", Complete: true, Family: "fam/"}} {
		a := Accepted(l, f, "2026-11-28")
		if !a.Complete || a.family != "" {
			t.Errorf("list %+v: complete %v, family %q", l, a.Complete, a.family)
		}
		for id, want := range map[string]bool{cur: true, "soon-2": true, "dep-3": true, "nova-latest": true,
			"old-1": false, "nova-9-v1": false, "titan-1": false, "fam/x": false} {
			if a.Has(id) != want {
				t.Errorf("list %+v: Has(%s) = %v, want %v", l, id, !want, want)
			}
		}
	}
	// Without the mark and without a list, the provider is not judged at all.
	plain := *f
	plain.NamedOnly = false
	if a := Accepted(nil, &plain, "2026-11-28"); a.Complete {
		t.Error("a file without named_only made the set complete")
	}
	c := &converter{accepted: map[string]*AcceptedIDs{"aws-bedrock": Accepted(nil, f, "2026-11-28")}}
	m := map[key]int{{"aws-bedrock", "nova-9-v1"}: 1, {"aws-bedrock", "titan-1"}: 2, {"aws-bedrock", "old-1"}: 3, {"aws-bedrock", "dep-3"}: 4}
	checkIDs(c, m, func(v int, _ key) int { return v })
	if len(m) != 2 || m[key{"aws-bedrock", cur}] != 1 || m[key{"aws-bedrock", "dep-3"}] != 4 {
		t.Errorf("after the check: %v (want the spelling mapped to %s, the undated deprecation kept, the rest dropped)", m, cur)
	}
	outcomes := map[string]string{}
	for _, x := range c.report.IDChecks {
		outcomes[x.Model] = x.Outcome
	}
	if outcomes["nova-9-v1"] != "mapped" || outcomes["titan-1"] != "dropped" || outcomes["old-1"] != "dropped" {
		t.Errorf("report: %v", outcomes)
	}
}

// TestCuratedProvidersServeNamedIDs: every provider with a curated lifecycle file is marked named_only, so that
// no model ID only a data set names is served for them (issue 36: every priced ID is one the API accepts).
func TestCuratedProvidersServeNamedIDs(t *testing.T) {
	_, official := listsAndLifecycle(t)
	if len(official) == 0 {
		t.Fatal("no curated lifecycle file")
	}
	for pid, f := range official {
		if !f.NamedOnly {
			t.Errorf("%s: the lifecycle file is not named_only", pid)
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
