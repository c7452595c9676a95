package simulator

import (
	"strings"
	"time"
)

// Instatus /summary.json, Better Stack /index.json and Google Cloud incidents.json.

// --- Instatus ---

type isSummary struct {
	Page               isPage          `json:"page"`
	ActiveIncidents    []isIncident    `json:"activeIncidents,omitempty"`    // left out when empty
	ActiveMaintenances []isMaintenance `json:"activeMaintenances,omitempty"` // left out when empty
}

type isPage struct {
	Name   string `json:"name"`
	URL    string `json:"url"`
	Status string `json:"status"`
}

type isIncident struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Started   string `json:"started"`
	Status    string `json:"status"`
	Impact    string `json:"impact"`
	URL       string `json:"url"`
	UpdatedAt string `json:"updatedAt"`
}

type isMaintenance struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Start     string `json:"start"`
	Status    string `json:"status"`
	Duration  string `json:"duration"` // minutes
	URL       string `json:"url"`
	UpdatedAt string `json:"updatedAt"`
}

// renderInstatus renders an Instatus summary: just the page while all is clear; HASISSUES with an active
// incident (PARTIALOUTAGE for degraded, MAJOROUTAGE for outage); UNDERMAINTENANCE with an in-progress maintenance.
func renderInstatus(v view) (int, string, []byte) {
	t0 := v.t0
	s := isSummary{Page: isPage{Name: v.name, URL: v.site, Status: "UP"}}
	apiName := "API"
	if len(v.p.Scope.Components) > 0 && !looksLikeID(v.p.Scope.Components[0]) {
		apiName = v.p.Scope.Components[0]
	}
	cuid := func(kind string) string { return "cm" + idFrom(lowerAlnum, 23, v.p.ID, kind, t0.String()) }
	switch v.status {
	case StatusDegraded:
		id := cuid("incident")
		s.Page.Status = "HASISSUES"
		s.ActiveIncidents = []isIncident{{ID: id, Name: "Elevated error rates on the " + apiName,
			Started: isoMillis(t0.Add(-9 * time.Minute)), Status: "IDENTIFIED", Impact: "PARTIALOUTAGE",
			URL: v.site + "/incident/" + id, UpdatedAt: isoMillis(v.tu)}}
	case StatusOutage:
		id := cuid("incident")
		s.Page.Status = "HASISSUES"
		s.ActiveIncidents = []isIncident{{ID: id, Name: apiName + " is down",
			Started: isoMillis(t0.Add(-5 * time.Minute)), Status: "INVESTIGATING", Impact: "MAJOROUTAGE",
			URL: v.site + "/incident/" + id, UpdatedAt: isoMillis(v.tu)}}
	case StatusMaintenance:
		id := cuid("maintenance")
		s.Page.Status = "UNDERMAINTENANCE"
		s.ActiveMaintenances = []isMaintenance{{ID: id, Name: "Scheduled maintenance of the " + apiName,
			Start: isoMillis(t0.Add(-4 * time.Minute)), Status: "INPROGRESS",
			Duration: itoa(int(v.windowEnd(time.Hour).Sub(t0.Add(-4*time.Minute)) / time.Minute)),
			URL:      v.site + "/maintenance/" + id, UpdatedAt: isoMillis(v.tu)}}
	}
	return http200JSON(marshal(s))
}

// --- Better Stack ---

type bsDocument struct {
	Data     bsResource   `json:"data"`
	Included []bsResource `json:"included"`
}

type bsResource struct {
	ID         string `json:"id"`
	Type       string `json:"type"`
	Attributes any    `json:"attributes"`
}

type bsPageAttrs struct {
	CompanyName     string  `json:"company_name"`
	CompanyURL      string  `json:"company_url"`
	ContactURL      *string `json:"contact_url"`
	LogoURL         *string `json:"logo_url"`
	Timezone        string  `json:"timezone"`
	Subdomain       string  `json:"subdomain"`
	CustomDomain    string  `json:"custom_domain"`
	Announcement    *string `json:"announcement"`
	AggregateState  string  `json:"aggregate_state"`
	Design          string  `json:"design"`
	Theme           string  `json:"theme"`
	Layout          string  `json:"layout"`
	HistoryDays     int     `json:"history"`
	MinIncidentSecs int     `json:"min_incident_length"`
	UpdatedAt       string  `json:"updated_at"`
}

type bsSectionAttrs struct {
	Name     string `json:"name"`
	Position int    `json:"position"`
}

type bsResourceAttrs struct {
	SectionID     int         `json:"status_page_section_id"`
	ResourceID    int         `json:"resource_id"`
	ResourceType  string      `json:"resource_type"`
	PublicName    string      `json:"public_name"`
	Explanation   string      `json:"explanation"`
	WidgetType    string      `json:"widget_type"`
	Position      int         `json:"position"`
	Status        string      `json:"status"`
	Availability  float64     `json:"availability"`
	StatusHistory []bsHistDay `json:"status_history"`
}

type bsHistDay struct {
	Day                 string `json:"day"`
	Status              string `json:"status"`
	DowntimeDuration    int    `json:"downtime_duration"`
	MaintenanceDuration int    `json:"maintenance_duration"`
}

type bsReportAttrs struct {
	Title             string       `json:"title"`
	ReportType        string       `json:"report_type"`
	StartsAt          string       `json:"starts_at"`
	EndsAt            *string      `json:"ends_at"`
	StatusPageID      int          `json:"status_page_id"`
	AggregateState    string       `json:"aggregate_state"`
	AffectedResources []bsAffected `json:"affected_resources"`
}

type bsAffected struct {
	ResourceID string `json:"status_page_resource_id"`
	Status     string `json:"status"`
}

type bsUpdateAttrs struct {
	Message           string       `json:"message"`
	PublishedAt       string       `json:"published_at"`
	StatusReportID    int          `json:"status_report_id"`
	AffectedResources []bsAffected `json:"affected_resources"`
	NotifySubscribers bool         `json:"notify_subscribers"`
}

// renderBetterstack renders a Better Stack JSON:API document: the page's aggregate_state and the API resource
// follow the status (degraded, downtime, maintenance); an open status_report (resolved ones stay in the history
// with ends_at null, as the platform leaves them).
func renderBetterstack(v view) (int, string, []byte) {
	t0 := v.t0
	pageID := numericID(5, v.p.ID, "page")
	pageNum := atoiSafe(pageID)
	num := func(parts ...string) string { return numericID(7, append([]string{v.p.ID}, parts...)...) }
	state := map[string]string{StatusOperational: "operational", StatusDegraded: "degraded",
		StatusOutage: "downtime", StatusMaintenance: "maintenance"}[v.status]

	host := v.url.Host
	doc := bsDocument{Data: bsResource{ID: pageID, Type: "status_page", Attributes: bsPageAttrs{
		CompanyName: v.name, CompanyURL: v.p.Homepage, Timezone: "UTC",
		Subdomain: strings.ReplaceAll(v.p.ID, "-", ""), CustomDomain: host, AggregateState: state,
		Design: "v2", Theme: "light", Layout: "vertical", HistoryDays: 90, UpdatedAt: isoMillis(v.tu),
	}}}

	sectionID := numericID(6, v.p.ID, "section", "api")
	otherSection := numericID(6, v.p.ID, "section", "platform")
	doc.Included = append(doc.Included,
		bsResource{ID: sectionID, Type: "status_page_section", Attributes: bsSectionAttrs{Name: "API", Position: 0}},
		bsResource{ID: otherSection, Type: "status_page_section", Attributes: bsSectionAttrs{Name: "Platform", Position: 1}})

	history := func(today string) []bsHistDay {
		var out []bsHistDay
		for d := 6; d >= 0; d-- {
			day := bsHistDay{Day: v.tu.AddDate(0, 0, -d).Format("2006-01-02"), Status: "operational"}
			if d == 0 {
				day.Status = today
				switch today {
				case "degraded", "downtime":
					day.DowntimeDuration = 540
				case "maintenance":
					day.MaintenanceDuration = 240
				}
			}
			out = append(out, day)
		}
		return out
	}
	resource := func(id, section, name, status string, pos int) bsResource {
		avail := 1.0
		if status == "degraded" || status == "downtime" {
			avail = 0.9937
		}
		return bsResource{ID: id, Type: "status_page_resource", Attributes: bsResourceAttrs{
			SectionID: atoiSafe(section), ResourceID: atoiSafe(num("monitor", name)), ResourceType: "Monitor",
			PublicName: name, WidgetType: "history", Position: pos, Status: status, Availability: avail,
			StatusHistory: history(status)}}
	}

	apiID, apiName := v.apiComponent(func(name string) string { return num("resource", name) })
	doc.Included = append(doc.Included, resource(apiID, sectionID, apiName, state, 0))
	otherIDs, otherNames := v.otherScopeComponents(func(name string) string { return num("resource", name) })
	for i := range otherIDs {
		doc.Included = append(doc.Included, resource(otherIDs[i], sectionID, otherNames[i], "operational", i+1))
	}
	for i, name := range v.fillerComponents() {
		st := "operational"
		if name == "Documentation" {
			st = "not_monitored"
		}
		doc.Included = append(doc.Included, resource(num("resource", name), otherSection, name, st, i))
	}

	report := func(id, title, kind, aggregate string, starts time.Time, ends *string, affected string) bsResource {
		return bsResource{ID: id, Type: "status_report", Attributes: bsReportAttrs{
			Title: title, ReportType: kind, StartsAt: isoMillis(starts), EndsAt: ends, StatusPageID: pageNum,
			AggregateState: aggregate, AffectedResources: []bsAffected{{ResourceID: apiID, Status: affected}}}}
	}
	update := func(reportID, msg string, at time.Time, affected string) bsResource {
		return bsResource{ID: num("update", reportID, msg), Type: "status_update", Attributes: bsUpdateAttrs{
			Message: msg, PublishedAt: isoMillis(at), StatusReportID: atoiSafe(reportID), NotifySubscribers: true,
			AffectedResources: []bsAffected{{ResourceID: apiID, Status: affected}}}}
	}

	// A resolved report from three days ago: ends_at stays null, only aggregate_state says it is over.
	old := num("report", "resolved")
	oldStart := t0.Add(-71 * time.Hour)
	doc.Included = append(doc.Included,
		report(old, "Increased latency on the "+apiName, "manual", "resolved", oldStart, nil, "operational"),
		update(old, "We are investigating increased latency.", oldStart, "degraded"),
		update(old, "Latency is back to normal. This incident is resolved.", oldStart.Add(40*time.Minute), "operational"))

	id := num("report", t0.String())
	switch v.status {
	case StatusDegraded:
		start := t0.Add(-8 * time.Minute)
		doc.Included = append(doc.Included,
			report(id, "Elevated error rates on the "+apiName, "manual", "degraded", start, nil, "degraded"),
			update(id, "We are seeing elevated error rates on the "+apiName+" and are investigating.", start, "degraded"))
	case StatusOutage:
		start := t0.Add(-5 * time.Minute)
		doc.Included = append(doc.Included,
			report(id, apiName+" is down", "manual", "downtime", start, nil, "downtime"),
			update(id, "The "+apiName+" is not answering requests. We are working on it.", start, "downtime"))
	case StatusMaintenance:
		start := t0.Add(-4 * time.Minute)
		ends := isoMillis(v.windowEnd(time.Hour))
		doc.Included = append(doc.Included,
			report(id, "Scheduled maintenance of the "+apiName, "maintenance", "maintenance", start, &ends, "maintenance"),
			update(id, "Scheduled maintenance is in progress.", start, "maintenance"))
	}
	if v.status != StatusOperational && v.updated() {
		doc.Included = append(doc.Included, update(id, "We are still working on this. Next update in a few hours.",
			v.tu, state))
	}
	return http200JSON(marshal(doc))
}

func atoiSafe(s string) int {
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' || n > 1e15 {
			return n
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// --- Google Cloud ---

type gcIncident struct {
	ID                          string       `json:"id"`
	Number                      string       `json:"number"`
	Begin                       string       `json:"begin"`
	Created                     string       `json:"created"`
	End                         *string      `json:"end"`
	Modified                    string       `json:"modified"`
	ExternalDesc                string       `json:"external_desc"`
	Updates                     []gcUpdate   `json:"updates"`
	MostRecentUpdate            gcUpdate     `json:"most_recent_update"`
	StatusImpact                string       `json:"status_impact"`
	Severity                    string       `json:"severity"`
	ServiceKey                  string       `json:"service_key"`
	ServiceName                 string       `json:"service_name"`
	AffectedProducts            []gcProduct  `json:"affected_products"`
	URI                         string       `json:"uri"`
	CurrentlyAffectedLocations  []gcLocation `json:"currently_affected_locations"`
	PreviouslyAffectedLocations []gcLocation `json:"previously_affected_locations"`
}

type gcUpdate struct {
	Created           string       `json:"created"`
	Modified          string       `json:"modified"`
	When              string       `json:"when"`
	Text              string       `json:"text"`
	Status            string       `json:"status"`
	AffectedLocations []gcLocation `json:"affected_locations"`
}

type gcProduct struct {
	Title string `json:"title"`
	ID    string `json:"id"`
}

type gcLocation struct {
	Title string `json:"title"`
	ID    string `json:"id"`
}

func googleTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05+00:00") }

// renderGoogleCloud renders incidents.json: closed incidents of the provider's products always (history), plus
// an open one for degraded (SERVICE_DISRUPTION, medium) or outage (SERVICE_OUTAGE, high). Google does not post
// maintenance here, so maintenance renders as all clear. With scope keywords, an open incident of an unrelated
// product is listed too, which a scoped reader must skip.
func renderGoogleCloud(v view) (int, string, []byte) {
	t0 := v.t0
	var products []gcProduct
	for _, k := range v.p.Scope.Keywords {
		if googleID.MatchString(k) {
			products = append(products, gcProduct{Title: v.name, ID: k})
		} else if k != "" {
			products = append(products, gcProduct{Title: k, ID: idFrom(mixedAlnum, 20, "product", k)})
		}
	}
	if len(products) == 0 {
		products = []gcProduct{{Title: v.name, ID: idFrom(mixedAlnum, 20, "product", v.name)}}
	}
	iowa := []gcLocation{{Title: "Iowa (us-central1)", ID: "us-central1"}}
	global := []gcLocation{{Title: "Global", ID: "global"}}

	entry := func(key string, prods []gcProduct, begin time.Time, end *time.Time, impact, severity, desc string,
		locs []gcLocation, texts ...string) gcIncident {
		id := idFrom(mixedAlnum, 20, v.p.ID, "incident", key)
		var updates []gcUpdate
		for i, txt := range texts {
			when := begin.Add(time.Duration(i*17) * time.Minute)
			status := impact
			if end != nil && i == len(texts)-1 {
				status, when = "AVAILABLE", *end
			}
			updates = append(updates, gcUpdate{Created: googleTime(when), Modified: googleTime(when),
				When: googleTime(when), Text: txt, Status: status, AffectedLocations: locs})
		}
		if end == nil && v.updated() {
			updates = append(updates, gcUpdate{Created: googleTime(v.tu), Modified: googleTime(v.tu),
				When: googleTime(v.tu), Text: "**Summary:** " + desc + "\n\n**Description:** Our engineers continue " +
					"to work on mitigation. We will provide an update within 6 hours.", Status: impact, AffectedLocations: locs})
		}
		// Newest first, as Google lists them.
		for i, j := 0, len(updates)-1; i < j; i, j = i+1, j-1 {
			updates[i], updates[j] = updates[j], updates[i]
		}
		in := gcIncident{ID: id, Number: numericID(19, v.p.ID, "number", key), Begin: googleTime(begin),
			Created: googleTime(begin.Add(4 * time.Minute)), Modified: updates[0].Modified, ExternalDesc: desc,
			Updates: updates, MostRecentUpdate: updates[0], StatusImpact: impact, Severity: severity,
			ServiceKey: idFrom(mixedAlnum, 20, "service", prods[0].Title), ServiceName: prods[0].Title,
			AffectedProducts: prods, URI: "incidents/" + id, CurrentlyAffectedLocations: locs,
			PreviouslyAffectedLocations: locs}
		if len(prods) > 1 {
			in.ServiceName = "Multiple Products"
		}
		if end != nil {
			e := googleTime(*end)
			in.End, in.CurrentlyAffectedLocations = &e, []gcLocation{}
		}
		return in
	}

	var list []gcIncident
	switch v.status {
	case StatusDegraded:
		list = append(list, entry("open-"+t0.String(), products, t0.Add(-14*time.Minute), nil, "SERVICE_DISRUPTION",
			"medium", "Some requests to "+products[0].Title+" return errors in us-central1", iowa,
			"**Summary:** Some requests to "+products[0].Title+" return 503 errors in us-central1.\n\n"+
				"**Description:** We are experiencing an issue with "+products[0].Title+". Our engineers are "+
				"working on mitigation.",
			"**Summary:** Some requests to "+products[0].Title+" return 503 errors in us-central1.\n\n"+
				"**Description:** Mitigation is in progress."))
	case StatusOutage:
		list = append(list, entry("open-"+t0.String(), products, t0.Add(-9*time.Minute), nil, "SERVICE_OUTAGE",
			"high", products[0].Title+" is unavailable in multiple regions", global,
			"**Summary:** "+products[0].Title+" is unavailable in multiple regions.\n\n**Description:** "+
				"Requests fail with 503 errors. Our engineers are investigating."))
	}
	if other := v.unrelated("Cloud Filestore", "Cloud Build"); other != "" {
		list = append(list, entry("unrelated", []gcProduct{{Title: other, ID: idFrom(mixedAlnum, 20, "product", other)}},
			t0.Add(-3*time.Hour), nil, "SERVICE_DISRUPTION", "medium", other+" operations are delayed", iowa,
			"**Summary:** "+other+" operations are delayed in us-central1."))
	}
	end1 := t0.Add(-26 * time.Hour)
	list = append(list, entry("closed-1", products, end1.Add(-95*time.Minute), &end1, "SERVICE_DISRUPTION", "medium",
		"Elevated latency for "+products[0].Title, iowa,
		"**Summary:** Elevated latency for "+products[0].Title+".", "**Summary:** The issue with "+
			products[0].Title+" has been resolved for all affected users as of "+end1.Format("Monday, 2006-01-02 15:04")+" US/Pacific."))
	end2 := t0.Add(-9 * 24 * time.Hour)
	list = append(list, entry("closed-2", products, end2.Add(-3*time.Hour), &end2, "SERVICE_OUTAGE", "high",
		products[0].Title+" unavailable in europe-west4", []gcLocation{{Title: "Netherlands (europe-west4)", ID: "europe-west4"}},
		"**Summary:** "+products[0].Title+" unavailable in europe-west4.", "**Summary:** The issue has been resolved."))
	return 200, "application/json", marshal(list)
}
