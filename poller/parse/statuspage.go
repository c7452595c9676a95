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

	if !cs.inEffect() && d.Status != nil {
		s, maint := spIndicator(d.Status.Indicator.norm())
		v.add(s, maint, prioIndicator, string(d.Status.Description))
	}

	for _, c := range comps {
		switch {
		case !cs.scoped():
			if c.Group.norm() == "true" {
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
		prio := prioComponent
		if c.Group.norm() == "true" {
			prio = prioIndicator // a group's name is a poorer summary than its child's
		}
		v.add(s, maint, prio, string(c.Name)+": "+label)
	}

	for _, inc := range d.Incidents {
		if spClosed(inc.Status.norm()) || !spItemInScope(cs, inc.Components) {
			continue
		}
		s, maint := spImpact(inc.Impact.norm())
		v.add(s, maint, prioIncident, string(inc.Name))
	}

	for _, m := range d.ScheduledMaintenances {
		if !spMaintenanceInProgress(m.Status.norm()) || !spItemInScope(cs, m.Components) {
			continue
		}
		v.add(Degraded, true, prioIncident, string(m.Name))
	}
	return v.reading()
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
