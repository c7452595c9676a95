package derive

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/switchboard/switchboard/catalogbuild"
	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/seeds"
)

func init() {
	Register(Deriver{Name: "api_changelog", Build: buildAPIChangelog})
}

// Change types and impact levels the rules produce (ApiChangelogChangeType, ApiChangelogImpact). The data holds no
// dated feature, breaking-change or rate-limit announcements, so those types have no entries.
const (
	changeNewModel      = api.ApiChangelogChangeTypeNewModel
	changeDeprecation   = api.ApiChangelogChangeTypeDeprecation
	changePricingChange = api.ApiChangelogChangeTypePricingChange
	impactHigh          = api.ApiChangelogImpactHigh
	impactMedium        = api.ApiChangelogImpactMedium
	impactLow           = api.ApiChangelogImpactLow
)

var (
	changelogSrcModelsDev = seeds.Source{ID: catalogbuild.SourceModelsDev, Name: "models.dev (anomalyco/models.dev, commit f3fc6922, 2026-07-02): release_date", URL: "https://github.com/anomalyco/models.dev", License: ptrTo("MIT")}
	changelogSrcLiteLLM   = seeds.Source{ID: catalogbuild.SourceLiteLLM, Name: "BerriAI/litellm model_prices_and_context_window.json (2026-07-24): deprecation_date", URL: "https://github.com/BerriAI/litellm/blob/main/model_prices_and_context_window.json", License: ptrTo("MIT")}
	changelogSrcGenAI     = seeds.Source{ID: catalogbuild.SourceGenAI, Name: "pydantic/genai-prices prices/providers/*.yml (commit 47df840a, 2026-08-21): dated price lists", URL: "https://github.com/pydantic/genai-prices", License: ptrTo("MIT")}
)

// gaDay is s as the record's date when it is a whole calendar day (YYYY-MM-DD); false else.
func gaDay(s string) (openapi_types.Date, bool) {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return openapi_types.Date{}, false
	}
	return openapi_types.Date{Time: t}, true
}

func gaFactString(m map[string]any, field string) string {
	s, _ := m[field].(string)
	return s
}

// newModelEntry is the `new_model` entry of a model whose models.dev release date is a whole day. Impact is low:
// a new model changes nothing for existing callers.
func newModelEntry(providerID, providerName, modelID string, released openapi_types.Date) api.ApiChangelogRecord {
	return api.ApiChangelogRecord{
		Date: released, ProviderId: providerID, ChangeType: changeNewModel, Impact: impactLow,
		Title: "New model: " + modelID,
		Description: fmt.Sprintf("models.dev gives %s as the release date of %s, served by %s. It is the model's release date, "+
			"which can precede its availability on this provider.", released, modelID, providerName),
		AffectedModels: []string{modelID}, Sources: api.RecordSources{catalogbuild.SourceModelsDev}, Confidence: api.ConfidenceSingle,
	}
}

// deprecationEntry is the `deprecation` entry of a model litellm gives a shutdown date for, dated that day. Impact
// is high: requests to the model fail after it, so callers must migrate.
func deprecationEntry(providerID, modelID string, shutdown openapi_types.Date) api.ApiChangelogRecord {
	return api.ApiChangelogRecord{
		Date: shutdown, ProviderId: providerID, ChangeType: changeDeprecation, Impact: impactHigh,
		Title: "Model shutdown: " + modelID,
		Description: fmt.Sprintf("litellm lists %s as the deprecation (shutdown) date of %s; requests to it fail after that day.",
			shutdown, modelID),
		AffectedModels: []string{modelID}, Sources: api.RecordSources{catalogbuild.SourceLiteLLM}, Confidence: api.ConfidenceSingle,
	}
}

// modelChangeEntries are the new_model and deprecation entries of every model of models.json (all tasks) from its
// source facts. models.json leaves out models retired before the litellm snapshot, so deprecations dated before
// 2026-07-24 are not in the feed.
func modelChangeEntries(models []seeds.ModelRecord, facts map[string]catalogbuild.SourceFacts, providerName func(string) string) []api.ApiChangelogRecord {
	var out []api.ApiChangelogRecord
	for _, m := range models {
		f := facts[m.ProviderId+"/"+m.ModelId]
		if d, ok := gaDay(gaFactString(f.ModelsDev, "release_date")); ok {
			out = append(out, newModelEntry(m.ProviderId, providerName(m.ProviderId), m.ModelId, d))
		}
		if d, ok := gaDay(gaFactString(f.LiteLLM, "deprecation_date")); ok {
			out = append(out, deprecationEntry(m.ProviderId, m.ModelId, d))
		}
	}
	return out
}

// genaiPriceFile is the part of genai-prices.json the pricing rule reads.
type genaiPriceFile struct {
	Providers []struct {
		ID          string   `json:"id"`
		PricingURLs []string `json:"pricing_urls"`
		Models      []struct {
			ID     string          `json:"id"`
			Prices json.RawMessage `json:"prices"`
		} `json:"models"`
	} `json:"providers"`
}

// genaiPriceStep is one entry of a model's dated price list.
type genaiPriceStep struct {
	Constraint *struct {
		StartDate string `json:"start_date"`
	} `json:"constraint"`
	Prices map[string]any `json:"prices"`
}

// changelogGenAIProviders maps genai-prices provider IDs to ours, for the providers whose models carry dated price
// lists (the same mapping as the converter's).
var changelogGenAIProviders = map[string]string{
	"anthropic": "anthropic", "aws": "aws-bedrock", "azure": "azure-openai", "google": "google-gemini", "openai": "openai",
	"openrouter": "openrouter", "mistral": "mistral", "x-ai": "xai", "deepseek": "deepseek", "groq": "groq",
}

// basePrice is a price field's base value: a plain number, or the `base` of a tiered price; ok is false when absent.
func basePrice(prices map[string]any, field string) (float64, bool) {
	switch v := prices[field].(type) {
	case float64:
		return v, true
	case map[string]any:
		b, ok := v["base"].(float64)
		return b, ok
	}
	return 0, false
}

// pricingImpact is the written rule for a dated price change, on the base input and output prices per 1M tokens:
// any of them higher is `high` (costs rise without a code change); none higher and one lower is `low`; the same
// base prices (a change of long-context tiers, cache or tool prices only) is `medium`.
func pricingImpact(before, after map[string]any) api.ApiChangelogImpact {
	rose, fell := false, false
	for _, f := range []string{"input_mtok", "output_mtok"} {
		b, okB := basePrice(before, f)
		a, okA := basePrice(after, f)
		if !okB || !okA {
			continue
		}
		rose = rose || a > b
		fell = fell || a < b
	}
	switch {
	case rose:
		return impactHigh
	case fell:
		return impactLow
	}
	return impactMedium
}

func formatPrice(prices map[string]any, field string) string {
	if v, ok := basePrice(prices, field); ok {
		return fmt.Sprintf("$%g", v)
	}
	return "unknown"
}

// pricingEntries are the pricing_change entries of genai-prices' dated price lists: each step with a start_date
// (a price in force from that day) against the step before it. Steps constrained otherwise (by time of day) are
// not changes over time and are skipped; `prices_checked` is a verification date, not a change, and is not used.
func pricingEntries(steps []genaiPriceStep, providerID, modelID string, sourceURL *string) []api.ApiChangelogRecord {
	var out []api.ApiChangelogRecord
	for i := 1; i < len(steps); i++ {
		c := steps[i].Constraint
		if c == nil {
			continue
		}
		day, ok := gaDay(c.StartDate)
		if !ok {
			continue
		}
		before, after := steps[i-1].Prices, steps[i].Prices
		out = append(out, api.ApiChangelogRecord{
			Date: day, ProviderId: providerID, ChangeType: changePricingChange, Impact: pricingImpact(before, after),
			Title: "Price change: " + modelID,
			Description: fmt.Sprintf("genai-prices records new prices for %s from %s: input %s -> %s, output %s -> %s per 1M tokens "+
				"(base prices; long-context tiers may change too).", modelID, c.StartDate,
				formatPrice(before, "input_mtok"), formatPrice(after, "input_mtok"),
				formatPrice(before, "output_mtok"), formatPrice(after, "output_mtok")),
			AffectedModels: []string{modelID}, SourceUrl: sourceURL,
			Sources: api.RecordSources{catalogbuild.SourceGenAI}, Confidence: api.ConfidenceSingle,
		})
	}
	return out
}

func readPricingEntries(dataDir string) ([]api.ApiChangelogRecord, error) {
	var f genaiPriceFile
	if err := readDataJSON(dataDir, "genai-prices.json", &f); err != nil {
		return nil, err
	}
	var out []api.ApiChangelogRecord
	for _, p := range f.Providers {
		pid, ok := changelogGenAIProviders[p.ID]
		if !ok {
			continue
		}
		var url *string
		if len(p.PricingURLs) > 0 {
			url = ptrTo(p.PricingURLs[0])
		}
		for _, m := range p.Models {
			var steps []genaiPriceStep
			if json.Unmarshal(m.Prices, &steps) != nil {
				continue // a single price set (an object), not a dated list
			}
			out = append(out, pricingEntries(steps, pid, m.ID, url)...)
		}
	}
	return out, nil
}

// sortChangelog puts entries in the file's order, the endpoint's: newest first, then provider ID, title and type.
func sortChangelog(recs []api.ApiChangelogRecord) {
	slices.SortFunc(recs, func(a, b api.ApiChangelogRecord) int {
		return cmp.Or(b.Date.Compare(a.Date.Time), strings.Compare(a.ProviderId, b.ProviderId),
			strings.Compare(a.Title, b.Title), strings.Compare(string(a.ChangeType), string(b.ChangeType)))
	})
}

// curatedChanges are the dated facts of the providers' own lifecycle pages (sources/official/lifecycle): for each
// retirement, the day its deprecation was announced and the day it shuts down; for each current model, its launch
// day. Each entry cites the page it was read from and is `verified`. Shutdowns and announcements still ahead are
// kept: the server serves an entry only once its day has come.
type curatedChanges struct {
	entries []api.ApiChangelogRecord
	// retired and launched are provider/model keys the pages give a retirement or a launch day for; the data sets'
	// entries of the same kind for those models are left out (the provider's page outranks a data set).
	retired, launched map[string]bool
	pages             []seeds.Source
}

// pageRef is what an entry says of the page it comes from.
type pageRef struct {
	id, url, checked string
}

func pageOf(f *catalogbuild.LifecycleFile, id string) (pageRef, catalogbuild.OfficialPage, error) {
	p, ok := f.Page(id)
	if !ok {
		return pageRef{}, p, fmt.Errorf("%s: page %q is not listed", f.ProviderID, id)
	}
	return pageRef{id: p.ID, url: p.URL, checked: p.Checked}, p, nil
}

// retirementEntries are the announcement and shutdown entries of one retirement. An announcement is `medium`:
// callers must plan a migration, nothing fails yet. A shutdown is `high`: requests to the model fail after it.
func retirementEntries(providerID, providerName string, r *catalogbuild.Retirement, page pageRef) ([]api.ApiChangelogRecord, error) {
	var out []api.ApiChangelogRecord
	entry := func(day string, impact api.ApiChangelogImpact, title, desc string) error {
		d, ok := gaDay(day)
		if !ok {
			return fmt.Errorf("%s/%s: %q is not a YYYY-MM-DD date", providerID, r.ModelID, day)
		}
		out = append(out, api.ApiChangelogRecord{
			Date: d, ProviderId: providerID, ChangeType: changeDeprecation, Impact: impact, Title: title + r.ModelID,
			Description: desc, AffectedModels: []string{r.ModelID}, SourceUrl: ptrTo(page.url),
			Sources: api.RecordSources{page.id}, Confidence: api.ConfidenceVerified,
		})
		return nil
	}
	replacement := ""
	if r.Replacement != nil {
		replacement = " The replacement it names is " + *r.Replacement + "."
	}
	cited := fmt.Sprintf(" Source: %s, checked %s.", page.url, page.checked)
	if r.Announced != nil {
		when := "without a shutdown date"
		if r.Shutdown != nil {
			when = "with shutdown on " + *r.Shutdown
		}
		desc := fmt.Sprintf("%s announced the deprecation of %s on %s, %s.", providerName, r.ModelID, *r.Announced, when)
		if err := entry(*r.Announced, impactMedium, "Deprecation announced: ", desc+replacement+cited); err != nil {
			return nil, err
		}
	}
	if r.Shutdown != nil {
		desc := fmt.Sprintf("%s gives %s as the shutdown day of %s, after which requests to it fail.", providerName, *r.Shutdown, r.ModelID)
		if err := entry(*r.Shutdown, impactHigh, "Model shutdown: ", desc+replacement+cited); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// launchEntry is the `new_model` entry of a current model the provider's page gives a launch day for; it cites
// every page the curated record cites, the first being the one its address points to.
func launchEntry(providerID, providerName string, m *catalogbuild.CurrentModel, first pageRef) (api.ApiChangelogRecord, error) {
	d, ok := gaDay(*m.Released)
	if !ok {
		return api.ApiChangelogRecord{}, fmt.Errorf("%s/%s released: %q is not a YYYY-MM-DD date", providerID, m.ModelID, *m.Released)
	}
	return api.ApiChangelogRecord{
		Date: d, ProviderId: providerID, ChangeType: changeNewModel, Impact: impactLow, Title: "New model: " + m.ModelID,
		Description: fmt.Sprintf("%s launched %s on %s. Source: %s, checked %s.", providerName, m.ModelID, *m.Released,
			first.url, first.checked),
		AffectedModels: []string{m.ModelID}, SourceUrl: ptrTo(first.url),
		Sources: slices.Clone(m.Sources), Confidence: api.ConfidenceVerified,
	}, nil
}

// curatedChangeEntries reads every dated fact of the curated lifecycle files.
func curatedChangeEntries(files map[string]*catalogbuild.LifecycleFile, providerName func(string) string) (*curatedChanges, error) {
	out := &curatedChanges{retired: map[string]bool{}, launched: map[string]bool{}}
	cited := map[string]catalogbuild.OfficialPage{}
	for _, pid := range sortedMapKeys(files) {
		f := files[pid]
		for i := range f.Retired {
			r := &f.Retired[i]
			out.retired[pid+"/"+r.ModelID] = true
			// An entry that follows another ID's (the page does not name this one) is no event the provider
			// announced: the followed entry carries it.
			if (r.Announced == nil && r.Shutdown == nil) || r.Follows != nil {
				continue
			}
			ref, page, err := pageOf(f, r.Source)
			if err != nil {
				return nil, err
			}
			recs, err := retirementEntries(pid, providerName(pid), r, ref)
			if err != nil {
				return nil, err
			}
			cited[page.ID] = page
			out.entries = append(out.entries, recs...)
		}
		for i := range f.Current {
			m := &f.Current[i]
			if m.Released == nil || len(m.Sources) == 0 {
				continue
			}
			var first pageRef
			for j, id := range m.Sources {
				ref, page, err := pageOf(f, id)
				if err != nil {
					return nil, err
				}
				if j == 0 {
					first = ref
				}
				cited[page.ID] = page
			}
			rec, err := launchEntry(pid, providerName(pid), m, first)
			if err != nil {
				return nil, err
			}
			out.launched[pid+"/"+m.ModelID] = true
			out.entries = append(out.entries, rec)
		}
	}
	for _, id := range sortedMapKeys(cited) {
		out.pages = append(out.pages, officialPageSource(cited[id]))
	}
	return out, nil
}

// mergeChanges joins the data sets' entries to the pages': a data set's shutdown of a model a page retires, and its
// release day of a model a page dates, are left out; then an entry repeated (same provider, kind, model and day)
// is kept once. A model at several providers keeps one entry per provider, each from that provider's own fact.
func mergeChanges(curated *curatedChanges, data []api.ApiChangelogRecord) []api.ApiChangelogRecord {
	out := slices.Clone(curated.entries)
	for _, r := range data {
		key := r.ProviderId + "/" + strings.Join(r.AffectedModels, ",")
		if (r.ChangeType == changeDeprecation && curated.retired[key]) || (r.ChangeType == changeNewModel && curated.launched[key]) {
			continue
		}
		out = append(out, r)
	}
	seen := map[string]bool{}
	kept := out[:0]
	for _, r := range out {
		k := strings.Join([]string{r.Date.String(), r.ProviderId, string(r.ChangeType), r.Title}, "\x00")
		if seen[k] {
			continue
		}
		seen[k] = true
		kept = append(kept, r)
	}
	return kept
}

func buildAPIChangelog(in *Input) (*Catalog, error) {
	models, err := Records[seeds.ModelRecord](in, seeds.CatalogModels)
	if err != nil {
		return nil, err
	}
	facts, err := ModelFacts(in)
	if err != nil {
		return nil, err
	}
	lf, err := in.lifecycle()
	if err != nil {
		return nil, err
	}
	reg := seeds.Providers()
	name := func(id string) string {
		p, _ := reg.Get(id)
		return p.Name
	}
	curated, err := curatedChangeEntries(lf.files, name)
	if err != nil {
		return nil, fmt.Errorf("api_changelog: %w", err)
	}
	data := modelChangeEntries(models, facts, name)
	pricing, err := readPricingEntries(in.DataDir)
	if err != nil {
		return nil, err
	}
	recs := mergeChanges(curated, append(data, pricing...))
	sortChangelog(recs)
	return &Catalog{
		AsOf:    lf.reference,
		Sources: append([]seeds.Source{changelogSrcModelsDev, changelogSrcLiteLLM, changelogSrcGenAI}, curated.pages...),
		Records: recs,
	}, nil
}
