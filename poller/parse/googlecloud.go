package parse

import (
	"strings"
	"time"
)

// Google Cloud Service Health incidents.json (statuspage-formats.md section 6): a JSON array of incidents, open
// and closed. The same schema serves Google Workspace.
//
// Mapping decisions:
//   - Open: end is null, empty or absent (or a time still in the future), begin is not in the future, the most
//     recent update's status is not AVAILABLE (Google's "recovered"), and the incident was touched (most recent
//     update, modified, begin or created) within closingFeedMaxAge (7 days): an entry left open for longer is
//     treated as abandoned. An incident without any readable time is judged by end alone.
//   - Scope: keywords are matched against affected_products[].title and .id (service_name and service_key when the
//     incident lists no products); no keywords means every incident.
//   - Severity: status_impact SERVICE_OUTAGE -> outage, SERVICE_DISRUPTION -> degraded, SERVICE_INFORMATION ->
//     operational (the doc's default; a note is not a degradation). Without a known status_impact, severity high ->
//     outage, medium -> degraded, low -> operational. With neither, an open incident reads degraded.
//   - A bare null body is an empty list (operational); any other non-array body is unparseable.

func init() { register("google-cloud", safe("google-cloud", parseGoogleCloud)) }

// closingFeedMaxAge bounds how long an entry of a feed that closes its own entries (Google's end, AWS's
// [RESOLVED], Azure dropping the item) may stay open without news before it is treated as abandoned.
const closingFeedMaxAge = 7 * 24 * time.Hour

type gcIncident struct {
	ID               text `json:"id"`
	Begin            text `json:"begin"`
	Created          text `json:"created"`
	Modified         text `json:"modified"`
	End              text `json:"end"`
	ExternalDesc     text `json:"external_desc"`
	ServiceKey       text `json:"service_key"`
	ServiceName      text `json:"service_name"`
	Severity         text `json:"severity"`
	StatusImpact     text `json:"status_impact"`
	AffectedProducts []struct {
		Title text `json:"title"`
		ID    text `json:"id"`
	} `json:"affected_products"`
	MostRecentUpdate *struct {
		When   text `json:"when"`
		Status text `json:"status"`
	} `json:"most_recent_update"`
}

func parseGoogleCloud(body []byte, scope Scope, now time.Time) (Reading, error) {
	var list []gcIncident
	if err := decodeJSON("google-cloud", body, '[', &list); err != nil {
		return Reading{}, err
	}
	now = clock(now)
	ks := newKeywordScope(scope)
	v := newVerdict()
	for _, inc := range list {
		if !gcOpen(inc, now) {
			continue
		}
		var keys, titles []string
		for _, p := range inc.AffectedProducts {
			keys = append(keys, string(p.Title), string(p.ID))
			if p.Title != "" {
				titles = append(titles, string(p.Title))
			}
		}
		if len(inc.AffectedProducts) == 0 {
			keys = append(keys, string(inc.ServiceName), string(inc.ServiceKey))
		}
		if !ks.matches(keys...) {
			continue
		}
		summary := string(inc.ExternalDesc)
		if strings.TrimSpace(summary) == "" {
			summary = strings.Join(titles, ", ")
		}
		v.add(gcSeverity(inc), false, prioIncident, summary)
	}
	return v.reading(), nil
}

func gcOpen(inc gcIncident, now time.Time) bool {
	if end := strings.TrimSpace(string(inc.End)); end != "" {
		t, ok := parseTime(end)
		if !ok || !t.After(now) {
			return false
		}
	}
	if b, ok := parseTime(string(inc.Begin)); ok && b.After(now) {
		return false
	}
	var last time.Time
	for _, s := range []text{inc.Modified, inc.Begin, inc.Created} {
		if t, ok := parseTime(string(s)); ok && t.After(last) {
			last = t
		}
	}
	if u := inc.MostRecentUpdate; u != nil {
		if u.Status.norm() == "available" {
			return false
		}
		if t, ok := parseTime(string(u.When)); ok && t.After(last) {
			last = t
		}
	}
	return last.IsZero() || now.Sub(last) <= closingFeedMaxAge
}

func gcSeverity(inc gcIncident) Status {
	switch inc.StatusImpact.norm() {
	case "service_outage":
		return Outage
	case "service_disruption":
		return Degraded
	case "service_information":
		return Operational
	}
	switch inc.Severity.norm() {
	case "high":
		return Outage
	case "medium":
		return Degraded
	case "low":
		return Operational
	}
	return Degraded
}
