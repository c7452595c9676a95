package web

import (
	"errors"
	"fmt"
	"html/template"
	"net/url"
	"strconv"
	"time"

	"github.com/switchboard/switchboard/health"
	"github.com/switchboard/switchboard/seeds"
)

// Dashboard is what the page at / shows.
type Dashboard struct {
	At        time.Time
	Summary   health.Summary
	Total     int
	Providers []ProviderRow
	// Open are the ongoing incidents; Recent the ones of the last week that ended, newest first.
	Open, Recent []IncidentRow
	// RefreshMs is how often the page polls /api/v1/health.
	RefreshMs int
	// Stale are the catalogs whose newest source is older than seeds.StaleAfter at At.
	Stale []seeds.StaleCatalog
	// Poller is the polling state; the page shows a banner with its hint when it is not ok.
	Poller health.PollerState
}

// ProviderRow is one provider on the dashboard.
type ProviderRow struct {
	ID, Name    string
	Status      health.Status
	LastChecked string // RFC 3339, "" when never observed
	ResponseMs  string // "" without a time
	Days        []DayCell
	UptimePct   *float64 // over the 90 days
}

// DayCell is one UTC day of the 90-day uptime bar, oldest first on the page.
type DayCell struct {
	Date  string
	Class string // u-green ... u-none (no checks)
	Title string
}

// IncidentRow is an incident as the pages list it.
type IncidentRow struct {
	ProviderID, ProviderName string
	Severity                 string
	StartedAt, EndedAt       string
	Ongoing                  bool
	Duration                 string
	Description              string
}

// BuildDashboard gathers the dashboard's data from a health snapshot at now.
func BuildDashboard(s *health.Snapshot, now time.Time, refresh time.Duration) (Dashboard, error) {
	rep := s.Health(now)
	reg := s.Providers()
	d := Dashboard{At: now.UTC(), Summary: rep.Summary, RefreshMs: int(refresh / time.Millisecond), Poller: s.Poller(now, rep)}
	for _, p := range reg.All() {
		h := rep.Providers[p.ID]
		row := ProviderRow{ID: p.ID, Name: p.Name, Status: h.Status, LastChecked: timeOrEmpty(h.LastChecked), ResponseMs: msOrEmpty(h.ResponseTimeMs)}
		u, err := s.UptimeHistory(p.ID, "90d", now)
		if err != nil {
			return Dashboard{}, fmt.Errorf("uptime of %s: %w", p.ID, err)
		}
		row.UptimePct = u.OverallUptimePct
		row.Days = make([]DayCell, len(u.Timeline))
		// The timeline is newest first; the bar reads left to right, oldest to today.
		for i, day := range u.Timeline {
			row.Days[len(u.Timeline)-1-i] = dayCell(day)
		}
		d.Providers = append(d.Providers, row)
	}
	d.Total = len(d.Providers)
	stale, err := seeds.StaleCatalogs(now)
	if err != nil {
		return Dashboard{}, fmt.Errorf("catalog ages: %w", err)
	}
	d.Stale = stale
	inc, err := s.Incidents(health.MaxIncidentHours, health.SeverityAll, "", now)
	if err != nil {
		return Dashboard{}, fmt.Errorf("incidents: %w", err)
	}
	for _, i := range inc.Incidents {
		r := incidentRow(i, reg)
		if i.Ongoing {
			d.Open = append(d.Open, r)
		} else {
			d.Recent = append(d.Recent, r)
		}
	}
	return d, nil
}

func dayCell(d health.UptimeDay) DayCell {
	c := DayCell{Date: d.Date, Class: uptimeClass(d.UptimePct)}
	if d.UptimePct == nil {
		c.Title = d.Date + ": no checks"
	} else {
		c.Title = fmt.Sprintf("%s: %s%% uptime, %d checks, %d outage", d.Date, strconv.FormatFloat(*d.UptimePct, 'f', -1, 64), d.TotalChecks, d.OutageChecks)
	}
	return c
}

func incidentRow(i health.Incident, reg *seeds.Registry) IncidentRow {
	r := IncidentRow{ProviderID: i.ProviderID, ProviderName: i.ProviderID, Severity: string(i.Severity),
		StartedAt: i.StartedAt.UTC().Format(time.RFC3339), Ongoing: i.Ongoing, Description: i.Description,
		Duration: (time.Duration(i.DurationMinutes * float64(time.Minute))).Round(time.Minute).String()}
	if p, ok := reg.Get(i.ProviderID); ok {
		r.ProviderName = p.Name
	}
	if i.EndedAt != nil {
		r.EndedAt = i.EndedAt.UTC().Format(time.RFC3339)
	}
	return r
}

// ProviderPage is what /providers/{id} shows.
type ProviderPage struct {
	ID, Name, Homepage, StatusPageURL string
	Health                            health.ProviderHealth
	LastChecked, ResponseMs           string
	Latency                           []health.Latency // 1h, 24h
	Chart24h, Chart7d                 template.HTML
	Changelog                         []health.ChangelogEntry
	Incidents                         []IncidentRow
	Links                             []Link
}

// Link is a labelled address.
type Link struct{ Label, URL string }

// errUnknown is returned by BuildProviderPage for a provider that is not monitored.
var errUnknown = errors.New("unknown provider")

// BuildProviderPage gathers one provider's page from a health snapshot at now.
func BuildProviderPage(s *health.Snapshot, id string, now time.Time) (ProviderPage, error) {
	p, ok := s.Providers().Get(id)
	if !ok {
		return ProviderPage{}, errUnknown
	}
	h := s.Health(now).Providers[id]
	pg := ProviderPage{ID: id, Name: p.Name, Homepage: p.Homepage, StatusPageURL: p.StatusPageURL, Health: h,
		LastChecked: timeOrEmpty(h.LastChecked), ResponseMs: msOrEmpty(h.ResponseTimeMs)}
	for _, w := range []string{"1h", "24h"} {
		l, err := s.Latency(id, w, now)
		if err != nil {
			return ProviderPage{}, fmt.Errorf("latency %s of %s: %w", w, id, err)
		}
		pg.Latency = append(pg.Latency, l)
	}
	for _, c := range []struct {
		d   time.Duration
		dst *template.HTML
		t   string
	}{{24 * time.Hour, &pg.Chart24h, "response time, last 24 hours"}, {7 * 24 * time.Hour, &pg.Chart7d, "response time, last 7 days"}} {
		xs, err := s.ResponseTimes(id, now.Add(-c.d), now)
		if err != nil {
			return ProviderPage{}, fmt.Errorf("response times of %s: %w", id, err)
		}
		*c.dst = ResponseChart(p.Name+" "+c.t, xs, now.Add(-c.d), now)
	}
	var err error
	if pg.Changelog, err = s.Changelog(health.MaxChangelogDays, id, now); err != nil {
		return ProviderPage{}, fmt.Errorf("changelog of %s: %w", id, err)
	}
	inc, err := s.Incidents(health.MaxIncidentHours, health.SeverityAll, id, now)
	if err != nil {
		return ProviderPage{}, fmt.Errorf("incidents of %s: %w", id, err)
	}
	for _, i := range inc.Incidents {
		pg.Incidents = append(pg.Incidents, incidentRow(i, s.Providers()))
	}
	q := url.QueryEscape(id)
	pg.Links = []Link{
		{"Freshness", "/api/v1/freshness?provider=" + q},
		{"Latency (24 hours)", "/api/v1/latency?provider=" + q + "&window=24h"},
		{"Pricing", "/api/v1/pricing?provider=" + q},
		{"Models", "/api/v1/models?provider=" + q},
		{"Rate limits", "/api/v1/rate-limits?provider=" + q},
		{"Uptime history (90 days)", "/api/v1/uptime-history?provider=" + q + "&period=90d"},
		{"Incidents", "/api/v1/incidents?provider=" + q},
		{"Status badge", "/badge/" + q + ".svg"},
		{"Uptime badge (30 days)", "/badge/" + q + "/uptime.svg?period=30d"},
	}
	return pg, nil
}

func timeOrEmpty(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

func msOrEmpty(v *float64) string {
	if v == nil {
		return ""
	}
	return strconv.FormatFloat(*v, 'f', 0, 64) + " ms"
}
