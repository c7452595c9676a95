package catalogbuild

import (
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// The providers' own documentation, curated by hand into sources/official: one file per provider, every fact
// tied to a page (URL and the day it was read). It outranks every data set (docs/decisions.md, "Catalogs").

// OfficialPage is one page of a provider's documentation that facts were read from.
type OfficialPage struct {
	ID      string  `json:"id"`
	Title   string  `json:"title"`
	URL     string  `json:"url"`
	Checked string  `json:"checked"`
	AsOf    *string `json:"as_of"`
	// Review keeps, for reviewers only, what the title said about how the page was read.
	Review *string `json:"review,omitempty"`
}

// Source is the page as a catalog source: its title with the day it was checked, which the data holds for.
func (p OfficialPage) Source() Source {
	checked := p.Checked
	return Source{ID: p.ID, Name: p.Title + " (official page, checked " + p.Checked + ")", URL: p.URL, AsOf: &checked}
}

// Retirement is a model the provider's deprecation page lists: shut down (Shutdown on or before the build's
// reference date) or deprecated with a shutdown date still ahead.
type Retirement struct {
	ModelID     string  `json:"model_id"`
	Announced   *string `json:"announced"`
	Shutdown    *string `json:"shutdown"`
	Replacement *string `json:"replacement"`
	Source      string  `json:"source"`
	// Follows names the entry of the same file this one rests on, where the page names only the model's other ID
	// (the dated snapshot of an alias, or the alias of a dated snapshot): the day is that entry's, and the record is
	// served as single, since no page states it for this ID.
	Follows *string `json:"follows,omitempty"`
	// Scheduled marks a retirement day the provider set when it released the model, the planned end of a
	// generally available model's lifecycle (Azure's retirement schedule dates every GA model at launch), not a
	// deprecation: the model keeps its stage and is `active` until the day, which the records still carry.
	Scheduled bool `json:"scheduled,omitempty"`
	// Removed marks a model the page says is no longer served (removed from the serverless catalog, not available
	// any more) without giving the day: it is sunset from the build on, with no shutdown day, and never priced.
	// An entry without a day and without the mark is a deprecation the API still serves.
	Removed bool    `json:"removed,omitempty"`
	Note    *string `json:"note"`
	// Review is for reviewers (how the fact was found, what could not be read): REPORT.md only, never served.
	Review *string `json:"review,omitempty"`
}

// CurrentModel is a model the provider's models or pricing page lists as available.
type CurrentModel struct {
	ModelID         string  `json:"model_id"`
	Name            *string `json:"name"`
	Task            string  `json:"task"`
	Stage           string  `json:"stage"`
	Released        *string `json:"released"`
	ContextWindow   *int64  `json:"context_window"`
	MaxOutputTokens *int64  `json:"max_output_tokens"`
	// ContextWindowText and MaxOutputText are the page's own wording where it gives a limit only as a rounded
	// figure ("1M tokens", "128K", "8k"); the numeric field is then null. The page does not say whether "8K" is
	// 8,000 or 8,192, so the build serves a data set's exact value where it lies within that rounding and the
	// page's literal figure otherwise (roundedLimit).
	ContextWindowText      *string  `json:"context_window_text,omitempty"`
	MaxOutputText          *string  `json:"max_output_text,omitempty"`
	InputPer1mTokens       *float64 `json:"input_per_1m_tokens"`
	OutputPer1mTokens      *float64 `json:"output_per_1m_tokens"`
	CachedInputPer1mTokens *float64 `json:"cached_input_per_1m_tokens"`
	Sources                []string `json:"sources"`
	// NoTokenPrice says the page offers the model without a per-token price (Fireworks' on-demand deployment
	// only, no serverless block): the data sets' token prices, often of an earlier offer, are not served.
	NoTokenPrice bool `json:"no_token_price,omitempty"`
	// KnowledgeCutoff is the training cutoff as the page KnowledgeCutoffSource gives it: a day (2026-02-01) or,
	// where the page names only the month ("May 2026"), the month (2026-05). It outranks the data sets' month.
	KnowledgeCutoff       *string `json:"knowledge_cutoff,omitempty"`
	KnowledgeCutoffSource *string `json:"knowledge_cutoff_source,omitempty"`
	Note                  *string `json:"note"`
	// Review is for reviewers (how the fact was found, what could not be read): REPORT.md only, never served.
	Review *string `json:"review,omitempty"`
}

// Alias is another API name a provider's page gives a model of the same file (Mistral's ministral-3b-latest on the
// card of ministral-3b-2512, Cohere's command-r-plus for command-r-plus-04-2024): the alias is served with its
// model's price and lifecycle, never with a data set's price for the alias (which may be an older model's).
type Alias struct {
	Alias  string `json:"alias"`
	Model  string `json:"model"`
	Source string `json:"source"`
	// Review is for reviewers (how the fact was found): REPORT.md only, never served.
	Review *string `json:"review,omitempty"`
}

// ForeignID is a model ID the data sets give the provider that its API does not accept as spelled, where the
// provider's official model-ID list is partial and so cannot refuse it by itself (a data set's or gateway's key,
// such as litellm's gemini-gemma-2-9b-it). Official is the provider's own spelling where its pages give one: the
// build then maps the data to it, or drops the ID, as for a complete list (apimodels.go).
type ForeignID struct {
	ModelID  string  `json:"model_id"`
	Official *string `json:"official"`
	Source   string  `json:"source"`
	// Why is the reason, in one sentence, written into REPORT.md with the ID.
	Why string `json:"why"`
	// Review is for reviewers (how the fact was found): REPORT.md only, never served.
	Review *string `json:"review,omitempty"`
}

// LifecycleFile is sources/official/lifecycle/<provider>.json.
type LifecycleFile struct {
	ProviderID string         `json:"provider_id"`
	Pages      []OfficialPage `json:"pages"`
	Retired    []Retirement   `json:"retired"`
	Current    []CurrentModel `json:"current"`
	Aliases    []Alias        `json:"aliases,omitempty"`
	Foreign    []ForeignID    `json:"foreign,omitempty"`
	// NamedOnly serves the provider's models only under IDs an official source names: this file's entries, the
	// provider's price file and its official ID lists. A data set's ID outside them is mapped to the official
	// spelling it matches, or dropped, as for a complete list: no official source shows the API accepts it, and
	// the samples found such IDs were often a data set's own key or a model long gone (docs/factcheck).
	NamedOnly bool `json:"named_only,omitempty"`
}

// Page returns the page of that id.
func (f *LifecycleFile) Page(id string) (OfficialPage, bool) { return pageByID(f.Pages, id) }

// pageByID is the page of that id among a curated file's pages.
func pageByID(pages []OfficialPage, id string) (OfficialPage, bool) {
	if p := byID(pages, func(p *OfficialPage) string { return p.ID }, id); p != nil {
		return *p, true
	}
	return OfficialPage{}, false
}

// byID is the first item whose id is id, or nil: the lookups of the curated files (a page, a model's entry).
func byID[T any](items []T, idOf func(*T) string, id string) *T {
	for i := range items {
		if idOf(&items[i]) == id {
			return &items[i]
		}
	}
	return nil
}

var (
	dayRE    = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)
	pageIDRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)
)

// officialTasks and officialStages are the values a curated model may take.
var (
	officialTasks  = []string{"llm", "code", "image", "embedding", "speech", "video", "search", "rerank", "moderation"}
	officialStages = []string{"ga", "preview", "beta", "experimental"}
)

func checkDay(what, s string) error {
	if !dayRE.MatchString(s) {
		return fmt.Errorf("%s: %q is not a date (YYYY-MM-DD)", what, s)
	}
	return nil
}

// CutoffDate reads a curated knowledge cutoff: a day is exact; a month is its first day, approximate.
func CutoffDate(s string) (day string, approximate, ok bool) {
	if _, err := time.Parse(time.DateOnly, s); err == nil {
		return s, false, true
	}
	if _, err := time.Parse("2006-01", s); err == nil {
		return s + "-01", true, true
	}
	return "", false, false
}

func checkOptDay(what string, s *string) error {
	if s == nil {
		return nil
	}
	return checkDay(what, *s)
}

// CheckPages validates a curated file's pages: unique ids, https URLs, check dates.
func CheckPages(file string, pages []OfficialPage) (map[string]bool, error) {
	ids := map[string]bool{}
	for _, p := range pages {
		if !pageIDRE.MatchString(p.ID) || ids[p.ID] {
			return nil, fmt.Errorf("%s: page id %q is malformed or repeated", file, p.ID)
		}
		ids[p.ID] = true
		u, err := url.Parse(p.URL)
		if err != nil || u.Scheme != "https" || u.Host == "" {
			return nil, fmt.Errorf("%s: page %s: %q is not an https URL", file, p.ID, p.URL)
		}
		if err := checkDay(file+": page "+p.ID+" checked", p.Checked); err != nil {
			return nil, err
		}
		if err := checkOptDay(file+": page "+p.ID+" as_of", p.AsOf); err != nil {
			return nil, err
		}
		if strings.TrimSpace(p.Title) == "" {
			return nil, fmt.Errorf("%s: page %s has no title", file, p.ID)
		}
	}
	return ids, nil
}

// OfficialLifecycleDir is where the curated lifecycle pages sit beside the upstream snapshots:
// sources/official/lifecycle for sources/upstream.
func OfficialLifecycleDir(dataDir string) string {
	return filepath.Join(filepath.Dir(filepath.Clean(dataDir)), "official", "lifecycle")
}

// LoadLifecycle reads every file of dir (sources/official/lifecycle) and checks it; known are the provider IDs.
// A missing folder is no curated data.
func LoadLifecycle(dir string, known map[string]bool) (map[string]*LifecycleFile, error) {
	files, err := curatedFiles(dir, known, func(f *LifecycleFile) string { return f.ProviderID })
	if err != nil {
		return nil, err
	}
	out := map[string]*LifecycleFile{}
	for _, f := range files {
		if err := f.check(f.ProviderID + ".json"); err != nil {
			return nil, err
		}
		out[f.ProviderID] = f
	}
	return out, nil
}

func (f *LifecycleFile) check(file string) error {
	ids, err := CheckPages(file, f.Pages)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, r := range f.Retired {
		if r.ModelID == "" || seen["r/"+r.ModelID] {
			return fmt.Errorf("%s: retired model %q is empty or repeated", file, r.ModelID)
		}
		seen["r/"+r.ModelID] = true
		if !ids[r.Source] {
			return fmt.Errorf("%s: retired %s cites unknown page %q", file, r.ModelID, r.Source)
		}
		for what, d := range map[string]*string{"announced": r.Announced, "shutdown": r.Shutdown} {
			if err := checkOptDay(file+": retired "+r.ModelID+" "+what, d); err != nil {
				return err
			}
		}
	}
	for _, r := range f.Retired {
		if r.Scheduled && r.Shutdown == nil {
			return fmt.Errorf("%s: retired %s is scheduled, which needs a shutdown day", file, r.ModelID)
		}
		if r.Removed && (r.Shutdown != nil || r.Scheduled || r.Follows != nil) {
			return fmt.Errorf("%s: retired %s is removed without a day, so it takes no shutdown day, schedule or follows", file, r.ModelID)
		}
		if r.Follows == nil {
			continue
		}
		// The entry followed must be the page's own statement (not another inference) of the same day.
		t := f.Retirement(*r.Follows)
		if t == nil || t.Follows != nil || t.Source != r.Source || !sameDay(t.Shutdown, r.Shutdown) {
			return fmt.Errorf("%s: retired %s follows %q, which is no entry of the same page and day", file, r.ModelID, *r.Follows)
		}
	}
	for _, m := range f.Current {
		if m.ModelID == "" || seen["c/"+m.ModelID] {
			return fmt.Errorf("%s: current model %q is empty or repeated", file, m.ModelID)
		}
		seen["c/"+m.ModelID] = true
		if !slices.Contains(officialTasks, m.Task) || !slices.Contains(officialStages, m.Stage) {
			return fmt.Errorf("%s: current %s: task %q or stage %q is not allowed", file, m.ModelID, m.Task, m.Stage)
		}
		if len(m.Sources) == 0 {
			return fmt.Errorf("%s: current %s cites no page", file, m.ModelID)
		}
		for _, s := range m.Sources {
			if !ids[s] {
				return fmt.Errorf("%s: current %s cites unknown page %q", file, m.ModelID, s)
			}
		}
		if err := checkOptDay(file+": current "+m.ModelID+" released", m.Released); err != nil {
			return err
		}
		if (m.KnowledgeCutoff == nil) != (m.KnowledgeCutoffSource == nil) {
			return fmt.Errorf("%s: current %s gives a knowledge cutoff without its page, or a page without a cutoff", file, m.ModelID)
		}
		if m.KnowledgeCutoff != nil {
			if _, _, ok := CutoffDate(*m.KnowledgeCutoff); !ok {
				return fmt.Errorf("%s: current %s: knowledge cutoff %q is no day (2026-02-01) or month (2026-05)", file, m.ModelID, *m.KnowledgeCutoff)
			}
			if !ids[*m.KnowledgeCutoffSource] {
				return fmt.Errorf("%s: current %s: knowledge cutoff cites unknown page %q", file, m.ModelID, *m.KnowledgeCutoffSource)
			}
		}
		for _, p := range []*float64{m.InputPer1mTokens, m.OutputPer1mTokens, m.CachedInputPer1mTokens} {
			if p != nil && *p < 0 {
				return fmt.Errorf("%s: current %s has a negative price", file, m.ModelID)
			}
			if p != nil && m.NoTokenPrice {
				return fmt.Errorf("%s: current %s gives a token price and says it has none", file, m.ModelID)
			}
		}
		for what, l := range map[string]struct {
			n    *int64
			text *string
		}{"context window": {m.ContextWindow, m.ContextWindowText}, "output limit": {m.MaxOutputTokens, m.MaxOutputText}} {
			if l.text == nil {
				continue
			}
			if l.n != nil {
				return fmt.Errorf("%s: current %s gives its %s both as a number and as the page's rounded figure", file, m.ModelID, what)
			}
			if _, _, ok := parseRounded(*l.text); !ok {
				return fmt.Errorf("%s: current %s: %s %q is no rounded figure such as \"128K\" or \"1M tokens\"", file, m.ModelID, what, *l.text)
			}
		}
	}
	for _, a := range f.Aliases {
		// An alias rests on one model entry of the file; it is no entry of its own as current (which would give
		// it a price of its own) or as another alias.
		switch {
		case a.Alias == "" || a.Alias == a.Model || seen["a/"+a.Alias]:
			return fmt.Errorf("%s: alias %q is empty, repeated or its own model", file, a.Alias)
		case seen["c/"+a.Alias]:
			return fmt.Errorf("%s: alias %s is also a current model", file, a.Alias)
		case !seen["c/"+a.Model] && !seen["r/"+a.Model]:
			return fmt.Errorf("%s: alias %s names %q, which is no current or retired model of the file", file, a.Alias, a.Model)
		case !ids[a.Source]:
			return fmt.Errorf("%s: alias %s cites unknown page %q", file, a.Alias, a.Source)
		}
		seen["a/"+a.Alias] = true
	}
	for _, x := range f.Foreign {
		switch {
		case x.ModelID == "" || seen["f/"+x.ModelID]:
			return fmt.Errorf("%s: foreign ID %q is empty or repeated", file, x.ModelID)
		case seen["c/"+x.ModelID] || seen["r/"+x.ModelID] || seen["a/"+x.ModelID]:
			return fmt.Errorf("%s: foreign ID %s is also a model or alias of the file", file, x.ModelID)
		case x.Official != nil && (*x.Official == "" || *x.Official == x.ModelID):
			return fmt.Errorf("%s: foreign ID %s: official spelling %q", file, x.ModelID, *x.Official)
		case !ids[x.Source]:
			return fmt.Errorf("%s: foreign ID %s cites unknown page %q", file, x.ModelID, x.Source)
		case strings.TrimSpace(x.Why) == "":
			return fmt.Errorf("%s: foreign ID %s gives no reason", file, x.ModelID)
		}
		seen["f/"+x.ModelID] = true
	}
	return nil
}

// AliasOf returns the model an alias of the file names, if model is one.
func (f *LifecycleFile) AliasOf(model string) (string, bool) {
	if f == nil {
		return "", false
	}
	if a := byID(f.Aliases, func(a *Alias) string { return a.Alias }, model); a != nil {
		return a.Model, true
	}
	return "", false
}

// AliasEntry returns the alias entry of a model ID, or nil.
func (f *LifecycleFile) AliasEntry(model string) *Alias {
	if f == nil {
		return nil
	}
	return byID(f.Aliases, func(a *Alias) string { return a.Alias }, model)
}

// CurrentOrAlias returns the curated current record of a model, or of the model its alias names: an alias is
// served with its model's facts.
func (f *LifecycleFile) CurrentOrAlias(model string) *CurrentModel {
	if m := f.CurrentModel(model); m != nil {
		return m
	}
	if t, ok := f.AliasOf(model); ok {
		return f.CurrentModel(t)
	}
	return nil
}

func sameDay(a, b *string) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

// newestChecked is the newest day any curated page was read, "" when there is none.
func newestChecked(files map[string]*LifecycleFile) string {
	newest := ""
	for _, f := range files {
		for _, p := range f.Pages {
			newest = max(newest, p.Checked)
		}
	}
	return newest
}

// Lifecycle reads the curated lifecycle pages beside the upstream snapshots of dataDir and returns them with the
// build's reference date: the newest day any source holds for (the upstream snapshots' dates and the pages'
// check dates). Models shut down on or before it are retired by the build; later shutdowns are judged by the
// server's clock.
func Lifecycle(dataDir string, known map[string]bool) (map[string]*LifecycleFile, string, error) {
	snap, err := resolveSnapshots(dataDir)
	if err != nil {
		return nil, "", err
	}
	files, err := LoadLifecycle(OfficialLifecycleDir(dataDir), known)
	if err != nil {
		return nil, "", err
	}
	return files, maxDate(snap.LiteLLM.Date, snap.ModelsDev.Date, snap.GenAI.Date, newestChecked(files)), nil
}

// Retirement returns the curated retirement of a model, or nil.
func (f *LifecycleFile) Retirement(model string) *Retirement {
	if f == nil {
		return nil
	}
	return byID(f.Retired, func(r *Retirement) string { return r.ModelID }, model)
}

// CurrentModel returns the curated current record of a model, or nil.
func (f *LifecycleFile) CurrentModel(model string) *CurrentModel {
	if f == nil {
		return nil
	}
	return byID(f.Current, func(m *CurrentModel) string { return m.ModelID }, model)
}
