package parse

import (
	"time"
)

// Atlassian Statuspage public API v2, /api/v2/summary.json (statuspage-formats.md section 2). The incident.io
// compatibility API has the same shape (incidentio.go) and uses the same reader.
//
// Mapping decisions (DESIGN.md "Status from a page", formats doc sections 1 and 2):
//   - status.indicator: none -> operational, minor -> degraded, major -> degraded (DESIGN: "major" is labelled
//     "Partial System Outage"; it reads outage only through a component in major_outage), critical -> outage,
//     maintenance -> degraded with the maintenance flag.
//   - components[].status: degraded_performance, partial_outage -> degraded; major_outage -> outage;
//     under_maintenance -> degraded with the maintenance flag. Group rows (group: true) are containers and are
//     skipped unless the scope names them.
//   - unresolved incidents[].impact: minor, major -> degraded; critical -> outage; maintenance -> degraded with
//     the maintenance flag; none -> ignored.
//   - scheduled_maintenances[]: only status in_progress or verifying counts (degraded, maintenance flag); scheduled
//     (future) and completed ones are ignored.
//   - A status string this code does not know (a new Statuspage value, a typo) never fails the page and never
//     makes it worse: it is read as "no signal", and the other signals decide.
//
// Scope (see componentScope): with the scope in effect, the indicator is ignored (it speaks for the whole page,
// ChatGPT and Cloudflare POPs included) and incidents and maintenances count only when they name an in-scope
// component; incidents that name no component at all (the incident.io compatibility API never names them) are
// then also ignored, because the in-scope components' own statuses carry their effect. Without a scope the whole
// page counts; with a scope that matches nothing on the page, the indicator and every incident count and the
// components do not.
//
// Without a scope in effect (scope.go, unscopedTally): components named as apps, consoles, websites or chat
// products are not the API (DESIGN 2026-11-28); the indicator is ignored when the only troubled components are
// apps, and so are incidents that name only app components or, naming none, are about an app by their name or
// while only apps are troubled. A component in major_outage reads outage only when it is an API or gateway
// component or more than half of the components are down; otherwise it is one model of a per-model page and reads
// degraded (formats doc Pitfall 7). The indicator keeps its own mapping (critical reads outage).
//
// Shape: the body must be a JSON object with a status object carrying an indicator, or a components array (so
// /api/v2/status.json and /api/v2/components.json read too). null arrays read as empty.

func init() { register("statuspage", safe("statuspage", parseStatuspage)) }

func parseStatuspage(body []byte, scope Scope, now time.Time) (Reading, error) {
	var doc spDocument
	if err := decodeJSON("statuspage", body, '{', &doc); err != nil {
		return Reading{}, err
	}
	if !doc.isSummary() {
		return Reading{}, unparseable("statuspage", "no status indicator and no components")
	}
	return doc.read(scope), nil
}

// spDocument is the union of Statuspage's summary.json and incident.io's widget /api/v1/summary: both spellings
// of an incident or maintenance fit spItem.
type spDocument struct {
	Status     *spStatus      `json:"status"`
	Components *[]spComponent `json:"components"`
	Incidents  []spItem       `json:"incidents"`
	// Statuspage: {name, status: scheduled|in_progress|verifying|completed, impact, components[]}.
	// incident.io widget: {name, status: maintenance_scheduled|maintenance_in_progress, affected_components[]}.
	ScheduledMaintenances []spItem `json:"scheduled_maintenances"`

	// incident.io widget API only.
	PageTitle              text      `json:"page_title"`
	OngoingIncidents       *[]spItem `json:"ongoing_incidents"`
	InProgressMaintenances []spItem  `json:"in_progress_maintenances"`
}

type spStatus struct {
	Indicator   text `json:"indicator"`
	Description text `json:"description"`
}

type spComponent struct {
	ID      text `json:"id"`
	Name    text `json:"name"`
	Status  text `json:"status"`
	Group   text `json:"group"`
	GroupID text `json:"group_id"`
	// incident.io widget: affected_components[] carry these instead.
	GroupName     text `json:"group_name"`
	CurrentStatus text `json:"current_status"`
}

type spItem struct {
	ID         text          `json:"id"`
	Name       text          `json:"name"`
	Status     text          `json:"status"`
	Impact     text          `json:"impact"`
	Components []spComponent `json:"components"`
	// incident.io widget.
	CurrentWorstImpact text          `json:"current_worst_impact"`
	AffectedComponents []spComponent `json:"affected_components"`
}

func (d *spDocument) isSummary() bool {
	return (d.Status != nil && d.Status.Indicator.norm() != "") || d.Components != nil
}

func (d *spDocument) isWidget() bool {
	return d.Status == nil && d.Components == nil && (d.OngoingIncidents != nil || d.PageTitle != "")
}

// read applies the mapping of the file comment.
func (d *spDocument) read(scope Scope) Reading {
	cs := newComponentScope(scope)
	var comps []spComponent
	if d.Components != nil {
		comps = *d.Components
	}
	if cs.scoped() {
		for _, c := range comps {
			if cs.names(string(c.ID), string(c.Name), string(c.GroupID)) {
				cs.admit(string(c.ID), string(c.Name))
			}
		}
	}
	v := newVerdict()

	// Without a scope in effect: apps are not the API, and one component down among many is not an API outage.
	var tally unscopedTally
	if !cs.inEffect() {
		for _, c := range comps {
			if c.Group.norm() != "true" {
				s, _, _ := spComponentStatus(c.Status.norm())
				tally.add(string(c.Name), s)
			}
		}
	}

	if !cs.inEffect() && d.Status != nil && !tally.onlyApps() {
		s, maint := spIndicator(d.Status.Indicator.norm())
		v.add(s, maint, prioIndicator, string(d.Status.Description))
	}

	for _, c := range comps {
		switch {
		case !cs.scoped():
			if c.Group.norm() == "true" || isAppName(string(c.Name)) {
				continue
			}
		case cs.inEffect():
			if !cs.covers(string(c.ID), string(c.Name)) {
				continue
			}
		default: // a scope that matched nothing: the component part is ignored
			continue
		}
		s, maint, label := spComponentStatus(c.Status.norm())
		if !cs.scoped() {
			s = tally.componentStatus(string(c.Name), s)
		}
		prio := prioComponent
		if c.Group.norm() == "true" {
			prio = prioIndicator // a group's name is a poorer summary than its child's
		}
		v.add(s, maint, prio, string(c.Name)+": "+label)
	}

	for _, inc := range d.Incidents {
		if spClosed(inc.Status.norm()) || !spItemInScope(cs, inc.Components) ||
			(!cs.inEffect() && appItem(&tally, string(inc.Name), inc.Components)) {
			continue
		}
		s, maint := spImpact(inc.Impact.norm())
		v.add(s, maint, prioIncident, string(inc.Name))
	}

	for _, m := range d.ScheduledMaintenances {
		if !spMaintenanceInProgress(m.Status.norm()) || !spItemInScope(cs, m.Components) ||
			(!cs.inEffect() && appItem(&tally, string(m.Name), m.Components)) {
			continue
		}
		v.add(Degraded, true, prioIncident, string(m.Name))
	}
	return v.reading()
}

// appItem reports whether an incident or maintenance of an unscoped page is about apps only: every component it
// names is an app, or it names none and its own name is an app's or the page's only trouble is on apps.
func appItem(t *unscopedTally, name string, comps []spComponent) bool {
	if len(comps) == 0 {
		return isAppName(name) || t.onlyApps()
	}
	for _, c := range comps {
		if !isAppName(string(c.Name)) {
			return false
		}
	}
	return true
}

// spItemInScope reports whether an incident or maintenance naming these components counts.
func spItemInScope(cs *componentScope, comps []spComponent) bool {
	if !cs.inEffect() {
		return true
	}
	for _, c := range comps {
		if cs.covers(string(c.ID), string(c.Name)) {
			return true
		}
	}
	return false
}

func spIndicator(ind string) (Status, bool) {
	switch ind {
	case "minor", "major":
		return Degraded, false
	case "critical":
		return Outage, false
	case "maintenance":
		return Degraded, true
	}
	return Operational, false // none, or a value this code does not know
}

func spComponentStatus(st string) (s Status, maint bool, label string) {
	switch st {
	case "degraded_performance":
		return Degraded, false, "degraded performance"
	case "partial_outage":
		return Degraded, false, "partial outage"
	case "major_outage", "full_outage":
		return Outage, false, "major outage"
	case "under_maintenance":
		return Degraded, true, "under maintenance"
	}
	return Operational, false, "operational" // operational, or unknown
}

func spImpact(impact string) (Status, bool) {
	switch impact {
	case "minor", "major":
		return Degraded, false
	case "critical":
		return Outage, false
	case "maintenance":
		return Degraded, true
	}
	return Operational, false // none, or unknown
}

func spClosed(status string) bool {
	switch status {
	case "resolved", "postmortem", "completed", "closed":
		return true
	}
	return false
}

func spMaintenanceInProgress(status string) bool {
	switch status {
	case "in_progress", "verifying", "maintenance_in_progress":
		return true
	}
	return false
}
