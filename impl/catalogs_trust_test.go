package impl_test

import (
	"cmp"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/switchboard/switchboard/apitest"
	"github.com/switchboard/switchboard/dbtest"
	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/impl"
	"github.com/switchboard/switchboard/seeds"
)

// the trust catalogs: compliance, security certifications, data retention, SLA, guardrails and regions. Every expectation
// is computed from the catalog files with plain loops and compared in full (which records, in which order, and
// their content), with the meta counts recounted from the records returned.

func TestTrustCatalogs(t *testing.T) {
	s := catServer(t)
	t.Run("Compliance", func(t *testing.T) { testTrustCompliance(t, s) })
	t.Run("SecurityCertifications", func(t *testing.T) { testTrustSecurityCerts(t, s) })
	t.Run("DataRetention", func(t *testing.T) { testTrustDataRetention(t, s) })
	t.Run("SLA", func(t *testing.T) { testTrustSLA(t, s) })
	t.Run("Guardrails", func(t *testing.T) { testTrustGuardrails(t, s) })
	t.Run("Regions", func(t *testing.T) { testTrustRegions(t, s) })
}

// geSame compares records in full (content and order) and the envelope metadata of an answer.
func geSame[T any](t *testing.T, path string, got, want []T, asOf openapi_types.Date, sources []api.Source, c *seeds.Catalog) {
	t.Helper()
	if want == nil {
		want = []T{}
	}
	if !reflect.DeepEqual(got, want) {
		gb, _ := json.Marshal(got)
		wb, _ := json.Marshal(want)
		t.Errorf("%s: got %d records, want %d\n got: %.600s\nwant: %.600s", path, len(got), len(want), gb, wb)
	}
	catMeta(t, path, c, asOf.String(), sources, got)
}

func testTrustCompliance(t *testing.T, s *apitest.Server) {
	type r = api.ComplianceRecord
	recs, c := catFile[r](t, "compliance")
	slices.SortStableFunc(recs, catByKey(func(x r) string { return x.ProviderId }))
	check := func(path string, want []r) {
		t.Helper()
		b := catGet[api.ComplianceResponse](t, s, path)
		geSame(t, path, b.Compliance, want, b.Meta.AsOf, b.Meta.Sources, c)
		var gdpr, hipaa, soc2 int
		for _, x := range want {
			if catTrue(x.GdprCompliant) {
				gdpr++
			}
			if catTrue(x.HipaaBaaAvailable) {
				hipaa++
			}
			if x.Soc2Type != nil && *x.Soc2Type == "Type II" {
				soc2++
			}
		}
		if m := b.Meta; m.GdprCompliantCount != gdpr || m.HipaaBaaCount != hipaa || m.Soc2IiCount != soc2 {
			t.Errorf("%s: meta gdpr/hipaa/soc2 %d/%d/%d, records say %d/%d/%d", path, m.GdprCompliantCount, m.HipaaBaaCount, m.Soc2IiCount, gdpr, hipaa, soc2)
		}
	}
	check("/api/v1/compliance", recs)
	check("/api/v1/compliance?hipaa=false&gdpr=false", recs)
	check("/api/v1/compliance?provider=openai", catWhere(recs, func(x r) bool { return x.ProviderId == "openai" }))
	for _, cert := range []string{"soc2", "hipaa", "iso27001", "gdpr", "pci-dss", "fedramp"} {
		check("/api/v1/compliance?certification="+cert, catWhere(recs, func(x r) bool { return slices.Contains(x.Certifications, cert) }))
	}
	hipaa := catWhere(recs, func(x r) bool { return catTrue(x.HipaaBaaAvailable) })
	gdpr := catWhere(recs, func(x r) bool { return catTrue(x.GdprCompliant) })
	catSplits(t, "hipaa=true", hipaa, recs)
	catSplits(t, "gdpr=true", gdpr, recs)
	check("/api/v1/compliance?hipaa=true", hipaa)
	check("/api/v1/compliance?gdpr=true", gdpr)
	check("/api/v1/compliance?hipaa=true&gdpr=true&certification=fedramp", catWhere(recs, func(x r) bool {
		return catTrue(x.HipaaBaaAvailable) && catTrue(x.GdprCompliant) && slices.Contains(x.Certifications, "fedramp")
	}))
	check("/api/v1/compliance?provider=deepseek&gdpr=true", nil) // a known provider with nothing confirmed

	catRefused(t, s, "/api/v1/compliance?provider=nope", 404, "provider")
	catRefused(t, s, "/api/v1/compliance?certification=iso9001", 400, "certification")
	catRefused(t, s, "/api/v1/compliance?hipaa=maybe", 400, "hipaa")
	catRefused(t, s, "/api/v1/compliance?gdpr=2", 400, "gdpr")
}

// geSummary recounts the security-certifications summary from records, independently of the handler's code.
func geSummary(recs []api.SecurityCertificationsRecord) []api.SecurityCertificationsSummary {
	var order []string
	byID := map[string]*api.SecurityCertificationsSummary{}
	for _, x := range recs {
		e, ok := byID[x.ProviderId]
		if !ok {
			e = &api.SecurityCertificationsSummary{ProviderId: x.ProviderId, Certifications: []api.SecurityCertificationsCertification{}}
			byID[x.ProviderId] = e
			order = append(order, x.ProviderId)
		}
		if x.Status == "certified" {
			e.CertifiedCount++
			e.Certifications = append(e.Certifications, x.Certification)
		}
	}
	out := []api.SecurityCertificationsSummary{}
	for _, id := range order {
		out = append(out, *byID[id])
	}
	// Insertion sort by count descending, then provider ID: simple enough to trust.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0; j-- {
			a, b := out[j-1], out[j]
			if b.CertifiedCount > a.CertifiedCount || (b.CertifiedCount == a.CertifiedCount && b.ProviderId < a.ProviderId) {
				out[j-1], out[j] = b, a
			}
		}
	}
	return out
}

func testTrustSecurityCerts(t *testing.T, s *apitest.Server) {
	type r = api.SecurityCertificationsRecord
	recs, c := catFile[r](t, "security_certifications")
	slices.SortStableFunc(recs, func(a, b r) int {
		return cmp.Or(strings.Compare(a.ProviderId, b.ProviderId), strings.Compare(string(a.Certification), string(b.Certification)))
	})
	check := func(path string, want []r) {
		t.Helper()
		b := catGet[api.SecurityCertificationsResponse](t, s, path)
		geSame(t, path, b.Data, want, b.Meta.AsOf, b.Meta.Sources, c)
		if sum := geSummary(want); !reflect.DeepEqual(b.Summary, sum) {
			t.Errorf("%s: summary\n got %+v\nwant %+v", path, b.Summary, sum)
		}
	}
	check("/api/v1/security-certifications", recs)
	check("/api/v1/security-certifications?provider=aws-bedrock", catWhere(recs, func(x r) bool { return x.ProviderId == "aws-bedrock" }))
	for _, cert := range []string{"SOC2_Type2", "ISO27001", "HIPAA", "GDPR", "FedRAMP", "PCI_DSS", "CSA_STAR", "HITRUST"} {
		check("/api/v1/security-certifications?certification="+cert, catWhere(recs, func(x r) bool { return string(x.Certification) == cert }))
	}
	certified := catWhere(recs, func(x r) bool { return x.Status == "certified" })
	catSplits(t, "status=certified", certified, recs)
	check("/api/v1/security-certifications?status=certified", certified)
	check("/api/v1/security-certifications?status=unknown", catWhere(recs, func(x r) bool { return x.Status == "unknown" }))
	check("/api/v1/security-certifications?status=in_progress", nil)
	check("/api/v1/security-certifications?provider=anthropic&status=certified&certification=ISO27001",
		catWhere(recs, func(x r) bool {
			return x.ProviderId == "anthropic" && x.Status == "certified" && x.Certification == "ISO27001"
		}))
	check("/api/v1/security-certifications?provider=deepseek&status=certified", nil)

	catRefused(t, s, "/api/v1/security-certifications?provider=nope", 404, "provider")
	catRefused(t, s, "/api/v1/security-certifications?certification=soc2", 400, "certification")
	catRefused(t, s, "/api/v1/security-certifications?status=held", 400, "status")
}

// TestSecurityCertificationSummary checks the summary function on hand-made records: providers in order of
// appearance, only certified records counted, ties broken by provider ID.
func TestSecurityCertificationSummary(t *testing.T) {
	rec := func(p string, c api.SecurityCertificationsCertification, st api.SecurityCertificationsStatus) api.SecurityCertificationsRecord {
		return api.SecurityCertificationsRecord{ProviderId: p, Certification: c, Status: st}
	}
	got := impl.SecurityCertificationSummary([]api.SecurityCertificationsRecord{
		rec("zeta", "GDPR", "certified"), rec("zeta", "HIPAA", "unknown"),
		rec("alpha", "GDPR", "in_progress"),
		rec("beta", "FedRAMP", "certified"), rec("beta", "SOC2_Type2", "certified"),
		rec("gamma", "ISO27001", "certified"),
	})
	want := []api.SecurityCertificationsSummary{
		{ProviderId: "beta", CertifiedCount: 2, Certifications: []api.SecurityCertificationsCertification{"FedRAMP", "SOC2_Type2"}},
		{ProviderId: "gamma", CertifiedCount: 1, Certifications: []api.SecurityCertificationsCertification{"ISO27001"}},
		{ProviderId: "zeta", CertifiedCount: 1, Certifications: []api.SecurityCertificationsCertification{"GDPR"}},
		{ProviderId: "alpha", CertifiedCount: 0, Certifications: []api.SecurityCertificationsCertification{}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("summary\n got %+v\nwant %+v", got, want)
	}
	if got := impl.SecurityCertificationSummary(nil); got == nil || len(got) != 0 {
		t.Errorf("summary of nothing = %#v, want an empty list", got)
	}
}

func testTrustDataRetention(t *testing.T, s *apitest.Server) {
	type r = api.DataRetentionRecord
	recs, c := catFile[r](t, "data_retention")
	slices.SortStableFunc(recs, catByKey(func(x r) string { return x.ProviderId }))
	check := func(path string, want []r) {
		t.Helper()
		b := catGet[api.DataRetentionResponse](t, s, path)
		geSame(t, path, b.DataRetention, want, b.Meta.AsOf, b.Meta.Sources, c)
		var zdr, trains int
		for _, x := range want {
			if catTrue(x.ZeroDataRetentionAvailable) {
				zdr++
			}
			if catTrue(x.TrainedOnApiData) {
				trains++
			}
		}
		if b.Meta.ZdrAvailableCount != zdr || b.Meta.TrainsOnDataCount != trains {
			t.Errorf("%s: meta zdr/trains %d/%d, records say %d/%d", path, b.Meta.ZdrAvailableCount, b.Meta.TrainsOnDataCount, zdr, trains)
		}
	}
	zdr := catWhere(recs, func(x r) bool { return catTrue(x.ZeroDataRetentionAvailable) })
	noTraining := catWhere(recs, func(x r) bool { return catFalse(x.TrainedOnApiData) })
	catSplits(t, "zdr_available=true", zdr, recs)
	catSplits(t, "no_training=true", noTraining, recs)
	check("/api/v1/data-retention", recs)
	check("/api/v1/data-retention?zdr_available=false&no_training=false", recs)
	check("/api/v1/data-retention?provider=groq", catWhere(recs, func(x r) bool { return x.ProviderId == "groq" }))
	check("/api/v1/data-retention?zdr_available=true", zdr)
	check("/api/v1/data-retention?no_training=true", noTraining)
	check("/api/v1/data-retention?zdr_available=true&no_training=true", catWhere(zdr, func(x r) bool { return catFalse(x.TrainedOnApiData) }))
	// Unknown training use is not "no training": a provider with a null value is dropped.
	check("/api/v1/data-retention?provider=deepseek&no_training=true", nil)

	catRefused(t, s, "/api/v1/data-retention?provider=nope", 404, "provider")
	catRefused(t, s, "/api/v1/data-retention?zdr_available=yes", 400, "zdr_available")
	catRefused(t, s, "/api/v1/data-retention?no_training=1x", 400, "no_training")
}

func testTrustSLA(t *testing.T, s *apitest.Server) {
	type r = api.SlaRecord
	recs, c := catFile[r](t, "sla")
	// Guaranteed uptime descending, unknown last, then provider ID.
	slices.SortStableFunc(recs, func(a, b r) int {
		switch {
		case a.GuaranteedUptimePct == nil && b.GuaranteedUptimePct != nil:
			return 1
		case a.GuaranteedUptimePct != nil && b.GuaranteedUptimePct == nil:
			return -1
		case a.GuaranteedUptimePct != nil && *a.GuaranteedUptimePct != *b.GuaranteedUptimePct:
			return cmp.Compare(*b.GuaranteedUptimePct, *a.GuaranteedUptimePct)
		}
		return strings.Compare(a.ProviderId, b.ProviderId)
	})
	check := func(path string, want []r) {
		t.Helper()
		b := catGet[api.SlaResponse](t, s, path)
		geSame(t, path, b.Sla, want, b.Meta.AsOf, b.Meta.Sources, c)
		if n := len(catWhere(want, func(x r) bool { return catTrue(x.SlaAvailable) })); b.Meta.SlaAvailableCount != n {
			t.Errorf("%s: sla_available_count %d, records say %d", path, b.Meta.SlaAvailableCount, n)
		}
	}
	atLeast := func(min float64) []r {
		return catWhere(recs, func(x r) bool { return x.GuaranteedUptimePct != nil && *x.GuaranteedUptimePct >= min })
	}
	available := catWhere(recs, func(x r) bool { return catTrue(x.SlaAvailable) })
	catSplits(t, "sla_available_only=true", available, recs)
	catSplits(t, "min_uptime=99.9", atLeast(99.9), atLeast(0))
	check("/api/v1/sla", recs)
	check("/api/v1/sla?sla_available_only=false", recs)
	check("/api/v1/sla?provider=aws-bedrock", catWhere(recs, func(x r) bool { return x.ProviderId == "aws-bedrock" }))
	check("/api/v1/sla?sla_available_only=true", available)
	check("/api/v1/sla?min_uptime=99.9", atLeast(99.9))
	check("/api/v1/sla?min_uptime=99.5", atLeast(99.5))
	check("/api/v1/sla?min_uptime=0", atLeast(0)) // any minimum leaves out unknown guarantees
	check("/api/v1/sla?min_uptime=100", atLeast(100))
	check("/api/v1/sla?provider=anthropic&sla_available_only=true", nil)

	catRefused(t, s, "/api/v1/sla?provider=nope", 404, "provider")
	catRefused(t, s, "/api/v1/sla?min_uptime=-1", 400, "min_uptime")
	catRefused(t, s, "/api/v1/sla?min_uptime=100.5", 400, "min_uptime")
	catRefused(t, s, "/api/v1/sla?min_uptime=high", 400, "min_uptime")
	catRefused(t, s, "/api/v1/sla?sla_available_only=sure", 400, "sla_available_only")
}

func TestSLATarget(t *testing.T) {
	pct := func(v float64) *float64 { return &v }
	yes, no := true, false
	for _, c := range []struct {
		rec    api.SlaRecord
		want   float64
		wantOK bool
	}{
		{api.SlaRecord{SlaAvailable: &yes, GuaranteedUptimePct: pct(99.9)}, 99.9, true},
		{api.SlaRecord{SlaAvailable: &yes}, 0, false},                                // an SLA without a stated guarantee
		{api.SlaRecord{SlaAvailable: &no, GuaranteedUptimePct: pct(99.5)}, 0, false}, // not a published SLA
		{api.SlaRecord{GuaranteedUptimePct: pct(99.5)}, 0, false},                    // not confirmed
	} {
		if got, ok := impl.SLATarget(c.rec); got != c.want || ok != c.wantOK {
			t.Errorf("SLATarget(%+v) = %v, %v; want %v, %v", c.rec, got, ok, c.want, c.wantOK)
		}
	}
}

// TestTrustUptimeHistorySLA checks that /uptime-history reads its sla_target from the SLA catalog through the
// health view New builds (the server's own wiring, not a view made by the test).
func TestTrustUptimeHistorySLA(t *testing.T) {
	st, _ := dbtest.Engines(t)[0].Open(t)
	buildHistory(t, st, time.Now().UTC())
	s := apitest.Start(t, apitest.Options{Store: st})
	slas, _ := catFile[api.SlaRecord](t, "sla")
	target := map[string]*float64{}
	for _, x := range slas {
		if catTrue(x.SlaAvailable) {
			target[x.ProviderId] = x.GuaranteedUptimePct
		}
	}
	for _, c := range []struct {
		provider string
		want     string // sla_target
		met      string // sla_met
	}{
		{"azure-openai", "99.9", "null"},     // an SLA, no observations: nothing to compare
		{"google-vertex-ai", "99.5", "null"}, // another target
		{"openai", "99.9", "false"},          // observed 71.43% in buildHistory
		{"mistral", "99.5", "true"},          // Priority Tier only; observed all up in buildHistory
		{"cerebras", "null", "null"},         // no SLA confirmed
		{"google-gemini", "null", "null"},    // publishes no SLA
	} {
		if got := num(target[c.provider]); got != c.want {
			t.Fatalf("sla.json gives %s a target of %s, the test expects %s: update the test", c.provider, got, c.want)
		}
		var u api.UptimeHistoryResponse
		get(t, s, "/api/v1/uptime-history?provider="+c.provider, &u)
		met := "null"
		if u.SlaMet != nil {
			met = map[bool]string{true: "true", false: "false"}[*u.SlaMet]
		}
		if num(u.SlaTarget) != c.want || met != c.met {
			t.Errorf("%s: sla_target %s, sla_met %s; want %s, %s", c.provider, num(u.SlaTarget), met, c.want, c.met)
		}
	}
}

func testTrustGuardrails(t *testing.T, s *apitest.Server) {
	type r = api.GuardrailsRecord
	recs, c := catFile[r](t, "guardrails")
	slices.SortStableFunc(recs, catByKey(func(x r) string { return x.ProviderId }))
	check := func(path string, want []r) {
		t.Helper()
		b := catGet[api.GuardrailsResponse](t, s, path)
		geSame(t, path, b.Guardrails, want, b.Meta.AsOf, b.Meta.Sources, c)
		var canDisable, noFilters, high int
		for _, x := range want {
			if catTrue(x.CanDisable) {
				canDisable++
			}
			if catFalse(x.SafetyFiltersEnabled) {
				noFilters++
			}
			if x.FalsePositiveRisk != nil && *x.FalsePositiveRisk == "high" {
				high++
			}
		}
		if m := b.Meta; m.CanDisable != canDisable || m.NoFilters != noFilters || m.HighFalsePositive != high {
			t.Errorf("%s: meta %d/%d/%d, records say %d/%d/%d", path, m.CanDisable, m.NoFilters, m.HighFalsePositive, canDisable, noFilters, high)
		}
	}
	hasCategory := func(cat string) []r {
		return catWhere(recs, func(x r) bool { return slices.Contains(x.FilterCategories, cat) })
	}
	configurable := catWhere(recs, func(x r) bool { return catTrue(x.Configurable) })
	canDisable := catWhere(recs, func(x r) bool { return catTrue(x.CanDisable) })
	catSplits(t, "configurable_only=true", configurable, recs)
	catSplits(t, "can_disable=true", canDisable, recs)
	catSplits(t, "category=hate", hasCategory("hate"), recs)
	check("/api/v1/guardrails", recs)
	check("/api/v1/guardrails?configurable_only=false&can_disable=false", recs)
	check("/api/v1/guardrails?provider=azure-openai", catWhere(recs, func(x r) bool { return x.ProviderId == "azure-openai" }))
	check("/api/v1/guardrails?configurable_only=true", configurable)
	check("/api/v1/guardrails?can_disable=true", canDisable)
	check("/api/v1/guardrails?category=hate", hasCategory("hate"))
	check("/api/v1/guardrails?category=HATE", hasCategory("hate")) // case-insensitive
	check("/api/v1/guardrails?category=hat", nil)                  // an exact entry, not a substring
	check("/api/v1/guardrails?category=hate_speech", hasCategory("hate_speech"))
	check("/api/v1/guardrails?category=violence&configurable_only=true&can_disable=true", catWhere(recs, func(x r) bool {
		return slices.Contains(x.FilterCategories, "violence") && catTrue(x.Configurable) && catTrue(x.CanDisable)
	}))
	check("/api/v1/guardrails?provider=anthropic&can_disable=true", nil)

	catRefused(t, s, "/api/v1/guardrails?provider=nope", 404, "provider")
	catRefused(t, s, "/api/v1/guardrails?category=", 400, "category")
	catRefused(t, s, "/api/v1/guardrails?category="+strings.Repeat("x", 101), 400, "category")
	catRefused(t, s, "/api/v1/guardrails?configurable_only=on", 400, "configurable_only")
	catRefused(t, s, "/api/v1/guardrails?can_disable=no", 400, "can_disable")
}

func testTrustRegions(t *testing.T, s *apitest.Server) {
	type r = api.RegionsRecord
	recs, c := catFile[r](t, "regions")
	slices.SortStableFunc(recs, catByKey(func(x r) string { return x.ProviderId }))
	check := func(path string, want []r) {
		t.Helper()
		b := catGet[api.RegionsResponse](t, s, path)
		geSame(t, path, b.Regions, want, b.Meta.AsOf, b.Meta.Sources, c)
		var eu, us, ap int
		for _, x := range want {
			if catTrue(x.EuAvailable) {
				eu++
			}
			if slices.Contains(x.Geographies, "us") {
				us++
			}
			if slices.Contains(x.Geographies, "ap") {
				ap++
			}
		}
		if m := b.Meta; m.EuAvailableCount != eu || m.UsAvailableCount != us || m.ApAvailableCount != ap {
			t.Errorf("%s: meta eu/us/ap %d/%d/%d, records say %d/%d/%d", path, m.EuAvailableCount, m.UsAvailableCount, m.ApAvailableCount, eu, us, ap)
		}
	}
	in := func(geo string) []r {
		return catWhere(recs, func(x r) bool { return slices.Contains(x.Geographies, geo) })
	}
	serving := func(needle string) []r {
		return catWhere(recs, func(x r) bool {
			for _, g := range x.InferenceRegions {
				if g.Models == nil {
					continue
				}
				for _, m := range *g.Models {
					if strings.Contains(strings.ToLower(m), strings.ToLower(needle)) {
						return true
					}
				}
			}
			return false
		})
	}
	euOnly := catWhere(recs, func(x r) bool { return catTrue(x.EuAvailable) })
	for _, geo := range []string{"eu", "us", "ap"} {
		catSplits(t, "region="+geo, in(geo), recs)
	}
	catSplits(t, "eu_only=true", euOnly, recs)
	catSplits(t, "model=claude", serving("claude"), recs)
	check("/api/v1/regions", recs)
	check("/api/v1/regions?eu_only=false", recs)
	check("/api/v1/regions?provider=aws-bedrock", catWhere(recs, func(x r) bool { return x.ProviderId == "aws-bedrock" }))
	check("/api/v1/regions?region=eu", in("eu"))
	check("/api/v1/regions?region=us", in("us"))
	check("/api/v1/regions?region=ap", in("ap"))
	check("/api/v1/regions?eu_only=true", euOnly)
	// model: a partial, case-insensitive match on the documented models; records come back whole.
	check("/api/v1/regions?model=Claude", serving("claude"))
	check("/api/v1/regions?model=titan-embed", serving("titan-embed"))
	check("/api/v1/regions?model=no-such-model", nil)
	check("/api/v1/regions?region=ap&eu_only=true", catWhere(in("ap"), func(x r) bool { return catTrue(x.EuAvailable) }))
	check("/api/v1/regions?provider=deepseek&region=eu", nil)

	catRefused(t, s, "/api/v1/regions?provider=nope", 404, "provider")
	catRefused(t, s, "/api/v1/regions?region=mars", 400, "region")
	catRefused(t, s, "/api/v1/regions?region=EU", 400, "region")
	catRefused(t, s, "/api/v1/regions?eu_only=si", 400, "eu_only")
}
