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

// lifecycleOf builds the record of one current model: the provider's pages first (its deprecation page's dates
// and replacement, its models page's stage and launch date), then the data sets' rule (lifecycleStage).
func lifecycleOf(m seeds.ModelRecord, f catalogbuild.SourceFacts, lf *lifecycleFacts) (api.ModelLifecycleRecord, error) {
	file := lf.files[m.ProviderId]
	if r := file.Retirement(m.ModelId); r != nil {
		return curatedLifecycle(m.ProviderId, r, file, lf.reference, lifecycleReleaseDate(f))
	}
	shutdown := lifecycleLiteLLMDeprecation(f)
	stage, why := lifecycleStage(m.ModelId, lifecycleFactString(f.ModelsDev, "status"), shutdown, lf.reference)
	launch := lifecycleReleaseDate(f)
	cur := file.CurrentModel(m.ModelId)
	if cur != nil && shutdown == "" {
		page, _ := file.Page(cur.Sources[0])
		stage, why = cur.Stage, fmt.Sprintf("the provider's page %s (%s), checked %s, lists it as %s", page.Title, page.URL, page.Checked, cur.Stage)
		if cur.Released != nil {
			launch = cur.Released
		}
	}
	launchDay, err := optionalDate(launch)
	if err != nil {
		return api.ModelLifecycleRecord{}, fmt.Errorf("%s/%s launch: %w", m.ProviderId, m.ModelId, err)
	}
	r := api.ModelLifecycleRecord{ProviderId: m.ProviderId, ModelId: m.ModelId, Stage: api.ModelLifecycleStage(stage),
		LaunchDate: launchDay, SlaEligible: lifecycleSLAEligible(m.ProviderId, stage)}
	if shutdown != "" {
		if r.DeprecationDate, err = optionalDate(&shutdown); err != nil {
			return api.ModelLifecycleRecord{}, fmt.Errorf("%s/%s shutdown: %w", m.ProviderId, m.ModelId, err)
		}
	}
	notes := fmt.Sprintf("Stage as of %s (%s).", lf.reference, why)
	if r.LaunchDate == nil {
		notes += " Launch date unknown: no source gives a whole release date."
	} else if cur == nil || cur.Released == nil {
		notes += " Launch date from models.dev release_date."
	}
	if r.SlaEligible != nil && stage != stageSunset {
		notes += " Pre-GA models are not covered by SLAs (" + googlePreGATermsURL + ")."
	}
	r.Notes = &notes
	return r, nil
}

// curatedLifecycle is the record of a model the provider's deprecation page lists: `soft_deprecated` without a
// shutdown date, `hard_deprecated` before it, `sunset` from it on.
func curatedLifecycle(provider string, r *catalogbuild.Retirement, f *catalogbuild.LifecycleFile, ref string, launch *string) (api.ModelLifecycleRecord, error) {
	page, _ := f.Page(r.Source)
	stage := stageSoftDeprecated
	if r.Shutdown != nil {
		stage = stageHardDeprecated
		if *r.Shutdown <= ref {
			stage = stageSunset
		}
	}
	notes := fmt.Sprintf("From the provider's page %s (%s), checked %s.", page.Title, page.URL, page.Checked)
	if r.Note != nil {
		notes += " " + *r.Note
	}
	launchDay, err := optionalDate(launch)
	if err != nil {
		return api.ModelLifecycleRecord{}, fmt.Errorf("%s/%s launch: %w", provider, r.ModelID, err)
	}
	shutdownDay, err := optionalDate(r.Shutdown)
	if err != nil {
		return api.ModelLifecycleRecord{}, fmt.Errorf("%s/%s shutdown: %w", provider, r.ModelID, err)
	}
	return api.ModelLifecycleRecord{ProviderId: provider, ModelId: r.ModelID, Stage: api.ModelLifecycleStage(stage), LaunchDate: launchDay,
		DeprecationDate: shutdownDay, ReplacementModel: r.Replacement, SlaEligible: lifecycleSLAEligible(provider, stage), Notes: &notes}, nil
}

// buildModelLifecycle derives one record per current language model of models.json, plus one per model a
// provider's deprecation page lists that is no longer current.
func buildModelLifecycle(in *Input) (*Catalog, error) {
	lf, err := in.lifecycle()
	if err != nil {
		return nil, err
	}
	recs, err := lifecycleRecords(in, lf,
		func(m seeds.ModelRecord, f catalogbuild.SourceFacts) (api.ModelLifecycleRecord, error) {
			return lifecycleOf(m, f, lf)
		},
		func(r api.ModelLifecycleRecord) (string, string) { return r.ProviderId, r.ModelId },
		func(pid string, r *catalogbuild.Retirement, f *catalogbuild.LifecycleFile) (api.ModelLifecycleRecord, error) {
			return curatedLifecycle(pid, r, f, lf.reference, nil)
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
