package catalogbuild

import (
	"encoding/json"
	"strings"
)

// DataSetDates maps each upstream data set's source id to the date its snapshot holds for (its manifest's date).
type DataSetDates map[string]string

// ReadDataSetDates reads the manifests of sources/upstream.
func ReadDataSetDates(dataDir string) (DataSetDates, error) {
	out := DataSetDates{}
	for _, f := range []struct{ file, id string }{
		{snapLiteLLM.File, SourceLiteLLM}, {snapModelsDev.File, SourceModelsDev}, {snapGenAI.File, SourceGenAI},
		{snapLLMStats.File, SourceLLMStats}, {snapSimpleEvals.File, SourceSimpleEvals}, {"mteb-leaderboard.json", "mteb"},
	} {
		m, err := ReadManifest(dataDir, f.file)
		if err != nil {
			return nil, err
		}
		out[f.id] = m.Date
	}
	rel, ok, err := genaiReleaseManifest(dataDir)
	if err != nil {
		return nil, err
	}
	if ok {
		out[SourceGenAI] = max(out[SourceGenAI], rel.Date)
	}
	return out, nil
}

// dataSetOf names the data set a source comes from by its URL ("" for a provider's page).
func dataSetOf(url string) string {
	for _, d := range dataSetIDs {
		if strings.HasPrefix(url, d.url) {
			return d.id
		}
	}
	return ""
}

// WithSourceDates gives every source of a catalog file the date its data holds for, and the catalog the oldest
// of those among the sources its records cite, so that an answer never looks newer than its oldest fact:
//   - a data set: its snapshot's date (dates);
//   - a provider's page: the day it was read, which for the hand-curated catalogs is the catalog's own as_of.
//
// Run after WithProvenance; a file already processed comes out as the same bytes.
func WithSourceDates(data []byte, dates DataSetDates) ([]byte, error) {
	var env provEnvelope
	if err := json.Unmarshal(data, &env); err != nil {
		return nil, err
	}
	for i := range env.Sources {
		s := &env.Sources[i]
		if s.AsOf != nil && *s.AsOf != "" {
			continue
		}
		d := env.AsOf
		if ds := dataSetOf(s.URL); ds != "" && dates[ds] != "" {
			d = dates[ds]
		}
		s.AsOf = &d
	}
	cited := map[string]bool{}
	for _, r := range env.Records {
		var rec struct {
			Sources []string `json:"sources"`
		}
		if err := json.Unmarshal(r, &rec); err != nil {
			return nil, err
		}
		for _, id := range rec.Sources {
			cited[id] = true
		}
	}
	oldest := ""
	for _, s := range env.Sources {
		if cited[s.ID] && (oldest == "" || *s.AsOf < oldest) {
			oldest = *s.AsOf
		}
	}
	if oldest != "" {
		env.AsOf = oldest
	}
	return env.encode()
}
