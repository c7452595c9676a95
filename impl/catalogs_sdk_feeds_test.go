package impl_test

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard/switchboard/apitest"
	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/impl"
	"github.com/switchboard/switchboard/seeds"
)

// The the SDK and change-feed catalogs expectations decode the seeds files into the local types below, with plain loops, independently of
// package catalog and of the handlers' helpers.

// TestSDKFeedsCatalogs runs the the SDK and change-feed catalogs catalog endpoints against the real server.
func TestSDKFeedsCatalogs(t *testing.T) {
	s := apitest.Start(t, apitest.Options{})
	t.Run("SdkSupport", func(t *testing.T) { testSdkSupport(t, s) })
	t.Run("FunctionCalling", func(t *testing.T) { testFunctionCalling(t, s) })
	t.Run("LogprobSupport", func(t *testing.T) { testLogprobSupport(t, s) })
	t.Run("WebsocketSupport", func(t *testing.T) { testWebsocketSupport(t, s) })
	t.Run("StreamingLatency", func(t *testing.T) { testStreamingLatency(t, s) })
	t.Run("EmbeddingQuality", func(t *testing.T) { testEmbeddingQuality(t, s) })
	t.Run("ApiChangelogToday", func(t *testing.T) { testAPIChangelog(t, s, time.Now().UTC()) })
	// The feed's data ends in 2026: a server whose clock is inside it exercises the window with entries in it.
	at := time.Date(2026, 7, 1, 15, 4, 5, 0, time.UTC)
	past := apitest.Start(t, apitest.Options{Deps: func(d *impl.Deps) { d.Now = func() time.Time { return at } }})
	t.Run("ApiChangelogInData", func(t *testing.T) { testAPIChangelog(t, past, at) })
	t.Run("ApiChangelogThisMonth", testAPIChangelogThisMonth)
	t.Run("ApiChangelogFutureShutdown", testAPIChangelogFutureShutdown)
}

// atClock is a server whose clock reads at.
func atClock(t *testing.T, at time.Time) *apitest.Server {
	return apitest.Start(t, apitest.Options{Deps: func(d *impl.Deps) { d.Now = func() time.Time { return at } }})
}

// testAPIChangelogThisMonth reads the default window on 2026-11-28, the day the issue was filed: the providers'
// pages hold shutdowns of the month, so the window is not empty, and every entry is within the last 30 days.
func testAPIChangelogThisMonth(t *testing.T) {
	at := time.Date(2026, 11, 28, 9, 30, 0, 0, time.UTC)
	s := atClock(t, at)
	testAPIChangelog(t, s, at)
	b := catGet[api.ApiChangelogResponse](t, s, "/api/v1/changelog/api?limit=200")
	if len(b.Changelog) == 0 {
		t.Fatal("the default window on 2026-11-28 is empty")
	}
	verified := 0
	for _, x := range b.Changelog {
		d := x.Date.Format(time.DateOnly)
		if d > "2026-11-28" || d < "2026-10-29" {
			t.Errorf("%s %s: dated %s, outside the 30 days to 2026-11-28", x.ProviderId, x.Title, d)
		}
		if x.Confidence == api.ConfidenceVerified {
			verified++
			if x.SourceUrl == nil || len(x.Sources) == 0 {
				t.Errorf("%s %s: a provider page's fact without its page", x.ProviderId, x.Title)
			}
		}
	}
	if verified == 0 {
		t.Error("no entry of the window comes from a provider's page")
	}
}

// testAPIChangelogFutureShutdown takes a shutdown the catalog holds for a day after 2026-11-28 and reads the feed
// the day before it and on it: the entry is served from its day on, not before.
func testAPIChangelogFutureShutdown(t *testing.T) {
	recs, _ := catFile[gaChange](t, "api_changelog")
	var future *gaChange
	for i, r := range recs {
		if r.ChangeType == "deprecation" && r.Date > "2026-11-28" && strings.HasPrefix(r.Title, "Model shutdown: ") {
			future = &recs[i]
			break
		}
	}
	if future == nil {
		t.Fatal("the catalog holds no shutdown after 2026-11-28")
	}
	day, err := time.Parse(time.DateOnly, future.Date)
	if err != nil {
		t.Fatal(err)
	}
	path := "/api/v1/changelog/api?days=1&type=deprecation&limit=200&provider=" + future.ProviderID
	served := func(at time.Time) bool {
		for _, x := range catGet[api.ApiChangelogResponse](t, atClock(t, at), path).Changelog {
			if x.Title == future.Title && x.Date.Format(time.DateOnly) == future.Date {
				return true
			}
		}
		return false
	}
	if served(day.Add(-time.Minute)) {
		t.Errorf("%s %s served before its day %s", future.ProviderID, future.Title, future.Date)
	}
	if !served(day.Add(12 * time.Hour)) {
		t.Errorf("%s %s not served on its day %s", future.ProviderID, future.Title, future.Date)
	}
}

type gaSDK struct {
	Language    string `json:"language"`
	PackageName string `json:"package_name"`
	Official    bool   `json:"official"`
}

type gaSDKRecord struct {
	ProviderID string  `json:"provider_id"`
	Compat     bool    `json:"reference_compat_sdk"`
	SDKs       []gaSDK `json:"sdks"`
}

// sdkKey names a record with its SDK entries, so that the comparison covers the narrowed lists too.
func sdkKey(provider string, sdks []string) string { return provider + ":" + strings.Join(sdks, ",") }

func testSdkSupport(t *testing.T, s *apitest.Server) {
	recs, _ := catFile[gaSDKRecord](t, "sdk_support")
	if len(recs) != seeds.MonitoredProviders {
		t.Fatalf("sdk_support: %d records, want one per provider", len(recs))
	}
	var allLangs []string
	for _, r := range recs {
		for _, x := range r.SDKs {
			if !slices.Contains(allLangs, x.Language) {
				allLangs = append(allLangs, x.Language)
			}
		}
	}
	slices.Sort(allLangs)
	// want keeps the providers keep accepts, with their SDK entries narrowed by lang ("" any) and official.
	want := func(keep func(gaSDKRecord) bool, lang string, official bool) []string {
		out := []string{}
		for _, r := range recs {
			if !keep(r) {
				continue
			}
			var sdks []string
			for _, x := range r.SDKs {
				if (lang == "" || x.Language == lang) && (!official || x.Official) {
					sdks = append(sdks, x.Language+"/"+x.PackageName)
				}
			}
			if len(sdks) == 0 && (lang != "" || official) {
				continue
			}
			out = append(out, sdkKey(r.ProviderID, sdks))
		}
		return out
	}
	check := func(path string, wantKeys []string) {
		t.Helper()
		b := catGet[api.SdkSupportResponse](t, s, path)
		got := []string{}
		for _, r := range b.SdkSupport {
			var sdks, langs []string
			for _, x := range r.Sdks {
				sdks = append(sdks, x.Language+"/"+x.PackageName)
				if !slices.Contains(langs, x.Language) {
					langs = append(langs, x.Language)
				}
			}
			slices.Sort(langs)
			if r.SdkCount != len(r.Sdks) || !slices.Equal(langs, r.Languages) && len(langs)+len(r.Languages) > 0 {
				t.Errorf("%s %s: sdk_count %d, languages %v for sdks %v", path, r.ProviderId, r.SdkCount, r.Languages, sdks)
			}
			got = append(got, sdkKey(r.ProviderId, sdks))
		}
		catSame(t, path, got, wantKeys)
		if !slices.Equal(b.Meta.AvailableLanguages, allLangs) {
			t.Errorf("%s: available_languages %v, want every language of the catalog %v", path, b.Meta.AvailableLanguages, allLangs)
		}
	}
	all := func(gaSDKRecord) bool { return true }
	check("/api/v1/sdk-support", want(all, "", false))
	check("/api/v1/sdk-support?official_only=false&reference_compat_only=false", want(all, "", false))
	check("/api/v1/sdk-support?provider=openai", want(func(r gaSDKRecord) bool { return r.ProviderID == "openai" }, "", false))
	check("/api/v1/sdk-support?provider=deepseek", want(func(r gaSDKRecord) bool { return r.ProviderID == "deepseek" }, "", false))
	check("/api/v1/sdk-support?language=go", want(all, "go", false))
	check("/api/v1/sdk-support?language=PYTHON", want(all, "python", false))
	check("/api/v1/sdk-support?language=cobol", []string{})
	check("/api/v1/sdk-support?official_only=true", want(all, "", true))
	check("/api/v1/sdk-support?reference_compat_only=true", want(func(r gaSDKRecord) bool { return r.Compat }, "", false))
	check("/api/v1/sdk-support?reference_compat_only=true&language=node&official_only=true", want(func(r gaSDKRecord) bool { return r.Compat }, "node", true))
	// A provider whose only SDKs are in other languages is dropped by `language`, not answered empty.
	check("/api/v1/sdk-support?provider=xai&language=node", []string{})
	if len(want(all, "go", false)) == len(recs) || len(want(func(r gaSDKRecord) bool { return r.Compat }, "", false)) == len(recs) {
		t.Error("the sdk_support data no longer tells the filters apart")
	}

	catRefused(t, s, "/api/v1/sdk-support?provider=nope", 404, "provider")
	catRefused(t, s, "/api/v1/sdk-support?official_only=maybe", 400, "official_only")
	catRefused(t, s, "/api/v1/sdk-support?reference_compat_only=2", 400, "reference_compat_only")
	catRefused(t, s, "/api/v1/sdk-support?language=", 400, "language")
	catRefused(t, s, "/api/v1/sdk-support?language="+strings.Repeat("x", 51), 400, "language")
}

type gaFunctionCalling struct {
	ProviderID string `json:"provider_id"`
	Supported  *bool  `json:"tool_call_supported"`
	Parallel   *bool  `json:"parallel_calls_supported"`
}

func testFunctionCalling(t *testing.T, s *apitest.Server) {
	type r = gaFunctionCalling
	recs, _ := catFile[r](t, "function_calling")
	check := catChecker(t, s, "function_calling", func(x r) string { return x.ProviderID }, func(b api.FunctionCallingResponse) catAnswer {
		return catAnswer{catKeys(b.FunctionCalling, func(x api.FunctionCallingRecord) string { return x.ProviderId }), b.Meta.AsOf.String(),
			b.Meta.Sources, len(b.FunctionCalling)}
	})
	supported := catWhere(recs, func(x r) bool { return catTrue(x.Supported) })
	parallel := catWhere(recs, func(x r) bool { return catTrue(x.Parallel) })
	if len(recs) != seeds.MonitoredProviders || len(supported) == len(recs) || len(parallel) == len(supported) {
		t.Fatalf("function_calling: %d records, %d supported, %d parallel: the data no longer tells the filters apart",
			len(recs), len(supported), len(parallel))
	}
	check("/api/v1/function-calling", recs)
	check("/api/v1/function-calling?parallel_only=false&supported_only=false", recs)
	check("/api/v1/function-calling?supported_only=true", supported)
	check("/api/v1/function-calling?parallel_only=true", parallel)
	check("/api/v1/function-calling?parallel_only=true&supported_only=true", catWhere(parallel, func(x r) bool { return catTrue(x.Supported) }))
	check("/api/v1/function-calling?provider=anthropic", catWhere(recs, func(x r) bool { return x.ProviderID == "anthropic" }))
	check("/api/v1/function-calling?provider=elevenlabs&supported_only=true", nil) // known, without the feature

	catRefused(t, s, "/api/v1/function-calling?provider=nope", 404, "provider")
	catRefused(t, s, "/api/v1/function-calling?parallel_only=yes", 400, "parallel_only")
	catRefused(t, s, "/api/v1/function-calling?supported_only=1x", 400, "supported_only")
}

type gaLogprob struct {
	ProviderID string `json:"provider_id"`
	Supported  *bool  `json:"logprob_supported"`
}

func testLogprobSupport(t *testing.T, s *apitest.Server) {
	type r = gaLogprob
	recs, _ := catFile[r](t, "logprob_support")
	var m api.LogprobSupportMeta
	records := catChecker(t, s, "logprob_support", func(x r) string { return x.ProviderID }, func(b api.LogprobSupportResponse) catAnswer {
		m = b.Meta
		return catAnswer{catKeys(b.LogprobSupport, func(x api.LogprobSupportRecord) string { return x.ProviderId }), m.AsOf.String(), m.Sources, m.Total}
	})
	check := func(path string, want []r) {
		t.Helper()
		records(path, want)
		if n := len(catWhere(want, func(x r) bool { return catTrue(x.Supported) })); m.SupportedCount != n {
			t.Errorf("%s: supported_count %d, records say %d", path, m.SupportedCount, n)
		}
	}
	supported := catWhere(recs, func(x r) bool { return catTrue(x.Supported) })
	if len(supported) == 0 || len(supported) == len(recs) {
		t.Fatalf("logprob_support: %d of %d supported: the data no longer tells the filter apart", len(supported), len(recs))
	}
	check("/api/v1/logprob-support", recs)
	check("/api/v1/logprob-support?supported_only=false", recs)
	check("/api/v1/logprob-support?supported_only=true", supported)
	check("/api/v1/logprob-support?provider=openai", catWhere(recs, func(x r) bool { return x.ProviderID == "openai" }))
	check("/api/v1/logprob-support?provider=anthropic&supported_only=true", nil)

	catRefused(t, s, "/api/v1/logprob-support?provider=nope", 404, "provider")
	catRefused(t, s, "/api/v1/logprob-support?supported_only=sure", 400, "supported_only")
}

type gaWebsocket struct {
	ProviderID string  `json:"provider_id"`
	Supported  *bool   `json:"websocket_supported"`
	SSE        bool    `json:"also_supports_sse"`
	UseCase    *string `json:"use_case"`
}

func testWebsocketSupport(t *testing.T, s *apitest.Server) {
	type r = gaWebsocket
	recs, _ := catFile[r](t, "websocket_support")
	useCase := func(x r) string {
		if x.UseCase == nil {
			return ""
		}
		return *x.UseCase
	}
	slices.SortStableFunc(recs, func(a, b r) int {
		if c := strings.Compare(a.ProviderID, b.ProviderID); c != 0 {
			return c
		}
		return strings.Compare(useCase(a), useCase(b))
	})
	key := func(x r) string { return fmt.Sprintf("%s/%s", x.ProviderID, useCase(x)) }
	var m api.WebsocketSupportMeta
	records := catChecker(t, s, "websocket_support", key, func(b api.WebsocketSupportResponse) catAnswer {
		m = b.Meta
		keys := catKeys(b.WebsocketSupport, func(x api.WebsocketSupportRecord) string {
			u := ""
			if x.UseCase != nil {
				u = *x.UseCase
			}
			return x.ProviderId + "/" + u
		})
		return catAnswer{keys, m.AsOf.String(), m.Sources, len(keys)}
	})
	check := func(path string, want []r) {
		t.Helper()
		records(path, want)
		ws := len(catWhere(want, func(x r) bool { return catTrue(x.Supported) }))
		sse := len(catWhere(want, func(x r) bool { return x.Supported != nil && !*x.Supported && x.SSE }))
		if m.WebsocketCount != ws || m.SseOnlyCount != sse {
			t.Errorf("%s: meta websocket %d, sse-only %d; records say %d and %d", path, m.WebsocketCount, m.SseOnlyCount, ws, sse)
		}
	}
	ws := catWhere(recs, func(x r) bool { return catTrue(x.Supported) })
	audio := catWhere(recs, func(x r) bool { return useCase(x) == "realtime_audio" })
	if len(ws) == 0 || len(ws) == len(recs) || len(audio) == 0 || len(audio) == len(ws) {
		t.Fatalf("websocket_support: %d records, %d with WebSocket, %d realtime_audio: the data no longer tells the filters apart",
			len(recs), len(ws), len(audio))
	}
	check("/api/v1/websocket-support", recs)
	check("/api/v1/websocket-support?websocket_only=false", recs)
	check("/api/v1/websocket-support?websocket_only=true", ws)
	check("/api/v1/websocket-support?category=realtime_audio", audio)
	check("/api/v1/websocket-support?category=REALTIME_AUDIO&websocket_only=true", catWhere(audio, func(x r) bool { return catTrue(x.Supported) }))
	check("/api/v1/websocket-support?category=realtime", nil) // exact match, not partial
	check("/api/v1/websocket-support?provider=deepgram", catWhere(recs, func(x r) bool { return x.ProviderID == "deepgram" }))
	check("/api/v1/websocket-support?provider=anthropic&websocket_only=true", nil)

	catRefused(t, s, "/api/v1/websocket-support?provider=nope", 404, "provider")
	catRefused(t, s, "/api/v1/websocket-support?websocket_only=maybe", 400, "websocket_only")
	catRefused(t, s, "/api/v1/websocket-support?category=", 400, "category")
}

type gaChange struct {
	Date       string `json:"date"`
	ProviderID string `json:"provider_id"`
	ChangeType string `json:"change_type"`
	Impact     string `json:"impact"`
	Title      string `json:"title"`
}

// testAPIChangelog checks the feed of a server whose clock reads now.
func testAPIChangelog(t *testing.T, s *apitest.Server, now time.Time) {
	type r = gaChange
	recs, _ := catFile[r](t, "api_changelog")
	slices.SortStableFunc(recs, func(a, b r) int {
		return cmp.Or(strings.Compare(b.Date, a.Date), strings.Compare(a.ProviderID, b.ProviderID), strings.Compare(a.Title, b.Title),
			strings.Compare(a.ChangeType, b.ChangeType))
	})
	today := now.Format(time.DateOnly)
	// want is every entry of the window [today - days, today] that keep accepts, before the limit.
	want := func(days int, keep func(r) bool) []r {
		from := now.AddDate(0, 0, -days).Format(time.DateOnly)
		return catWhere(recs, func(x r) bool { return x.Date >= from && x.Date <= today && keep(x) })
	}
	key := func(x r) string { return x.Date + " " + x.ProviderID + " " + x.ChangeType + " " + x.Title }
	check := func(path string, matching []r, limit int) {
		t.Helper()
		b := catGet[api.ApiChangelogResponse](t, s, path)
		got := catKeys(b.Changelog, func(x api.ApiChangelogRecord) string {
			return x.Date.Format(time.DateOnly) + " " + x.ProviderId + " " + string(x.ChangeType) + " " + x.Title
		})
		catSame(t, path, got, catKeys(matching[:min(limit, len(matching))], key))
		count := func(field func(r) string, v string) int {
			return len(catWhere(matching, func(x r) bool { return field(x) == v }))
		}
		typ := func(x r) string { return x.ChangeType }
		imp := func(x r) string { return x.Impact }
		bt, bi := b.Meta.ByType, b.Meta.ByImpact
		if bt.NewModel != count(typ, "new_model") || bt.Deprecation != count(typ, "deprecation") || bt.PricingChange != count(typ, "pricing_change") ||
			bt.FeatureAdded != count(typ, "feature_added") || bt.BreakingChange != count(typ, "breaking_change") ||
			bt.RateLimitChange != count(typ, "rate_limit_change") {
			t.Errorf("%s: by_type %+v does not count the %d matching entries", path, bt, len(matching))
		}
		if bi.High != count(imp, "high") || bi.Medium != count(imp, "medium") || bi.Low != count(imp, "low") {
			t.Errorf("%s: by_impact %+v does not count the %d matching entries", path, bi, len(matching))
		}
	}
	all := func(r) bool { return true }
	check("/api/v1/changelog/api", want(30, all), 50)
	check("/api/v1/changelog/api?days=90&limit=200", want(90, all), 200)
	check("/api/v1/changelog/api?days=1", want(1, all), 50)
	check("/api/v1/changelog/api?days=90&limit=1", want(90, all), 1)
	check("/api/v1/changelog/api?days=90&type=new_model", want(90, func(x r) bool { return x.ChangeType == "new_model" }), 50)
	check("/api/v1/changelog/api?days=90&type=pricing_change&limit=200", want(90, func(x r) bool { return x.ChangeType == "pricing_change" }), 200)
	check("/api/v1/changelog/api?days=90&impact=high&limit=200", want(90, func(x r) bool { return x.Impact == "high" }), 200)
	check("/api/v1/changelog/api?days=90&type=feature_added", nil, 50)
	check("/api/v1/changelog/api?days=90&provider=openai&impact=low&limit=200", want(90, func(x r) bool {
		return x.ProviderID == "openai" && x.Impact == "low"
	}), 200)
	check("/api/v1/changelog/api?days=90&provider=tavily", nil, 50) // a known provider without entries
	if today < "2026-12-31" && len(want(90, all)) == 0 {
		t.Errorf("no entry in the 90 days before %s: the window is not exercised", today)
	}
	// Entries after today are never served, however large the window.
	for _, x := range catGet[api.ApiChangelogResponse](t, s, "/api/v1/changelog/api?days=90&limit=200").Changelog {
		if x.Date.Format(time.DateOnly) > today {
			t.Errorf("entry %s dated after today %s", x.Title, today)
		}
	}

	catRefused(t, s, "/api/v1/changelog/api?provider=nope", 404, "provider")
	catRefused(t, s, "/api/v1/changelog/api?days=0", 400, "days")
	catRefused(t, s, "/api/v1/changelog/api?days=91", 400, "days")
	catRefused(t, s, "/api/v1/changelog/api?limit=0", 400, "limit")
	catRefused(t, s, "/api/v1/changelog/api?limit=201", 400, "limit")
	catRefused(t, s, "/api/v1/changelog/api?type=rumour", 400, "type")
	catRefused(t, s, "/api/v1/changelog/api?impact=huge", 400, "impact")
}

type gaLatency struct {
	ProviderID string   `json:"provider_id"`
	ModelID    string   `json:"model_id"`
	TTFT       *float64 `json:"median_ttft_ms"`
	TPT        *float64 `json:"median_tpt_ms"`
	Source     string   `json:"benchmark_source"`
}

func testStreamingLatency(t *testing.T, s *apitest.Server) {
	type r = gaLatency
	recs, _ := catFile[r](t, "streaming_latency")
	// sorted orders by field ascending, unknown last, ties by provider then model.
	sorted := func(field func(r) *float64, keep func(r) bool) []r {
		out := catWhere(recs, keep)
		slices.SortStableFunc(out, func(a, b r) int {
			fa, fb := field(a), field(b)
			switch {
			case fa != nil && fb != nil && *fa != *fb:
				return cmp.Compare(*fa, *fb)
			case fa == nil && fb != nil:
				return 1
			case fa != nil && fb == nil:
				return -1
			}
			return cmp.Or(strings.Compare(a.ProviderID, b.ProviderID), strings.Compare(a.ModelID, b.ModelID))
		})
		return out
	}
	ttft := func(x r) *float64 { return x.TTFT }
	tpt := func(x r) *float64 { return x.TPT }
	all := func(r) bool { return true }
	var source string
	check := catChecker(t, s, "streaming_latency", func(x r) string { return x.ProviderID + "/" + x.ModelID },
		func(b api.StreamingLatencyResponse) catAnswer {
			source = b.Meta.BenchmarkSource
			keys := catKeys(b.StreamingLatency, func(x api.StreamingLatencyRecord) string { return x.ProviderId + "/" + x.ModelId })
			return catAnswer{keys, b.Meta.AsOf.String(), b.Meta.Sources, len(keys)}
		})
	if byTTFT, byTPT := sorted(ttft, all), sorted(tpt, all); len(recs) < 2 || slices.Equal(catKeys(byTTFT, func(x r) string { return x.ModelID }),
		catKeys(byTPT, func(x r) string { return x.ModelID })) {
		t.Fatal("streaming_latency: the two sort orders give the same list: the data no longer tells them apart")
	}
	check("/api/v1/streaming-latency", sorted(ttft, all))
	check("/api/v1/streaming-latency?sort=ttft", sorted(ttft, all))
	check("/api/v1/streaming-latency?sort=tpt", sorted(tpt, all))
	check("/api/v1/streaming-latency?provider=groq&sort=tpt", sorted(tpt, func(x r) bool { return x.ProviderID == "groq" }))
	check("/api/v1/streaming-latency?model=LLAMA-4", sorted(ttft, func(x r) bool { return strings.Contains(strings.ToLower(x.ModelID), "llama-4") }))
	check("/api/v1/streaming-latency?model=no-such-model", nil)
	check("/api/v1/streaming-latency?provider=anthropic&model=haiku", sorted(ttft, func(x r) bool {
		return x.ProviderID == "anthropic" && strings.Contains(x.ModelID, "haiku")
	}))
	check("/api/v1/streaming-latency?provider=elevenlabs", nil)
	for _, x := range recs {
		if x.Source != source {
			t.Errorf("%s/%s: benchmark_source %q, meta says %q", x.ProviderID, x.ModelID, x.Source, source)
		}
	}

	catRefused(t, s, "/api/v1/streaming-latency?provider=nope", 404, "provider")
	catRefused(t, s, "/api/v1/streaming-latency?sort=speed", 400, "sort")
	catRefused(t, s, "/api/v1/streaming-latency?model=", 400, "model")
}

type gaEmbedding struct {
	ProviderID string  `json:"provider_id"`
	ModelID    string  `json:"model_id"`
	TaskType   string  `json:"task_type"`
	Score      float64 `json:"mteb_score"`
}

func testEmbeddingQuality(t *testing.T, s *apitest.Server) {
	type r = gaEmbedding
	recs, _ := catFile[r](t, "embedding_quality")
	slices.SortStableFunc(recs, func(a, b r) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), strings.Compare(a.ProviderID, b.ProviderID), strings.Compare(a.ModelID, b.ModelID),
			strings.Compare(a.TaskType, b.TaskType))
	})
	top := func(n int, keep func(r) bool) []r {
		out := catWhere(recs, keep)
		return out[:min(n, len(out))]
	}
	check := catChecker(t, s, "embedding_quality", func(x r) string { return x.ProviderID + "/" + x.ModelID + "/" + x.TaskType },
		func(b api.EmbeddingQualityResponse) catAnswer {
			keys := catKeys(b.EmbeddingQuality, func(x api.EmbeddingQualityRecord) string {
				return x.ProviderId + "/" + x.ModelId + "/" + string(x.TaskType)
			})
			return catAnswer{keys, b.Meta.AsOf.String(), b.Meta.Sources, len(keys)}
		})
	all := func(r) bool { return true }
	if len(recs) <= 20 {
		t.Fatalf("embedding_quality: %d records, the default limit of 20 is not exercised", len(recs))
	}
	check("/api/v1/embedding-quality", top(20, all))
	check("/api/v1/embedding-quality?limit=100", top(100, all))
	check("/api/v1/embedding-quality?limit=1", top(1, all))
	check("/api/v1/embedding-quality?task_type=retrieval&limit=100", top(100, func(x r) bool { return x.TaskType == "retrieval" }))
	check("/api/v1/embedding-quality?task_type=sts", top(20, func(x r) bool { return x.TaskType == "sts" }))
	check("/api/v1/embedding-quality?min_score=60&limit=100", top(100, func(x r) bool { return x.Score >= 60 }))
	check("/api/v1/embedding-quality?min_score=0&limit=100", top(100, all))
	check("/api/v1/embedding-quality?provider=openai&task_type=clustering", top(20, func(x r) bool {
		return x.ProviderID == "openai" && x.TaskType == "clustering"
	}))
	check("/api/v1/embedding-quality?provider=cohere&min_score=55.5", top(20, func(x r) bool { return x.ProviderID == "cohere" && x.Score >= 55.5 }))
	check("/api/v1/embedding-quality?provider=anthropic", nil)

	catRefused(t, s, "/api/v1/embedding-quality?provider=nope", 404, "provider")
	catRefused(t, s, "/api/v1/embedding-quality?task_type=classification", 400, "task_type")
	catRefused(t, s, "/api/v1/embedding-quality?min_score=-1", 400, "min_score")
	catRefused(t, s, "/api/v1/embedding-quality?min_score=100.5", 400, "min_score")
	catRefused(t, s, "/api/v1/embedding-quality?limit=0", 400, "limit")
	catRefused(t, s, "/api/v1/embedding-quality?limit=101", 400, "limit")
}
