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

// deprecationOf builds the record of one current model from its lifecycle verdict.
func deprecationOf(m seeds.ModelRecord, f catalogbuild.SourceFacts, lf *lifecycleFacts, lin map[string]catalogbuild.LineageFact) (api.DeprecationsRecord, error) {
	return deprecationRecord(m.ProviderId, m.ModelId, lifecycleVerdict(m, f, lf, lin), lf.reference)
}

// deprecationRecord writes a verdict as a deprecation record: a deprecation page entry without a day is `warning`
// (`sunset` where the page says the model is no longer served);
// a shutdown day after the reference date is `deprecated` (`active` when the provider scheduled it at release),
// on or before it `sunset` (the server judges the day again when it answers); no day is `active`.
func deprecationRecord(provider, model string, v verdict, ref string) (api.DeprecationsRecord, error) {
	rec := api.DeprecationsRecord{ProviderId: provider, ModelId: model, Status: deprecationStatus(v.shutdown, ref),
		DaysUntilShutdown: daysUntil(v.shutdown, ref), Notes: ptrTo(v.notes), Sources: v.sources, Confidence: api.Confidence(v.confidence)}
	switch {
	case v.retiredNoDay:
		rec.Status = deprecationWarning
	case v.removed:
		rec.Status = deprecationSunset
	case v.scheduled && rec.Status == deprecationDeprecated:
		rec.Status = deprecationActive // a planned end of life, not a deprecation, until the day
	}
	var err error
	if v.shutdown != "" {
		if rec.SunsetDate, err = optionalDate(&v.shutdown); err != nil {
			return rec, fmt.Errorf("%s/%s shutdown: %w", provider, model, err)
		}
	}
	switch {
	case v.retirement != nil:
		rec.ReplacementModel = v.retirement.Replacement
		if rec.AnnouncedAt, err = optionalDate(v.retirement.Announced); err != nil {
			return rec, fmt.Errorf("%s/%s announced: %w", provider, model, err)
		}
	case v.follow != nil && v.follow.Parent.Rule == catalogbuild.RuleAlias:
		rec.ReplacementModel = v.follow.Replacement // the same provider's replacement of the alias's snapshot
	}
	return rec, nil
}

// curatedDeprecation is the record of a model the provider's deprecation page lists.
func curatedDeprecation(provider string, r *catalogbuild.Retirement, f *catalogbuild.LifecycleFile, ref string) (api.DeprecationsRecord, error) {
	return deprecationRecord(provider, r.ModelID, retirementVerdict(r, f), ref)
}

// buildDeprecations derives one record per current language model of models.json, plus one per model a
// provider's deprecation page lists that is no longer current (shut down, or with no model record).
func buildDeprecations(in *Input) (*Catalog, error) {
	lf, err := in.lifecycle()
	if err != nil {
		return nil, err
	}
	lin, err := modelLineage(in)
	if err != nil {
		return nil, err
	}
	recs, err := lifecycleRecords(in, lf, lin,
		func(m seeds.ModelRecord, f catalogbuild.SourceFacts) (api.DeprecationsRecord, error) {
			return deprecationOf(m, f, lf, lin)
		},
		func(r api.DeprecationsRecord) (string, string) { return r.ProviderId, r.ModelId },
		func(pid string, r *catalogbuild.Retirement, f *catalogbuild.LifecycleFile) (api.DeprecationsRecord, error) {
			return curatedDeprecation(pid, r, f, lf.reference)
		},
		func(pid, model string, fact catalogbuild.LineageFact) (api.DeprecationsRecord, error) {
			return deprecationRecord(pid, model, followVerdict(pid, model, &fact, lf), lf.reference)
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
