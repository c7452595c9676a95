package seeds

import (
	"cmp"
	"slices"
	"strings"
	"testing"
)

// the trust catalogs catalogs: compliance, security certifications, data retention, SLA, guardrails and regions. All are
// hand-curated from the providers' official pages; the checks below hold them to one record per provider (per
// provider and certification for security certifications) and to the rules their schemas cannot state.
func init() {
	recordSchemas["compliance"] = "ComplianceRecord"
	recordSchemas["security_certifications"] = "SecurityCertificationsRecord"
	recordSchemas["data_retention"] = "DataRetentionRecord"
	recordSchemas["sla"] = "SlaRecord"
	recordSchemas["guardrails"] = "GuardrailsRecord"
	recordSchemas["regions"] = "RegionsRecord"
}

type trustBase struct {
	ProviderID   string  `json:"provider_id"`
	ProviderName *string `json:"provider_name"`
	Notes        *string `json:"notes"`
}

func trustRecords[T any](t *testing.T, name string) []T {
	t.Helper()
	c, recs := testCatalog[T](t, name)
	// The providers' pages were read on the curation date (or later, for pages re-read since); the catalog is as
	// old as its oldest source.
	oldest := ""
	for _, s := range c.Sources {
		if s.AsOf == nil {
			t.Fatalf("%s: source %s has no as_of", name, s.ID)
		}
		if s.License == nil && *s.AsOf < "2026-11-22" {
			t.Errorf("%s: official page %s as_of %s, before the curation date 2026-11-22", name, s.ID, *s.AsOf)
		}
		if oldest == "" || *s.AsOf < oldest {
			oldest = *s.AsOf
		}
	}
	if c.AsOf != oldest {
		t.Errorf("%s: as_of %s, want its oldest source's %s", name, c.AsOf, oldest)
	}
	return recs
}

// TestTrustOnePerProvider checks the per-provider catalogs: every provider exactly once, the display name of
// providers.json, notes on every record (where a value comes from, or that it is unknown).
func TestTrustOnePerProvider(t *testing.T) {
	reg := Providers()
	for _, name := range []string{"compliance", "data_retention", "sla", "guardrails", "regions"} {
		recs := trustRecords[trustBase](t, name)
		if len(recs) != MonitoredProviders {
			t.Errorf("%s: %d records, want %d", name, len(recs), MonitoredProviders)
		}
		seen := map[string]bool{}
		for i, r := range recs {
			p, ok := reg.Get(r.ProviderID)
			if !ok || seen[r.ProviderID] {
				t.Errorf("%s record %d: provider %q unknown or repeated", name, i, r.ProviderID)
			}
			seen[r.ProviderID] = true
			if r.ProviderName != nil && *r.ProviderName != p.Name {
				t.Errorf("%s %s: provider_name %q, providers.json says %q", name, r.ProviderID, *r.ProviderName, p.Name)
			}
			if r.Notes == nil || strings.TrimSpace(*r.Notes) == "" {
				t.Errorf("%s %s: no notes", name, r.ProviderID)
			}
			// sla has its own order (checked below); the others list providers by ID.
			if name != "sla" && i > 0 && recs[i-1].ProviderID >= r.ProviderID {
				t.Errorf("%s: record %d (%s) out of provider order", name, i, r.ProviderID)
			}
		}
	}
}

type complianceRec struct {
	ProviderID     string   `json:"provider_id"`
	Certifications []string `json:"certifications"`
	SOC2Type       *string  `json:"soc2_type"`
	HIPAA          *bool    `json:"hipaa_baa_available"`
	GDPR           *bool    `json:"gdpr_compliant"`
	DPA            *bool    `json:"dpa_available"`
	ISO27001       *bool    `json:"iso27001"`
	PCIDSS         *bool    `json:"pci_dss"`
	FedRAMP        *bool    `json:"fedramp"`
	Notes          *string  `json:"notes"`
}

type securityCertRec struct {
	ProviderID    string  `json:"provider_id"`
	Certification string  `json:"certification"`
	Status        string  `json:"status"`
	Scope         *string `json:"scope"`
}

// TestTrustCompliance checks that `certifications` lists exactly the frameworks whose field is true, that a
// record with any confirmed fact cites an official page, and that /security-certifications says the same.
func TestTrustCompliance(t *testing.T) {
	comp := trustRecords[complianceRec](t, "compliance")
	certified := map[string]map[string]bool{}
	for _, r := range comp {
		want := []string{}
		if r.SOC2Type != nil {
			want = append(want, "soc2")
		}
		for ident, v := range map[string]*bool{"hipaa": r.HIPAA, "gdpr": r.GDPR, "iso27001": r.ISO27001, "pci-dss": r.PCIDSS, "fedramp": r.FedRAMP} {
			if isTrue(v) {
				want = append(want, ident)
			}
		}
		slices.Sort(want)
		if !slices.Equal(r.Certifications, want) {
			t.Errorf("compliance %s: certifications %v, fields say %v", r.ProviderID, r.Certifications, want)
		}
		known := r.SOC2Type != nil || r.HIPAA != nil || r.GDPR != nil || r.DPA != nil || r.ISO27001 != nil || r.PCIDSS != nil || r.FedRAMP != nil
		if known && (r.Notes == nil || !strings.Contains(*r.Notes, "https://")) {
			t.Errorf("compliance %s: facts without an official page in the notes", r.ProviderID)
		}
		certified[r.ProviderID] = map[string]bool{
			"SOC2_Type2": r.SOC2Type != nil && *r.SOC2Type == "Type II", "ISO27001": isTrue(r.ISO27001), "HIPAA": isTrue(r.HIPAA),
			"GDPR": isTrue(r.GDPR), "FedRAMP": isTrue(r.FedRAMP), "PCI_DSS": isTrue(r.PCIDSS),
		}
	}

	certs := trustRecords[securityCertRec](t, "security_certifications")
	enum := []string{"CSA_STAR", "FedRAMP", "GDPR", "HIPAA", "HITRUST", "ISO27001", "PCI_DSS", "SOC2_Type2"}
	if len(certs) != MonitoredProviders*len(enum) {
		t.Errorf("security_certifications: %d records, want %d", len(certs), MonitoredProviders*len(enum))
	}
	for i, r := range certs {
		if i > 0 {
			p := certs[i-1]
			if cmp.Or(strings.Compare(p.ProviderID, r.ProviderID), strings.Compare(p.Certification, r.Certification)) >= 0 {
				t.Errorf("security_certifications: record %d (%s %s) out of order or repeated", i, r.ProviderID, r.Certification)
			}
		}
		if (r.Status == "certified") != (r.Scope != nil) {
			t.Errorf("security_certifications %s %s: status %s with scope %v (a held certification names its scope)", r.ProviderID, r.Certification, r.Status, r.Scope)
		}
		// The frameworks both catalogs describe must agree; CSA STAR and HITRUST exist only here.
		if want, ok := certified[r.ProviderID][r.Certification]; ok && want != (r.Status == "certified") {
			t.Errorf("security_certifications %s %s: status %s, compliance.json says certified=%v", r.ProviderID, r.Certification, r.Status, want)
		}
	}
}

type retentionRec struct {
	ProviderID    string  `json:"provider_id"`
	PromptLogging *bool   `json:"prompt_logging"`
	Days          *int    `json:"retention_period_days"`
	OptOut        *bool   `json:"opt_out_available"`
	OptOutMethod  *string `json:"opt_out_method"`
	ZDR           *bool   `json:"zero_data_retention_available"`
	ZDRPlan       *bool   `json:"zdr_plan_required"`
	Trained       *bool   `json:"trained_on_api_data"`
	Notes         *string `json:"notes"`
}

func TestTrustDataRetention(t *testing.T) {
	for _, r := range trustRecords[retentionRec](t, "data_retention") {
		if r.ZDRPlan != nil && !isTrue(r.ZDR) {
			t.Errorf("data_retention %s: zdr_plan_required without zero data retention", r.ProviderID)
		}
		if r.OptOutMethod != nil && !isTrue(r.OptOut) {
			t.Errorf("data_retention %s: an opt-out method but opt_out_available is not true", r.ProviderID)
		}
		if r.Days != nil && *r.Days == 0 && isTrue(r.PromptLogging) {
			t.Errorf("data_retention %s: prompts logged but kept 0 days", r.ProviderID)
		}
		known := r.PromptLogging != nil || r.Days != nil || r.OptOut != nil || r.ZDR != nil || r.Trained != nil
		if known && !strings.Contains(*r.Notes, "https://") {
			t.Errorf("data_retention %s: facts without an official page in the notes", r.ProviderID)
		}
	}
}

type slaRec struct {
	ProviderID   string   `json:"provider_id"`
	Available    *bool    `json:"sla_available"`
	Uptime       *float64 `json:"guaranteed_uptime_pct"`
	CreditHourly *float64 `json:"credit_pct_per_hour_outage"`
	MaxCredit    *float64 `json:"max_credit_pct"`
	Tier         *string  `json:"tier_required"`
	URL          *string  `json:"sla_url"`
}

func TestTrustSLA(t *testing.T) {
	recs := trustRecords[slaRec](t, "sla")
	for i, r := range recs {
		if r.Uptime != nil && (!isTrue(r.Available) || r.URL == nil || !strings.HasPrefix(*r.URL, "https://")) {
			t.Errorf("sla %s: a guaranteed uptime needs sla_available true and the SLA's https URL", r.ProviderID)
		}
		if !isTrue(r.Available) && (r.Uptime != nil || r.CreditHourly != nil || r.MaxCredit != nil || r.URL != nil) {
			t.Errorf("sla %s: SLA terms without a published SLA", r.ProviderID)
		}
		if r.Available == nil && r.Tier != nil {
			t.Errorf("sla %s: a tier for an SLA not confirmed", r.ProviderID)
		}
		if i == 0 {
			continue
		}
		// Guaranteed uptime descending, null last, then provider ID.
		p := recs[i-1]
		var c int
		switch {
		case p.Uptime == nil && r.Uptime != nil:
			c = 1
		case p.Uptime != nil && r.Uptime == nil:
			c = -1
		case p.Uptime != nil:
			c = cmp.Compare(*r.Uptime, *p.Uptime)
		}
		if cmp.Or(c, strings.Compare(p.ProviderID, r.ProviderID)) >= 0 {
			t.Errorf("sla: record %d (%s) out of order", i, r.ProviderID)
		}
	}
	for _, want := range []string{"aws-bedrock", "azure-openai", "google-vertex-ai"} {
		if !slices.ContainsFunc(recs, func(r slaRec) bool { return r.ProviderID == want && r.Uptime != nil }) {
			t.Errorf("sla: %s publishes an uptime SLA but has none recorded", want)
		}
	}
}

type guardrailRec struct {
	ProviderID   string   `json:"provider_id"`
	Enabled      *bool    `json:"safety_filters_enabled"`
	Configurable *bool    `json:"configurable"`
	Categories   []string `json:"filter_categories"`
	Strictness   []string `json:"strictness_levels"`
	CanDisable   *bool    `json:"can_disable"`
	Notes        *string  `json:"notes"`
}

// lowerSorted reports whether a list is lower-case identifiers, ascending, without repeats.
func lowerSorted(xs []string) bool {
	for i, x := range xs {
		if x == "" || x != strings.ToLower(x) || strings.ContainsAny(x, " -") || (i > 0 && xs[i-1] >= x) {
			return false
		}
	}
	return true
}

func TestTrustGuardrails(t *testing.T) {
	for _, r := range trustRecords[guardrailRec](t, "guardrails") {
		if !lowerSorted(r.Categories) || !lowerSorted(r.Strictness) {
			t.Errorf("guardrails %s: categories %v / strictness %v are not sorted lower-case identifiers", r.ProviderID, r.Categories, r.Strictness)
		}
		if !isTrue(r.Configurable) && len(r.Strictness) > 0 {
			t.Errorf("guardrails %s: strictness levels but not configurable", r.ProviderID)
		}
		if r.Enabled == nil && (len(r.Categories) > 0 || r.Configurable != nil || r.CanDisable != nil) {
			t.Errorf("guardrails %s: details for filters not confirmed", r.ProviderID)
		}
		if r.Enabled != nil && !strings.Contains(*r.Notes, "https://") {
			t.Errorf("guardrails %s: facts without an official page in the notes", r.ProviderID)
		}
	}
}

type regionsRec struct {
	ProviderID string `json:"provider_id"`
	Regions    []struct {
		RegionID  string    `json:"region_id"`
		Name      string    `json:"name"`
		Geography string    `json:"geography"`
		Models    *[]string `json:"models"`
	} `json:"inference_regions"`
	Geographies []string `json:"geographies"`
	EU          *bool    `json:"eu_available"`
	Notes       *string  `json:"notes"`
}

func TestTrustRegions(t *testing.T) {
	geographies := []string{"af", "ap", "ca", "eu", "global", "me", "sa", "us"} // the document's value set
	for _, r := range trustRecords[regionsRec](t, "regions") {
		geos := []string{}
		for i, g := range r.Regions {
			if i > 0 && r.Regions[i-1].RegionID >= g.RegionID {
				t.Errorf("regions %s: %s out of order or repeated", r.ProviderID, g.RegionID)
			}
			if !slices.Contains(geographies, g.Geography) || g.Name == "" {
				t.Errorf("regions %s %s: geography %q or name %q", r.ProviderID, g.RegionID, g.Geography, g.Name)
			}
			if !slices.Contains(geos, g.Geography) {
				geos = append(geos, g.Geography)
			}
			if g.Models != nil && len(*g.Models) == 0 {
				t.Errorf("regions %s %s: an empty models list (null means unknown)", r.ProviderID, g.RegionID)
			}
		}
		slices.Sort(geos)
		if !slices.Equal(geos, r.Geographies) {
			t.Errorf("regions %s: geographies %v, regions say %v", r.ProviderID, r.Geographies, geos)
		}
		if slices.Contains(geos, "eu") && !isTrue(r.EU) {
			t.Errorf("regions %s: an EU region but eu_available is not true", r.ProviderID)
		}
		if isTrue(r.EU) && !slices.Contains(geos, "eu") {
			t.Errorf("regions %s: eu_available without an EU region", r.ProviderID)
		}
		if (len(r.Regions) > 0 || r.EU != nil) && !strings.Contains(*r.Notes, "https://") {
			t.Errorf("regions %s: facts without an official page in the notes", r.ProviderID)
		}
	}
}
