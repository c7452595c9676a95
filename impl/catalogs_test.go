package impl_test

import (
	"cmp"
	"context"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard/switchboard/apitest"
	"github.com/switchboard/switchboard/dbtest"
	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/impl"
	"github.com/switchboard/switchboard/seeds"
)

// The expectations below are computed from the seeds records with plain loops, independently of package
// catalog, and compared with the answers in full (which records, in which order).

// TestCatalogEndpoints runs the catalog contract on every engine (the catalogs do not touch the store, but the
// server under test is the whole service).
func TestCatalogEndpoints(t *testing.T) {
	for _, e := range dbtest.Engines(t) {
		t.Run(e.Name, func(t *testing.T) {
			st, _ := e.Open(t)
			day := buildDay(t)
			s := apitest.Start(t, apitest.Options{Store: st, Deps: func(d *impl.Deps) { d.Now = func() time.Time { return day } }})
			t.Run("Pricing", func(t *testing.T) { testPricing(t, s) })
			t.Run("Models", func(t *testing.T) { testModels(t, s) })
			t.Run("RateLimits", func(t *testing.T) { testRateLimits(t, s) })
			t.Run("Benchmarks", func(t *testing.T) { testBenchmarks(t, s) })
			t.Run("FreeTier", func(t *testing.T) { testFreeTier(t, s) })
		})
	}
}

// catGet gets path, expecting 200, and decodes the answer.
func catGet[T any](t *testing.T, s *apitest.Server, path string) T {
	t.Helper()
	r := s.Get(path)
	if r.Status != 200 {
		t.Fatalf("GET %s: %d %s", path, r.Status, r.Body)
	}
	var v T
	r.Decode(t, &v)
	return v
}

// catRefused checks that path answers status with an error naming what.
func catRefused(t *testing.T, s *apitest.Server, path string, status int, what string) {
	t.Helper()
	r := s.Get(path)
	if r.Status != status {
		t.Errorf("GET %s: %d %s, want %d", path, r.Status, r.Body, status)
		return
	}
	if msg := r.Error(t); !strings.Contains(msg, what) {
		t.Errorf("GET %s: error %q does not name %q", path, msg, what)
	}
}

// catSame compares two key lists in full.
func catSame(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s: got %d records, want %d\n got: %.400v\nwant: %.400v", what, len(got), len(want), got, want)
	}
}

func catKeys[T any](recs []T, key func(T) string) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = key(r)
	}
	return out
}

func catWhere[T any](recs []T, keep func(T) bool) []T {
	var out []T
	for _, r := range recs {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out
}

// catAnswer is what the checks read from a catalog answer: its records' keys and its meta.
type catAnswer struct {
	keys    []string
	asOf    string
	sources []api.Source
	count   int
}

// catLoad reads a catalog's records from seeds, in the order the endpoint is expected to list them.
func catLoad[S any](t *testing.T, load func() ([]S, error), order func(a, b S) int) []S {
	t.Helper()
	recs, err := load()
	if err != nil {
		t.Fatal(err)
	}
	slices.SortStableFunc(recs, order)
	return recs
}

// catChecker returns the check of one endpoint: GET path answers exactly the records want, in that order, and a
// meta matching the catalog file with a count equal to the records returned.
func catChecker[B, S any](t *testing.T, s *apitest.Server, name string, key func(S) string, read func(B) catAnswer) func(string, []S) {
	c, err := seeds.LoadCatalog(name)
	if err != nil {
		t.Fatal(err)
	}
	return func(path string, want []S) {
		t.Helper()
		body := catGet[B](t, s, path)
		a := read(body)
		catSame(t, path, a.keys, catKeys(want, key))
		if a.count != len(a.keys) {
			t.Errorf("%s meta: count %d for %d records", path, a.count, len(a.keys))
		}
		catMeta(t, path, c, a.asOf, a.sources, answerRecords(body))
	}
}

// catMeta checks an answer's as_of and sources against the catalog file: the sources are the file's that the
// answer's records cite (records is the answer's list), in the file's order; all of them for records without
// source ids.
func catMeta(t *testing.T, path string, c *seeds.Catalog, asOf string, sources []api.Source, records any) {
	t.Helper()
	want := citedSources(t, c, records)
	if asOf != c.AsOf || len(sources) != len(want) {
		t.Errorf("%s meta: as_of %s (file %s), %d sources (the records cite %d of the file's %d)", path, asOf, c.AsOf,
			len(sources), len(want), len(c.Sources))
		return
	}
	for i, src := range sources {
		if src.Id != want[i].ID || src.Name != want[i].Name || src.Url != want[i].URL {
			t.Errorf("%s source %d: %+v, want %+v", path, i, src, want[i])
		}
	}
}

// answerRecords is the list of a decoded catalog answer: its longest slice field.
func answerRecords(body any) any {
	v := reflect.ValueOf(body)
	var best reflect.Value
	for i := range v.NumField() {
		if f := v.Field(i); f.Kind() == reflect.Slice && (!best.IsValid() || f.Len() > best.Len()) {
			best = f
		}
	}
	if !best.IsValid() {
		return nil
	}
	return best.Interface()
}

// citedSources are the file's sources that records cite (each record's Sources field, or "sources" key of a
// decoded object), in the file's order; every source when no record carries source ids. Reflection, not the
// handlers' code, reads the ids.
func citedSources(t *testing.T, c *seeds.Catalog, records any) []seeds.Source {
	t.Helper()
	cited, carry := map[string]bool{}, false
	add := func(v reflect.Value) {
		for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
			if v.IsNil() {
				return
			}
			v = v.Elem()
		}
		if v.Kind() != reflect.Slice {
			return
		}
		carry = true
		for i := range v.Len() {
			e := v.Index(i)
			if e.Kind() == reflect.Interface {
				e = e.Elem()
			}
			cited[e.String()] = true
		}
	}
	list := reflect.ValueOf(records)
	if list.Kind() != reflect.Slice {
		return c.Sources
	}
	for i := range list.Len() {
		r := list.Index(i)
		if r.Kind() == reflect.Interface {
			r = r.Elem()
		}
		switch r.Kind() {
		case reflect.Struct:
			if f := r.FieldByName("Sources"); f.IsValid() {
				add(f)
			}
		case reflect.Map:
			if f := r.MapIndex(reflect.ValueOf("sources")); f.IsValid() {
				add(f)
			}
		}
	}
	if !carry && list.Len() > 0 {
		return c.Sources
	}
	var out []seeds.Source
	for _, s := range c.Sources {
		if cited[s.ID] {
			out = append(out, s)
		}
	}
	return out
}

// catFile decodes the records of a seeds catalog file into the test's own type T (never the handlers' types, so
// that the expectations do not share their decoding), with the file's envelope for the meta checks.
func catFile[T any](t *testing.T, name string) ([]T, *seeds.Catalog) {
	t.Helper()
	c, err := seeds.LoadCatalog(name)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := seeds.Records[T](c)
	if err != nil {
		t.Fatal(err)
	}
	return recs, c
}

// catSorted is catFile's records sorted by order: the endpoint's order is checked against it, not taken from
// the file.
func catSorted[T any](t *testing.T, name string, order func(a, b T) int) []T {
	t.Helper()
	recs, _ := catFile[T](t, name)
	slices.SortStableFunc(recs, order)
	return recs
}

// catSplits makes sure a filter's expectation tells it apart from no filter: it keeps some records and drops
// others, so a filter that does nothing (or everything) fails. It returns kept, to be checked inline.
func catSplits[T any](t *testing.T, what string, kept, all []T) []T {
	t.Helper()
	if len(kept) == 0 || len(kept) == len(all) {
		t.Fatalf("%s keeps %d of %d records: the test data no longer tells the filter apart", what, len(kept), len(all))
	}
	return kept
}

// catByKey orders records by one string key (a provider ID, mostly).
func catByKey[T any](key func(T) string) func(a, b T) int {
	return func(a, b T) int { return strings.Compare(key(a), key(b)) }
}

// catNilLast orders optional values ascending, or descending with desc, and unknown ones last either way.
func catNilLast[T cmp.Ordered](a, b *T, desc bool) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	case desc:
		return cmp.Compare(*b, *a)
	}
	return cmp.Compare(*a, *b)
}

// catTrue and catFalse read a nullable boolean: unknown is neither.
func catTrue(b *bool) bool  { return b != nil && *b }
func catFalse(b *bool) bool { return b != nil && !*b }

func testPricing(t *testing.T, s *apitest.Server) {
	natural := func(a, b seeds.PricingRecord) int {
		return cmp.Or(strings.Compare(a.ProviderId, b.ProviderId), strings.Compare(a.Model, b.Model))
	}
	recs := catLoad(t, seeds.PricingRecords, natural)
	check := catChecker(t, s, seeds.CatalogPricing, func(r seeds.PricingRecord) string { return r.ProviderId + "/" + r.Model },
		func(b api.PricingResponse) catAnswer {
			keys := catKeys(b.Pricing, func(r api.PricingRecord) string { return r.ProviderId + "/" + r.Model })
			return catAnswer{keys, b.Meta.AsOf.String(), b.Meta.Sources, b.Meta.Count}
		})
	check("/api/v1/pricing", recs)
	check("/api/v1/pricing?free_only=false&compare=false", recs)
	check("/api/v1/pricing?provider=openai", catWhere(recs, func(r seeds.PricingRecord) bool { return r.ProviderId == "openai" }))
	check("/api/v1/pricing?task=image", catWhere(recs, func(r seeds.PricingRecord) bool { return r.Task == "image" }))
	check("/api/v1/pricing?task=agent", nil) // a task no record has: empty, not an error
	check("/api/v1/pricing?free_only=true", catWhere(recs, func(r seeds.PricingRecord) bool { return r.FreeTier }))
	check("/api/v1/pricing?provider=openai&task=embedding", catWhere(recs, func(r seeds.PricingRecord) bool {
		return r.ProviderId == "openai" && r.Task == "embedding"
	}))
	// compare: token-priced models only, cheapest input first, ties by provider then model.
	tokenPriced := catWhere(recs, func(r seeds.PricingRecord) bool { return r.Pricing.InputPer1mTokens != nil })
	slices.SortStableFunc(tokenPriced, func(a, b seeds.PricingRecord) int {
		return cmp.Or(cmp.Compare(*a.Pricing.InputPer1mTokens, *b.Pricing.InputPer1mTokens), natural(a, b))
	})
	catSplits(t, "compare", tokenPriced, recs)
	check("/api/v1/pricing?compare=true", tokenPriced)
	check("/api/v1/pricing?compare=true&free_only=true", catWhere(tokenPriced, func(r seeds.PricingRecord) bool { return r.FreeTier }))
	check("/api/v1/pricing?provider=xai", catWhere(recs, func(r seeds.PricingRecord) bool { return r.ProviderId == "xai" }))

	catRefused(t, s, "/api/v1/pricing?provider=nope", 404, "provider")
	catRefused(t, s, "/api/v1/pricing?task=poetry", 400, "task")
	catRefused(t, s, "/api/v1/pricing?free_only=maybe", 400, "free_only")
	catRefused(t, s, "/api/v1/pricing?compare=1x", 400, "compare")
}

func testModels(t *testing.T, s *apitest.Server) {
	type m = seeds.ModelRecord
	recs := catLoad(t, seeds.ModelRecords, func(a, b m) int {
		return cmp.Or(strings.Compare(a.ProviderId, b.ProviderId), strings.Compare(a.ModelId, b.ModelId))
	})
	check := catChecker(t, s, seeds.CatalogModels, func(r m) string { return r.ProviderId + "/" + r.ModelId }, func(b api.ModelsResponse) catAnswer {
		return catAnswer{catKeys(b.Models, func(r api.ModelRecord) string { return r.ProviderId + "/" + r.ModelId }), b.Meta.AsOf.String(),
			b.Meta.Sources, b.Meta.Count}
	})
	check("/api/v1/models", recs)
	check("/api/v1/models?vision=false&function_calling=false&json_mode=false&min_context=0", recs)
	check("/api/v1/models?provider=anthropic", catWhere(recs, func(r m) bool { return r.ProviderId == "anthropic" }))
	check("/api/v1/models?task=multimodal", catWhere(recs, func(r m) bool { return r.Task == "multimodal" }))
	check("/api/v1/models?vision=true", catWhere(recs, func(r m) bool { return isTrue(r.Capabilities.Vision) }))
	check("/api/v1/models?function_calling=true", catWhere(recs, func(r m) bool { return isTrue(r.Capabilities.FunctionCalling) }))
	check("/api/v1/models?json_mode=true", catWhere(recs, func(r m) bool { return isTrue(r.Capabilities.JsonMode) }))
	// min_context drops models with an unknown window as well as smaller ones.
	check("/api/v1/models?min_context=200000", catWhere(recs, func(r m) bool { return r.ContextWindow != nil && *r.ContextWindow >= 200000 }))
	check("/api/v1/models?min_context=1", catWhere(recs, func(r m) bool { return r.ContextWindow != nil && *r.ContextWindow >= 1 }))
	check("/api/v1/models?provider=openai&task=llm&vision=true&function_calling=true&json_mode=true&min_context=100000",
		catWhere(recs, func(r m) bool {
			return r.ProviderId == "openai" && r.Task == "llm" && isTrue(r.Capabilities.Vision) && isTrue(r.Capabilities.FunctionCalling) &&
				isTrue(r.Capabilities.JsonMode) && r.ContextWindow != nil && *r.ContextWindow >= 100000
		}))

	catRefused(t, s, "/api/v1/models?provider=nope", 404, "provider")
	catRefused(t, s, "/api/v1/models?task=search", 400, "task") // a Task value that is not a ModelTask
	catRefused(t, s, "/api/v1/models?vision=yes", 400, "vision")
	catRefused(t, s, "/api/v1/models?min_context=-1", 400, "min_context")
	catRefused(t, s, "/api/v1/models?min_context=100000001", 400, "min_context")
}

func testRateLimits(t *testing.T, s *apitest.Server) {
	type r = seeds.RateLimitRecord
	byTier := func(a, b r) int {
		return cmp.Or(strings.Compare(a.ProviderId, b.ProviderId), strings.Compare(a.Tier, b.Tier))
	}
	tierKey := func(x r) string { return x.ProviderId + "/" + x.Tier }
	read := func(b api.RateLimitsResponse) catAnswer {
		keys := catKeys(b.RateLimits, func(x api.RateLimitTier) string { return x.ProviderId + "/" + x.Tier })
		return catAnswer{keys: keys, asOf: b.Meta.AsOf.String(), sources: b.Meta.Sources, count: b.Meta.Count}
	}
	recs, check := catLoad(t, seeds.RateLimitRecords, byTier), catChecker(t, s, seeds.CatalogRateLimits, tierKey, read)
	check("/api/v1/rate-limits", recs)
	check("/api/v1/rate-limits?free_only=false&min_rpm=0", recs)
	check("/api/v1/rate-limits?provider=anthropic", catWhere(recs, func(x r) bool { return x.ProviderId == "anthropic" }))
	check("/api/v1/rate-limits?tier=tier", catWhere(recs, func(x r) bool { return strings.Contains(x.Tier, "tier") }))
	check("/api/v1/rate-limits?tier=TIER1", catWhere(recs, func(x r) bool { return x.Tier == "tier1" }))
	check("/api/v1/rate-limits?tier=no-such-tier", nil)
	check("/api/v1/rate-limits?free_only=true", catWhere(recs, func(x r) bool {
		return x.Tier == "free" || strings.HasPrefix(x.Tier, "free-") || x.Tier == "trial"
	}))
	check("/api/v1/rate-limits?min_rpm=500", catWhere(recs, func(x r) bool {
		return x.Limits.RequestsPerMinute != nil && *x.Limits.RequestsPerMinute >= 500
	}))
	check("/api/v1/rate-limits?provider=perplexity&tier=tier&min_rpm=150", catWhere(recs, func(x r) bool {
		return x.ProviderId == "perplexity" && strings.Contains(x.Tier, "tier") && x.Limits.RequestsPerMinute != nil &&
			*x.Limits.RequestsPerMinute >= 150
	}))

	catRefused(t, s, "/api/v1/rate-limits?provider=nope", 404, "provider")
	catRefused(t, s, "/api/v1/rate-limits?tier=", 400, "tier")
	catRefused(t, s, "/api/v1/rate-limits?tier="+strings.Repeat("x", 51), 400, "tier")
	catRefused(t, s, "/api/v1/rate-limits?min_rpm=-1", 400, "min_rpm")
	catRefused(t, s, "/api/v1/rate-limits?free_only=2", 400, "free_only")
}

// catTaskMetrics reads the task -> metric mapping from the document's description of the `task` parameter.
func catTaskMetrics(t *testing.T, s *apitest.Server) map[string]string {
	t.Helper()
	op := s.Doc.Paths.Find("/benchmarks").Get
	p := op.Parameters.GetByInAndName("query", "task")
	out := map[string]string{}
	for _, m := range regexp.MustCompile(`(\w+) -> (\w+)`).FindAllStringSubmatch(p.Description, -1) {
		out[m[1]] = m[2]
	}
	if len(out) != len(p.Schema.Value.Enum) {
		t.Fatalf("the task description maps %d tasks, the enum has %d", len(out), len(p.Schema.Value.Enum))
	}
	return out
}

func testBenchmarks(t *testing.T, s *apitest.Server) {
	recs, err := seeds.BenchmarkRecords() // each expectation sorts its own copy
	if err != nil {
		t.Fatal(err)
	}
	limitParam := s.Doc.Paths.Find("/benchmarks").Get.Parameters.GetByInAndName("query", "limit")
	docLimit := int(limitParam.Schema.Value.Default.(float64))
	key := func(r seeds.BenchmarkRecord) string { return r.ProviderId + "/" + r.ModelId }
	got := func(r api.BenchmarksRecord) string { return r.ProviderId + "/" + r.ModelId }
	// sorted is the records best first by metric, those without it last, ties by provider then model.
	sorted := func(metric string, keep func(seeds.BenchmarkRecord) bool, limit int) []seeds.BenchmarkRecord {
		out := catWhere(recs, keep)
		slices.SortStableFunc(out, func(a, b seeds.BenchmarkRecord) int {
			va, oka := a.Scores[metric]
			vb, okb := b.Scores[metric]
			switch {
			case oka != okb && oka:
				return -1
			case oka != okb:
				return 1
			}
			return cmp.Or(cmp.Compare(vb, va), strings.Compare(a.ProviderId, b.ProviderId), strings.Compare(a.ModelId, b.ModelId))
		})
		return out[:min(limit, len(out))]
	}
	all := func(seeds.BenchmarkRecord) bool { return true }
	var sortedBy api.BenchmarksMetric
	records := catChecker(t, s, seeds.CatalogBenchmarks, key, func(b api.BenchmarksResponse) catAnswer {
		sortedBy = b.Meta.SortedBy
		return catAnswer{catKeys(b.Benchmarks, got), b.Meta.AsOf.String(), b.Meta.Sources, b.Meta.Count}
	})
	check := func(path, metric string, want []seeds.BenchmarkRecord) {
		t.Helper()
		if records(path, want); string(sortedBy) != metric {
			t.Errorf("%s: sorted_by %s, want %s", path, sortedBy, metric)
		}
	}
	if len(recs) <= docLimit {
		t.Fatalf("%d benchmark records: the default limit %d is not exercised", len(recs), docLimit)
	}
	check("/api/v1/benchmarks", "mmlu", sorted("mmlu", all, docLimit))
	check("/api/v1/benchmarks?limit=50", "mmlu", sorted("mmlu", all, 50))
	check("/api/v1/benchmarks?limit=1", "mmlu", sorted("mmlu", all, 1))
	for task, metric := range catTaskMetrics(t, s) {
		check("/api/v1/benchmarks?limit=50&task="+task, metric, sorted(metric, all, 50))
	}
	// sort_by wins over task.
	check("/api/v1/benchmarks?task=coding&sort_by=gpqa", "gpqa", sorted("gpqa", all, docLimit))
	check("/api/v1/benchmarks?sort_by=humaneval&limit=50", "humaneval", sorted("humaneval", all, 50))
	check("/api/v1/benchmarks?provider=openai&sort_by=math", "math", sorted("math", func(r seeds.BenchmarkRecord) bool { return r.ProviderId == "openai" }, docLimit))
	check("/api/v1/benchmarks?provider=cartesia", "mmlu", nil) // a known provider without benchmarks

	catRefused(t, s, "/api/v1/benchmarks?provider=nope", 404, "provider")
	catRefused(t, s, "/api/v1/benchmarks?limit=0", 400, "limit")
	catRefused(t, s, "/api/v1/benchmarks?limit=51", 400, "limit")
	catRefused(t, s, "/api/v1/benchmarks?task=poetry", 400, "task")
	catRefused(t, s, "/api/v1/benchmarks?sort_by=elo", 400, "sort_by")
}

func testFreeTier(t *testing.T, s *apitest.Server) {
	recs := catLoad(t, seeds.FreeTierRecords, func(a, b seeds.FreeTierRecord) int { return strings.Compare(a.ProviderId, b.ProviderId) })
	tierIs := func(r seeds.FreeTierRecord, kind string) bool { return r.TierType != nil && *r.TierType == kind }
	var m api.FreeTierMeta
	records := catChecker(t, s, seeds.CatalogFreeTier, func(r seeds.FreeTierRecord) string { return r.ProviderId },
		func(b api.FreeTierResponse) catAnswer {
			m = b.Meta // free-tier meta has no count: the records returned are the count
			return catAnswer{catKeys(b.FreeTiers, func(r api.FreeTierRecord) string { return r.ProviderId }), m.AsOf.String(), m.Sources, len(b.FreeTiers)}
		})
	check := func(path string, want []seeds.FreeTierRecord) {
		t.Helper()
		records(path, want)
		perm := len(catWhere(want, func(r seeds.FreeTierRecord) bool { return tierIs(r, "permanent") }))
		trial := len(catWhere(want, func(r seeds.FreeTierRecord) bool { return tierIs(r, "trial_credit") }))
		none := len(catWhere(want, func(r seeds.FreeTierRecord) bool { return catFalse(r.HasFreeTier) }))
		if m.PermanentFreeCount != perm || m.TrialCreditCount != trial || m.NoFreeAccessCount != none {
			t.Errorf("%s: meta counts %d/%d/%d, records say %d/%d/%d", path, m.PermanentFreeCount, m.TrialCreditCount,
				m.NoFreeAccessCount, perm, trial, none)
		}
	}
	type f = seeds.FreeTierRecord
	check("/api/v1/free-tier", recs)
	check("/api/v1/free-tier?permanent_only=false", recs)
	check("/api/v1/free-tier?provider=groq", catWhere(recs, func(r f) bool { return r.ProviderId == "groq" }))
	check("/api/v1/free-tier?permanent_only=true", catWhere(recs, func(r f) bool { return tierIs(r, "permanent") }))
	check("/api/v1/free-tier?has_free_tier=true", catWhere(recs, func(r f) bool { return catTrue(r.HasFreeTier) }))
	check("/api/v1/free-tier?has_free_tier=false", catWhere(recs, func(r f) bool { return catFalse(r.HasFreeTier) }))
	check("/api/v1/free-tier?has_free_tier=false&permanent_only=true", nil)
	check("/api/v1/free-tier?provider=openai&has_free_tier=true", catWhere(recs, func(r f) bool { return r.ProviderId == "openai" && catTrue(r.HasFreeTier) }))

	catRefused(t, s, "/api/v1/free-tier?provider=nope", 404, "provider")
	catRefused(t, s, "/api/v1/free-tier?has_free_tier=maybe", 400, "has_free_tier")
	catRefused(t, s, "/api/v1/free-tier?permanent_only=maybe", 400, "permanent_only")
}

// BenchmarkHandlers measures each catalog handler's default query (and a filtered one), and the token
// estimate on a 1,000-character text: handler time only, without HTTP or encoding.
func BenchmarkHandlers(b *testing.B) {
	srv := impl.New(impl.Deps{})
	ctx := context.Background()
	text := strings.Repeat("Switchboard tells agents which provider to call. ", 20)
	for _, c := range []struct {
		name string
		call func() (any, error)
	}{
		{"pricing", func() (any, error) { return srv.GetPricing(ctx, api.GetPricingRequestObject{}) }},
		{"pricing_compare", func() (any, error) {
			return srv.GetPricing(ctx, api.GetPricingRequestObject{Params: api.GetPricingParams{Compare: catPtr(true)}})
		}},
		{"models", func() (any, error) { return srv.GetModels(ctx, api.GetModelsRequestObject{}) }},
		{"models_vision", func() (any, error) {
			return srv.GetModels(ctx, api.GetModelsRequestObject{Params: api.GetModelsParams{Vision: catPtr(true)}})
		}},
		{"rate_limits", func() (any, error) { return srv.GetRateLimits(ctx, api.GetRateLimitsRequestObject{}) }},
		{"benchmarks", func() (any, error) { return srv.GetBenchmarks(ctx, api.GetBenchmarksRequestObject{}) }},
		{"free_tier", func() (any, error) { return srv.GetFreeTier(ctx, api.GetFreeTierRequestObject{}) }},
		{"token_estimate_openai", func() (any, error) {
			return srv.EstimateTokens(ctx, api.EstimateTokensRequestObject{Body: &api.TokenEstimateRequest{Text: text, Provider: catPtr("openai")}})
		}},
		{"token_estimate_all", func() (any, error) {
			return srv.EstimateTokens(ctx, api.EstimateTokensRequestObject{Body: &api.TokenEstimateRequest{Text: text}})
		}},
	} {
		if _, err := c.call(); err != nil { // build the catalogs and load the vocabularies outside the timing
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := c.call(); err != nil {
					b.Fatal(fmt.Errorf("%s: %w", c.name, err))
				}
			}
		})
	}
}

func catPtr[T any](v T) *T { return &v }

// buildDay is the day the catalogs were built for (the deprecations catalog's as_of): every shutdown the files
// announce is after it.
func buildDay(t *testing.T) time.Time {
	t.Helper()
	c, err := seeds.LoadCatalog("deprecations")
	if err != nil {
		t.Fatal(err)
	}
	d, err := time.Parse(time.DateOnly, c.AsOf)
	if err != nil {
		t.Fatal(err)
	}
	return d.Add(12 * time.Hour)
}

// catServer starts the server at the catalogs' build day, so that answers are the files as built: no shutdown
// they announce has come yet. TestShutdownDayAtReadTime covers the days after.
func catServer(t *testing.T) *apitest.Server {
	t.Helper()
	day := buildDay(t)
	return apitest.Start(t, apitest.Options{Deps: func(d *impl.Deps) { d.Now = func() time.Time { return day } }})
}

// isTrue is a capability the catalog states the model has (null is unknown).
func isTrue(b *bool) bool { return b != nil && *b }
