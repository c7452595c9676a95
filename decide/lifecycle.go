package decide

import (
	"fmt"
	"time"

	"github.com/switchboard/switchboard/seeds"
)

// shutdownHorizonDays: a model whose provider announced its shutdown within this many days of the index's day is
// never picked, recommended or offered as a backup; a caller still using it is told the day and the replacement.
const shutdownHorizonDays = 30

// retirement is a model's announced shutdown day and the replacement its provider names ("" when none).
type retirement struct{ day, replacement string }

// lifecycleOf gathers the shutdown days and replacements of the catalogs. It is the one place decisions read
// lifecycle from, so that a shared lifecycle predicate can take its place.
func lifecycleOf(c Catalogs) map[string]retirement {
	out := make(map[string]retirement, len(c.Shutdowns))
	for k, d := range c.Shutdowns {
		out[k] = retirement{day: d, replacement: c.Replacements[k]}
	}
	return out
}

// endingSoon is the model's shutdown day when it falls after the index's day and within shutdownHorizonDays of
// it; "" otherwise (and always for an index without a day).
func (ix *Index) endingSoon(provider, model string) string {
	r, ok := ix.lifecycle[provider+"/"+model]
	if !ok || ix.today == "" {
		return ""
	}
	today, err := time.Parse(time.DateOnly, ix.today)
	if err != nil {
		return ""
	}
	if r.day > ix.today && r.day <= today.AddDate(0, 0, shutdownHorizonDays).Format(time.DateOnly) {
		return r.day
	}
	return ""
}

// Retirement is the announced shutdown of provider's model: its day and replacement, ok false when none is
// announced.
func (ix *Index) Retirement(provider, model string) (day, replacement string, ok bool) {
	r, ok := ix.lifecycle[provider+"/"+model]
	return r.day, r.replacement, ok
}

// replacements reads the replacement of every deprecation that names one.
func replacements() (map[string]string, error) {
	cat, err := seeds.LoadCatalog("deprecations")
	if err != nil {
		return nil, fmt.Errorf("reading deprecations: %w", err)
	}
	recs, err := seeds.Records[struct {
		ProviderID  string  `json:"provider_id"`
		ModelID     string  `json:"model_id"`
		Replacement *string `json:"replacement_model"`
	}](cat)
	if err != nil {
		return nil, fmt.Errorf("decoding deprecations: %w", err)
	}
	out := map[string]string{}
	for _, r := range recs {
		if r.Replacement != nil && *r.Replacement != "" {
			out[r.ProviderID+"/"+r.ModelID] = *r.Replacement
		}
	}
	return out, nil
}
