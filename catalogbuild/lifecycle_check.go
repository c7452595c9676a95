package catalogbuild

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// modelFields are the record fields that name a model a catalog offers or describes as live. A replacement or a
// migration target is not among them: naming a successor is no offer of the retired model.
var modelFields = []string{"model", "model_id", "alias", "current_pinned_version"}

// lifecycleCatalogs are the catalogs that hold the lifecycle itself, retired models included.
var lifecycleCatalogs = []string{"deprecations", "model_lifecycle"}

type checkRecord struct {
	ProviderID string  `json:"provider_id"`
	ModelID    string  `json:"model_id"`
	Status     string  `json:"status"`
	Stage      string  `json:"stage"`
	SunsetDate *string `json:"sunset_date"`
}

// CheckOneLifecycle checks the catalogs of one build (file name without .json -> bytes) against the one-lifecycle
// rule: the deprecation and lifecycle catalogs agree on which models are shut down; no other catalog offers a
// model they call shut down; and no priced or catalogued model whose alias snapshot or maker's model is shut down
// stays live unless its own provider gives it a schedule of its own (its lifecycle page lists it, or it carries a
// shutdown day of its own). official are the curated lifecycle pages. A build that breaks the rule fails.
func CheckOneLifecycle(files map[string][]byte, official map[string]*LifecycleFile) error {
	recs := map[string][]checkRecord{}
	for _, name := range lifecycleCatalogs {
		var env struct {
			Records []checkRecord `json:"records"`
		}
		if err := json.Unmarshal(files[name], &env); err != nil {
			return fmt.Errorf("one lifecycle: %s: %w", name, err)
		}
		recs[name] = env.Records
	}
	var problems []string
	sunset := map[string]bool{}
	ownDay := map[string]bool{}
	for _, r := range recs["deprecations"] {
		k := r.ProviderID + "/" + r.ModelID
		sunset[k] = r.Status == "sunset"
		ownDay[k] = r.SunsetDate != nil
	}
	for _, r := range recs["model_lifecycle"] {
		k := r.ProviderID + "/" + r.ModelID
		gone, ok := sunset[k]
		switch {
		case !ok:
			problems = append(problems, k+" has a lifecycle record and no deprecation record")
		case gone != (r.Stage == "sunset"):
			problems = append(problems, fmt.Sprintf("%s: deprecations says sunset %v, model_lifecycle says stage %s", k, gone, r.Stage))
		}
	}
	if len(recs["model_lifecycle"]) != len(recs["deprecations"]) {
		problems = append(problems, fmt.Sprintf("%d deprecation records, %d lifecycle records", len(recs["deprecations"]), len(recs["model_lifecycle"])))
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	live := map[string]bool{}
	for _, name := range names {
		if slices.Contains(lifecycleCatalogs, name) {
			continue
		}
		var env struct {
			Records []map[string]any `json:"records"`
		}
		if err := json.Unmarshal(files[name], &env); err != nil {
			continue // not a catalog of records (REPORT.md is not passed in; a malformed file fails elsewhere)
		}
		for i, r := range env.Records {
			pid, _ := r["provider_id"].(string)
			if pid == "" {
				continue
			}
			for _, f := range modelFields {
				m, _ := r[f].(string)
				if m == "" {
					continue
				}
				k := pid + "/" + m
				if sunset[k] {
					problems = append(problems, fmt.Sprintf("%s record %d offers %s (%s), which deprecations calls sunset", name, i, k, f))
				}
				if name == "pricing" || name == "models" {
					live[k] = true
				}
			}
		}
	}
	known := map[string]string{}
	for k := range sunset {
		known[strings.ToLower(k)] = k[strings.Index(k, "/")+1:]
	}
	sunsetFolded := map[string]string{}
	for k, gone := range sunset {
		if gone {
			sunsetFolded[strings.ToLower(k)] = k
		}
	}
	for _, k := range sortedKeys(live) {
		// The same provider's ID in another case is the same model (Azure's page: DeepSeek-R1, a data set:
		// deepseek-r1).
		if other, ok := sunsetFolded[strings.ToLower(k)]; ok && other != k {
			problems = append(problems, fmt.Sprintf("%s is live, but deprecations calls %s sunset", k, other))
		}
		pid, m, _ := strings.Cut(k, "/")
		if ownDay[k] || OwnSchedule(official, pid, m) {
			continue
		}
		for _, p := range Parents(pid, m, known) {
			if sunset[p.Provider+"/"+p.Model] {
				problems = append(problems, fmt.Sprintf("%s is live, but the model it follows (%s %s/%s) is sunset", k, p.Rule, p.Provider, p.Model))
				break
			}
		}
	}
	if len(problems) == 0 {
		return nil
	}
	n := len(problems)
	if n > 20 {
		problems = append(problems[:20], fmt.Sprintf("... and %d more", n-20))
	}
	return fmt.Errorf("one lifecycle per model: %d problems:\n  %s", n, strings.Join(problems, "\n  "))
}
