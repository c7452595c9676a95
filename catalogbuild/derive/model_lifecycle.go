package derive

import (
	"fmt"
	"slices"

	"github.com/switchboard/switchboard/catalogbuild"
	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/seeds"
)

func init() {
	Register(Deriver{Name: "model_lifecycle", Build: buildModelLifecycle})
}

// Lifecycle stages (the ModelLifecycleStage enum).
const (
	stageExperimental   = string(api.ModelLifecycleStageExperimental)
	stagePreview        = string(api.ModelLifecycleStagePreview)
	stageBeta           = string(api.ModelLifecycleStageBeta)
	stageGA             = string(api.ModelLifecycleStageGa)
	stageSoftDeprecated = string(api.ModelLifecycleStageSoftDeprecated)
	stageHardDeprecated = string(api.ModelLifecycleStageHardDeprecated)
	stageSunset         = string(api.ModelLifecycleStageSunset)
)

// googlePreGATermsURL says Google Cloud's pre-GA offerings (experimental and preview models) are not covered by
// any SLA.
const googlePreGATermsURL = "https://cloud.google.com/terms/service-terms"

// lifecycleStage applies the stage rule, first match wins: a litellm shutdown date on or before the reference
// date is `sunset`, after it `hard_deprecated`; models.dev status deprecated (no date) is `soft_deprecated`,
// alpha `experimental`, beta `beta`; otherwise the model ID's words: "exp" or "experimental" -> `experimental`,
// "preview" -> `preview`, "beta" -> `beta`; anything else is `ga`. The second result says which rule decided.
func lifecycleStage(id, modelsDevStatus, shutdown, reference string) (stage, why string) {
	switch {
	case shutdown != "" && shutdown <= reference:
		return stageSunset, "litellm deprecation_date " + shutdown + " is past"
	case shutdown != "":
		return stageHardDeprecated, "litellm deprecation_date " + shutdown + " is announced"
	case modelsDevStatus == "deprecated":
		return stageSoftDeprecated, "models.dev status deprecated, no shutdown date"
	case modelsDevStatus == "alpha":
		return stageExperimental, "models.dev status alpha"
	case modelsDevStatus == "beta":
		return stageBeta, "models.dev status beta"
	}
	words := lifecycleIDTokens(id)
	switch {
	case slices.Contains(words, "exp") || slices.Contains(words, "experimental"):
		return stageExperimental, `the model ID says "exp"`
	case slices.Contains(words, "preview"):
		return stagePreview, `the model ID says "preview"`
	case slices.Contains(words, "beta"):
		return stageBeta, `the model ID says "beta"`
	}
	return stageGA, "no deprecation, status or pre-release marker in the sources"
}

// lifecycleSLAEligible is known only where a rule is documented: a sunset model has nothing to cover, and Google Cloud's
// service terms exclude pre-GA (experimental and preview) Vertex AI models from SLAs. Everything else is
// unknown (nil): the providers' SLAs are not stated per model in the source data.
func lifecycleSLAEligible(providerID, stage string) *bool {
	no := false
	switch {
	case stage == stageSunset:
		return &no
	case providerID == "google-vertex-ai" && (stage == stageExperimental || stage == stagePreview):
		return &no
	}
	return nil
}

// lifecycleOf builds the record of one current model from its lifecycle verdict (the same one its deprecation
// record is written from); a model nothing deprecates takes its stage from its provider's models page, else from
// the data sets' rule (lifecycleStage).
func lifecycleOf(m seeds.ModelRecord, f catalogbuild.SourceFacts, lf *lifecycleFacts, lin map[string]catalogbuild.LineageFact) (api.ModelLifecycleRecord, error) {
	v := lifecycleVerdict(m, f, lf, lin)
	launch := lifecycleReleaseDate(f)
	if v.current != nil && v.current.Released != nil {
		launch = v.current.Released
	}
	r, err := lifecycleRecord(m.ProviderId, m.ModelId, v, lf.reference, launch)
	if err != nil {
		return r, err
	}
	if v.basis == basisNone {
		stage, why := lifecycleStage(m.ModelId, lifecycleFactString(f.ModelsDev, "status"), "", lf.reference)
		r.Stage = api.ModelLifecycleStage(stage)
		r.SlaEligible = lifecycleSLAEligible(m.ProviderId, stage)
		r.Notes = ptrTo(fmt.Sprintf("Stage %s by rule (%s). %s", stage, why, v.notes))
	}
	notes := *r.Notes
	if r.LaunchDate == nil {
		notes += " Launch date unknown: no source gives a whole release date."
	} else if v.current == nil || v.current.Released == nil {
		notes += " Launch date from models.dev release_date."
		if !slices.Contains(r.Sources, catalogbuild.SourceModelsDev) {
			r.Sources = append(r.Sources, catalogbuild.SourceModelsDev)
			r.Confidence = api.Confidence(catalogbuild.ConfidenceSingle)
		}
	}
	if r.SlaEligible != nil && r.Stage != api.ModelLifecycleStageSunset {
		notes += " Pre-GA models are not covered by SLAs (" + googlePreGATermsURL + ")."
		r.Sources = append(r.Sources, catalogbuild.SourceID(catalogbuild.Source{URL: googlePreGATermsURL}))
	}
	slices.Sort(r.Sources)
	r.Notes = &notes
	return r, nil
}

// lifecycleRecord writes a verdict as a lifecycle record: a deprecation page entry without a day is `sunset` where the
// page says the model is no longer served, else
// `soft_deprecated`; a shutdown day after the reference date is `hard_deprecated` (a scheduled one keeps the
// model's own stage), on or before it `sunset`; a model its provider's models page lists takes that page's stage.
func lifecycleRecord(provider, model string, v verdict, ref string, launch *string) (api.ModelLifecycleRecord, error) {
	stage := stageGA
	switch {
	case v.retiredNoDay:
		stage = stageSoftDeprecated
	case v.removed:
		stage = stageSunset
	case v.shutdown != "" && v.shutdown <= ref:
		stage = stageSunset
	case v.scheduled && v.current != nil:
		stage = v.current.Stage
	case v.scheduled:
		stage = stageGA // the schedule dates generally available models
	case v.shutdown != "":
		stage = stageHardDeprecated
	case v.current != nil:
		stage = v.current.Stage
	}
	launchDay, err := optionalDate(launch)
	if err != nil {
		return api.ModelLifecycleRecord{}, fmt.Errorf("%s/%s launch: %w", provider, model, err)
	}
	r := api.ModelLifecycleRecord{ProviderId: provider, ModelId: model, Stage: api.ModelLifecycleStage(stage), LaunchDate: launchDay,
		DaysUntilShutdown: daysUntil(v.shutdown, ref), SlaEligible: lifecycleSLAEligible(provider, stage), Notes: ptrTo(v.notes),
		Sources: slices.Clone(v.sources), Confidence: api.Confidence(v.confidence)}
	if v.shutdown != "" {
		if r.DeprecationDate, err = optionalDate(&v.shutdown); err != nil {
			return r, fmt.Errorf("%s/%s shutdown: %w", provider, model, err)
		}
	}
	switch {
	case v.retirement != nil:
		r.ReplacementModel = v.retirement.Replacement
	case v.follow != nil && v.follow.Parent.Rule == catalogbuild.RuleAlias:
		r.ReplacementModel = v.follow.Replacement
	}
	return r, nil
}

// curatedLifecycle is the record of a model the provider's deprecation page lists.
func curatedLifecycle(provider string, r *catalogbuild.Retirement, f *catalogbuild.LifecycleFile, ref string, launch *string) (api.ModelLifecycleRecord, error) {
	return lifecycleRecord(provider, r.ModelID, retirementVerdict(r, f), ref, launch)
}

// buildModelLifecycle derives one record per current language model of models.json, plus one per model a
// provider's deprecation page lists that is no longer current.
func buildModelLifecycle(in *Input) (*Catalog, error) {
	lf, err := in.lifecycle()
	if err != nil {
		return nil, err
	}
	lin, err := modelLineage(in)
	if err != nil {
		return nil, err
	}
	recs, err := lifecycleRecords(in, lf, lin,
		func(m seeds.ModelRecord, f catalogbuild.SourceFacts) (api.ModelLifecycleRecord, error) {
			return lifecycleOf(m, f, lf, lin)
		},
		func(r api.ModelLifecycleRecord) (string, string) { return r.ProviderId, r.ModelId },
		func(pid string, r *catalogbuild.Retirement, f *catalogbuild.LifecycleFile) (api.ModelLifecycleRecord, error) {
			return curatedLifecycle(pid, r, f, lf.reference, nil)
		},
		func(pid, model string, fact catalogbuild.LineageFact) (api.ModelLifecycleRecord, error) {
			return lifecycleRecord(pid, model, followVerdict(pid, model, &fact, lf), lf.reference, nil)
		})
	if err != nil {
		return nil, fmt.Errorf("model lifecycle: %w", err)
	}
	return &Catalog{
		AsOf: lf.reference,
		Sources: append([]seeds.Source{lifecycleSrcLiteLLM, lifecycleSrcModelsDev, lifecycleSrcGenAIPrices,
			{Name: "Google Cloud Service Specific Terms: Pre-GA Offerings Terms", URL: googlePreGATermsURL}},
			citedPages(lf)...),
		Records: recs,
	}, nil
}
