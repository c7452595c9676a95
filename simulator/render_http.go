package simulator

import (
	"html"
	"net/http"
	"strings"
	"time"
)

// The reachability format: the page is only fetched, never read. Operational, degraded and maintenance answer 200
// with a small HTML page saying so (or, at a .json address, a Datadog status-page config); outage answers 503,
// which the poller records as a failed check.

const html503 = "<html>\r\n<head><title>503 Service Temporarily Unavailable</title></head>\r\n<body>\r\n" +
	"<center><h1>503 Service Temporarily Unavailable</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"

func renderReachability(v view) (int, string, []byte) {
	if v.status == StatusOutage {
		return http.StatusServiceUnavailable, "text/html; charset=utf-8", []byte(html503)
	}
	if strings.HasSuffix(v.url.Path, ".json") {
		return renderDatadogConfig(v)
	}
	headline := map[string]string{
		StatusOperational: "All Systems Operational",
		StatusDegraded:    "Degraded Performance",
		StatusMaintenance: "Scheduled Maintenance in Progress",
	}[v.status]
	name := html.EscapeString(v.name)
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	b.WriteString("<title>" + name + " Status</title>\n</head>\n<body>\n<header><h1>" + name + " Status</h1></header>\n")
	b.WriteString("<main>\n<section class=\"overall\"><h2>" + headline + "</h2></section>\n<ul class=\"components\">\n")
	api := "API"
	if len(v.p.Scope.Components) > 0 {
		api = html.EscapeString(v.p.Scope.Components[0])
	}
	apiState := map[string]string{StatusOperational: "Operational", StatusDegraded: "Degraded performance",
		StatusMaintenance: "Under maintenance"}[v.status]
	b.WriteString("<li><span class=\"name\">" + api + "</span> <span class=\"state\">" + apiState + "</span></li>\n")
	b.WriteString("<li><span class=\"name\">Website</span> <span class=\"state\">Operational</span></li>\n</ul>\n</main>\n")
	b.WriteString("<footer><p>Last updated " + v.tu.Format("2006-01-02 15:04 UTC") + "</p></footer>\n</body>\n</html>\n")
	return http.StatusOK, "text/html; charset=utf-8", []byte(b.String())
}

type ddConfig struct {
	CustomDomain string        `json:"customDomain"`
	Name         string        `json:"name"`
	Components   []ddComponent `json:"components"`
	Incidents    []ddIncident  `json:"incidents"`
	Maintenances []ddIncident  `json:"maintenances"`
}

type ddComponent struct {
	ID         string        `json:"id"`
	Name       string        `json:"name"`
	Type       string        `json:"type"`
	Status     string        `json:"status,omitempty"`
	Components []ddComponent `json:"components,omitempty"`
}

type ddIncident struct {
	ID                 string   `json:"id"`
	Title              string   `json:"title"`
	CurrentStatus      string   `json:"currentStatus"`
	PublishedDate      string   `json:"publishedDate"`
	ResolvedDate       *string  `json:"resolvedDate"`
	ComponentsAffected []string `json:"componentsAffected"`
}

// renderDatadogConfig renders a Datadog status page's config.json (OpenRouter's page).
func renderDatadogConfig(v view) (int, string, []byte) {
	t0 := v.t0
	uuid := func(parts ...string) string {
		h := idFrom("0123456789abcdef", 32, append([]string{v.p.ID}, parts...)...)
		return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
	}
	apiID, apiName := uuid("component", "API"), "API"
	if len(v.p.Scope.Components) > 0 {
		apiName = v.p.Scope.Components[0]
		apiID = uuid("component", apiName)
	}
	status := map[string]string{StatusOperational: "operational", StatusDegraded: "degraded",
		StatusMaintenance: "maintenance"}[v.status]
	cfg := ddConfig{CustomDomain: v.url.Host, Name: v.name, Incidents: []ddIncident{}, Maintenances: []ddIncident{},
		Components: []ddComponent{{ID: uuid("group"), Name: "Services", Type: "ComponentGroup", Components: []ddComponent{
			{ID: apiID, Name: apiName, Type: "Component", Status: status},
			{ID: uuid("component", "Website"), Name: "Website", Type: "Component", Status: "operational"},
		}}}}
	resolved := isoMillis(t0.Add(-47 * time.Hour))
	cfg.Incidents = append(cfg.Incidents, ddIncident{ID: uuid("incident", "old"), Title: "Elevated latency",
		CurrentStatus: "resolved", PublishedDate: isoMillis(t0.Add(-48 * time.Hour)), ResolvedDate: &resolved,
		ComponentsAffected: []string{apiID}})
	switch v.status {
	case StatusDegraded:
		cfg.Incidents = append([]ddIncident{{ID: uuid("incident", t0.String()), Title: "Elevated error rates",
			CurrentStatus: "investigating", PublishedDate: isoMillis(t0.Add(-6 * time.Minute)),
			ComponentsAffected: []string{apiID}}}, cfg.Incidents...)
	case StatusMaintenance:
		cfg.Maintenances = append(cfg.Maintenances, ddIncident{ID: uuid("maintenance", t0.String()),
			Title: "Scheduled maintenance", CurrentStatus: "in_progress", PublishedDate: isoMillis(t0.Add(-4 * time.Minute)),
			ComponentsAffected: []string{apiID}})
	}
	return http200JSON(marshal(cfg))
}
