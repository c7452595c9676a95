package derive

import (
	"fmt"

	"github.com/switchboard/switchboard/catalogbuild"
	"github.com/switchboard/switchboard/seeds"
)

func init() {
	Register(Deriver{Name: "deprecations", Build: buildDeprecations})
}

// deprecationRecord is the OpenAPI DeprecationsRecord schema.
type deprecationRecord struct {
	ProviderID       string  `json:"provider_id"`
	ModelID          string  `json:"model_id"`
	Status           string  `json:"status"`
	AnnouncedAt      *string `json:"announced_at"`
	SunsetDate       *string `json:"sunset_date"`
	ReplacementModel *string `json:"replacement_model"`
	Notes            *string `json:"notes"`
}

// Deprecation statuses (the DeprecationsStatus enum).
const (
	deprecationActive     = "active"
	deprecationDeprecated = "deprecated"
	deprecationSunset     = "sunset"
)

// deprecationStatus is the status of a model whose shutdown date (litellm's deprecation_date, "" when none) is
// judged at the reference date: no date is `active`; a date after it is `deprecated` (an end-of-life date is
// announced and the model still responds); a date on or before it is `sunset`. litellm gives no separate
// announcement, so `warning` (deprecation announced without an end-of-life date) is never derived from it.
func deprecationStatus(shutdown, reference string) string {
	switch {
	case shutdown == "":
		return deprecationActive
	case shutdown > reference:
		return deprecationDeprecated
	}
	return deprecationSunset
}

// deprecationOf builds the record of one current model from its source facts.
func deprecationOf(m seeds.ModelRecord, f catalogbuild.SourceFacts) deprecationRecord {
	shutdown := lifecycleLiteLLMDeprecation(f)
	r := deprecationRecord{ProviderID: m.ProviderID, ModelID: m.ModelID, Status: deprecationStatus(shutdown, lifecycleReferenceDate)}
	switch r.Status {
	case deprecationActive:
		r.Notes = ptrTo(fmt.Sprintf("Status as of the %s data snapshot, not today: litellm lists no deprecation_date "+
			"and neither models.dev nor genai-prices marks the model deprecated.", lifecycleReferenceDate))
	default:
		r.SunsetDate = ptrTo(shutdown)
		r.Notes = ptrTo(fmt.Sprintf("Status as of the %s data snapshot, not today: litellm's deprecation_date is %s. "+
			"The announcement date and a replacement are not in the source data.", lifecycleReferenceDate, shutdown))
	}
	return r
}

// buildDeprecations derives one record per current language model of models.json.
func buildDeprecations(in *Input) (*Catalog, error) {
	recs, err := perCurrentModel(in, deprecationOf)
	if err != nil {
		return nil, err
	}
	return &Catalog{
		AsOf:    lifecycleReferenceDate,
		Sources: []seeds.Source{lifecycleSrcLiteLLM, lifecycleSrcModelsDev, lifecycleSrcGenAIPrices},
		Records: recs,
	}, nil
}
