package parse

import (
	"time"
)

// Better Stack (Better Uptime) status pages, /index.json in JSON:API form (statuspage-formats.md section 5).
//
// Mapping decisions:
//   - data.attributes.aggregate_state and resource status: operational -> operational, degraded -> degraded,
//     downtime -> outage, maintenance -> degraded with the maintenance flag (never outage). not_monitored resources
//     are skipped; an unknown value adds nothing.
//   - included status_report: open while aggregate_state != "resolved" (ends_at is null even on resolved reports,
//     so it is not used); an open report maps by its aggregate_state as above. A maintenance report
//     (report_type "maintenance" or state "maintenance") whose starts_at is still in the future is scheduled
//     maintenance and ignored.
//   - Scope: components are the status_page_resource entries, matched on ID or public_name, or through their section
//     (status_page_section ID or name). With the scope in effect, aggregate_state is ignored and a report counts
//     only when one of its affected_resources is in scope.
//   - Without a scope in effect: app resources are not the API, and one resource's downtime among many (a page
//     with a monitor per model) reads degraded, as does aggregate_state downtime and an open report's downtime
//     unless the resources bear the outage out (formats doc Pitfall 7; unscopedTally in scope.go).
//   - Shape: a JSON object whose data object has attributes; included may be missing or null.

func init() { register("betterstack", safe("betterstack", parseBetterstack)) }

type bsDocument struct {
	Data *struct {
		Type       text     `json:"type"`
		Attributes *bsAttrs `json:"attributes"`
	} `json:"data"`
	Included []struct {
		ID         text    `json:"id"`
		Type       text    `json:"type"`
		Attributes bsAttrs `json:"attributes"`
	} `json:"included"`
}

// bsAttrs is the union of the attributes of the included types this code reads.
type bsAttrs struct {
	AggregateState text `json:"aggregate_state"` // status_page, status_report
	// status_page_resource
	PublicName text `json:"public_name"`
	Status     text `json:"status"`
	SectionID  text `json:"status_page_section_id"`
	// status_page_section
	Name text `json:"name"`
	// status_report
	Title             text `json:"title"`
	ReportType        text `json:"report_type"`
	StartsAt          text `json:"starts_at"`
	AffectedResources []struct {
		ResourceID text `json:"status_page_resource_id"`
		Status     text `json:"status"`
	} `json:"affected_resources"`
}

func parseBetterstack(body []byte, scope Scope, now time.Time) (Reading, error) {
	var doc bsDocument
	if err := decodeJSON("betterstack", body, '{', &doc); err != nil {
		return Reading{}, err
	}
	if doc.Data == nil || doc.Data.Attributes == nil {
		return Reading{}, unparseable("betterstack", "no data.attributes object")
	}
	now = clock(now)
	cs := newComponentScope(scope)

	sections := map[string]string{} // section ID -> name
	for _, inc := range doc.Included {
		if inc.Type.norm() == "status_page_section" {
			sections[string(inc.ID)] = string(inc.Attributes.Name)
		}
	}
	if cs.scoped() {
		for _, inc := range doc.Included {
			a := inc.Attributes
			if inc.Type.norm() == "status_page_resource" &&
				cs.names(string(inc.ID), string(a.PublicName), string(a.SectionID), sections[string(a.SectionID)]) {
				cs.admit(string(inc.ID), string(a.PublicName))
			}
		}
	}

	v := newVerdict()
	// Without a scope in effect: apps are not the API, and one resource down among many (a model on a page with a
	// monitor per model) is not an API outage; the page's aggregate_state is the worst resource, so it is capped
	// by the same rule.
	var tally unscopedTally
	names := map[string]string{} // resource ID -> public name
	if !cs.inEffect() {
		for _, inc := range doc.Included {
			if a := inc.Attributes; inc.Type.norm() == "status_page_resource" && a.Status.norm() != "not_monitored" {
				s, _ := bsState(a.Status.norm())
				tally.add(string(a.PublicName), s)
				names[string(inc.ID)] = string(a.PublicName)
			}
		}
		if !tally.onlyApps() {
			s, maint := bsState(doc.Data.Attributes.AggregateState.norm())
			v.add(tally.pageOutageCapped(s), maint, prioIndicator, "")
		}
	}
	for _, inc := range doc.Included {
		a := inc.Attributes
		switch inc.Type.norm() {
		case "status_page_resource":
			if (cs.scoped() && !cs.inEffect()) || (cs.inEffect() && !cs.covers(string(inc.ID), string(a.PublicName))) ||
				(!cs.scoped() && isAppName(string(a.PublicName))) {
				continue
			}
			s, maint := bsState(a.Status.norm())
			if !cs.scoped() {
				s = tally.componentStatus(string(a.PublicName), s)
			}
			label := a.Status.norm()
			if maint {
				label = "under maintenance"
			}
			v.add(s, maint, prioComponent, string(a.PublicName)+": "+label)
		case "status_report":
			state := a.AggregateState.norm()
			if state == "resolved" {
				continue
			}
			if a.ReportType.norm() == "maintenance" || state == "maintenance" {
				if start, ok := parseTime(string(a.StartsAt)); ok && start.After(now) {
					continue // scheduled, not started
				}
			}
			if cs.inEffect() {
				in := false
				for _, r := range a.AffectedResources {
					in = in || cs.covers(string(r.ResourceID), "")
				}
				if !in {
					continue
				}
			} else {
				affected := make([]spComponent, 0, len(a.AffectedResources))
				for _, r := range a.AffectedResources {
					affected = append(affected, spComponent{ID: r.ResourceID, Name: text(names[string(r.ResourceID)])})
				}
				if appItem(&tally, string(a.Title), affected) {
					continue
				}
			}
			s, maint := bsState(state)
			if !cs.inEffect() {
				s = tally.pageOutageCapped(s)
			}
			v.add(s, maint, prioIncident, string(a.Title))
		}
	}
	return v.reading(), nil
}

func bsState(st string) (Status, bool) {
	switch st {
	case "degraded":
		return Degraded, false
	case "downtime":
		return Outage, false
	case "maintenance":
		return Degraded, true
	}
	return Operational, false // operational, not_monitored, resolved, or unknown
}

// clock is now, or the wall clock when the caller passed the zero time.
func clock(now time.Time) time.Time {
	if now.IsZero() {
		return time.Now().UTC()
	}
	return now.UTC()
}
