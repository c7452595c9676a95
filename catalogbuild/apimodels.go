package catalogbuild

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// APIModelFiles are the snapshots in sources/upstream that hold a provider's model IDs as its own SDK or
// documentation publishes them (extracted as data from the SDK's types, or read from the provider's models page;
// see sources/SOURCES.md).
var APIModelFiles = []string{
	"anthropic-sdk-models.json", "mistral-docs-models.json", "openai-sdk-models.json",
	"deepseek-docs-models.json", "perplexity-docs-models.json", "cohere-docs-models.json", "xai-sdk-models.json",
	"google-gemini-sdk-models.json", "google-vertex-llama-docs-models.json",
}

// Bounds on a model-ID list: the files are data read at build time, and a file far larger than any SDK's list
// is a wrong file, not a longer list.
const (
	maxAPIModelFileBytes = 1 << 20
	maxAPIModelIDs       = 5000
)

// APIModelList is one provider's official model IDs, read either from a repository at a commit or from the
// provider's own pages on a check day.
type APIModelList struct {
	ProviderID string `json:"provider_id"`
	Repository string `json:"repository,omitempty"`
	Commit     string `json:"commit,omitempty"`
	// URL is the provider's page the list was read from, for a list that no repository holds: the manifest then
	// names no commit, its upstream_url is this page and its date is the check day. Each list's path is then the
	// page it was read from.
	URL  string `json:"url,omitempty"`
	Date string `json:"date"`
	// Complete says the lists name every model ID the provider's API accepts (together with the IDs its own
	// pages in sources/official/lifecycle name): an ID outside them is not served. Where false, the lists are
	// the SDK's known values only, and IDs outside them are reported, not dropped.
	Complete bool `json:"complete"`
	// Family, where set, is an ID prefix: the lists are a page's list of one family of the provider's models (Vertex
	// AI's Llama models, "meta/llama"), complete for that family only. An ID of the family outside the lists is
	// mapped or dropped as for a complete list; IDs outside the family are not judged by the list.
	Family string `json:"family,omitempty"`
	Lists  []struct {
		Path     string   `json:"path"`
		What     string   `json:"what"`
		ModelIDs []string `json:"model_ids"`
	} `json:"lists"`
	EndOfLife *struct {
		Path   string `json:"path"`
		What   string `json:"what"`
		Models []struct {
			ModelID   string `json:"model_id"`
			EndOfLife string `json:"end_of_life"`
		} `json:"models"`
	} `json:"end_of_life,omitempty"`
}

// LoadAPIModels reads the official model-ID lists in dir, each checked against its manifest.
func LoadAPIModels(dir string) (map[string]*APIModelList, error) {
	out := map[string]*APIModelList{}
	for _, file := range APIModelFiles {
		man, err := ReadManifest(dir, file)
		if err != nil {
			return nil, err
		}
		b, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			return nil, err
		}
		if len(b) > maxAPIModelFileBytes {
			return nil, fmt.Errorf("%s: %d bytes, more than the %d a model-ID list may hold", file, len(b), maxAPIModelFileBytes)
		}
		var l APIModelList
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if err := l.check(man); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if _, dup := out[l.ProviderID]; dup {
			return nil, fmt.Errorf("%s: a second list for provider %q", file, l.ProviderID)
		}
		out[l.ProviderID] = &l
	}
	return out, nil
}

func (l *APIModelList) check(man *Manifest) error {
	if l.ProviderID == "" || !ValidID(l.ProviderID) {
		return fmt.Errorf("provider_id %q", l.ProviderID)
	}
	if l.URL != "" {
		// A page has no commit: what pins it is the page address and the day it was read.
		if l.Commit != "" || l.Repository != "" || man.Commit != nil {
			return fmt.Errorf("a list read from the page %s names a commit or repository", l.URL)
		}
		if !strings.HasPrefix(l.URL, "https://") || man.UpstreamURL != l.URL {
			return fmt.Errorf("url %q is not the manifest's upstream_url %q", l.URL, man.UpstreamURL)
		}
		for _, list := range l.Lists {
			if !strings.HasPrefix(list.Path, "https://") {
				return fmt.Errorf("list path %q of a page-read list is not a page address", list.Path)
			}
		}
	} else if !commitRE.MatchString(l.Commit) || man.Commit == nil || *man.Commit != l.Commit {
		return fmt.Errorf("commit %q does not match the manifest's", l.Commit)
	}
	if l.Date != man.Date {
		return fmt.Errorf("date %q is not the manifest's %q", l.Date, man.Date)
	}
	if l.Family != "" && (!l.Complete || l.EndOfLife != nil) {
		// A family list only ever refuses IDs of its family, so it must claim to name all of them.
		return fmt.Errorf("the list of family %q is not complete, or has an end-of-life table", l.Family)
	}
	n := 0
	for _, list := range l.Lists {
		for _, id := range list.ModelIDs {
			if !ValidID(id) {
				return fmt.Errorf("%s: model ID %q", list.Path, id)
			}
			if !strings.HasPrefix(id, l.Family) {
				return fmt.Errorf("%s: model ID %q is not of the family %q", list.Path, id, l.Family)
			}
			n++
		}
	}
	if l.EndOfLife != nil {
		for _, m := range l.EndOfLife.Models {
			if !ValidID(m.ModelID) {
				return fmt.Errorf("%s: model ID %q", l.EndOfLife.Path, m.ModelID)
			}
			if err := checkDay("end_of_life of "+m.ModelID, m.EndOfLife); err != nil {
				return err
			}
			n++
		}
	}
	if n == 0 || n > maxAPIModelIDs {
		return fmt.Errorf("%d model IDs (want 1 to %d)", n, maxAPIModelIDs)
	}
	return nil
}

// AcceptedIDs is what a provider's API accepts on day asOf: the SDK's IDs, less those its end-of-life table
// retires on or before asOf, plus the IDs the provider's pages list as current or as shut down after asOf.
// known holds every official spelling (retired ones too), for mapping a foreign spelling to the API's own.
type AcceptedIDs struct {
	Complete bool
	// family is the ID prefix a family list is complete for ("" for a list of the whole provider).
	family   string
	accepted map[string]bool
	known    map[string]bool
	// foreign are the IDs the provider's pages show its API does not accept as spelled (LifecycleFile.Foreign):
	// refused even where the list is partial.
	foreign map[string]*ForeignID
}

// Accepted builds the accepted set of a provider from its list and its curated lifecycle file (either may be nil).
// A file marked NamedOnly makes the set complete: its entries and the list are every ID served.
func Accepted(l *APIModelList, f *LifecycleFile, asOf string) *AcceptedIDs {
	a := &AcceptedIDs{accepted: map[string]bool{}, known: map[string]bool{}, foreign: map[string]*ForeignID{}}
	eolRetired := map[string]bool{}
	if l != nil {
		a.Complete, a.family = l.Complete, l.Family
		for _, list := range l.Lists {
			for _, id := range list.ModelIDs {
				a.accepted[id], a.known[id] = true, true
			}
		}
		if l.EndOfLife != nil {
			for _, m := range l.EndOfLife.Models {
				a.known[m.ModelID] = true
				a.accepted[m.ModelID] = m.EndOfLife > asOf
				eolRetired[m.ModelID] = m.EndOfLife <= asOf
			}
		}
	}
	if f != nil && f.NamedOnly {
		// The file's own entries and lists are the whole of what is served, family lists included.
		a.Complete, a.family = true, ""
	}
	if f != nil {
		// A model the pages list as available and also give a shutdown day is accepted until that day.
		for _, m := range f.Current {
			a.accepted[m.ModelID], a.known[m.ModelID] = true, true
		}
		for _, r := range f.Retired {
			a.known[r.ModelID] = true
			switch {
			case r.Shutdown != nil:
				a.accepted[r.ModelID] = *r.Shutdown > asOf
			case r.Removed:
				a.accepted[r.ModelID] = false
			case !eolRetired[r.ModelID]:
				// Deprecated with no shutdown day: the API still takes it.
				a.accepted[r.ModelID] = true
			}
		}
		// An alias the pages name is accepted while its model is.
		for _, al := range f.Aliases {
			a.known[al.Alias] = true
			a.accepted[al.Alias] = a.accepted[al.Model] || a.accepted[al.Alias]
		}
		for i := range f.Foreign {
			a.foreign[f.Foreign[i].ModelID] = &f.Foreign[i]
		}
	}
	return a
}

// foreignWhy is ": " and the reason the provider's pages give for not accepting id (LifecycleFile.Foreign), or "".
func (a *AcceptedIDs) foreignWhy(id string) string {
	if x := a.foreign[id]; x != nil {
		return ": " + x.Why
	}
	return ""
}

// Has reports whether the API accepts id. An ID outside the family of a family list is not the list's to refuse.
func (a *AcceptedIDs) Has(id string) bool {
	if a.foreign[id] != nil {
		return false
	}
	return a.accepted[id] || (a.family != "" && !strings.HasPrefix(id, a.family))
}

var dateSuffixRE = regexp.MustCompile(`-(20[0-9]{6}|20[0-9]{2}-[0-9]{2}-[0-9]{2})$`)

// Official finds the provider's own spelling of a foreign one: the same ID without a date suffix that the
// provider does not use (claude-opus-4-6-20260205 for claude-opus-4-6), or the same words in the provider's
// order (claude-4-opus-20250514 for claude-opus-4-20250514). ok is false when no single official ID matches.
func (a *AcceptedIDs) Official(id string) (string, bool) {
	if x := a.foreign[id]; x != nil {
		if x.Official != nil {
			return *x.Official, true
		}
		return "", false
	}
	if a.known[id] {
		return id, true
	}
	if base := dateSuffixRE.ReplaceAllString(id, ""); base != id && a.known[base] {
		return base, true
	}
	words := wordsOf(id)
	var hits []string
	for k := range a.known {
		if wordsOf(k) == words {
			hits = append(hits, k)
		}
	}
	if len(hits) == 1 {
		return hits[0], true
	}
	// Version or size words a data set inserts into the provider's ID (mistral-medium-3-1-2508 for
	// mistral-medium-2508, ministral-3-14b-2512 for ministral-14b-2512).
	hits = hits[:0]
	for k := range a.known {
		if withVersionWords(strings.Split(k, "-"), strings.Split(id, "-")) {
			hits = append(hits, k)
		}
	}
	if len(hits) == 1 {
		return hits[0], true
	}
	return "", false
}

var versionWordRE = regexp.MustCompile(`^[0-9]{1,3}b?$`)

// withVersionWords reports whether foreign is official with version or size words inserted: official's words
// in order, every other word a short number.
func withVersionWords(official, foreign []string) bool {
	if len(foreign) <= len(official) {
		return false
	}
	i := 0
	for _, w := range foreign {
		switch {
		case i < len(official) && w == official[i]:
			i++
		case !versionWordRE.MatchString(w):
			return false
		}
	}
	return i == len(official)
}

func wordsOf(id string) string {
	w := strings.Split(id, "-")
	sort.Strings(w)
	return strings.Join(w, "-")
}

// IDCheck is one model ID a data set gives a provider that the provider's API does not accept as spelled.
type IDCheck struct {
	Provider, Model string
	// Outcome: "mapped" (its data now sits under Target), "dropped" (Target already had its own record, or the
	// official ID is retired, or none matched), or "unlisted" (the list is not complete; kept, reported).
	Outcome, Target, Why string
}

// checkIDs applies the accepted-ID rule to the models of one data set: a foreign spelling is moved to the
// API's own ID where that ID has no record of its own, and otherwise dropped; an ID that matches nothing is
// dropped where the provider's list is complete.
func checkIDs[V any](c *converter, m map[key]V, rekey func(V, key) V) {
	keys := make([]key, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sortKeys(keys)
	for _, k := range keys {
		a := c.accepted[k.provider]
		if a == nil || a.Has(k.model) {
			continue
		}
		x := a.foreign[k.model]
		if !a.Complete && x == nil {
			// A partial list cannot tell a foreign spelling from an ID the SDK does not name yet, unless the
			// provider's pages show the ID is not its own (LifecycleFile.Foreign).
			c.idCheck(k, "unlisted", "", "not in the provider's official list of known IDs; kept")
			continue
		}
		why := a.foreignWhy(k.model)
		target, ok := a.Official(k.model)
		switch {
		case ok && target != k.model && a.Has(target):
			if _, taken := m[key{k.provider, target}]; taken {
				c.idCheck(k, "dropped", target, "a spelling of "+target+", which has its own record"+why)
			} else {
				m[key{k.provider, target}] = rekey(m[k], key{k.provider, target})
				c.idCheck(k, "mapped", target, "a spelling of "+target+why)
			}
			delete(m, k)
		case ok:
			c.idCheck(k, "dropped", target, "the API no longer accepts "+target+why)
			delete(m, k)
		default:
			c.idCheck(k, "dropped", "", "not a model ID the API accepts"+why)
			delete(m, k)
		}
	}
}

func (c *converter) idCheck(k key, outcome, target, why string) {
	for _, x := range c.report.IDChecks {
		if x.Provider == k.provider && x.Model == k.model {
			return // the same foreign ID from a second data set
		}
	}
	c.report.IDChecks = append(c.report.IDChecks, IDCheck{k.provider, k.model, outcome, target, why})
}

// applyAcceptedIDs builds the accepted sets and holds litellm's and models.dev's models to them.
func (c *converter) applyAcceptedIDs() {
	c.accepted = map[string]*AcceptedIDs{}
	for pid, l := range c.apiModels {
		c.accepted[pid] = Accepted(l, c.official[pid], c.asOf)
	}
	for pid, f := range c.official {
		if c.accepted[pid] == nil && f.NamedOnly {
			c.accepted[pid] = Accepted(nil, f, c.asOf)
		}
	}
	// A model the provider's own price page prices is named by it.
	for pid, a := range c.accepted {
		if p := c.prices[pid]; p != nil {
			for _, m := range p.Models {
				if !a.known[m.ModelID] {
					a.accepted[m.ModelID], a.known[m.ModelID] = true, true
				}
			}
		}
	}
	checkIDs(c, c.lm, func(l *lModel, k key) *lModel { l.key = k; return l })
	checkIDs(c, c.mm, func(m *mModel, k key) *mModel { m.key = k; return m })
}

// dropForeign reports a model only genai-prices names under an ID the API does not accept: it is not served (its
// official spelling, if any, keeps its own sources).
func (c *converter) dropForeign(k key) {
	a := c.accepted[k.provider]
	why := a.foreignWhy(k.model)
	if target, ok := a.Official(k.model); ok {
		c.idCheck(k, "dropped", target, "a spelling of "+target+"; genai-prices alone names it"+why)
		return
	}
	if !a.Complete && why == "" {
		c.idCheck(k, "dropped", "", "genai-prices alone names it, and neither the provider's list of known IDs nor its pages do")
		return
	}
	c.idCheck(k, "dropped", "", "not a model ID the API accepts"+why)
}

// namedKey reports whether a model only genai-prices lists may be served under k: its provider's official list or
// pages name it. genai-prices' model IDs name its price groups (command-a for every "command-a*" request,
// gpt-chat-latest imported from OpenRouter's catalog), not necessarily an ID the provider's API takes, so where
// the provider's list is partial such an ID needs an official name: the list, the lifecycle pages, or a price page
// curated for it (sources/official/prices). Providers without a list are not judged.
func (c *converter) namedKey(k key) bool {
	a := c.accepted[k.provider]
	return a == nil || a.Has(k.model) || (a.foreign[k.model] == nil && c.prices[k.provider].Model(k.model) != nil)
}

// ReviewNote is a reviewer's note on a curated lifecycle entry (how a fact was found, what was not readable):
// written into REPORT.md, never into a served catalog.
type ReviewNote struct {
	Provider, Model, Note string
}

// collectReviews gathers the review notes of the curated lifecycle files.
func (c *converter) collectReviews() {
	for pid, f := range c.official {
		add := func(key string, review *string) {
			if review != nil {
				c.report.Reviews = append(c.report.Reviews, ReviewNote{pid, key, *review})
			}
		}
		for _, p := range f.Pages {
			add("page "+p.ID, p.Review)
		}
		for _, r := range f.Retired {
			add(r.ModelID, r.Review)
		}
		for _, m := range f.Current {
			add(m.ModelID, m.Review)
		}
		for _, a := range f.Aliases {
			add(a.Alias, a.Review)
		}
		for _, x := range f.Foreign {
			add(x.ModelID, x.Review)
		}
	}
}
