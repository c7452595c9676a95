package parse

import (
	"time"
)

// incident.io status pages (statuspage-formats.md section 3). The URL polled is the Statuspage-compatible
// /api/v2/summary.json, read exactly as a Statuspage summary (statuspage.go): incidents and
// scheduled_maintenances are null when empty, incidents carry no components, components are a flat list with
// ULID IDs.
//
// The widget API (/api/v1/summary) is read too when that is what the body is (no status, no components, but
// ongoing_incidents or page_title). Decisions for it:
//   - ongoing_incidents[]: current_worst_impact degraded_performance, partial_outage -> degraded; full_outage ->
//     outage; the affected components' current_status counts the same way; an unknown or missing impact adds
//     nothing.
//   - in_progress_maintenances[] (and any maintenance with status maintenance_in_progress): degraded with the
//     maintenance flag; maintenance_scheduled is ignored.
//   - Scope: the widget lists only affected components, so a scope cannot be found "on the page" when the API is
//     fine. With a scope, an incident counts when one of its affected components (ID, name or group name) is in
//     scope, or when it lists no affected component at all (it cannot be ruled out). Without a scope, an incident
//     whose affected components are all apps (or, listing none, whose name is an app's) is skipped, and app
//     components add nothing (DESIGN 2026-11-28: status is about the API).

func init() { register("incidentio", safe("incidentio", parseIncidentio)) }

func parseIncidentio(body []byte, scope Scope, now time.Time) (Reading, error) {
	var doc spDocument
	if err := decodeJSON("incidentio", body, '{', &doc); err != nil {
		return Reading{}, err
	}
	switch {
	case doc.isSummary():
		return doc.read(scope), nil
	case doc.isWidget():
		return doc.readWidget(scope), nil
	}
	return Reading{}, unparseable("incidentio", "neither a summary (status, components) nor a widget summary (ongoing_incidents)")
}

func (d *spDocument) readWidget(scope Scope) Reading {
	cs := newComponentScope(scope)
	v := newVerdict()
	var none unscopedTally // the widget lists only affected components, so there is no whole page to tally
	counts := func(name string, comps []spComponent) bool {
		if !cs.scoped() {
			return !appItem(&none, name, comps)
		}
		if len(comps) == 0 {
			return true
		}
		for _, c := range comps {
			if cs.names(string(c.ID), string(c.Name), string(c.GroupName)) {
				return true
			}
		}
		return false
	}
	if d.OngoingIncidents != nil {
		for _, inc := range *d.OngoingIncidents {
			if spClosed(inc.Status.norm()) || !counts(string(inc.Name), inc.AffectedComponents) {
				continue
			}
			s, _, _ := spComponentStatus(inc.CurrentWorstImpact.norm())
			v.add(s, false, prioIncident, string(inc.Name))
			for _, c := range inc.AffectedComponents {
				if (cs.scoped() && !cs.names(string(c.ID), string(c.Name), string(c.GroupName))) ||
					(!cs.scoped() && isAppName(string(c.Name))) {
					continue
				}
				s, maint, label := spComponentStatus(c.CurrentStatus.norm())
				v.add(s, maint, prioComponent, string(c.Name)+": "+label)
			}
		}
	}
	maints := append(append([]spItem(nil), d.InProgressMaintenances...), d.ScheduledMaintenances...)
	for i, m := range maints {
		inProgressList := i < len(d.InProgressMaintenances)
		st := m.Status.norm()
		if !(spMaintenanceInProgress(st) || (inProgressList && st == "")) || !counts(string(m.Name), m.AffectedComponents) {
			continue
		}
		v.add(Degraded, true, prioIncident, string(m.Name))
	}
	return v.reading()
}
