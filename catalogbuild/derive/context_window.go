package derive

import (
	"fmt"
	"math"
	"strconv"

	"github.com/switchboard/switchboard/catalogbuild"
	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/seeds"
)

func init() {
	Register(Deriver{Name: "context_window", Build: buildContextWindow})
}

// The effective context comes from RULER's results table (sources/upstream/effective-context.json): the longest
// tested length at which a model stays above the Llama-2-7B 4K baseline. Only rows mapped to the very model a
// catalog record names are used. NoLiMa's table would add a harder measure, but its license is non-commercial.
const (
	effectiveContextFile = "effective-context.json"
	rulerID              = "ruler"
	rulerAsOf            = "2025-10-09"
	// outputShare is the share of the effective context kept for the answer when the output limit is unknown or
	// larger: a prompt that fills the whole effective window leaves the answer past it.
	outputShare = 4
)

var rulerSource = seeds.Source{
	ID:      rulerID,
	Name:    "RULER (NVIDIA), README results table, commit ab17b785, 2025-10-09: effective context length per tested model",
	URL:     "https://github.com/NVIDIA/RULER",
	License: ptrTo("Apache-2.0"),
	AsOf:    ptrTo(rulerAsOf),
}

// effectiveFile is the part of effective-context.json the rule reads.
type effectiveFile struct {
	Rows []struct {
		Evaluation      string `json:"evaluation"`
		TestedModel     string `json:"tested_model"`
		EffectiveLength *int   `json:"effective_length"`
		LowerBound      bool   `json:"effective_length_is_lower_bound"`
		Catalog         []struct {
			ProviderID string `json:"provider_id"`
			ModelID    string `json:"model_id"`
		} `json:"catalog"`
	} `json:"rows"`
}

// effectiveRow is one RULER measurement of a catalog model.
type effectiveRow struct {
	tested     string
	length     int
	lowerBound bool
}

// effectiveLengths maps "provider/model" to its RULER row; two rows for one record fail the build.
func effectiveLengths(f effectiveFile) (map[string]effectiveRow, error) {
	out := map[string]effectiveRow{}
	for _, r := range f.Rows {
		if r.Evaluation != rulerID || r.EffectiveLength == nil {
			continue
		}
		for _, c := range r.Catalog {
			k := c.ProviderID + "/" + c.ModelID
			if old, ok := out[k]; ok {
				return nil, fmt.Errorf("%s: %s is mapped from two rows (%s, %s)", effectiveContextFile, k, old.tested, r.TestedModel)
			}
			out[k] = effectiveRow{tested: r.TestedModel, length: *r.EffectiveLength, lowerBound: r.LowerBound}
		}
	}
	return out, nil
}

// withEffective fills the effective fields of a record from its RULER row, by one rule:
//   - effective_context: RULER's effective length, at most the advertised window (a provider may serve a smaller
//     window than the one tested);
//   - usable_tokens: the effective context less the room kept for the answer, which is the output limit but at most
//     a quarter of the effective context (a quarter when the output limit is unknown);
//   - recommended_max_fill: usable_tokens over the advertised window, to 2 decimals (null when the window is
//     unknown).
func withEffective(r api.ContextWindowRecord, maxOutput *int, row effectiveRow) api.ContextWindowRecord {
	eff := row.length
	capped := r.AdvertisedContext != nil && *r.AdvertisedContext < eff
	if capped {
		eff = *r.AdvertisedContext
	}
	reserve := eff / outputShare
	if maxOutput != nil && *maxOutput < reserve {
		reserve = *maxOutput
	}
	usable := eff - reserve
	r.EffectiveContext, r.UsableTokens = &eff, &usable
	if r.AdvertisedContext != nil && *r.AdvertisedContext > 0 {
		fill := math.Round(float64(usable)/float64(*r.AdvertisedContext)*100) / 100
		r.RecommendedMaxFill = &fill
	}
	var note string
	if row.lowerBound {
		note = fmt.Sprintf("RULER (NVIDIA) tested %s up to %s tokens and it stayed above the Llama-2-7B 4K baseline (85.6) at every length: "+
			"the effective context is at least that.", row.tested, thousands(row.length))
	} else {
		note = fmt.Sprintf("RULER (NVIDIA): %s stays above the Llama-2-7B 4K baseline (85.6) up to %s tokens and falls below it at the next "+
			"tested length (twice as long).", row.tested, thousands(row.length))
	}
	if capped {
		note += fmt.Sprintf(" Capped at the advertised window of %s tokens.", thousands(*r.AdvertisedContext))
	}
	r.DegradationNote = &note
	return r
}

// thousands writes 131072 as 131,072.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func buildContextWindow(in *Input) (*Catalog, error) {
	models, err := capabilityCurrentModels(in)
	if err != nil {
		return nil, err
	}
	var f effectiveFile
	if err := readDataJSON(in.DataDir, effectiveContextFile, &f); err != nil {
		return nil, err
	}
	rows, err := effectiveLengths(f)
	if err != nil {
		return nil, err
	}
	sources, asOf, err := capabilitySources(in, nil)
	if err != nil {
		return nil, err
	}
	base := make([]string, 0, len(sources))
	for _, s := range sources {
		base = append(base, catalogSourceID(s))
	}
	used := false
	recs := make([]api.ContextWindowRecord, len(models))
	for i, m := range models {
		r := api.ContextWindowRecord{ProviderId: m.Model.ProviderId, ModelId: m.Model.ModelId, AdvertisedContext: m.Model.ContextWindow,
			Sources: append(api.RecordSources(nil), base...), Confidence: api.ConfidenceSingle}
		if row, ok := rows[m.Model.ProviderId+"/"+m.Model.ModelId]; ok {
			r = withEffective(r, m.Model.MaxOutputTokens, row)
			r.Sources = append(r.Sources, rulerID)
			used = true
		}
		recs[i] = r
	}
	if used {
		sources = append(sources, rulerSource)
		if rulerAsOf < asOf {
			asOf = rulerAsOf
		}
	}
	return &Catalog{AsOf: asOf, Sources: sources, Records: recs}, nil
}

// catalogSourceID is the id a source has in the built file: its own, or the one the build gives it.
func catalogSourceID(s seeds.Source) string {
	if s.ID != "" {
		return s.ID
	}
	return catalogbuild.SourceID(catalogbuild.Source{Name: s.Name, URL: s.URL})
}
