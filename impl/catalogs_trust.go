package impl

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/switchboard/switchboard/catalog"
	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/health"
	"github.com/switchboard/switchboard/seeds"
)

// the trust catalogs: compliance, security certifications, data retention, SLA, guardrails and regions. All six catalogs are
// hand-curated from the providers' official pages; most of their facts can be unknown (null), and a filter or a
// meta count only ever counts a fact that is confirmed.

// Catalog names of this file (seeds/catalogs/<name>.json).
const (
	catalogCompliance    = "compliance"
	catalogSecurityCerts = "security_certifications"
	catalogDataRetention = "data_retention"
	catalogSLA           = "sla"
	catalogGuardrails    = "guardrails"
	catalogRegions       = "regions"
)

// Values of free-text fields that meta counts read.
const (
	soc2TypeII            = "Type II" // compliance soc2_type counted by soc2_ii_count
	falsePositiveRiskHigh = "high"    // guardrails false_positive_risk counted by high_false_positive
)

// The catalogs of this file.
var (
	complianceCatalog = declare(catalog.Spec[api.ComplianceRecord]{
		Name: catalogCompliance, Provider: complianceProvider, Natural: catalog.ByKeys(complianceProvider),
	})
	securityCertsCatalog = declare(catalog.Spec[api.SecurityCertificationsRecord]{
		Name: catalogSecurityCerts, Provider: securityCertProvider, Natural: catalog.ByKeys(securityCertProvider, securityCertName),
	})
	dataRetentionCatalog = declare(catalog.Spec[api.DataRetentionRecord]{
		Name: catalogDataRetention, Provider: dataRetentionProvider, Natural: catalog.ByKeys(dataRetentionProvider),
	})
	// The SLA catalog's only order is the document's: guaranteed uptime descending (unknown last), then provider.
	slaCatalog = declare(catalog.Spec[api.SlaRecord]{
		Name: catalogSLA, Provider: slaProvider, Natural: catalog.Then(catalog.Descending(slaUptime), catalog.ByKeys(slaProvider)),
	})
	guardrailsCatalog = declare(catalog.Spec[api.GuardrailsRecord]{
		Name: catalogGuardrails, Provider: guardrailsProvider, Natural: catalog.ByKeys(guardrailsProvider),
	})
	regionsCatalog = declare(catalog.Spec[api.RegionsRecord]{
		Name: catalogRegions, Provider: regionsProvider, Natural: catalog.ByKeys(regionsProvider),
	})
)

// Record fields the specs and filters read.
func complianceProvider(r *api.ComplianceRecord) string { return r.ProviderId }
func securityCertProvider(r *api.SecurityCertificationsRecord) string {
	return r.ProviderId
}
func securityCertName(r *api.SecurityCertificationsRecord) string {
	return string(r.Certification)
}
func dataRetentionProvider(r *api.DataRetentionRecord) string { return r.ProviderId }
func slaProvider(r *api.SlaRecord) string                     { return r.ProviderId }
func slaUptime(r *api.SlaRecord) *float64                     { return r.GuaranteedUptimePct }
func guardrailsProvider(r *api.GuardrailsRecord) string       { return r.ProviderId }
func regionsProvider(r *api.RegionsRecord) string             { return r.ProviderId }

// ---- /compliance

func complianceSOC2TypeII(r *api.ComplianceRecord) bool {
	return r.Soc2Type != nil && *r.Soc2Type == soc2TypeII
}

func complianceOK(recs []api.ComplianceRecord, m listMeta) api.GetComplianceResponseObject {
	return api.GetCompliance200JSONResponse{Compliance: recs, Meta: api.ComplianceMeta{Total: m.Total, NextCursor: m.NextCursor,
		GdprCompliantCount: countTrue(recs, func(r *api.ComplianceRecord) *bool { return r.GdprCompliant }),
		HipaaBaaCount:      countTrue(recs, func(r *api.ComplianceRecord) *bool { return r.HipaaBaaAvailable }),
		Soc2IiCount:        catalog.Count(recs, complianceSOC2TypeII),
		AsOf:               m.AsOf, Sources: m.Sources,
	}}
}

// GetCompliance serves the compliance posture of each provider.
func (s *Server) GetCompliance(ctx context.Context, req api.GetComplianceRequestObject) (api.GetComplianceResponseObject, error) {
	p := req.Params
	var holds catalog.Filter[api.ComplianceRecord]
	if p.Certification != nil {
		want := string(*p.Certification)
		holds = func(r *api.ComplianceRecord) bool { return slices.Contains(r.Certifications, want) }
	}
	return answer[api.GetCompliance404JSONResponse, api.GetCompliance400JSONResponse](ctx, s, pageOf(req.Params.Limit, req.Params.Cursor), complianceCatalog.from, complianceOK,
		catalog.Query[api.ComplianceRecord]{Provider: orDefault(p.Provider, "")}, holds,
		trueFlag(p.Hipaa, func(r *api.ComplianceRecord) *bool { return r.HipaaBaaAvailable }),
		trueFlag(p.Gdpr, func(r *api.ComplianceRecord) *bool { return r.GdprCompliant }))
}

// ---- /security-certifications

// SecurityCertificationSummary is the `summary` of GET /security-certifications: one entry per provider present
// in recs, with its certified records counted and listed in recs' order, sorted by certified count descending,
// then provider ID.
func SecurityCertificationSummary(recs []api.SecurityCertificationsRecord) []api.SecurityCertificationsSummary {
	out := []api.SecurityCertificationsSummary{}
	at := map[string]int{}
	for _, r := range recs {
		i, ok := at[r.ProviderId]
		if !ok {
			i = len(out)
			at[r.ProviderId] = i
			out = append(out, api.SecurityCertificationsSummary{ProviderId: r.ProviderId, Certifications: []api.SecurityCertificationsCertification{}})
		}
		if r.Status == api.SecurityCertificationsStatusCertified {
			out[i].CertifiedCount++
			out[i].Certifications = append(out[i].Certifications, r.Certification)
		}
	}
	slices.SortStableFunc(out, func(a, b api.SecurityCertificationsSummary) int {
		return cmp.Or(cmp.Compare(b.CertifiedCount, a.CertifiedCount), strings.Compare(a.ProviderId, b.ProviderId))
	})
	return out
}

func securityCertsOK(recs []api.SecurityCertificationsRecord, m listMeta) api.GetSecurityCertificationsResponseObject {
	return api.GetSecurityCertifications200JSONResponse{
		Data: recs, Summary: SecurityCertificationSummary(recs), Meta: api.SecurityCertificationsMeta{Total: m.Total, NextCursor: m.NextCursor, AsOf: m.AsOf, Sources: m.Sources},
	}
}

// GetSecurityCertifications serves the status of each certification per provider, with a per-provider summary.
func (s *Server) GetSecurityCertifications(ctx context.Context, req api.GetSecurityCertificationsRequestObject) (api.GetSecurityCertificationsResponseObject, error) {
	p := req.Params
	return answer[api.GetSecurityCertifications404JSONResponse, api.GetSecurityCertifications400JSONResponse](ctx, s, pageOf(req.Params.Limit, req.Params.Cursor), securityCertsCatalog.from, securityCertsOK,
		catalog.Query[api.SecurityCertificationsRecord]{Provider: orDefault(p.Provider, "")},
		catalog.Equal(p.Certification, func(r *api.SecurityCertificationsRecord) api.SecurityCertificationsCertification {
			return r.Certification
		}),
		catalog.Equal(p.Status, func(r *api.SecurityCertificationsRecord) api.SecurityCertificationsStatus { return r.Status }))
}

// ---- /data-retention

func dataRetentionOK(recs []api.DataRetentionRecord, m listMeta) api.GetDataRetentionResponseObject {
	return api.GetDataRetention200JSONResponse{DataRetention: recs, Meta: api.DataRetentionMeta{Total: m.Total, NextCursor: m.NextCursor,
		ZdrAvailableCount: countTrue(recs, func(r *api.DataRetentionRecord) *bool { return r.ZeroDataRetentionAvailable }),
		TrainsOnDataCount: countTrue(recs, func(r *api.DataRetentionRecord) *bool { return r.TrainedOnApiData }),
		AsOf:              m.AsOf, Sources: m.Sources,
	}}
}

// GetDataRetention serves data retention and training use per provider.
func (s *Server) GetDataRetention(ctx context.Context, req api.GetDataRetentionRequestObject) (api.GetDataRetentionResponseObject, error) {
	p := req.Params
	return answer[api.GetDataRetention404JSONResponse, api.GetDataRetention400JSONResponse](ctx, s, pageOf(req.Params.Limit, req.Params.Cursor), dataRetentionCatalog.from, dataRetentionOK,
		catalog.Query[api.DataRetentionRecord]{Provider: orDefault(p.Provider, "")},
		trueFlag(p.ZdrAvailable, func(r *api.DataRetentionRecord) *bool { return r.ZeroDataRetentionAvailable }),
		catalog.Flag(orDefault(p.NoTraining, false), func(r *api.DataRetentionRecord) bool { return isFalse(r.TrainedOnApiData) }))
}

// ---- /sla

// SLATarget is the uptime target /uptime-history compares a provider with: the guaranteed uptime of its SLA
// record, when the provider publishes an SLA and the guarantee is known.
func SLATarget(r api.SlaRecord) (float64, bool) {
	if !isTrue(r.SlaAvailable) || r.GuaranteedUptimePct == nil {
		return 0, false
	}
	return *r.GuaranteedUptimePct, true
}

// SLATargetsFor gives the health view of a binary the SLA targets of the catalogs served over reg: the view is
// built before the handlers, so it cannot take them from New.
func SLATargetsFor(reg *seeds.Registry) health.SLATargets { return slaTargets(catalogsFor(reg)) }

// slaTargets plugs the SLA catalog into the health view. A catalog that fails to load gives no targets (the
// catalog endpoints report that failure themselves).
func slaTargets(catalogs func() (*catalogSet, error)) health.SLATargets {
	return health.SLAFunc(func(providerID string) (float64, bool) {
		cs, err := catalogs()
		if err != nil {
			return 0, false
		}
		recs, err := slaCatalog.from(cs).Select(catalog.Query[api.SlaRecord]{Provider: providerID})
		if err != nil || len(recs) == 0 {
			return 0, false
		}
		return SLATarget(recs[0])
	})
}

func slaOK(recs []api.SlaRecord, m listMeta) api.GetSlaResponseObject {
	return api.GetSla200JSONResponse{Sla: recs, Meta: api.SlaMeta{Total: m.Total, NextCursor: m.NextCursor,
		SlaAvailableCount: countTrue(recs, func(r *api.SlaRecord) *bool { return r.SlaAvailable }),
		AsOf:              m.AsOf, Sources: m.Sources,
	}}
}

// GetSla serves the published service level agreements.
func (s *Server) GetSla(ctx context.Context, req api.GetSlaRequestObject) (api.GetSlaResponseObject, error) {
	p := req.Params
	// Any min_uptime, 0 included, leaves out the records without a known guarantee (the parameter's description),
	// which catalog.AtLeast would not do for 0.
	var minUptime catalog.Filter[api.SlaRecord]
	if p.MinUptime != nil {
		floor := *p.MinUptime
		minUptime = func(r *api.SlaRecord) bool { return r.GuaranteedUptimePct != nil && *r.GuaranteedUptimePct >= floor }
	}
	return answer[api.GetSla404JSONResponse, api.GetSla400JSONResponse](ctx, s, pageOf(req.Params.Limit, req.Params.Cursor), slaCatalog.from, slaOK,
		catalog.Query[api.SlaRecord]{Provider: orDefault(p.Provider, "")}, minUptime,
		trueFlag(p.SlaAvailableOnly, func(r *api.SlaRecord) *bool { return r.SlaAvailable }))
}

// ---- /guardrails

func guardrailsOK(recs []api.GuardrailsRecord, m listMeta) api.GetGuardrailsResponseObject {
	return api.GetGuardrails200JSONResponse{Guardrails: recs, Meta: api.GuardrailsMeta{Total: m.Total, NextCursor: m.NextCursor,
		CanDisable: countTrue(recs, func(r *api.GuardrailsRecord) *bool { return r.CanDisable }),
		NoFilters:  catalog.Count(recs, func(r *api.GuardrailsRecord) bool { return isFalse(r.SafetyFiltersEnabled) }),
		HighFalsePositive: catalog.Count(recs, func(r *api.GuardrailsRecord) bool {
			return r.FalsePositiveRisk != nil && *r.FalsePositiveRisk == falsePositiveRiskHigh
		}),
		AsOf: m.AsOf, Sources: m.Sources,
	}}
}

// hasEntryFold is the filter of a parameter matching a list entry exactly, ignoring case; "" is no filter.
func hasEntryFold[T any](want string, list func(*T) []string) catalog.Filter[T] {
	if want == "" {
		return nil
	}
	return func(r *T) bool {
		return slices.ContainsFunc(list(r), func(e string) bool { return strings.EqualFold(e, want) })
	}
}

// GetGuardrails serves the safety filters of each provider.
func (s *Server) GetGuardrails(ctx context.Context, req api.GetGuardrailsRequestObject) (api.GetGuardrailsResponseObject, error) {
	p := req.Params
	return answer[api.GetGuardrails404JSONResponse, api.GetGuardrails400JSONResponse](ctx, s, pageOf(req.Params.Limit, req.Params.Cursor), guardrailsCatalog.from, guardrailsOK,
		catalog.Query[api.GuardrailsRecord]{Provider: orDefault(p.Provider, "")},
		trueFlag(p.ConfigurableOnly, func(r *api.GuardrailsRecord) *bool { return r.Configurable }),
		trueFlag(p.CanDisable, func(r *api.GuardrailsRecord) *bool { return r.CanDisable }),
		hasEntryFold(orDefault(p.Category, ""), func(r *api.GuardrailsRecord) []string { return r.FilterCategories }))
}

// ---- /regions

func regionsIn(geography string) func(*api.RegionsRecord) bool {
	return func(r *api.RegionsRecord) bool { return slices.Contains(r.Geographies, geography) }
}

// regionsServing keeps the providers with a region whose documented models partially match needle, ignoring
// case; a region with unknown models (null) matches nothing. "" is no filter.
func regionsServing(needle string) catalog.Filter[api.RegionsRecord] {
	if needle == "" {
		return nil
	}
	n := strings.ToLower(needle)
	return func(r *api.RegionsRecord) bool {
		return slices.ContainsFunc(r.InferenceRegions, func(g api.RegionsInferenceRegion) bool {
			return g.Models != nil && slices.ContainsFunc(*g.Models, func(m string) bool { return strings.Contains(strings.ToLower(m), n) })
		})
	}
}

func regionsOK(recs []api.RegionsRecord, m listMeta) api.GetRegionsResponseObject {
	return api.GetRegions200JSONResponse{Regions: recs, Meta: api.RegionsMeta{Total: m.Total, NextCursor: m.NextCursor,
		EuAvailableCount: countTrue(recs, func(r *api.RegionsRecord) *bool { return r.EuAvailable }),
		UsAvailableCount: catalog.Count(recs, regionsIn(string(api.GetRegionsParamsRegionUs))),
		ApAvailableCount: catalog.Count(recs, regionsIn(string(api.GetRegionsParamsRegionAp))),
		AsOf:             m.AsOf, Sources: m.Sources,
	}}
}

// GetRegions serves the inference regions of each provider.
func (s *Server) GetRegions(ctx context.Context, req api.GetRegionsRequestObject) (api.GetRegionsResponseObject, error) {
	p := req.Params
	var inRegion catalog.Filter[api.RegionsRecord]
	if p.Region != nil {
		inRegion = regionsIn(string(*p.Region))
	}
	return answer[api.GetRegions404JSONResponse, api.GetRegions400JSONResponse](ctx, s, pageOf(req.Params.Limit, req.Params.Cursor), regionsCatalog.from, regionsOK,
		catalog.Query[api.RegionsRecord]{Provider: orDefault(p.Provider, "")}, inRegion,
		regionsServing(orDefault(p.Model, "")),
		trueFlag(p.EuOnly, func(r *api.RegionsRecord) *bool { return r.EuAvailable }))
}
