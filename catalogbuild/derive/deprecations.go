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
	deprecationWarning    = "warning"
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

// deprecationOf builds the record of one current model: from the provider's deprecation page where it lists the
// model, else from litellm's deprecation_date.
func deprecationOf(m seeds.ModelRecord, f catalogbuild.SourceFacts, lf *lifecycleFacts) deprecationRecord {
	ref := lf.reference
	if r := lf.files[m.ProviderId].Retirement(m.ModelId); r != nil {
		return curatedDeprecation(m.ProviderId, r, lf.files[m.ProviderId], ref)
	}
	shutdown := lifecycleLiteLLMDeprecation(f)
	r := deprecationRecord{ProviderID: m.ProviderId, ModelID: m.ModelId, Status: deprecationStatus(shutdown, ref)}
	switch r.Status {
	case deprecationActive:
		r.Notes = ptrTo(fmt.Sprintf("Status as of %s: litellm lists no deprecation_date, neither models.dev nor "+
			"genai-prices marks the model deprecated, and no provider deprecation page curated here lists it.", ref))
	default:
		r.SunsetDate = ptrTo(shutdown)
		r.Notes = ptrTo(fmt.Sprintf("litellm's deprecation_date is %s; the status is judged against it when the answer "+
			"is given. The announcement date and a replacement are not in the source data.", shutdown))
	}
	return r
}

// curatedDeprecation is the record of a model the provider's deprecation page lists: `warning` without a shutdown
// date, `deprecated` before it, `sunset` from it on (the server judges the date again when it answers).
func curatedDeprecation(provider string, r *catalogbuild.Retirement, f *catalogbuild.LifecycleFile, ref string) deprecationRecord {
	page, _ := f.Page(r.Source)
	rec := deprecationRecord{ProviderID: provider, ModelID: r.ModelID, AnnouncedAt: r.Announced, SunsetDate: r.Shutdown,
		ReplacementModel: r.Replacement}
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
	return rec
}

// buildDeprecations derives one record per current language model of models.json, plus one per model a
// provider's deprecation page lists that is no longer current (shut down, or with no model record).
func buildDeprecations(in *Input) (*Catalog, error) {
	lf, err := in.lifecycle()
	if err != nil {
		return nil, err
	}
	recs, err := perCurrentModel(in, func(m seeds.ModelRecord, f catalogbuild.SourceFacts) deprecationRecord {
		return deprecationOf(m, f, lf)
	})
	if err != nil {
		return nil, err
	}
	recs = withRetired(recs, lf, func(r deprecationRecord) (string, string) { return r.ProviderID, r.ModelID },
		func(pid string, r *catalogbuild.Retirement, f *catalogbuild.LifecycleFile) deprecationRecord {
			return curatedDeprecation(pid, r, f, lf.reference)
		})
	return &Catalog{
		AsOf:    lf.reference,
		Sources: append([]seeds.Source{lifecycleSrcLiteLLM, lifecycleSrcModelsDev, lifecycleSrcGenAIPrices}, citedPages(lf)...),
		Records: recs,
	}, nil
}
