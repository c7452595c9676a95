package derive

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/switchboard/switchboard/catalogbuild"
	"github.com/switchboard/switchboard/seeds"
)

// The one lifecycle of a model that the deprecation and lifecycle catalogs both serve, with what it rests on. The
// converter applies the same rules to the pricing and model catalogs (a model shut down by them is in neither),
// so no catalog offers a model another calls shut down.

// Bases of a lifecycle verdict, strongest first.
const (
	basisPage    = "page"    // the provider's deprecation page lists the model
	basisFollows = "follows" // the alias's snapshot, the profile's Bedrock model or the maker's model has a shutdown day
	basisLiteLLM = "litellm" // litellm's deprecation_date
	basisCurrent = "current" // the provider's models page lists the model as available
	basisNone    = "none"    // nothing says the model is deprecated
)

// verdict is the lifecycle of one model.
type verdict struct {
	basis string
	// shutdown is the shutdown day ("" when none); retiredNoDay marks a deprecation page entry without a day.
	shutdown     string
	retiredNoDay bool
	// removed marks a model the page says is no longer served, on a day it does not give: sunset without a day.
	removed bool
	// scheduled: the shutdown day is one the provider set at release (catalogbuild.Retirement.Scheduled).
	scheduled  bool
	retirement *catalogbuild.Retirement
	follow     *catalogbuild.LineageFact
	current    *catalogbuild.CurrentModel
	// notes states the facts and the pages; sources are the ids of the sources that name the model.
	notes      string
	sources    []string
	confidence string
}

// lifecycleVerdict decides the lifecycle of a current model m (its source facts f): its provider's deprecation page;
// else its alias's snapshot or its maker's model (lin); else litellm's deprecation_date; else its provider's models
// page; else nothing, named as such.
func lifecycleVerdict(m seeds.ModelRecord, f catalogbuild.SourceFacts, lf *lifecycleFacts, lin map[string]catalogbuild.LineageFact) verdict {
	file := lf.files[m.ProviderId]
	if r := file.Retirement(m.ModelId); r != nil {
		return retirementVerdict(r, file)
	}
	if v, ok := aliasVerdict(m.ModelId, file); ok {
		return v
	}
	if fact, ok := lin[m.ProviderId+"/"+m.ModelId]; ok {
		return followVerdict(m.ProviderId, m.ModelId, &fact, lf)
	}
	if d := lifecycleLiteLLMDeprecation(f); d != "" {
		return verdict{basis: basisLiteLLM, shutdown: d, sources: []string{catalogbuild.SourceLiteLLM}, confidence: catalogbuild.ConfidenceSingle,
			notes: fmt.Sprintf("litellm's deprecation_date is %s; no deprecation page of the provider gives a day.", d)}
	}
	if cur := file.CurrentModel(m.ModelId); cur != nil {
		page, _ := file.Page(cur.Sources[0])
		return verdict{basis: basisCurrent, current: cur, sources: slices.Clone(cur.Sources), confidence: catalogbuild.ConfidenceVerified,
			notes: fmt.Sprintf("Listed as available on %s (%s), checked %s.", page.Title, page.URL, page.Checked)}
	}
	return verdict{basis: basisNone, sources: dataSetsNaming(f), confidence: catalogbuild.ConfidenceSingle, notes: notListedNote(m.ProviderId, lf)}
}

// aliasVerdict is the lifecycle of an alias the provider's page names as another API name of a model of the same
// file: its model's, whatever a data set says of the alias (litellm and models.dev may still describe the older
// model an alias pointed to). ok is false for a model that is no such alias.
func aliasVerdict(model string, file *catalogbuild.LifecycleFile) (verdict, bool) {
	a := file.AliasEntry(model)
	if a == nil {
		return verdict{}, false
	}
	page, _ := file.Page(a.Source)
	if r := file.Retirement(a.Model); r != nil {
		v := retirementVerdict(r, file)
		v.notes = fmt.Sprintf("An API name of %s on %s (%s), checked %s; that model's lifecycle applies. %s",
			a.Model, page.Title, page.URL, page.Checked, v.notes)
		if !slices.Contains(v.sources, a.Source) {
			v.sources = append(v.sources, a.Source)
		}
		return v, true
	}
	cur := file.CurrentModel(a.Model)
	if cur == nil {
		return verdict{}, false // the file's check makes the model a current or retired entry
	}
	sources := slices.Clone(cur.Sources)
	if !slices.Contains(sources, a.Source) {
		sources = append(sources, a.Source)
	}
	return verdict{basis: basisCurrent, current: cur, sources: sources, confidence: catalogbuild.ConfidenceVerified,
		notes: fmt.Sprintf("Listed as available on %s (%s), checked %s, as an API name of %s.", page.Title, page.URL, page.Checked, a.Model)}, true
}

// retirementVerdict is the lifecycle a provider's deprecation page gives one of its models.
func retirementVerdict(r *catalogbuild.Retirement, file *catalogbuild.LifecycleFile) verdict {
	page, _ := file.Page(r.Source)
	v := verdict{basis: basisPage, retirement: r, retiredNoDay: r.Shutdown == nil && !r.Removed, removed: r.Removed, sources: []string{r.Source}, confidence: catalogbuild.ConfidenceVerified,
		notes: fmt.Sprintf("From the provider's page %s (%s), checked %s.", page.Title, page.URL, page.Checked)}
	if r.Shutdown != nil {
		v.shutdown = *r.Shutdown
	}
	if r.Follows != nil {
		// The page states the day for the model's other ID only.
		v.confidence = catalogbuild.ConfidenceSingle
	}
	if r.Scheduled {
		// A planned end of life, not a deprecation: the model keeps the stage its page gives until the day, and the
		// page that dates it lists it as available.
		v.scheduled, v.current = true, file.CurrentModel(r.ModelID)
		v.notes = fmt.Sprintf("Listed as available on %s (%s), checked %s, with a retirement day set at release.", page.Title, page.URL, page.Checked)
	}
	if r.Note != nil {
		v.notes += " " + *r.Note
	}
	return v
}

// followVerdict is the lifecycle of a model that follows another's shutdown day. The day is read for the other
// model, so the record is `single`: no page states it for this ID.
func followVerdict(provider, model string, fact *catalogbuild.LineageFact, lf *lifecycleFacts) verdict {
	p := fact.Parent
	what := fmt.Sprintf("%s serves %s's model %s under this ID, which shuts down with it", provider, p.Provider, p.Model)
	switch p.Rule {
	case catalogbuild.RuleAlias:
		what = fmt.Sprintf("The alias points to %s (%s) and shuts down with it", p.Model, catalogbuild.AliasPointers[provider+"/"+model].URL)
	case catalogbuild.RuleProfile:
		what = fmt.Sprintf("A cross-Region inference profile of %s's model %s, which shuts down with it", provider, p.Model)
	}
	v := verdict{basis: basisFollows, follow: fact, shutdown: fact.Shutdown, confidence: catalogbuild.ConfidenceSingle}
	if fact.Page != "" {
		page, _ := lf.files[p.Provider].Page(fact.Page)
		v.notes = fmt.Sprintf("%s: %s (%s), checked %s, gives %s as its shutdown day.",
			what, page.Title, page.URL, page.Checked, fact.Shutdown)
		v.sources = []string{fact.Page}
	} else {
		v.notes = fmt.Sprintf("%s: litellm's deprecation_date of %s/%s is %s.",
			what, p.Provider, p.Model, fact.Shutdown)
		v.sources = []string{catalogbuild.SourceLiteLLM}
	}
	// A host with a lifecycle page of its own would keep the model live there by listing it: say which page was
	// searched (it is not cited, since it does not name the model).
	if own, ok := deprecationPage(lf.files[provider]); ok && p.Rule == catalogbuild.RuleMaker {
		v.notes += fmt.Sprintf(" Not listed on %s (%s), checked %s.", own.Title, own.URL, own.Checked)
	}
	return v
}

// dataSetsNaming are the ids of the data sets that list the model (which is how it is a current model at all).
func dataSetsNaming(f catalogbuild.SourceFacts) []string {
	var out []string
	if f.LiteLLM != nil {
		out = append(out, catalogbuild.SourceLiteLLM)
	}
	if f.ModelsDev != nil {
		out = append(out, catalogbuild.SourceModelsDev)
	}
	if len(out) == 0 {
		out = append(out, catalogbuild.SourceGenAI)
	}
	return out
}

// notListedNote names what was searched for a model nothing deprecates: its provider's deprecation page (the one
// that lists most of its retirements) and the data sets.
func notListedNote(provider string, lf *lifecycleFacts) string {
	data := "litellm gives no deprecation_date and models.dev does not mark it deprecated."
	page, ok := deprecationPage(lf.files[provider])
	if !ok {
		return "No deprecation is known: " + data + " No deprecation page of the provider is on file."
	}
	return fmt.Sprintf("Not listed on %s (%s), checked %s; %s", page.Title, page.URL, page.Checked, data)
}

// deprecationPage is the page that lists most of a provider's retirements (the newest check breaks ties).
func deprecationPage(f *catalogbuild.LifecycleFile) (catalogbuild.OfficialPage, bool) {
	if f == nil || len(f.Retired) == 0 {
		return catalogbuild.OfficialPage{}, false
	}
	count := map[string]int{}
	for _, r := range f.Retired {
		count[r.Source]++
	}
	var best catalogbuild.OfficialPage
	found := false
	for _, p := range f.Pages {
		if count[p.ID] == 0 {
			continue
		}
		if !found || count[p.ID] > count[best.ID] || (count[p.ID] == count[best.ID] && p.Checked > best.Checked) {
			best, found = p, true
		}
	}
	return best, found
}

// daysUntil is the number of whole days from day to shutdown (both YYYY-MM-DD); nil without a shutdown day.
func daysUntil(shutdown, day string) *int {
	if shutdown == "" {
		return nil
	}
	s, err1 := time.Parse(time.DateOnly, shutdown)
	d, err2 := time.Parse(time.DateOnly, day)
	if err1 != nil || err2 != nil {
		return nil
	}
	n := int(s.Sub(d).Hours() / 24)
	return &n
}

// followedRetired are the lineage models retired by the reference day, keyed "provider/model", sorted: they hold no
// model record, and the lifecycle catalogs list them as shut down.
func followedRetired(lin map[string]catalogbuild.LineageFact, ref string) []string {
	var out []string
	for k, f := range lin {
		if f.Shutdown <= ref {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// splitKey splits "provider/model" at its first slash (model IDs may hold more).
func splitKey(k string) (string, string) {
	p, m, _ := strings.Cut(k, "/")
	return p, m
}
