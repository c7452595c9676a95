package impl_test

import (
	"cmp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard/switchboard/apitest"
	"github.com/switchboard/switchboard/gen/api"
)

// The the lifecycle catalogs endpoints: each expectation is computed from the catalog file with plain loops and compared in
// full (which records, in which order).

func TestLifecycleCatalogs(t *testing.T) {
	s := catServer(t)
	t.Run("Deprecations", func(t *testing.T) { testDeprecations(t, s) })
	t.Run("ModelLifecycle", func(t *testing.T) { testModelLifecycle(t, s) })
	t.Run("KnowledgeCutoff", func(t *testing.T) { testKnowledgeCutoff(t, s) })
	t.Run("ModelVersions", func(t *testing.T) { testModelVersions(t, s) })
	t.Run("ResolveAlias", func(t *testing.T) { testResolveAlias(t, s) })
	t.Run("ModelTaskFit", func(t *testing.T) { testModelTaskFit(t, s) })
}

type lifecycleDeprecation struct {
	ProviderID string  `json:"provider_id"`
	ModelID    string  `json:"model_id"`
	Status     string  `json:"status"`
	SunsetDate *string `json:"sunset_date"`
}

func testDeprecations(t *testing.T, s *apitest.Server) {
	type d = lifecycleDeprecation
	recs, _ := catFile[d](t, "deprecations")
	// The server judges each status at its clock: a sunset date that has come makes the model sunset.
	for i, r := range recs {
		if r.SunsetDate != nil && *r.SunsetDate <= buildDay(t).Format(time.DateOnly) {
			recs[i].Status = "sunset"
		}
	}
	slices.SortStableFunc(recs, func(a, b d) int {
		return cmp.Or(catNilLast(a.SunsetDate, b.SunsetDate, false), strings.Compare(a.ProviderID, b.ProviderID), strings.Compare(a.ModelID, b.ModelID))
	})
	var summary api.DeprecationsSummary
	records := catChecker(t, s, "deprecations", func(r d) string { return r.ProviderID + "/" + r.ModelID }, func(b api.DeprecationsResponse) catAnswer {
		summary = b.Summary
		return catAnswer{catKeys(b.Deprecations, func(r api.DeprecationsRecord) string { return r.ProviderId + "/" + r.ModelId }),
			b.Meta.AsOf.String(), b.Meta.Sources, len(b.Deprecations)}
	})
	check := func(path string, want []d) {
		t.Helper()
		records(path, want)
		n := func(st string) int { return len(catWhere(want, func(r d) bool { return r.Status == st })) }
		if summary.Active != n("active") || summary.Warning != n("warning") || summary.Deprecated != n("deprecated") || summary.Sunset != n("sunset") {
			t.Errorf("%s: summary %+v, records say %d/%d/%d/%d", path, summary, n("active"), n("warning"), n("deprecated"), n("sunset"))
		}
	}
	retired := catWhere(recs, func(r d) bool { return r.Status != "active" })
	if len(retired) == 0 || recs[0].SunsetDate == nil {
		t.Fatal("no retired record with a sunset date: the sort and the status filter are not exercised")
	}
	check("/api/v1/deprecations", recs)
	for _, st := range []string{"active", "warning", "deprecated", "sunset"} {
		check("/api/v1/deprecations?status="+st, catWhere(recs, func(r d) bool { return r.Status == st }))
	}
	check("/api/v1/deprecations?provider=azure-openai", catWhere(recs, func(r d) bool { return r.ProviderID == "azure-openai" }))
	check("/api/v1/deprecations?provider=openai&status=deprecated", catWhere(recs, func(r d) bool {
		return r.ProviderID == "openai" && r.Status == "deprecated"
	}))
	check("/api/v1/deprecations?provider=voyage-ai", nil) // a known provider without language models

	catRefused(t, s, "/api/v1/deprecations?provider=nope", 404, "provider")
	catRefused(t, s, "/api/v1/deprecations?status=retired", 400, "status")
}

type lifecycleLifecycle struct {
	ProviderID      string  `json:"provider_id"`
	ModelID         string  `json:"model_id"`
	Stage           string  `json:"stage"`
	DeprecationDate *string `json:"deprecation_date"`
}

func testModelLifecycle(t *testing.T, s *apitest.Server) {
	type l = lifecycleLifecycle
	recs, _ := catFile[l](t, "model_lifecycle")
	// The server judges each stage at its clock: a shutdown day that has come makes the model sunset.
	for i, r := range recs {
		if r.DeprecationDate != nil && *r.DeprecationDate <= buildDay(t).Format(time.DateOnly) {
			recs[i].Stage = "sunset"
		}
	}
	slices.SortStableFunc(recs, func(a, b l) int {
		return cmp.Or(strings.Compare(a.ProviderID, b.ProviderID), strings.Compare(a.ModelID, b.ModelID))
	})
	var meta api.ModelLifecycleMeta
	records := catChecker(t, s, "model_lifecycle", func(r l) string { return r.ProviderID + "/" + r.ModelID }, func(b api.ModelLifecycleResponse) catAnswer {
		meta = b.Meta
		return catAnswer{catKeys(b.Data, func(r api.ModelLifecycleRecord) string { return r.ProviderId + "/" + r.ModelId }),
			b.Meta.AsOf.String(), b.Meta.Sources, len(b.Data)}
	})
	deprecatedStage := func(r l) bool {
		return r.Stage == "soft_deprecated" || r.Stage == "hard_deprecated" || r.Stage == "sunset"
	}
	activeStage := func(r l) bool {
		return r.Stage == "experimental" || r.Stage == "preview" || r.Stage == "beta" || r.Stage == "ga"
	}
	check := func(path string, want []l) {
		t.Helper()
		records(path, want)
		dep := len(catWhere(want, deprecatedStage))
		sun := len(catWhere(want, func(r l) bool { return r.Stage == "sunset" }))
		if meta.DeprecatedCount != dep || meta.SunsetCount != sun {
			t.Errorf("%s: meta %d deprecated, %d sunset; records say %d, %d", path, meta.DeprecatedCount, meta.SunsetCount, dep, sun)
		}
	}
	if len(catWhere(recs, deprecatedStage)) == 0 || len(catWhere(recs, func(r l) bool { return r.Stage == "preview" })) == 0 {
		t.Fatal("the data has no deprecated or no preview model: the stage filters are not exercised")
	}
	check("/api/v1/model-lifecycle", recs)
	check("/api/v1/model-lifecycle?deprecated_only=false&active_only=false", recs)
	for _, st := range []string{"experimental", "preview", "beta", "ga", "soft_deprecated", "hard_deprecated", "sunset"} {
		check("/api/v1/model-lifecycle?stage="+st, catWhere(recs, func(r l) bool { return r.Stage == st }))
	}
	check("/api/v1/model-lifecycle?deprecated_only=true", catWhere(recs, deprecatedStage))
	check("/api/v1/model-lifecycle?active_only=true", catWhere(recs, activeStage))
	check("/api/v1/model-lifecycle?active_only=true&deprecated_only=true", nil)
	check("/api/v1/model-lifecycle?model=GPT-4.1", catWhere(recs, func(r l) bool { return strings.Contains(strings.ToLower(r.ModelID), "gpt-4.1") }))
	check("/api/v1/model-lifecycle?provider=google-gemini&stage=preview", catWhere(recs, func(r l) bool {
		return r.ProviderID == "google-gemini" && r.Stage == "preview"
	}))
	check("/api/v1/model-lifecycle?model=no-such-model", nil)
	check("/api/v1/model-lifecycle?provider=voyage-ai", nil)

	catRefused(t, s, "/api/v1/model-lifecycle?provider=nope", 404, "provider")
	catRefused(t, s, "/api/v1/model-lifecycle?stage=retired", 400, "stage")
	catRefused(t, s, "/api/v1/model-lifecycle?active_only=maybe", 400, "active_only")
	catRefused(t, s, "/api/v1/model-lifecycle?deprecated_only=2", 400, "deprecated_only")
	catRefused(t, s, "/api/v1/model-lifecycle?model=", 400, "model")
}

type lifecycleCutoff struct {
	ProviderID string  `json:"provider_id"`
	ModelID    string  `json:"model_id"`
	CutoffDate *string `json:"cutoff_date"`
}

func testKnowledgeCutoff(t *testing.T, s *apitest.Server) {
	type k = lifecycleCutoff
	recs, _ := catFile[k](t, "knowledge_cutoff")
	slices.SortStableFunc(recs, func(a, b k) int {
		return cmp.Or(catNilLast(a.CutoffDate, b.CutoffDate, true), strings.Compare(a.ProviderID, b.ProviderID), strings.Compare(a.ModelID, b.ModelID))
	})
	check := catChecker(t, s, "knowledge_cutoff", func(r k) string { return r.ProviderID + "/" + r.ModelID }, func(b api.KnowledgeCutoffResponse) catAnswer {
		return catAnswer{catKeys(b.Data, func(r api.KnowledgeCutoffRecord) string { return r.ProviderId + "/" + r.ModelId }),
			b.Meta.AsOf.String(), b.Meta.Sources, len(b.Data)}
	})
	after := func(day string) func(k) bool {
		return func(r k) bool { return r.CutoffDate != nil && *r.CutoffDate > day }
	}
	before := func(day string) func(k) bool {
		return func(r k) bool { return r.CutoffDate != nil && *r.CutoffDate < day }
	}
	// 2024-10-01 is a cutoff some models have: the bounds must exclude it.
	if len(catWhere(recs, func(r k) bool { return r.CutoffDate != nil && *r.CutoffDate == "2024-10-01" })) == 0 {
		t.Fatal("no model has the cutoff 2024-10-01: the exclusive bounds are not exercised")
	}
	check("/api/v1/knowledge-cutoff", recs)
	check("/api/v1/knowledge-cutoff?after=2024-10-01", catWhere(recs, after("2024-10-01")))
	check("/api/v1/knowledge-cutoff?before=2024-10-01", catWhere(recs, before("2024-10-01")))
	check("/api/v1/knowledge-cutoff?after=2023-12-31&before=2025-01-01", catWhere(recs, func(r k) bool {
		return after("2023-12-31")(r) && before("2025-01-01")(r)
	}))
	check("/api/v1/knowledge-cutoff?after=2030-01-01", nil)
	check("/api/v1/knowledge-cutoff?provider=anthropic&model=Sonnet", catWhere(recs, func(r k) bool {
		return r.ProviderID == "anthropic" && strings.Contains(r.ModelID, "sonnet")
	}))
	check("/api/v1/knowledge-cutoff?provider=voyage-ai", nil)

	catRefused(t, s, "/api/v1/knowledge-cutoff?provider=nope", 404, "provider")
	catRefused(t, s, "/api/v1/knowledge-cutoff?after=2024-13-01", 400, "after")
	catRefused(t, s, "/api/v1/knowledge-cutoff?before=yesterday", 400, "before")
}

type lifecycleVersions struct {
	ProviderID      string   `json:"provider_id"`
	Alias           string   `json:"alias"`
	Pinnable        bool     `json:"pinnable"`
	BreakingChanges []string `json:"breaking_changes"`
}

func testModelVersions(t *testing.T, s *apitest.Server) {
	type v = lifecycleVersions
	recs, _ := catFile[v](t, "model_versions")
	slices.SortStableFunc(recs, func(a, b v) int {
		return cmp.Or(strings.Compare(a.ProviderID, b.ProviderID), strings.Compare(a.Alias, b.Alias))
	})
	check := catChecker(t, s, "model_versions", func(r v) string { return r.ProviderID + "/" + r.Alias }, func(b api.ModelVersionsResponse) catAnswer {
		return catAnswer{catKeys(b.ModelVersions, func(r api.ModelVersionsRecord) string { return r.ProviderId + "/" + r.Alias }),
			b.Meta.AsOf.String(), b.Meta.Sources, len(b.ModelVersions)}
	})
	pinnable := catWhere(recs, func(r v) bool { return r.Pinnable })
	if len(pinnable) == 0 || len(pinnable) == len(recs) {
		t.Fatalf("%d of %d aliases pinnable: pinnable_only is not exercised", len(pinnable), len(recs))
	}
	check("/api/v1/model-versions", recs)
	check("/api/v1/model-versions?pinnable_only=false&has_breaking_changes=false", recs)
	check("/api/v1/model-versions?pinnable_only=true", pinnable)
	check("/api/v1/model-versions?has_breaking_changes=true", catWhere(recs, func(r v) bool { return len(r.BreakingChanges) > 0 }))
	check("/api/v1/model-versions?model=LATEST", catWhere(recs, func(r v) bool { return strings.Contains(r.Alias, "latest") }))
	check("/api/v1/model-versions?provider=openai&model=gpt-4o&pinnable_only=true", catWhere(recs, func(r v) bool {
		return r.ProviderID == "openai" && strings.Contains(r.Alias, "gpt-4o") && r.Pinnable
	}))
	check("/api/v1/model-versions?provider=voyage-ai", nil)

	catRefused(t, s, "/api/v1/model-versions?provider=nope", 404, "provider")
	catRefused(t, s, "/api/v1/model-versions?pinnable_only=yes", 400, "pinnable_only")
	catRefused(t, s, "/api/v1/model-versions?has_breaking_changes=yes", 400, "has_breaking_changes")
	catRefused(t, s, "/api/v1/model-versions?model="+strings.Repeat("x", 201), 400, "model")
}

type lifecycleAlias struct {
	ProviderID           string  `json:"provider_id"`
	Alias                string  `json:"alias"`
	CurrentPinnedVersion *string `json:"current_pinned_version"`
}

func testResolveAlias(t *testing.T, s *apitest.Server) {
	type a = lifecycleAlias
	recs, _ := catFile[a](t, "resolve_alias")
	slices.SortStableFunc(recs, func(x, y a) int {
		return cmp.Or(strings.Compare(x.ProviderID, y.ProviderID), strings.Compare(x.Alias, y.Alias))
	})
	check := catChecker(t, s, "resolve_alias", func(r a) string { return r.ProviderID + "/" + r.Alias }, func(b api.ResolveAliasListResponse) catAnswer {
		return catAnswer{catKeys(b.Aliases, func(r api.ResolveAliasRecord) string { return r.ProviderId + "/" + r.Alias }),
			b.Meta.AsOf.String(), b.Meta.Sources, len(b.Aliases)}
	})
	check("/api/v1/resolve-alias", recs)
	check("/api/v1/resolve-alias?provider=anthropic", catWhere(recs, func(r a) bool { return r.ProviderID == "anthropic" }))
	check("/api/v1/resolve-alias?provider=voyage-ai", nil)

	// A single alias: the record itself. gpt-4o-mini is served by OpenAI and Azure OpenAI; OpenAI comes first in the
	// provider registry, so it answers unless the provider is named.
	one := func(path, provider, alias string) {
		t.Helper()
		got := catGet[api.ResolveAliasRecord](t, s, path)
		want := catWhere(recs, func(r a) bool { return r.ProviderID == provider && r.Alias == alias })
		if len(want) != 1 {
			t.Fatalf("%s: the catalog has %d records for %s/%s", path, len(want), provider, alias)
		}
		if got.ProviderId != provider || got.Alias != alias || (got.CurrentPinnedVersion == nil) != (want[0].CurrentPinnedVersion == nil) ||
			(got.CurrentPinnedVersion != nil && *got.CurrentPinnedVersion != *want[0].CurrentPinnedVersion) {
			t.Errorf("%s: got %+v, want %+v", path, got, want[0])
		}
	}
	if len(catWhere(recs, func(r a) bool { return r.Alias == "gpt-4o-mini" })) < 2 {
		t.Fatal("gpt-4o-mini is not served by two providers: the provider order rule is not exercised")
	}
	one("/api/v1/resolve-alias?alias=gpt-4o-mini", "openai", "gpt-4o-mini")
	one("/api/v1/resolve-alias?alias=gpt-4o-mini&provider=azure-openai", "azure-openai", "gpt-4o-mini")
	one("/api/v1/resolve-alias?alias=claude-sonnet-4-5", "anthropic", "claude-sonnet-4-5")
	if r := catGet[api.ResolveAliasRecord](t, s, "/api/v1/resolve-alias?alias=gpt-4o"); r.CurrentPinnedVersion == nil || *r.CurrentPinnedVersion != "gpt-4o-2024-08-06" {
		t.Errorf("gpt-4o resolves to %v, OpenAI's model page says gpt-4o-2024-08-06", r.CurrentPinnedVersion)
	}

	catRefused(t, s, "/api/v1/resolve-alias?alias=no-such-alias", 404, "alias")
	catRefused(t, s, "/api/v1/resolve-alias?alias=GPT-4O", 404, "alias") // exact match
	catRefused(t, s, "/api/v1/resolve-alias?alias=gpt-4o&provider=anthropic", 404, "alias")
	catRefused(t, s, "/api/v1/resolve-alias?alias=gpt-4o&provider=nope", 404, "provider")
	catRefused(t, s, "/api/v1/resolve-alias?alias=", 400, "alias")
}

type lifecycleTaskFit struct {
	ProviderID string  `json:"provider_id"`
	ModelID    string  `json:"model_id"`
	Task       string  `json:"task"`
	Score      float64 `json:"score"`
	Tier       string  `json:"tier"`
}

func testModelTaskFit(t *testing.T, s *apitest.Server) {
	type f = lifecycleTaskFit
	recs, _ := catFile[f](t, "model_task_fit")
	slices.SortStableFunc(recs, func(a, b f) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), strings.Compare(a.ProviderID, b.ProviderID), strings.Compare(a.ModelID, b.ModelID),
			strings.Compare(a.Task, b.Task))
	})
	key := func(r f) string { return r.ProviderID + "/" + r.ModelID + "/" + r.Task }
	check := catChecker(t, s, "model_task_fit", key, func(b api.ModelTaskFitResponse) catAnswer {
		return catAnswer{catKeys(b.Data, func(r api.ModelTaskFitRecord) string { return r.ProviderId + "/" + r.ModelId + "/" + string(r.Task) }),
			b.Meta.AsOf.String(), b.Meta.Sources, len(b.Data)}
	})
	check("/api/v1/model-task-fit", recs)
	check("/api/v1/model-task-fit?min_score=0", recs)
	for _, task := range []string{"code_generation", "math", "reasoning", "instruction_following", "tool_use", "rag_qa", "summarization"} {
		check("/api/v1/model-task-fit?task="+task, catWhere(recs, func(r f) bool { return r.Task == task }))
	}
	// A task no benchmark measures answers empty and says why; an empty answer of a measured task has no note.
	var tf api.ModelTaskFitResponse
	s.Get("/api/v1/model-task-fit?task=summarization").Decode(t, &tf)
	if len(tf.Data) != 0 || tf.Meta.Note == nil || !strings.Contains(*tf.Meta.Note, "No benchmark") {
		t.Errorf("summarization: %+v, note %v", tf.Data, tf.Meta.Note)
	}
	s.Get("/api/v1/model-task-fit?task=math&min_score=100").Decode(t, &tf)
	if tf.Meta.Note != nil {
		t.Errorf("an empty answer of a measured task has a note: %q", *tf.Meta.Note)
	}
	for _, tier := range []string{"elite", "strong", "capable", "limited"} {
		want := catWhere(recs, func(r f) bool { return r.Tier == tier })
		if len(want) == 0 {
			t.Errorf("no %s record: the tier filter is not exercised", tier)
		}
		check("/api/v1/model-task-fit?tier="+tier, want)
	}
	check("/api/v1/model-task-fit?min_score=80.5", catWhere(recs, func(r f) bool { return r.Score >= 80.5 }))
	check("/api/v1/model-task-fit?min_score=100", catWhere(recs, func(r f) bool { return r.Score >= 100 }))
	check("/api/v1/model-task-fit?provider=openai&model=O3&task=math", catWhere(recs, func(r f) bool {
		return r.ProviderID == "openai" && strings.Contains(r.ModelID, "o3") && r.Task == "math"
	}))
	check("/api/v1/model-task-fit?provider=voyage-ai", nil)

	catRefused(t, s, "/api/v1/model-task-fit?provider=nope", 404, "provider")
	catRefused(t, s, "/api/v1/model-task-fit?min_score=101", 400, "min_score")
	catRefused(t, s, "/api/v1/model-task-fit?min_score=-1", 400, "min_score")
	catRefused(t, s, "/api/v1/model-task-fit?min_score=high", 400, "min_score")
	catRefused(t, s, "/api/v1/model-task-fit?tier=legendary", 400, "tier")
	catRefused(t, s, "/api/v1/model-task-fit?task=poetry", 400, "task")
}
