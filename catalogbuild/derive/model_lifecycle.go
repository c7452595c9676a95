package derive

import (
	"fmt"
	"slices"

	"github.com/switchboard/switchboard/catalogbuild"
	"github.com/switchboard/switchboard/seeds"
)

func init() {
	Register(Deriver{Name: "model_lifecycle", Build: buildModelLifecycle})
}

// lifecycleRecord is the OpenAPI ModelLifecycleRecord schema.
type lifecycleRecord struct {
	ProviderID       string  `json:"provider_id"`
	ModelID          string  `json:"model_id"`
	Stage            string  `json:"stage"`
	LaunchDate       *string `json:"launch_date"`
	DeprecationDate  *string `json:"deprecation_date"`
	ReplacementModel *string `json:"replacement_model"`
	SLAEligible      *bool   `json:"sla_eligible"`
	Notes            *string `json:"notes"`
}

// Lifecycle stages (the ModelLifecycleStage enum).
const (
	stageExperimental   = "experimental"
	stagePreview        = "preview"
	stageBeta           = "beta"
	stageGA             = "ga"
	stageSoftDeprecated = "soft_deprecated"
	stageHardDeprecated = "hard_deprecated"
	stageSunset         = "sunset"
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

// lifecycleOf builds the record of one current model from its source facts.
func lifecycleOf(m seeds.ModelRecord, f catalogbuild.SourceFacts) lifecycleRecord {
	shutdown := lifecycleLiteLLMDeprecation(f)
	stage, why := lifecycleStage(m.ModelID, lifecycleFactString(f.ModelsDev, "status"), shutdown, lifecycleReferenceDate)
	r := lifecycleRecord{ProviderID: m.ProviderID, ModelID: m.ModelID, Stage: stage, LaunchDate: lifecycleReleaseDate(f),
		SLAEligible: lifecycleSLAEligible(m.ProviderID, stage)}
	if shutdown != "" {
		r.DeprecationDate = ptrTo(shutdown)
	}
	notes := fmt.Sprintf("Stage as of the %s data snapshot, not today (%s).", lifecycleReferenceDate, why)
	if r.LaunchDate == nil {
		notes += " Launch date unknown: models.dev gives no whole release date."
	} else {
		notes += " Launch date from models.dev release_date."
	}
	if r.SLAEligible != nil && stage != stageSunset {
		notes += " Pre-GA models are not covered by SLAs (" + googlePreGATermsURL + ")."
	}
	r.Notes = &notes
	return r
}

// buildModelLifecycle derives one record per current language model of models.json.
func buildModelLifecycle(in *Input) (*Catalog, error) {
	recs, err := perCurrentModel(in, lifecycleOf)
	if err != nil {
		return nil, err
	}
	return &Catalog{
		AsOf: lifecycleReferenceDate,
		Sources: []seeds.Source{lifecycleSrcLiteLLM, lifecycleSrcModelsDev, lifecycleSrcGenAIPrices,
			{Name: "Google Cloud Service Specific Terms: Pre-GA Offerings Terms", URL: googlePreGATermsURL}},
		Records: recs,
	}, nil
}
