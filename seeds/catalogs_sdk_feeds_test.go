package seeds

import (
	"slices"
	"strings"
	"testing"
)

// the SDK and change-feed catalogs catalogs: SDK support, the API change feed, function calling, log probabilities, WebSocket support,
// streaming latency and embedding quality.
func init() {
	recordSchemas["sdk_support"] = "SdkSupportRecord"
	recordSchemas["api_changelog"] = "ApiChangelogRecord"
	recordSchemas["function_calling"] = "FunctionCallingRecord"
	recordSchemas["logprob_support"] = "LogprobSupportRecord"
	recordSchemas["websocket_support"] = "WebsocketSupportRecord"
	recordSchemas["streaming_latency"] = "StreamingLatencyRecord"
	recordSchemas["embedding_quality"] = "EmbeddingQualityRecord"
}

// sdkFeedsRecord holds the fields the the SDK and change-feed catalogs checks read; each catalog fills those its schema has.
type sdkFeedsRecord struct {
	ProviderID   string  `json:"provider_id"`
	ProviderName *string `json:"provider_name"`
	ModelID      string  `json:"model_id"`
	UseCase      *string `json:"use_case"`
	TaskType     string  `json:"task_type"`
	Notes        *string `json:"notes"`
	Supported    *bool   `json:"tool_call_supported"`
	Logprob      *bool   `json:"logprob_supported"`
	WebSocket    *bool   `json:"websocket_supported"`
	SDKCount     int     `json:"sdk_count"`
	Languages    []string
	SDKs         []struct {
		Language    string `json:"language"`
		PackageName string `json:"package_name"`
	} `json:"sdks"`
}

func sdkFeedsRecords(t *testing.T, name string) []sdkFeedsRecord {
	t.Helper()
	c, recs := testCatalog[sdkFeedsRecord](t, name)
	raw, err := Records[struct {
		Languages []string `json:"languages"`
	}](c)
	if err != nil {
		t.Fatal(err)
	}
	for i := range recs {
		recs[i].Languages = raw[i].Languages
	}
	return recs
}

// TestSDKFeedsPerProviderCatalogs checks the catalogs keyed by provider: every one of the 52 providers has its
// record (the WebSocket catalog at least one, one per use case), in provider order, with providers.json's name and
// notes that say where the facts come from.
func TestSDKFeedsPerProviderCatalogs(t *testing.T) {
	reg := Providers()
	for _, name := range []string{"sdk_support", "function_calling", "logprob_support", "websocket_support"} {
		recs := sdkFeedsRecords(t, name)
		seen := map[string]int{}
		prev := ""
		for i, r := range recs {
			useCase := ""
			if r.UseCase != nil {
				useCase = *r.UseCase
			}
			key := r.ProviderID + "\x00" + useCase
			if key <= prev {
				t.Errorf("%s record %d (%s %s): out of order or duplicate (provider_id, then use_case)", name, i, r.ProviderID, useCase)
			}
			prev = key
			seen[r.ProviderID]++
			if p, ok := reg.Get(r.ProviderID); ok && r.ProviderName != nil && *r.ProviderName != p.Name {
				t.Errorf("%s %s: provider_name %q, providers.json says %q", name, r.ProviderID, *r.ProviderName, p.Name)
			}
			if name != "sdk_support" && (r.Notes == nil || strings.TrimSpace(*r.Notes) == "") {
				t.Errorf("%s %s: no notes (say where the facts come from, or that they are not confirmed)", name, r.ProviderID)
			}
		}
		for _, p := range reg.All() {
			if n := seen[p.ID]; n == 0 || (n > 1 && name != "websocket_support") {
				t.Errorf("%s: %d records for %s, want exactly one", name, n, p.ID)
			}
		}
	}
}

// TestSDKFeedsUnknownsAreSaid checks that a fact left null is explained: an unconfirmed record says so in its notes.
func TestSDKFeedsUnknownsAreSaid(t *testing.T) {
	for name, field := range map[string]func(sdkFeedsRecord) *bool{
		"function_calling":  func(r sdkFeedsRecord) *bool { return r.Supported },
		"logprob_support":   func(r sdkFeedsRecord) *bool { return r.Logprob },
		"websocket_support": func(r sdkFeedsRecord) *bool { return r.WebSocket },
	} {
		for _, r := range sdkFeedsRecords(t, name) {
			if field(r) == nil && (r.Notes == nil || !strings.Contains(strings.ToLower(*r.Notes), "not confirmed")) {
				t.Errorf("%s %s: unknown support without \"not confirmed\" in the notes", name, r.ProviderID)
			}
		}
	}
}

// TestSdkSupportCounts checks that each record's sdk_count and languages describe its sdks.
func TestSdkSupportCounts(t *testing.T) {
	for _, r := range sdkFeedsRecords(t, "sdk_support") {
		var langs []string
		for _, s := range r.SDKs {
			if s.Language != strings.ToLower(s.Language) || s.PackageName == "" {
				t.Errorf("sdk_support %s: SDK %+v (language must be lower case, package named)", r.ProviderID, s)
			}
			if !slices.Contains(langs, s.Language) {
				langs = append(langs, s.Language)
			}
		}
		slices.Sort(langs)
		if r.SDKCount != len(r.SDKs) || !slices.Equal(langs, r.Languages) && len(langs)+len(r.Languages) > 0 {
			t.Errorf("sdk_support %s: sdk_count %d and languages %v, sdks say %d and %v", r.ProviderID, r.SDKCount, r.Languages, len(r.SDKs), langs)
		}
	}
}

// TestSDKFeedsModelIDsAreCataloged checks that the per-model the SDK and change-feed catalogs catalogs name models of the model catalog under
// the same provider (the streaming-latency rows and the change feed's models), and that the embedding catalog's
// names match providers.json.
func TestSDKFeedsModelIDsAreCataloged(t *testing.T) {
	have := catalogedModels(t)
	for _, r := range sdkFeedsRecords(t, "streaming_latency") {
		if !have[r.ProviderID+"/"+r.ModelID] {
			t.Errorf("streaming_latency: %s/%s is not in models.json", r.ProviderID, r.ModelID)
		}
	}
	cat, changes := testCatalog[struct {
		Date           string   `json:"date"`
		ProviderID     string   `json:"provider_id"`
		ChangeType     string   `json:"change_type"`
		AffectedModels []string `json:"affected_models"`
		SourceURL      *string  `json:"source_url"`
		Sources        []string `json:"sources"`
		Confidence     string   `json:"confidence"`
	}](t, "api_changelog")
	pages := map[string]string{} // the provider pages the catalog cites: id -> URL
	for _, s := range cat.Sources {
		if s.License == nil {
			pages[s.ID] = s.URL
		}
	}
	prev := "9999-12-31"
	for i, r := range changes {
		if r.Date > prev {
			t.Errorf("api_changelog record %d (%s) is not newest first", i, r.Date)
		}
		prev = r.Date
		if r.Confidence == "verified" {
			// A fact of a provider's page: a retired model need not be in models.json any more, but the entry must
			// point to a page the catalog lists, and its address must be that page's.
			if len(r.Sources) == 0 || r.SourceURL == nil || pages[r.Sources[0]] != *r.SourceURL {
				t.Errorf("api_changelog record %d: verified entry cites %v with source_url %v, not one of the catalog's pages", i, r.Sources, r.SourceURL)
			}
			for _, id := range r.Sources {
				if _, ok := pages[id]; !ok {
					t.Errorf("api_changelog record %d cites %q, not a page of the catalog", i, id)
				}
			}
			continue
		}
		for _, m := range r.AffectedModels {
			if r.ChangeType != "pricing_change" && !have[r.ProviderID+"/"+m] {
				t.Errorf("api_changelog record %d: %s/%s is not in models.json", i, r.ProviderID, m)
			}
		}
	}
	reg := Providers()
	seen := map[string]bool{}
	for _, r := range sdkFeedsRecords(t, "embedding_quality") {
		p, _ := reg.Get(r.ProviderID)
		if r.ProviderName == nil || *r.ProviderName != p.Name {
			t.Errorf("embedding_quality %s: provider_name differs from providers.json", r.ProviderID)
		}
		k := r.ProviderID + "/" + r.ModelID + "/" + r.TaskType
		if seen[k] {
			t.Errorf("embedding_quality: duplicate %s", k)
		}
		seen[k] = true
	}
}
