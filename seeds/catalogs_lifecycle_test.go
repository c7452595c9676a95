package seeds

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// the lifecycle catalogs catalogs: deprecations, model lifecycle, knowledge cutoff, model versions, alias resolution and task
// fit.
func init() {
	recordSchemas["deprecations"] = "DeprecationsRecord"
	recordSchemas["model_lifecycle"] = "ModelLifecycleRecord"
	recordSchemas["knowledge_cutoff"] = "KnowledgeCutoffRecord"
	recordSchemas["model_versions"] = "ModelVersionsRecord"
	recordSchemas["resolve_alias"] = "ResolveAliasRecord"
	recordSchemas["model_task_fit"] = "ModelTaskFitRecord"
}

// lifecycleRecord holds the fields the the lifecycle catalogs checks read; each catalog fills those its schema has.
type lifecycleRecord struct {
	ProviderID           string  `json:"provider_id"`
	ModelID              string  `json:"model_id"`
	Alias                string  `json:"alias"`
	Notes                *string `json:"notes"`
	CutoffDate           *string `json:"cutoff_date"`
	CutoffApproximate    bool    `json:"cutoff_approximate"`
	CurrentPinnedVersion *string `json:"current_pinned_version"`
	Pinnable             bool    `json:"pinnable"`
	Versions             []struct {
		VersionID string `json:"version_id"`
	} `json:"versions"`
	Task       string  `json:"task"`
	Score      float64 `json:"score"`
	Tier       string  `json:"tier"`
	Status     string  `json:"status"`
	Stage      string  `json:"stage"`
	Confidence string  `json:"confidence"`
}

// TestLifecyclePerModelCatalogs checks that the per-model catalogs cover exactly the current language models of
// models.json, once each, in provider then model order, with notes on every record.
func TestLifecyclePerModelCatalogs(t *testing.T) {
	models := languageModels(t)
	for _, name := range []string{"deprecations", "model_lifecycle", "knowledge_cutoff"} {
		recs := testRecords[lifecycleRecord](t, name)
		seen := map[string]bool{}
		prev := ""
		for i, r := range recs {
			key := r.ProviderID + "/" + r.ModelID
			_, current := models[key]
			// Deprecations and model lifecycle also keep the models a provider's deprecation page retires, and the
			// aliases and hosts' spellings retired with the model they follow: those are out of models.json, retired,
			// and read from that page or that model.
			retired := r.Status == "sunset" || r.Status == "warning" || r.Status == "deprecated" ||
				r.Stage == "sunset" || r.Stage == "hard_deprecated" || r.Stage == "soft_deprecated"
			fromPage := r.Notes != nil && (strings.Contains(*r.Notes, "From the provider's page") || strings.Contains(*r.Notes, "shuts down with it"))
			switch {
			case current:
				seen[key] = true
			case name != "knowledge_cutoff" && retired && fromPage:
			default:
				t.Errorf("%s record %d: %s is not a current language model of models.json", name, i, key)
			}
			if sortKey := r.ProviderID + "\x00" + r.ModelID; sortKey <= prev {
				t.Errorf("%s record %d (%s): out of order or duplicate", name, i, key)
			} else {
				prev = sortKey
			}
			if r.Notes == nil || *r.Notes == "" {
				t.Errorf("%s record %d (%s): no notes", name, i, key)
			}
		}
		if len(seen) != len(models) {
			t.Errorf("%s covers %d models, models.json has %d current language models", name, len(seen), len(models))
		}
	}
}

// TestLifecycleKnowledgeCutoffMatchesModels checks that every cutoff repeats models.json's knowledge_cutoff month,
// that a model without one has none, and that only a first-of-month date may be approximate.
func TestLifecycleKnowledgeCutoffMatchesModels(t *testing.T) {
	models := languageModels(t)
	withCutoff := 0
	for _, r := range testRecords[lifecycleRecord](t, "knowledge_cutoff") {
		m := models[r.ProviderID+"/"+r.ModelID]
		switch {
		case m.KnowledgeCutoff == nil && r.CutoffDate != nil:
			t.Errorf("%s/%s: cutoff %s, models.json has none", r.ProviderID, r.ModelID, *r.CutoffDate)
		case m.KnowledgeCutoff != nil && (r.CutoffDate == nil || !strings.HasPrefix(*r.CutoffDate, *m.KnowledgeCutoff+"-")):
			t.Errorf("%s/%s: cutoff %v, models.json says %s", r.ProviderID, r.ModelID, r.CutoffDate, *m.KnowledgeCutoff)
		case r.CutoffApproximate && !strings.HasSuffix(*r.CutoffDate, "-01"):
			t.Errorf("%s/%s: approximate cutoff %s is not a month's first day", r.ProviderID, r.ModelID, *r.CutoffDate)
		}
		if r.CutoffDate != nil {
			withCutoff++
		}
	}
	if withCutoff < 500 {
		t.Errorf("only %d models have a cutoff", withCutoff)
	}
}

// TestLifecycleAliases checks that every alias and version is a current model of the same provider, that pinned
// versions are among the alias's versions, and that resolve_alias lists the same aliases with the same pointers.
func TestLifecycleAliases(t *testing.T) {
	models := languageModels(t)
	versions := testRecords[lifecycleRecord](t, "model_versions")
	resolved := testRecords[lifecycleRecord](t, "resolve_alias")
	// 75 aliases on 2026-11-28 (93 before data sets' IDs that no official source names stopped being served).
	if len(versions) != len(resolved) || len(versions) < 65 {
		t.Fatalf("%d model_versions records, %d resolve_alias records", len(versions), len(resolved))
	}
	prev := ""
	for i, v := range versions {
		key := v.ProviderID + "/" + v.Alias
		if _, ok := models[key]; !ok {
			t.Errorf("alias %s is not a current model", key)
		}
		if sortKey := v.ProviderID + "\x00" + v.Alias; sortKey <= prev {
			t.Errorf("model_versions record %d (%s): out of order or duplicate", i, key)
		} else {
			prev = sortKey
		}
		var ids []string
		for _, ver := range v.Versions {
			if _, ok := models[v.ProviderID+"/"+ver.VersionID]; !ok {
				t.Errorf("%s: version %s is not a current model", key, ver.VersionID)
			}
			ids = append(ids, ver.VersionID)
		}
		if v.Pinnable != (len(ids) > 0) {
			t.Errorf("%s: pinnable %v with %d versions", key, v.Pinnable, len(ids))
		}
		if v.CurrentPinnedVersion != nil && !slices.Contains(ids, *v.CurrentPinnedVersion) {
			t.Errorf("%s: points to %s, not one of its versions %v", key, *v.CurrentPinnedVersion, ids)
		}
		r := resolved[i]
		if r.ProviderID != v.ProviderID || r.Alias != v.Alias || (r.CurrentPinnedVersion == nil) != (v.CurrentPinnedVersion == nil) ||
			(r.CurrentPinnedVersion != nil && *r.CurrentPinnedVersion != *v.CurrentPinnedVersion) || r.Notes == nil {
			t.Errorf("resolve_alias record %d (%s/%s) does not match model_versions %s", i, r.ProviderID, r.Alias, key)
		}
	}
}

// TestLifecycleTaskFit checks every task-fit score against the benchmark it comes from and the spec's tiers.
func TestLifecycleTaskFit(t *testing.T) {
	bench, err := BenchmarkRecords()
	if err != nil {
		t.Fatal(err)
	}
	scores := map[string]map[string]float64{}
	for _, b := range bench {
		scores[b.ProviderId+"/"+b.ModelId] = b.Scores
	}
	metric := map[string]string{"code_generation": "humaneval", "math": "math", "reasoning": "gpqa"}
	want := 0
	for _, s := range scores {
		for _, m := range metric {
			if _, ok := s[m]; ok {
				want++
			}
		}
	}
	// instruction_following, tool_use and rag_qa come from benchmark rows the /benchmarks catalog does not carry
	// (IFEval, BFCL, FACTS Grounding); catalogbuild/derive checks their attribution.
	others := map[string]bool{"instruction_following": true, "tool_use": true, "rag_qa": true}
	recs := testRecords[lifecycleRecord](t, "model_task_fit")
	got := 0
	for _, r := range recs {
		if others[r.Task] {
			if r.Score < 0 || r.Score > 100 {
				t.Errorf("%s/%s %s: score %v", r.ProviderID, r.ModelID, r.Task, r.Score)
			}
		} else {
			got++
		}
	}
	if got != want {
		t.Errorf("%d task-fit records of the three benchmark-catalog tasks, the benchmarks give %d scores", got, want)
	}
	for _, r := range recs {
		if others[r.Task] {
			continue
		}
		pct, ok := scores[r.ProviderID+"/"+r.ModelID][metric[r.Task]]
		if !ok || math.Abs(pct-r.Score) > 0.05 {
			t.Errorf("%s/%s %s: score %v, benchmark %s says %v (present %v)", r.ProviderID, r.ModelID, r.Task, r.Score, metric[r.Task], pct, ok)
		}
		tier := "limited"
		switch {
		case r.Score >= 90:
			tier = "elite"
		case r.Score >= 75:
			tier = "strong"
		case r.Score >= 60:
			tier = "capable"
		}
		if r.Tier != tier {
			t.Errorf("%s/%s %s: tier %s for score %v, want %s", r.ProviderID, r.ModelID, r.Task, r.Tier, r.Score, tier)
		}
	}
}

// TestLifecycleConfidenceHonest: a deprecation or lifecycle record is `verified` only when it rests on the provider's
// own pages alone; an `active` record says what it rests on (the models page listing the model, or the deprecation
// page searched); and no record cites a source outside its catalog.
func TestLifecycleConfidenceHonest(t *testing.T) {
	type rec struct {
		ProviderID string   `json:"provider_id"`
		ModelID    string   `json:"model_id"`
		Status     string   `json:"status"`
		Notes      *string  `json:"notes"`
		Sources    []string `json:"sources"`
		Confidence string   `json:"confidence"`
	}
	for _, name := range []string{"deprecations", "model_lifecycle"} {
		c, recs := testCatalog[rec](t, name)
		licensed, known := map[string]bool{}, map[string]bool{}
		for _, s := range c.Sources {
			known[s.ID] = true
			licensed[s.ID] = s.License != nil
		}
		verifiedActive := 0
		for _, r := range recs {
			key := r.ProviderID + "/" + r.ModelID
			if len(r.Sources) == 0 {
				t.Errorf("%s %s: no sources", name, key)
			}
			for _, s := range r.Sources {
				if !known[s] {
					t.Errorf("%s %s: cites %q, not a source of the catalog", name, key, s)
				}
				if r.Confidence == "verified" && licensed[s] {
					t.Errorf("%s %s: verified, yet cites the data set %s", name, key, s)
				}
			}
			if name != "deprecations" || r.Status != "active" {
				continue
			}
			notes := ""
			if r.Notes != nil {
				notes = *r.Notes
			}
			switch r.Confidence {
			case "verified":
				verifiedActive++
				if !strings.HasPrefix(notes, "Listed as available on ") {
					t.Errorf("%s: active and verified, but the note names no page listing it: %q", key, notes)
				}
			case "single":
				if !strings.Contains(notes, "Not listed on ") && !strings.Contains(notes, "No deprecation is known") {
					t.Errorf("%s: active without a page, but the note does not say what was searched: %q", key, notes)
				}
			default:
				t.Errorf("%s: active with confidence %s", key, r.Confidence)
			}
		}
		if name == "deprecations" && verifiedActive == 0 {
			t.Error("no active record rests on a models page: the verified branch is not exercised")
		}
	}
}
