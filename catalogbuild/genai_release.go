package catalogbuild

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// The genai-prices data reach the build twice: the git snapshot of its YAML files (genai-prices.json, which carries
// the maintainers' prices_checked dates and removed flags) and its newer npm release (genai-prices-npm.json, the
// provider list bundled in @pydantic/genai-prices, which carries neither). They are one data set: the release is
// the newer version of the same maintainers' data, so it wins, and the snapshot lends it what the bundle lacks.

// genaiReleaseFile is the npm release's extraction in sources/upstream (its manifest says how it was made).
const genaiReleaseFile = "genai-prices-npm.json"

type genaiRelease struct {
	Source struct {
		Version   string `json:"version"`
		Published string `json:"published"` // YYYY-MM-DD
	} `json:"source"`
	Providers []struct {
		ID     string    `json:"id"`
		Models []gpModel `json:"models"`
	} `json:"providers"`
}

// readGenAIRelease reads the release; ok is false when the folder has none (a build from the snapshot alone).
func readGenAIRelease(dir string) (rel genaiRelease, ok bool, err error) {
	if _, err := os.Stat(filepath.Join(dir, genaiReleaseFile)); errors.Is(err, os.ErrNotExist) {
		return rel, false, nil
	}
	if err := readJSON(dir, genaiReleaseFile, &rel); err != nil {
		return rel, false, err
	}
	if !dayRE.MatchString(rel.Source.Published) {
		return rel, false, fmt.Errorf("%s: source.published %q is not a date", genaiReleaseFile, rel.Source.Published)
	}
	return rel, true, nil
}

// mergeGenAIRelease applies the newer release to the snapshot, provider by provider:
//   - a model of both takes the release's match rule and prices (unless the release's are empty); it keeps the snapshot's prices_checked when the
//     prices are the same, and gets the release's date when the release changed them (the maintainers published
//     the new prices in it); deprecated and removed are kept when either says so;
//   - a model new in the release is taken with the release's date as its check date;
//   - a model the release no longer lists keeps the snapshot's entry: the bundle does not say whether it was
//     retired or renamed, and a retirement is the providers' pages' to state;
//   - a provider only one of them has is taken as it is.
func mergeGenAIRelease(snap genaiPrices, rel genaiRelease) genaiPrices {
	type prov = struct {
		ID     string    `json:"id"`
		Models []gpModel `json:"models"`
	}
	byID := map[string]int{}
	out := genaiPrices{Providers: make([]prov, 0, len(snap.Providers))}
	for _, p := range snap.Providers {
		byID[p.ID] = len(out.Providers)
		out.Providers = append(out.Providers, prov{ID: p.ID, Models: p.Models})
	}
	for _, rp := range rel.Providers {
		i, ok := byID[rp.ID]
		if !ok {
			models := make([]gpModel, len(rp.Models))
			for j, m := range rp.Models {
				m.PricesChecked = rel.Source.Published
				models[j] = m
			}
			out.Providers = append(out.Providers, prov{ID: rp.ID, Models: models})
			continue
		}
		old := map[string]gpModel{}
		for _, m := range out.Providers[i].Models {
			old[m.ID] = m
		}
		seen := map[string]bool{}
		models := make([]gpModel, 0, len(rp.Models)+len(old))
		for _, m := range rp.Models {
			seen[m.ID] = true
			m.PricesChecked = rel.Source.Published
			if o, ok := old[m.ID]; ok {
				if noPrices(m.Prices) || sameJSON(o.Prices, m.Prices) {
					// An empty price says nothing (a free model is priced 0): the snapshot's stands.
					m.Prices, m.PricesChecked = o.Prices, o.PricesChecked
				}
				m.Deprecated = m.Deprecated || o.Deprecated
				m.Removed = o.Removed
			}
			models = append(models, m)
		}
		for _, o := range out.Providers[i].Models {
			if !seen[o.ID] {
				models = append(models, o) // not listed any more: a rename or a retirement, the release does not say
			}
		}
		out.Providers[i].Models = models
	}
	return out
}

// noPrices reports whether a prices value is absent or empty.
func noPrices(p json.RawMessage) bool {
	var v any
	if len(p) == 0 || json.Unmarshal(p, &v) != nil || v == nil {
		return true
	}
	switch x := v.(type) {
	case map[string]any:
		return len(x) == 0
	case []any:
		return len(x) == 0
	}
	return false
}

// sameJSON reports whether two JSON texts hold the same value (key order and spacing aside).
func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return bytes.Equal(xb, yb)
}
