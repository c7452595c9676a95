package derive

import (
	"fmt"

	"github.com/switchboard/switchboard/catalogbuild"
	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/seeds"
)

func init() {
	Register(Deriver{Name: "deprecations", Build: buildDeprecations})
}

// Deprecation statuses (the DeprecationsStatus enum).
const (
	deprecationActive     = api.DeprecationsStatusActive
	deprecationWarning    = api.DeprecationsStatusWarning
	deprecationDeprecated = api.DeprecationsStatusDeprecated
	deprecationSunset     = api.DeprecationsStatusSunset
)

// deprecationStatus is the status of a model whose shutdown date (litellm's deprecation_date, "" when none) is
// judged at the reference date: no date is `active`; a date after it is `deprecated` (an end-of-life date is
// announced and the model still responds); a date on or before it is `sunset`. litellm gives no separate
// announcement, so `warning` (deprecation announced without an end-of-life date) is never derived from it.
func deprecationStatus(shutdown, reference string) api.DeprecationsStatus {
	switch {
	case shutdown == "":
		return deprecationActive
	case shutdown > reference:
		return deprecationDeprecated
	}
	return deprecationSunset
}

// deprecationOf builds the record of one current model: from the provider's deprecation page where it lists the
// model, else from litellm's deprecation_date.
func deprecationOf(m seeds.ModelRecord, f catalogbuild.SourceFacts, lf *lifecycleFacts) (api.DeprecationsRecord, error) {
	ref := lf.reference
	if r := lf.files[m.ProviderId].Retirement(m.ModelId); r != nil {
		return curatedDeprecation(m.ProviderId, r, lf.files[m.ProviderId], ref)
	}
	shutdown := lifecycleLiteLLMDeprecation(f)
	r := api.DeprecationsRecord{ProviderId: m.ProviderId, ModelId: m.ModelId, Status: deprecationStatus(shutdown, ref)}
	switch r.Status {
	case deprecationActive:
		r.Notes = ptrTo(fmt.Sprintf("Status as of %s: litellm lists no deprecation_date, neither models.dev nor "+
			"genai-prices marks the model deprecated, and no provider deprecation page curated here lists it.", ref))
	default:
		d, err := optionalDate(&shutdown)
		if err != nil {
			return r, fmt.Errorf("%s/%s: litellm deprecation_date: %w", m.ProviderId, m.ModelId, err)
		}
		r.SunsetDate = d
		r.Notes = ptrTo(fmt.Sprintf("litellm's deprecation_date is %s; the status is judged against it when the answer "+
			"is given. The announcement date and a replacement are not in the source data.", shutdown))
	}
	return r, nil
}

// curatedDeprecation is the record of a model the provider's deprecation page lists: `warning` without a shutdown
// date, `deprecated` before it, `sunset` from it on (the server judges the date again when it answers).
func curatedDeprecation(provider string, r *catalogbuild.Retirement, f *catalogbuild.LifecycleFile, ref string) (api.DeprecationsRecord, error) {
	page, _ := f.Page(r.Source)
	rec := api.DeprecationsRecord{ProviderId: provider, ModelId: r.ModelID, ReplacementModel: r.Replacement}
	var err error
	if rec.AnnouncedAt, err = optionalDate(r.Announced); err != nil {
		return rec, fmt.Errorf("%s/%s announced: %w", provider, r.ModelID, err)
	}
	if rec.SunsetDate, err = optionalDate(r.Shutdown); err != nil {
		return rec, fmt.Errorf("%s/%s shutdown: %w", provider, r.ModelID, err)
	}
	switch {
	case r.Shutdown == nil:
		rec.Status = deprecationWarning
	default:
		rec.Status = deprecationStatus(*r.Shutdown, ref)
	}
	notes := fmt.Sprintf("From the provider's page %s (%s), checked %s.", page.Title, page.URL, page.Checked)
	if r.Note != nil {
		notes += " " + *r.Note
	}
	rec.Notes = &notes
	return rec, nil
}

// buildDeprecations derives one record per current language model of models.json, plus one per model a
// provider's deprecation page lists that is no longer current (shut down, or with no model record).
func buildDeprecations(in *Input) (*Catalog, error) {
	lf, err := in.lifecycle()
	if err != nil {
		return nil, err
	}
	recs, err := lifecycleRecords(in, lf,
		func(m seeds.ModelRecord, f catalogbuild.SourceFacts) (api.DeprecationsRecord, error) {
			return deprecationOf(m, f, lf)
		},
		func(r api.DeprecationsRecord) (string, string) { return r.ProviderId, r.ModelId },
		func(pid string, r *catalogbuild.Retirement, f *catalogbuild.LifecycleFile) (api.DeprecationsRecord, error) {
			return curatedDeprecation(pid, r, f, lf.reference)
		})
	if err != nil {
		return nil, fmt.Errorf("deprecations: %w", err)
	}
	return &Catalog{
		AsOf:    lf.reference,
		Sources: append([]seeds.Source{lifecycleSrcLiteLLM, lifecycleSrcModelsDev, lifecycleSrcGenAIPrices}, citedPages(lf)...),
		Records: recs,
	}, nil
}
