package simulator

import (
	"time"
)

// Atlassian Statuspage /api/v2/summary.json, and incident.io's Statuspage-compatible copy of it.

type spSummary struct {
	Page                  spPage         `json:"page"`
	Components            []spComponent  `json:"components"`
	Incidents             []spIncident   `json:"incidents"`              // incident.io: null when empty
	ScheduledMaintenances []spIncident   `json:"scheduled_maintenances"` // incident.io: null when empty
	Status                spStatusHeader `json:"status"`
}

type spPage struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	URL       string `json:"url"`
	TimeZone  string `json:"time_zone"`
	UpdatedAt string `json:"updated_at"`
}

type spStatusHeader struct {
	Indicator   string `json:"indicator"`
	Description string `json:"description"`
}

type spComponent struct {
	ID                 string   `json:"id"`
	Name               string   `json:"name"`
	Status             string   `json:"status"`
	CreatedAt          string   `json:"created_at"`
	UpdatedAt          string   `json:"updated_at"`
	Position           int      `json:"position"`
	Description        *string  `json:"description"`
	Showcase           bool     `json:"showcase"`
	StartDate          *string  `json:"start_date"`
	GroupID            *string  `json:"group_id,omitempty"` // Statuspage only
	PageID             string   `json:"page_id,omitempty"`  // Statuspage only
	Group              *bool    `json:"group,omitempty"`    // Statuspage only
	OnlyShowIfDegraded *bool    `json:"only_show_if_degraded,omitempty"`
	Components         []string `json:"components,omitempty"` // groups: their children
}

type spIncident struct {
	ID              string         `json:"id"`
	Name            string         `json:"name"`
	Status          string         `json:"status"`
	CreatedAt       string         `json:"created_at"`
	UpdatedAt       string         `json:"updated_at"`
	MonitoringAt    *string        `json:"monitoring_at"`
	ResolvedAt      *string        `json:"resolved_at"`
	Impact          string         `json:"impact"`
	Shortlink       *string        `json:"shortlink"` // incident.io: null
	StartedAt       string         `json:"started_at"`
	PageID          string         `json:"page_id"`
	IncidentUpdates []spUpdate     `json:"incident_updates"`
	Components      *[]spComponent `json:"components,omitempty"` // incident.io: missing
	ScheduledFor    *string        `json:"scheduled_for,omitempty"`
	ScheduledUntil  *string        `json:"scheduled_until,omitempty"`
}

type spUpdate struct {
	ID                   string              `json:"id"`
	Status               string              `json:"status"`
	Body                 string              `json:"body"`
	IncidentID           string              `json:"incident_id"`
	CreatedAt            string              `json:"created_at"`
	UpdatedAt            string              `json:"updated_at"`
	DisplayAt            string              `json:"display_at"`
	AffectedComponents   *[]spAffectedChange `json:"affected_components,omitempty"` // Statuspage only
	DeliverNotifications *bool               `json:"deliver_notifications,omitempty"`
}

type spAffectedChange struct {
	Code      string `json:"code"`
	Name      string `json:"name"`
	OldStatus string `json:"old_status"`
	NewStatus string `json:"new_status"`
}

func renderStatuspage(v view) (int, string, []byte) {
	return http200JSON(marshal(buildSummary(v, false)))
}

func renderIncidentio(v view) (int, string, []byte) {
	return http200JSON(marshal(buildSummary(v, true)))
}

func http200JSON(b []byte) (int, string, []byte) {
	return 200, "application/json; charset=utf-8", b
}

// buildSummary renders the summary of a Statuspage page, or of an incident.io page's compatibility API (ULIDs,
// a flat component list, null for empty lists, no components or shortlinks on incidents).
func buildSummary(v view, incidentio bool) spSummary {
	t0 := v.t0
	created := time.Date(2023, 3, 14, 17, 2, 11, 0, time.UTC) // when the page was set up
	pageID := idFrom(lowerAlnum, 12, "page", v.p.ID)
	if incidentio {
		pageID = ulid(created, v.p.ID, "page")
	}
	newID := func(parts ...string) string {
		if incidentio {
			return ulid(t0, append([]string{v.p.ID}, parts...)...)
		}
		return idFrom(lowerAlnum, 12, append([]string{v.p.ID}, parts...)...)
	}
	componentID := func(name string) string {
		if incidentio {
			return ulid(created, v.p.ID, "component", name)
		}
		return idFrom(lowerAlnum, 12, v.p.ID, "component", name)
	}

	apiID, apiName := v.apiComponent(componentID)
	apiStatus := "operational"
	indicator, description := "none", "All Systems Operational"
	switch v.status {
	case StatusDegraded:
		apiStatus = "degraded_performance"
		if incidentio {
			apiStatus = "partial_outage"
		}
		indicator, description = "minor", "Minor Service Outage"
	case StatusOutage:
		apiStatus = "major_outage"
		indicator, description = "critical", "Major System Outage"
	case StatusMaintenance:
		apiStatus = "under_maintenance"
		indicator, description = "maintenance", "Service Under Maintenance"
	}

	// Components: the API (changing with the status), the other scoped components and some fillers (always
	// operational); on Statuspage they sit in a group, whose own row carries the worst of its children.
	stamp := isoMillis(created)
	groupID := componentID("Platform")
	comp := func(id, name, status string, pos int, updated time.Time) spComponent {
		c := spComponent{ID: id, Name: name, Status: status, CreatedAt: stamp, UpdatedAt: isoMillis(updated),
			Position: pos, StartDate: strPtr(created.Format("2006-01-02"))}
		if !incidentio {
			c.GroupID, c.PageID, c.Group, c.OnlyShowIfDegraded = strPtr(groupID), pageID, boolPtr(false), boolPtr(false)
		}
		return c
	}
	calm := t0.Add(-36 * time.Hour) // when the other components last changed
	apiComp := comp(apiID, apiName, apiStatus, 1, t0)
	apiComp.Description = strPtr("Requests to the " + v.name + " API")
	components := []spComponent{apiComp}
	children := []string{apiID}
	otherIDs, otherNames := v.otherScopeComponents(componentID)
	for i := range otherIDs {
		components = append(components, comp(otherIDs[i], otherNames[i], "operational", len(components)+1, calm))
		children = append(children, otherIDs[i])
	}
	for _, name := range v.fillerComponents() {
		c := comp(componentID(name), name, "operational", len(components)+1, calm)
		if name == "Documentation" && !incidentio {
			c.GroupID = nil // outside the group, as docs often are
		} else {
			children = append(children, c.ID)
		}
		components = append(components, c)
	}
	if !incidentio {
		g := comp(groupID, "Platform", apiStatus, 0, t0)
		g.GroupID, g.Group, g.Components = nil, boolPtr(true), children
		components = append([]spComponent{g}, components...)
	}

	// Incidents: one open incident for degraded and outage.
	incidents := []spIncident{}
	if incidentio {
		incidents = nil
	}
	apiRef := func(status string) *[]spComponent {
		if incidentio {
			return nil
		}
		c := apiComp
		c.Status = status
		return &[]spComponent{c}
	}
	update := func(incID, status, body string, at time.Time, oldS, newS string) spUpdate {
		u := spUpdate{ID: newID("update", incID, status, at.String()), Status: status, Body: body, IncidentID: incID,
			CreatedAt: isoMillis(at), UpdatedAt: isoMillis(at), DisplayAt: isoMillis(at)}
		if !incidentio {
			ch := []spAffectedChange{{Code: apiID, Name: apiName, OldStatus: oldS, NewStatus: newS}}
			u.AffectedComponents, u.DeliverNotifications = &ch, boolPtr(true)
		}
		return u
	}
	shortlink := func(id string) *string {
		if incidentio {
			return nil
		}
		return strPtr("https://stspg.io/" + idFrom(lowerAlnum, 7, v.p.ID, "shortlink", id))
	}
	// While a status is held, the page posts a new update every UpdateInterval.
	withFollowUp := func(id, status, body string, ups []spUpdate) []spUpdate {
		if !v.updated() {
			return ups
		}
		return append([]spUpdate{update(id, status, body, v.tu, apiStatus, apiStatus)}, ups...)
	}
	switch v.status {
	case StatusDegraded:
		id := newID("incident", v.status)
		started := t0.Add(-11 * time.Minute)
		incidents = append(incidents, spIncident{
			ID: id, Name: "Elevated error rates and latency on the " + apiName, Status: "identified",
			CreatedAt: isoMillis(started), UpdatedAt: isoMillis(v.tu), Impact: "minor", Shortlink: shortlink(id),
			StartedAt: isoMillis(started), PageID: pageID, Components: apiRef(apiStatus),
			IncidentUpdates: withFollowUp(id, "identified", "We are continuing to work on a fix for this issue.", []spUpdate{
				update(id, "identified", "We have identified the cause of the elevated error rates and are rolling out a fix.",
					t0, apiStatus, apiStatus),
				update(id, "investigating", "We are investigating elevated error rates and latency for requests to the "+
					apiName+".", started, "operational", apiStatus),
			}),
		})
	case StatusOutage:
		id := newID("incident", v.status)
		started := t0.Add(-6 * time.Minute)
		incidents = append(incidents, spIncident{
			ID: id, Name: apiName + " unavailable", Status: "investigating",
			CreatedAt: isoMillis(started), UpdatedAt: isoMillis(v.tu), Impact: "critical", Shortlink: shortlink(id),
			StartedAt: isoMillis(started), PageID: pageID, Components: apiRef(apiStatus),
			IncidentUpdates: withFollowUp(id, "investigating", "We are still working to restore the "+apiName+".", []spUpdate{
				update(id, "investigating", "Requests to the "+apiName+" are failing. We are investigating and will "+
					"post an update within 30 minutes.", started, "operational", apiStatus),
			}),
		})
	}

	// Maintenances: Statuspage always lists an upcoming window (to be ignored); an in-progress one for
	// maintenance.
	var maints []spIncident
	if !incidentio {
		maints = []spIncident{}
		id := newID("maintenance", "upcoming")
		from := v.tu.Add(72 * time.Hour).Truncate(time.Hour)
		announced := v.tu.Add(-20 * time.Hour)
		maints = append(maints, spIncident{
			ID: id, Name: "Scheduled database upgrade", Status: "scheduled", CreatedAt: isoMillis(announced),
			UpdatedAt: isoMillis(announced), Impact: "maintenance", Shortlink: shortlink(id),
			StartedAt: isoMillis(announced), PageID: pageID, Components: apiRef("operational"),
			ScheduledFor: strPtr(isoMillis(from)), ScheduledUntil: strPtr(isoMillis(from.Add(time.Hour))),
			IncidentUpdates: []spUpdate{update(id, "scheduled", "We will upgrade the database cluster behind the "+
				apiName+". No downtime is expected.", announced, "operational", "operational")},
		})
	}
	if v.status == StatusMaintenance {
		id := newID("maintenance", "in_progress")
		from := t0.Add(-4 * time.Minute)
		announced := t0.Add(-7 * 24 * time.Hour)
		m := spIncident{
			ID: id, Name: "Scheduled maintenance of the " + apiName, Status: "in_progress",
			CreatedAt: isoMillis(announced), UpdatedAt: isoMillis(v.tu), Impact: "maintenance", Shortlink: shortlink(id),
			StartedAt: isoMillis(from), PageID: pageID, Components: apiRef(apiStatus),
			ScheduledFor: strPtr(isoMillis(from)), ScheduledUntil: strPtr(isoMillis(v.windowEnd(time.Hour))),
			IncidentUpdates: withFollowUp(id, "in_progress", "The maintenance is taking longer than planned; the "+
				"window has been extended.", []spUpdate{
				update(id, "in_progress", "Scheduled maintenance is currently in progress. We will provide updates as "+
					"necessary.", t0, "operational", apiStatus),
				update(id, "scheduled", "The "+apiName+" will be briefly unavailable for some requests while we "+
					"upgrade it.", announced, "operational", "operational"),
			}),
		}
		maints = append([]spIncident{m}, maints...)
	}

	pg := spPage{ID: pageID, Name: v.name, URL: v.site, TimeZone: "Etc/UTC", UpdatedAt: isoMillis(v.tu)}
	return spSummary{Page: pg, Components: components, Incidents: incidents, ScheduledMaintenances: maints,
		Status: spStatusHeader{Indicator: indicator, Description: description}}
}

func strPtr(s string) *string { return &s }
func boolPtr(b bool) *bool    { return &b }
