package seeds

import (
	"cmp"
	"slices"
	"strings"
	"testing"
)

// The interoperability catalogs: overflow behaviour, reference compatibility, error codes, rate-limit recovery and migration
// guides.
func init() {
	recordSchemas["overflow_behaviour"] = "OverflowBehaviourRecord"
	recordSchemas["reference_compat"] = "ReferenceCompatRecord"
	recordSchemas["error_codes"] = "ErrorCodesRecord"
	recordSchemas["rate_limit_recovery"] = "RateLimitRecoveryRecord"
	recordSchemas["migration_guide"] = "MigrationGuideRecord"
}

// topLLMProviders are the 15 most used LLM providers: the first 15 of providers.json.
var topLLMProviders = []string{"openai", "anthropic", "google-gemini", "google-vertex-ai", "aws-bedrock", "azure-openai",
	"mistral", "cohere", "groq", "together", "fireworks", "deepseek", "perplexity", "xai", "openrouter"}

// onePerProvider checks that ids name every monitored provider exactly once, in ascending order.
func onePerProvider(t *testing.T, name string, ids []string) {
	t.Helper()
	want := make([]string, 0, MonitoredProviders)
	for _, p := range Providers().All() {
		want = append(want, p.ID)
	}
	slices.Sort(want)
	if !slices.Equal(ids, want) {
		t.Errorf("%s: provider IDs are not the %d providers once each in ascending order: %v", name, MonitoredProviders, ids)
	}
}

func emptyText(s *string) bool { return s == nil || strings.TrimSpace(*s) == "" }

func TestOverflowBehaviourCatalog(t *testing.T) {
	type rec struct {
		ProviderID string  `json:"provider_id"`
		Behaviour  *string `json:"overflow_behaviour"`
		Warning    *bool   `json:"warning_provided"`
		ErrorCode  *string `json:"error_code"`
		Notes      *string `json:"notes"`
	}
	recs := testRecords[rec](t, "overflow_behaviour")
	ids := make([]string, len(recs))
	silent := 0
	for i, r := range recs {
		ids[i] = r.ProviderID
		if emptyText(r.Notes) {
			t.Errorf("overflow_behaviour %s: no notes (say where the fact comes from, or that it is not confirmed)", r.ProviderID)
		}
		if (r.Behaviour == nil) != (r.Warning == nil) {
			t.Errorf("overflow_behaviour %s: behaviour and warning_provided must be known or unknown together", r.ProviderID)
		}
		if r.Behaviour == nil {
			if r.ErrorCode != nil || !strings.Contains(strings.ToLower(*r.Notes), "not") {
				t.Errorf("overflow_behaviour %s: an unknown behaviour needs notes saying it is not confirmed or not applicable, and no error code", r.ProviderID)
			}
			continue
		}
		if *r.Behaviour == "error" && !*r.Warning {
			t.Errorf("overflow_behaviour %s: an error is a warning", r.ProviderID)
		}
		if *r.Behaviour != "error" && r.ErrorCode != nil {
			t.Errorf("overflow_behaviour %s: error_code without behaviour error", r.ProviderID)
		}
		if *r.Behaviour != "error" && !*r.Warning {
			silent++
		}
	}
	onePerProvider(t, "overflow_behaviour", ids)
	// The catalog must exercise the silent-truncator summary: a provider known to truncate without warning.
	if silent == 0 {
		t.Error("overflow_behaviour: no silent truncator, the summary would never be exercised")
	}
	for _, p := range topLLMProviders {
		if i := slices.Index(ids, p); i >= 0 && recs[i].Behaviour == nil && p != "perplexity" {
			t.Errorf("overflow_behaviour %s: a top LLM provider without a confirmed behaviour", p)
		}
	}
}

func TestReferenceCompatCatalog(t *testing.T) {
	type rec struct {
		ProviderID   string   `json:"provider_id"`
		ProviderName string   `json:"provider_name"`
		Compatible   *bool    `json:"reference_compatible"`
		DropIn       *bool    `json:"drop_in_replacement"`
		BaseURL      *string  `json:"base_url"`
		Endpoints    []string `json:"compatible_endpoints"`
		Notes        *string  `json:"notes"`
	}
	reg := Providers()
	recs := testRecords[rec](t, "reference_compat")
	ids := make([]string, len(recs))
	for i, r := range recs {
		ids[i] = r.ProviderID
		if p, ok := reg.Get(r.ProviderID); ok && p.Name != r.ProviderName {
			t.Errorf("reference_compat %s: provider_name %q, providers.json says %q", r.ProviderID, r.ProviderName, p.Name)
		}
		if emptyText(r.Notes) {
			t.Errorf("reference_compat %s: no notes", r.ProviderID)
		}
		compatible := isTrue(r.Compatible)
		if (r.Compatible == nil) != (r.DropIn == nil) {
			t.Errorf("reference_compat %s: compatibility and drop-in must be known or unknown together", r.ProviderID)
		}
		if isTrue(r.DropIn) && !compatible {
			t.Errorf("reference_compat %s: drop-in but not compatible", r.ProviderID)
		}
		if compatible != (r.BaseURL != nil) || compatible != (len(r.Endpoints) > 0) {
			t.Errorf("reference_compat %s: a compatible provider needs a base_url and endpoints, others neither", r.ProviderID)
		}
		if r.BaseURL != nil && !strings.HasPrefix(*r.BaseURL, "https://") {
			t.Errorf("reference_compat %s: base_url %q", r.ProviderID, *r.BaseURL)
		}
	}
	onePerProvider(t, "reference_compat", ids)
	for _, p := range topLLMProviders {
		if i := slices.Index(ids, p); i >= 0 && recs[i].Compatible == nil {
			t.Errorf("reference_compat %s: a top LLM provider without a confirmed answer", p)
		}
	}
}

// errorCategoryOrder is the order of ErrorCodesMeta.categories, the last tie-break of the error records.
var errorCategoryOrder = []string{"rate_limit", "auth", "context_length", "content_filter", "server_error", "timeout",
	"invalid_request", "not_found", "billing"}

func TestErrorCodesCatalog(t *testing.T) {
	type rec struct {
		ProviderID string  `json:"provider_id"`
		Status     int     `json:"http_status"`
		Type       *string `json:"provider_error_type"`
		Code       *string `json:"provider_error_code"`
		Category   string  `json:"standard_category"`
		Retryable  bool    `json:"retryable"`
		Backoff    *int    `json:"recommended_backoff_ms"`
		Retries    *int    `json:"max_retries"`
		Resolution string  `json:"resolution"`
	}
	recs := testRecords[rec](t, "error_codes")
	nullLast := func(a, b *string) int {
		switch {
		case a == nil && b == nil:
			return 0
		case a == nil:
			return 1
		case b == nil:
			return -1
		}
		return strings.Compare(*a, *b)
	}
	categories := map[string]map[string]bool{}
	for i, r := range recs {
		if categories[r.ProviderID] == nil {
			categories[r.ProviderID] = map[string]bool{}
		}
		categories[r.ProviderID][r.Category] = true
		if !slices.Contains(errorCategoryOrder, r.Category) {
			t.Errorf("error_codes %s %d: category %q", r.ProviderID, r.Status, r.Category)
		}
		// A backoff and a retry count only make sense for a retryable error; for one, they may still be unknown
		// (null) where neither the provider's page nor its SDK states them.
		if !r.Retryable && (r.Backoff != nil || r.Retries != nil) {
			t.Errorf("error_codes %s %d: backoff or retries set for an error that is not retryable", r.ProviderID, r.Status)
		}
		if strings.TrimSpace(r.Resolution) == "" {
			t.Errorf("error_codes %s %d: no resolution", r.ProviderID, r.Status)
		}
		if r.Category == "rate_limit" && r.Status == 429 && r.Type != nil && *r.Type == "insufficient_quota" {
			t.Errorf("error_codes %s: insufficient quota is billing, not a rate limit", r.ProviderID)
		}
		if i == 0 {
			continue
		}
		p := recs[i-1]
		c := cmp.Or(strings.Compare(p.ProviderID, r.ProviderID), cmp.Compare(p.Status, r.Status), nullLast(p.Type, r.Type), nullLast(p.Code, r.Code),
			cmp.Compare(slices.Index(errorCategoryOrder, p.Category), slices.Index(errorCategoryOrder, r.Category)))
		if c >= 0 {
			t.Errorf("error_codes record %d (%s %d) is out of order or duplicates the one before", i, r.ProviderID, r.Status)
		}
	}
	for _, p := range topLLMProviders {
		for _, c := range []string{"auth", "rate_limit"} {
			if !categories[p][c] {
				t.Errorf("error_codes %s: no %s error", p, c)
			}
		}
	}
}

func TestRateLimitRecoveryCatalog(t *testing.T) {
	type rec struct {
		ProviderID  string   `json:"provider_id"`
		RetryAfter  *bool    `json:"retry_after_header"`
		RAFormat    *string  `json:"retry_after_format"`
		Reset       []string `json:"reset_headers"`
		ResetFormat *string  `json:"reset_header_format"`
		Base        int      `json:"base_delay_ms"`
		Max         int      `json:"max_delay_ms"`
		Notes       *string  `json:"notes"`
	}
	recs := testRecords[rec](t, "rate_limit_recovery")
	ids := make([]string, len(recs))
	documented := 0
	for i, r := range recs {
		ids[i] = r.ProviderID
		if isTrue(r.RetryAfter) != (r.RAFormat != nil) {
			t.Errorf("rate_limit_recovery %s: retry_after_format is set exactly when the header is sent", r.ProviderID)
		}
		if (len(r.Reset) > 0) != (r.ResetFormat != nil) {
			t.Errorf("rate_limit_recovery %s: reset_header_format is set exactly when there are reset headers", r.ProviderID)
		}
		if r.Base <= 0 || r.Base > r.Max {
			t.Errorf("rate_limit_recovery %s: delays %d..%d ms", r.ProviderID, r.Base, r.Max)
		}
		if emptyText(r.Notes) {
			t.Errorf("rate_limit_recovery %s: no notes", r.ProviderID)
		}
		if len(r.Reset) > 0 || r.RetryAfter != nil {
			documented++
		}
	}
	onePerProvider(t, "rate_limit_recovery", ids)
	if documented < 5 {
		t.Errorf("rate_limit_recovery: only %d providers with documented headers", documented)
	}
}
