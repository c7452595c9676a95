package impl_test

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/apitest"
	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/impl"
	"github.com/switchboard/switchboard/seeds"
)

// The the interoperability catalogs expectations decode the seeds files into the local types below and compute every answer with
// plain loops, independently of package catalog and of the handlers.

// TestInteropCatalogs runs the the interoperability catalogs catalog endpoints against the real server.
func TestInteropCatalogs(t *testing.T) {
	s := catServer(t)
	t.Run("OverflowBehaviour", func(t *testing.T) { testOverflowBehaviour(t, s) })
	t.Run("ReferenceCompat", func(t *testing.T) { testReferenceCompat(t, s) })
	t.Run("ErrorCodes", func(t *testing.T) { testErrorCodes(t, s) })
	t.Run("RateLimitRecovery", func(t *testing.T) { testRateLimitRecovery(t, s) })
	t.Run("MigrationGuide", func(t *testing.T) { testMigrationGuide(t, s) })
}

type gfOverflow struct {
	ProviderID string  `json:"provider_id"`
	Behaviour  *string `json:"overflow_behaviour"`
	Warning    *bool   `json:"warning_provided"`
}

func testOverflowBehaviour(t *testing.T, s *apitest.Server) {
	recs, file := catFile[gfOverflow](t, "overflow_behaviour")
	slices.SortFunc(recs, func(a, b gfOverflow) int { return strings.Compare(a.ProviderID, b.ProviderID) })
	check := func(path string, want []gfOverflow) {
		t.Helper()
		b := catGet[api.OverflowBehaviourResponse](t, s, path)
		got := catKeys(b.OverflowBehaviour, func(r api.OverflowBehaviourRecord) string { return r.ProviderId })
		catSame(t, path, got, catKeys(want, func(r gfOverflow) string { return r.ProviderID }))
		catMeta(t, path, file, b.Meta.AsOf.String(), b.Meta.Sources, answerRecords(b))
		// The summary, recomputed from the expected records.
		var ws api.OverflowBehaviourSummary
		ws.SilentTruncators = []string{}
		for _, r := range want {
			if r.Behaviour == nil {
				continue
			}
			switch *r.Behaviour {
			case "error":
				ws.Error++
			case "truncate":
				ws.Truncate++
			case "sliding_window":
				ws.SlidingWindow++
			}
			if *r.Behaviour != "error" && r.Warning != nil && !*r.Warning {
				ws.SilentTruncators = append(ws.SilentTruncators, r.ProviderID)
			}
		}
		if b.Summary.Error != ws.Error || b.Summary.Truncate != ws.Truncate || b.Summary.SlidingWindow != ws.SlidingWindow ||
			!slices.Equal(b.Summary.SilentTruncators, ws.SilentTruncators) {
			t.Errorf("%s summary: %+v, want %+v", path, b.Summary, ws)
		}
	}
	is := func(kind string) func(gfOverflow) bool {
		return func(r gfOverflow) bool { return r.Behaviour != nil && *r.Behaviour == kind }
	}
	errs, truncs := catWhere(recs, is("error")), catWhere(recs, is("truncate"))
	catSplits(t, "behaviour=error", errs, recs)
	catSplits(t, "behaviour=truncate", truncs, recs)
	check("/api/v1/overflow-behaviour", recs)
	check("/api/v1/overflow-behaviour?behaviour=error", errs)
	check("/api/v1/overflow-behaviour?behaviour=truncate", truncs)
	check("/api/v1/overflow-behaviour?behaviour=sliding_window", catWhere(recs, is("sliding_window")))
	for _, p := range []string{"openai", "voyage-ai", "elevenlabs"} {
		check("/api/v1/overflow-behaviour?provider="+p, catWhere(recs, func(r gfOverflow) bool { return r.ProviderID == p }))
	}
	check("/api/v1/overflow-behaviour?provider=voyage-ai&behaviour=error", []gfOverflow{})
	// The whole catalog has at least one silent truncator (the seeds test pins it): the summary is exercised.
	all := catGet[api.OverflowBehaviourResponse](t, s, "/api/v1/overflow-behaviour")
	if len(all.Summary.SilentTruncators) == 0 {
		t.Error("no silent truncator in the full answer")
	}

	catRefused(t, s, "/api/v1/overflow-behaviour?provider=nope", 404, "provider")
	catRefused(t, s, "/api/v1/overflow-behaviour?behaviour=drop", 400, "behaviour")
}

// TestOverflowSummaryRule checks the summary rule on hand-made records: only a known truncating or sliding
// behaviour with a known false warning is silent.
func TestOverflowSummaryRule(t *testing.T) {
	kind := func(k api.OverflowBehaviourKind) *api.OverflowBehaviourKind { return &k }
	yes, no := true, false
	recs := []api.OverflowBehaviourRecord{
		{ProviderId: "a", OverflowBehaviour: kind(api.OverflowBehaviourKindError), WarningProvided: &yes},
		{ProviderId: "b", OverflowBehaviour: kind(api.OverflowBehaviourKindTruncate), WarningProvided: &no},
		{ProviderId: "c", OverflowBehaviour: kind(api.OverflowBehaviourKindTruncate), WarningProvided: &yes},
		{ProviderId: "d", OverflowBehaviour: kind(api.OverflowBehaviourKindSlidingWindow), WarningProvided: &no},
		{ProviderId: "e", OverflowBehaviour: kind(api.OverflowBehaviourKindSlidingWindow), WarningProvided: nil},
		{ProviderId: "f"},
	}
	got := impl.OverflowSummary(recs)
	want := api.OverflowBehaviourSummary{Error: 1, Truncate: 2, SlidingWindow: 2, SilentTruncators: []string{"b", "d"}}
	if got.Error != want.Error || got.Truncate != want.Truncate || got.SlidingWindow != want.SlidingWindow ||
		!slices.Equal(got.SilentTruncators, want.SilentTruncators) {
		t.Errorf("OverflowSummary: %+v, want %+v", got, want)
	}
	if empty := impl.OverflowSummary(nil); empty.SilentTruncators == nil || empty.Error != 0 {
		t.Errorf("OverflowSummary(nil): %+v; silent_truncators must encode as []", empty)
	}
}

type gfRefCompat struct {
	ProviderID string `json:"provider_id"`
	Compatible *bool  `json:"reference_compatible"`
	DropIn     *bool  `json:"drop_in_replacement"`
}

func testReferenceCompat(t *testing.T, s *apitest.Server) {
	recs, file := catFile[gfRefCompat](t, "reference_compat")
	slices.SortFunc(recs, func(a, b gfRefCompat) int { return strings.Compare(a.ProviderID, b.ProviderID) })
	check := func(path string, want []gfRefCompat) {
		t.Helper()
		b := catGet[api.ReferenceCompatResponse](t, s, path)
		got := catKeys(b.ReferenceCompat, func(r api.ReferenceCompatRecord) string { return r.ProviderId })
		catSame(t, path, got, catKeys(want, func(r gfRefCompat) string { return r.ProviderID }))
		catMeta(t, path, file, b.Meta.AsOf.String(), b.Meta.Sources, answerRecords(b))
		compatible, dropIn := 0, 0
		for _, r := range want {
			if catTrue(r.Compatible) {
				compatible++
			}
			if catTrue(r.DropIn) {
				dropIn++
			}
		}
		if b.Meta.CompatibleCount != compatible || b.Meta.DropInCount != dropIn {
			t.Errorf("%s meta: %d compatible, %d drop-in; want %d, %d", path, b.Meta.CompatibleCount, b.Meta.DropInCount, compatible, dropIn)
		}
	}
	compat := catWhere(recs, func(r gfRefCompat) bool { return catTrue(r.Compatible) })
	dropIn := catWhere(recs, func(r gfRefCompat) bool { return catTrue(r.DropIn) })
	catSplits(t, "compatible_only", compat, recs)
	catSplits(t, "drop_in_only of the compatible providers", dropIn, compat)
	check("/api/v1/reference-compat", recs)
	check("/api/v1/reference-compat?compatible_only=false&drop_in_only=false", recs)
	check("/api/v1/reference-compat?compatible_only=true", compat)
	check("/api/v1/reference-compat?drop_in_only=true", dropIn)
	check("/api/v1/reference-compat?compatible_only=true&drop_in_only=true", dropIn)
	check("/api/v1/reference-compat?provider=anthropic", catWhere(recs, func(r gfRefCompat) bool { return r.ProviderID == "anthropic" }))
	check("/api/v1/reference-compat?provider=voyage-ai&compatible_only=true", []gfRefCompat{})

	catRefused(t, s, "/api/v1/reference-compat?provider=nope", 404, "provider")
	catRefused(t, s, "/api/v1/reference-compat?compatible_only=maybe", 400, "compatible_only")
	catRefused(t, s, "/api/v1/reference-compat?drop_in_only=2", 400, "drop_in_only")
}

type gfError struct {
	ProviderID string  `json:"provider_id"`
	Status     int     `json:"http_status"`
	Type       *string `json:"provider_error_type"`
	Code       *string `json:"provider_error_code"`
	Category   string  `json:"standard_category"`
	Retryable  bool    `json:"retryable"`
}

func (r gfError) key() string {
	str := func(s *string) string {
		if s == nil {
			return "-"
		}
		return *s
	}
	return fmt.Sprintf("%s/%d/%s/%s/%s", r.ProviderID, r.Status, str(r.Type), str(r.Code), r.Category)
}

func testErrorCodes(t *testing.T, s *apitest.Server) {
	recs, file := catFile[gfError](t, "error_codes")
	wantCategories := []api.ErrorCodesCategory{"rate_limit", "auth", "context_length", "content_filter", "server_error", "timeout",
		"invalid_request", "not_found", "billing"}
	// The documented order: provider, status, error type then code, each with null last, then the category.
	slices.SortFunc(recs, func(a, b gfError) int {
		return cmp.Or(strings.Compare(a.ProviderID, b.ProviderID), cmp.Compare(a.Status, b.Status), catNilLast(a.Type, b.Type, false),
			catNilLast(a.Code, b.Code, false),
			cmp.Compare(slices.Index(wantCategories, api.ErrorCodesCategory(a.Category)), slices.Index(wantCategories, api.ErrorCodesCategory(b.Category))))
	})
	check := func(path string, want []gfError) {
		t.Helper()
		b := catGet[api.ErrorCodesResponse](t, s, path)
		got := catKeys(b.ErrorCodes, func(r api.ErrorCodesRecord) string {
			return gfError{r.ProviderId, r.HttpStatus, r.ProviderErrorType, r.ProviderErrorCode, string(r.StandardCategory), false}.key()
		})
		catSame(t, path, got, catKeys(want, gfError.key))
		catMeta(t, path, file, b.Meta.AsOf.String(), b.Meta.Sources, answerRecords(b))
		if !slices.Equal(b.Meta.Categories, wantCategories) {
			t.Errorf("%s meta.categories: %v", path, b.Meta.Categories)
		}
	}
	check("/api/v1/error-codes", recs)
	check("/api/v1/error-codes?retryable_only=false", recs)
	for _, c := range wantCategories {
		in := catWhere(recs, func(r gfError) bool { return r.Category == string(c) })
		if len(in) == 0 {
			t.Errorf("no error of category %s: the filter is not exercised", c)
		}
		check("/api/v1/error-codes?category="+string(c), in)
	}
	retryable := catWhere(recs, func(r gfError) bool { return r.Retryable })
	catSplits(t, "retryable_only", retryable, recs)
	check("/api/v1/error-codes?retryable_only=true", retryable)
	check("/api/v1/error-codes?http_status=429", catWhere(recs, func(r gfError) bool { return r.Status == 429 }))
	check("/api/v1/error-codes?http_status=200", catWhere(recs, func(r gfError) bool { return r.Status == 200 }))
	check("/api/v1/error-codes?http_status=418", []gfError{})
	check("/api/v1/error-codes?provider=anthropic", catWhere(recs, func(r gfError) bool { return r.ProviderID == "anthropic" }))
	check("/api/v1/error-codes?provider=openai&category=rate_limit&retryable_only=true&http_status=429", catWhere(recs, func(r gfError) bool {
		return r.ProviderID == "openai" && r.Category == "rate_limit" && r.Retryable && r.Status == 429
	}))
	check("/api/v1/error-codes?provider=cartesia", []gfError{}) // a known provider without documented errors here

	catRefused(t, s, "/api/v1/error-codes?provider=nope", 404, "provider")
	catRefused(t, s, "/api/v1/error-codes?category=quota", 400, "category")
	catRefused(t, s, "/api/v1/error-codes?http_status=99", 400, "http_status")
	catRefused(t, s, "/api/v1/error-codes?http_status=600", 400, "http_status")
	catRefused(t, s, "/api/v1/error-codes?retryable_only=yes", 400, "retryable_only")
}

func testRateLimitRecovery(t *testing.T, s *apitest.Server) {
	type rec struct {
		ProviderID string `json:"provider_id"`
		Base       int    `json:"base_delay_ms"`
	}
	recs, file := catFile[rec](t, "rate_limit_recovery")
	slices.SortFunc(recs, func(a, b rec) int { return strings.Compare(a.ProviderID, b.ProviderID) })
	check := func(path string, want []rec) {
		t.Helper()
		b := catGet[api.RateLimitRecoveryResponse](t, s, path)
		got := catKeys(b.RateLimitRecovery, func(r api.RateLimitRecoveryRecord) string { return fmt.Sprint(r.ProviderId, "/", r.BaseDelayMs) })
		catSame(t, path, got, catKeys(want, func(r rec) string { return fmt.Sprint(r.ProviderID, "/", r.Base) }))
		catMeta(t, path, file, b.Meta.AsOf.String(), b.Meta.Sources, answerRecords(b))
	}
	if len(recs) != seeds.MonitoredProviders {
		t.Fatalf("rate_limit_recovery: %d records, want one per provider", len(recs))
	}
	check("/api/v1/rate-limit-recovery", recs)
	for _, p := range []string{"anthropic", "groq", "fal"} {
		check("/api/v1/rate-limit-recovery?provider="+p, catWhere(recs, func(r rec) bool { return r.ProviderID == p }))
	}
	catRefused(t, s, "/api/v1/rate-limit-recovery?provider=nope", 404, "provider")
	catRefused(t, s, "/api/v1/rate-limit-recovery?provider=", 400, "provider")
}

// gfTop15 are the 15 most used LLM providers (the first 15 of providers.json), written out independently.
var gfTop15 = []string{"openai", "anthropic", "google-gemini", "google-vertex-ai", "aws-bedrock", "azure-openai", "mistral",
	"cohere", "groq", "together", "fireworks", "deepseek", "perplexity", "xai", "openrouter"}

func testMigrationGuide(t *testing.T, s *apitest.Server) {
	// The rules are unit-tested in catalogbuild/derive; here the guides they built (seeds/catalogs/migration_guide.json) are the expectation, and the checks
	// are the endpoint's: which guides each parameter keeps, in which order, with which meta.
	built, err := seeds.LoadCatalog("migration_guide")
	if err != nil {
		t.Fatal(err)
	}
	guides, err := seeds.Records[api.MigrationGuideRecord](built)
	if err != nil {
		t.Fatal(err)
	}
	rank := map[string]int{"drop_in": 0, "easy": 1, "moderate": 2, "hard": 3}
	slices.SortFunc(guides, func(a, b api.MigrationGuideRecord) int {
		return cmp.Or(cmp.Compare(rank[string(a.Difficulty)], rank[string(b.Difficulty)]), strings.Compare(a.FromProvider, b.FromProvider),
			strings.Compare(a.ToProvider, b.ToProvider))
	})
	if len(guides) != 210 {
		t.Fatalf("%d guides, want 210", len(guides))
	}
	// Every ordered pair of the 15, once.
	pairs := map[string]bool{}
	for _, g := range guides {
		pairs[g.FromProvider+">"+g.ToProvider] = true
	}
	for _, a := range gfTop15 {
		for _, b := range gfTop15 {
			if a != b && !pairs[a+">"+b] {
				t.Errorf("no guide %s -> %s", a, b)
			}
		}
	}
	key := func(g api.MigrationGuideRecord) string {
		return g.FromProvider + ">" + g.ToProvider + ":" + string(g.Difficulty)
	}
	check := func(path string, want []api.MigrationGuideRecord) {
		t.Helper()
		b := catGet[api.MigrationGuideResponse](t, s, path)
		got := catKeys(b.MigrationGuides, func(r api.MigrationGuideRecord) string {
			return r.FromProvider + ">" + r.ToProvider + ":" + string(r.Difficulty)
		})
		catSame(t, path, got, catKeys(want, key))
		catMeta(t, path, built, b.Meta.AsOf.String(), b.Meta.Sources, b.MigrationGuides)
		// The answer carries the whole guide, not just its keys.
		for i, r := range b.MigrationGuides {
			if i < len(want) && (r.AuthChange != want[i].AuthChange || len(r.ParamChanges) != len(want[i].ParamChanges) ||
				!slices.Equal(r.MissingFeatures, want[i].MissingFeatures) || !slices.Equal(r.Gotchas, want[i].Gotchas)) {
				t.Errorf("%s guide %d differs from the rules' output", path, i)
			}
		}
	}
	where := func(keep func(api.MigrationGuideRecord) bool) []api.MigrationGuideRecord {
		return catWhere(guides, keep)
	}
	check("/api/v1/migration-guide?from=openai", where(func(g api.MigrationGuideRecord) bool { return g.FromProvider == "openai" }))
	check("/api/v1/migration-guide?to=anthropic", where(func(g api.MigrationGuideRecord) bool { return g.ToProvider == "anthropic" }))
	check("/api/v1/migration-guide?from=openai&to=anthropic", where(func(g api.MigrationGuideRecord) bool {
		return g.FromProvider == "openai" && g.ToProvider == "anthropic"
	}))
	check("/api/v1/migration-guide?from=openai&to=openai", []api.MigrationGuideRecord{})
	for lvl, r := range rank {
		for _, p := range []string{"from=openai", "to=groq", "from=anthropic"} {
			field := strings.SplitN(p, "=", 2)
			check("/api/v1/migration-guide?"+p+"&max_difficulty="+lvl, where(func(g api.MigrationGuideRecord) bool {
				side := g.FromProvider
				if field[0] == "to" {
					side = g.ToProvider
				}
				return side == field[1] && rank[string(g.Difficulty)] <= r
			}))
		}
	}
	dropIn := where(func(g api.MigrationGuideRecord) bool {
		return g.FromProvider == "openai" && g.Difficulty == api.MigrationGuideDifficultyDropIn
	})
	catSplits(t, "drop_in_only from openai", dropIn, where(func(g api.MigrationGuideRecord) bool { return g.FromProvider == "openai" }))
	check("/api/v1/migration-guide?from=openai&drop_in_only=true", dropIn)
	check("/api/v1/migration-guide?from=openai&drop_in_only=false", where(func(g api.MigrationGuideRecord) bool { return g.FromProvider == "openai" }))
	check("/api/v1/migration-guide?to=openai&drop_in_only=true&max_difficulty=hard", where(func(g api.MigrationGuideRecord) bool {
		return g.ToProvider == "openai" && g.Difficulty == api.MigrationGuideDifficultyDropIn
	}))
	// A known provider outside the 15 has no guides.
	check("/api/v1/migration-guide?from=cerebras", []api.MigrationGuideRecord{})
	check("/api/v1/migration-guide?to=elevenlabs&from=openai", []api.MigrationGuideRecord{})

	catRefused(t, s, "/api/v1/migration-guide", 400, "from and to")
	catRefused(t, s, "/api/v1/migration-guide?max_difficulty=easy", 400, "from and to")
	catRefused(t, s, "/api/v1/migration-guide?from=nope", 404, "parameter from")
	catRefused(t, s, "/api/v1/migration-guide?from=openai&to=nope", 404, "parameter to")
	catRefused(t, s, "/api/v1/migration-guide?from=openai&max_difficulty=trivial", 400, "max_difficulty")
	catRefused(t, s, "/api/v1/migration-guide?from=openai&drop_in_only=1x", 400, "drop_in_only")
	catRefused(t, s, "/api/v1/migration-guide?from=", 400, "from")
}
