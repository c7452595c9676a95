package simulator

import (
	"encoding/xml"
	"path"
	"regexp"
	"strings"
	"time"
)

// Feeds: the AWS Health per-service RSS, the Azure status RSS, provider RSS feeds (xAI-style "Status:" markers,
// IBM Cloud notifications) and Atom.

type rssDoc struct {
	XMLName xml.Name   `xml:"rss"`
	Version string     `xml:"version,attr"`
	AtomNS  string     `xml:"xmlns:atom,attr,omitempty"`
	Channel rssChannel `xml:"channel"`
}

type rssChannel struct {
	Title         string    `xml:"title"`
	Link          string    `xml:"link"`
	AtomLink      *atomLink `xml:"atom:link,omitempty"`
	Description   string    `xml:"description"`
	Language      string    `xml:"language,omitempty"`
	LastBuildDate string    `xml:"lastBuildDate,omitempty"`
	Generator     string    `xml:"generator,omitempty"`
	TTL           int       `xml:"ttl,omitempty"`
	Items         []rssItem `xml:"item"`
}

type rssItem struct {
	Title       string   `xml:"title"`
	Link        string   `xml:"link,omitempty"`
	Description rssText  `xml:"description"`
	PubDate     string   `xml:"pubDate"`
	GUID        rssGUID  `xml:"guid"`
	Categories  []string `xml:"category,omitempty"`
}

// rssText is a description: HTML in a CDATA section, or escaped text.
type rssText struct {
	CDATA string `xml:",cdata"`
	Text  string `xml:",chardata"`
}

type rssGUID struct {
	IsPermaLink string `xml:"isPermaLink,attr,omitempty"`
	Value       string `xml:",chardata"`
}

type atomLink struct {
	Href string `xml:"href,attr"`
	Rel  string `xml:"rel,attr,omitempty"`
	Type string `xml:"type,attr,omitempty"`
}

func encodeXML(v any) []byte {
	b, err := xml.MarshalIndent(v, "", "  ")
	if err != nil {
		panic("simulator: encoding a feed: " + err.Error())
	}
	return append(append([]byte(xml.Header), b...), '\n')
}

// --- AWS Health ---

var awsFeedName = regexp.MustCompile(`^(.+?)-((?:[a-z]{2})(?:-gov)?-[a-z]+-[0-9])$`)

var awsRegions = map[string]string{
	"us-east-1": "N. Virginia", "us-east-2": "Ohio", "us-west-1": "N. California", "us-west-2": "Oregon",
	"eu-west-1": "Ireland", "eu-west-2": "London", "eu-west-3": "Paris", "eu-central-1": "Frankfurt",
	"ap-northeast-1": "Tokyo", "ap-southeast-1": "Singapore", "ap-southeast-2": "Sydney", "ap-south-1": "Mumbai",
	"ca-central-1": "Canada", "sa-east-1": "Sao Paulo",
}

func awsTime(t time.Time) string { return pacific(t).Format("Mon, 02 Jan 2006 15:04:05 MST") }

// renderAWSHealth renders the per-service RSS of the AWS Health Dashboard. Each item is one posted update; the
// updates of one event share a guid. A past event stays in the feed as a "Service degradation" update followed by
// its "[RESOLVED]" update; degraded adds an open "Service degradation:" update, outage an open "Service
// disruption:" one. AWS posts no maintenance in this feed: maintenance renders as all clear.
func renderAWSHealth(v view) (int, string, []byte) {
	t0 := v.t0
	feed := strings.TrimSuffix(path.Base(v.url.Path), ".rss")
	service, region := feed, "us-east-1"
	if m := awsFeedName.FindStringSubmatch(feed); m != nil {
		service, region = m[1], m[2]
	}
	where := awsRegions[region]
	if where == "" {
		where = region
	}
	svc := v.subject()
	regionUp := strings.ToUpper(region)
	link := "https://health.aws.amazon.com/health/status"
	guid := func(at time.Time) string {
		return "https://health.aws.amazon.com/health/status#" + feed + "_" + itoa(int(at.Unix()))
	}
	item := func(title, desc string, at time.Time, id string) rssItem {
		return rssItem{Title: title, Link: link, Description: rssText{Text: desc}, PubDate: awsTime(at),
			GUID: rssGUID{IsPermaLink: "false", Value: id}}
	}

	var items []rssItem
	// An open event: its first post, and the latest update while the status is held.
	switch v.status {
	case StatusDegraded:
		first := t0.Add(-6 * time.Minute)
		if v.updated() {
			items = append(items, item("Service degradation: Increased error rates for "+svc,
				"We continue to work on the increased error rates for "+svc+" in the "+regionUp+" Region.", v.tu, guid(v.tu)))
		}
		items = append(items, item("Service degradation: Increased error rates for "+svc,
			"We are investigating increased error rates and latencies for "+svc+" InvokeModel requests in the "+
				regionUp+" Region. Other operations are not affected.", first, guid(first)))
	case StatusOutage:
		first := t0.Add(-4 * time.Minute)
		if v.updated() {
			items = append(items, item("Service disruption: "+svc+" requests failing",
				"We continue to work on restoring "+svc+" in the "+regionUp+" Region.", v.tu, guid(v.tu)))
		}
		items = append(items, item("Service disruption: "+svc+" requests failing",
			"We are investigating a service disruption affecting "+svc+" in the "+regionUp+" Region. "+
				"API requests are failing and the service is unavailable for most customers.", first, guid(first)))
	}
	began := t0.Add(-4 * 24 * time.Hour).Truncate(time.Minute)
	past := guid(began)
	items = append(items,
		item("[RESOLVED] Increased latency for "+svc,
			"Between "+awsClock(began)+" and "+awsClock(began.Add(50*time.Minute))+", customers experienced "+
				"increased latencies for "+svc+" in the "+regionUp+" Region. The issue has been resolved and the "+
				"service is operating normally.", began.Add(55*time.Minute), past),
		item("Service degradation: Increased latency for "+svc,
			"We are investigating increased latencies for "+svc+" in the "+regionUp+" Region.", began, past))

	// AWS' per-service feeds are named after the service key; the channel title uses the display name.
	title := svc + " (" + where + ") Service Status"
	if service == "bedrock" && !strings.Contains(strings.ToLower(svc), "bedrock") {
		title = "Amazon Bedrock (" + where + ") Service Status"
	}
	doc := rssDoc{Version: "2.0", Channel: rssChannel{Title: title, Link: "https://status.aws.amazon.com/",
		Description: title, Language: "en-us", LastBuildDate: awsTime(v.tu),
		Generator: "AWS Service Health Dashboard RSS Generator", TTL: 5, Items: items}}
	return 200, "application/rss+xml", encodeXML(doc)
}

func awsClock(t time.Time) string { return pacific(t).Format("3:04 PM MST") }

// --- Azure ---

// renderAzureStatus renders the Azure status RSS: empty while all is clear; one item per active incident,
// titled "<product> - <headline>", with escaped HTML in the description. "Outage" and "unable to access" wording
// marks an outage. The feed carries no planned maintenance: maintenance renders as all clear. With scope keywords,
// an incident of an unrelated service is listed in every state (a scoped reader must skip it).
func renderAzureStatus(v view) (int, string, []byte) {
	t0 := v.t0
	svc := v.subject()
	link := "https://azure.status.microsoft/en-us/status/"
	azTime := func(t time.Time) string { return t.UTC().Format("Mon, 02 Jan 2006 15:04:05") + " Z" }
	item := func(key, title, desc string, at time.Time) rssItem {
		return rssItem{Title: title, Link: link, Description: rssText{Text: desc}, PubDate: azTime(at),
			GUID: rssGUID{IsPermaLink: "false", Value: strings.ToUpper(idFrom(crockford, 3, v.p.ID, key)) + "-" +
				idFrom(crockford, 3, v.p.ID, key, "b")}}
	}
	var items []rssItem
	switch v.status {
	case StatusDegraded:
		start := t0.Add(-25 * time.Minute)
		items = append(items, item("open"+t0.String(), svc+" - Elevated errors in East US 2",
			"<p><strong>Impact Statement:</strong> Starting at "+start.Format("15:04")+" UTC on "+
				start.Format("02 Jan 2006")+", a subset of customers using "+svc+" in East US 2 may experience "+
				"intermittent errors and increased latency when calling the service.</p><p><strong>Current Status:"+
				"</strong> We are aware of this issue and are actively investigating. The next update will be "+
				"provided within 60 minutes.</p>", v.posted(-10*time.Minute)))
	case StatusOutage:
		start := t0.Add(-15 * time.Minute)
		items = append(items, item("open"+t0.String(), svc+" - Outage across multiple regions",
			"<p><strong>Impact Statement:</strong> Starting at "+start.Format("15:04")+" UTC on "+
				start.Format("02 Jan 2006")+", customers are unable to access "+svc+" in multiple regions. "+
				"Requests fail and the service is unavailable.</p><p><strong>Current Status:</strong> We are "+
				"investigating this outage as a priority.</p>", v.posted(-5*time.Minute)))
	}
	if other := v.unrelated("Azure Virtual Desktop", "Azure Front Door"); other != "" {
		items = append(items, item("unrelated", other+" - Connectivity issues in West Europe",
			"<p><strong>Impact Statement:</strong> A subset of customers using "+other+" in West Europe may "+
				"experience intermittent connection failures.</p>", t0.Add(-2*time.Hour)))
	}
	doc := rssDoc{Version: "2.0", AtomNS: "http://www.w3.org/2005/Atom", Channel: rssChannel{
		Title: "Azure Status", Link: link, Description: "Azure Status", Language: "en-us",
		LastBuildDate: azTime(v.tu), Items: items}}
	return 200, "application/rss+xml; charset=utf-8", encodeXML(doc)
}

// --- Provider RSS feeds ---

// renderFeed renders a provider's incident feed (format rss). The feed at an .atom address is Atom. IBM Cloud's
// notifications feed carries its Type/Regions/Resources/Outage Start/Outage End lines; every other feed is one
// item per incident whose HTML starts with "Status: <STATE>" (the xAI shape). A resolved incident always stays in
// the history; degraded adds an open incident, outage an open "major outage", maintenance an in-progress
// maintenance.
func renderFeed(v view) (int, string, []byte) {
	if strings.HasSuffix(v.url.Path, ".atom") {
		return renderAtom(v)
	}
	if strings.HasSuffix(v.url.Host, "cloud.ibm.com") {
		return renderIBMFeed(v)
	}
	t0 := v.t0
	comp := "API"
	if len(v.p.Scope.Keywords) > 0 {
		comp = v.p.Scope.Keywords[0]
	}
	prefix := "[" + comp + "] "
	item := func(key, title, state string, at time.Time, body string, extra ...string) rssItem {
		id := idFrom(lowerAlnum, 10, v.p.ID, "incident", key)
		html := "<p>Status: " + state + "</p>" + strings.Join(extra, "") + "<div><strong>" + humanUTC(at) +
			"</strong><h3>" + titleCase(state) + "</h3><p>" + body + "</p></div>"
		return rssItem{Title: prefix + title, Link: v.site + "/incidents/" + id, Description: rssText{CDATA: html},
			PubDate: rfc1123GMT(at), GUID: rssGUID{IsPermaLink: "false", Value: v.p.ID + "-incident-" + id}}
	}
	var items []rssItem
	switch v.status {
	case StatusDegraded:
		items = append(items, item("open"+t0.String(), "Elevated error rates on the "+v.name+" API", "INVESTIGATING",
			v.posted(-7*time.Minute), "We are investigating elevated error rates and latency for some requests."))
	case StatusOutage:
		items = append(items, item("open"+t0.String(), "Major outage: "+v.name+" API unavailable", "INVESTIGATING",
			v.posted(-4*time.Minute), "The API is unavailable: all requests are failing. We are working on a fix.",
			"<p>Severity: Major outage</p>"))
	case StatusMaintenance:
		until := humanUTC(v.windowEnd(time.Hour))
		items = append(items, item("maint"+t0.String(), "Scheduled maintenance of the "+v.name+" API", "IN PROGRESS",
			v.posted(-4*time.Minute), "Scheduled maintenance is in progress. Some requests may fail until "+until+".",
			"<p>Type: Maintenance</p><p>Scheduled until: "+until+"</p>"))
	}
	old := t0.Add(-50 * time.Hour)
	items = append(items, item("resolved", "Increased latency on the "+v.name+" API", "RESOLVED", old.Add(45*time.Minute),
		"This incident has been resolved.", "<p>Resolved: "+humanUTC(old.Add(45*time.Minute))+"</p>"))
	doc := rssDoc{Version: "2.0", AtomNS: "http://www.w3.org/2005/Atom", Channel: rssChannel{
		Title: v.name + " Status", Link: v.site, Description: "Incident history of " + v.name,
		AtomLink:      &atomLink{Href: v.p.StatusAPIURL, Rel: "self", Type: "application/rss+xml"},
		LastBuildDate: rfc1123GMT(v.tu), Items: items}}
	return 200, "application/rss+xml; charset=utf-8", encodeXML(doc)
}

func titleCase(s string) string {
	s = strings.ToLower(s)
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// renderIBMFeed renders IBM Cloud's notifications feed: every item ends with Type, Regions, Resources, Outage
// Start and Outage End lines. An announcement (not an incident) is always present; the resolved incident has an
// Outage End in the past; an open incident has none; maintenance has an Outage End in the future.
func renderIBMFeed(v view) (int, string, []byte) {
	t0 := v.t0
	res := v.subject()
	ibm := func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }
	item := func(key, title, text, typ string, start time.Time, end *time.Time, at time.Time) rssItem {
		endS := ""
		if end != nil {
			endS = ibm(*end)
		}
		desc := text + "<br/><br/>Type: " + typ + "<br/>Regions: us-south, eu-de<br/>Resources: " + res +
			"<br/>Outage Start: " + ibm(start) + "<br/>Outage End: " + endS
		id := numericID(8, v.p.ID, key)
		return rssItem{Title: title, Link: "https://cloud.ibm.com/status/notification/" + id,
			Description: rssText{Text: desc}, PubDate: rfc1123GMT(at), GUID: rssGUID{IsPermaLink: "false", Value: id}}
	}
	var items []rssItem
	switch v.status {
	case StatusDegraded:
		s := t0.Add(-12 * time.Minute)
		items = append(items, item("open"+t0.String(), res+": Degraded performance",
			"Users may see elevated error rates and latency when calling "+res+". IBM engineers are investigating.",
			"incident", s, nil, v.posted(-3*time.Minute)))
	case StatusOutage:
		s := t0.Add(-8 * time.Minute)
		items = append(items, item("open"+t0.String(), res+": Major outage",
			"Users are unable to access "+res+": the service is unavailable. IBM engineers are investigating.",
			"incident", s, nil, v.posted(-2*time.Minute)))
	case StatusMaintenance:
		// IBM announces maintenance days ahead and republishes the notification when it starts (and when the
		// window is extended), so its pubDate is the latest of those.
		s := t0.Add(-5 * time.Minute)
		e := v.windowEnd(2 * time.Hour)
		items = append(items, item("maint"+t0.String(), res+": Scheduled maintenance",
			"Scheduled maintenance of "+res+" is in progress. Some requests may fail during the window.",
			"maintenance", s, &e, v.posted(-5*time.Minute)))
	}
	ann := t0.Add(-30 * time.Hour)
	items = append(items, item("announcement", "New models available in "+res,
		"New foundation models are available in "+res+".", "announcement", ann, nil, ann))
	rs := t0.Add(-3 * 24 * time.Hour)
	re := rs.Add(75 * time.Minute)
	items = append(items, item("resolved", res+": Increased latency (resolved)",
		"Users experienced increased latency when calling "+res+". The issue is resolved.", "incident", rs, &re, re))
	doc := rssDoc{Version: "2.0", Channel: rssChannel{Title: "IBM Cloud Status notifications",
		Link: "https://cloud.ibm.com/status", Description: "IBM Cloud incidents, maintenance and announcements",
		Language: "en-us", LastBuildDate: rfc1123GMT(v.tu), Items: items}}
	return 200, "application/rss+xml; charset=utf-8", encodeXML(doc)
}

// --- Atom ---

type atomFeed struct {
	XMLName xml.Name    `xml:"http://www.w3.org/2005/Atom feed"`
	ID      string      `xml:"id"`
	Title   string      `xml:"title"`
	Updated string      `xml:"updated"`
	Links   []atomLink  `xml:"link"`
	Entries []atomEntry `xml:"entry"`
}

type atomEntry struct {
	ID      string     `xml:"id"`
	Title   string     `xml:"title"`
	Updated string     `xml:"updated"`
	Link    atomLink   `xml:"link"`
	Summary atomSumary `xml:"summary"`
}

type atomSumary struct {
	Type string `xml:"type,attr"`
	Text string `xml:",chardata"`
}

// renderAtom renders an incident.io-style Atom feed: each entry's summary starts with "Status: <state>" and names
// the affected component.
func renderAtom(v view) (int, string, []byte) {
	t0 := v.t0
	comp := "API"
	if len(v.p.Scope.Keywords) > 0 {
		comp = v.p.Scope.Keywords[0]
	}
	entry := func(key, title, state string, at time.Time, body string) atomEntry {
		id := ulid(at, v.p.ID, key)
		u := v.site + "/incidents/" + id
		return atomEntry{ID: u, Title: title, Updated: at.UTC().Format(time.RFC3339), Link: atomLink{Href: u, Rel: "alternate"},
			Summary: atomSumary{Type: "html", Text: "<p><b>Status: " + state + "</b></p><p>" + body + "</p><p>Affected components: " +
				comp + "</p>"}}
	}
	var entries []atomEntry
	switch v.status {
	case StatusDegraded:
		entries = append(entries, entry("open"+t0.String(), comp+": elevated error rates", "Investigating",
			v.posted(-7*time.Minute), "We are investigating elevated error rates."))
	case StatusOutage:
		entries = append(entries, entry("open"+t0.String(), comp+": major outage", "Investigating",
			v.posted(-4*time.Minute), "Full outage: the "+comp+" is unavailable."))
	case StatusMaintenance:
		entries = append(entries, entry("maint"+t0.String(), comp+": scheduled maintenance", "Maintenance in progress",
			v.posted(-4*time.Minute), "Scheduled maintenance is in progress."))
	}
	old := t0.Add(-50 * time.Hour)
	entries = append(entries, entry("resolved", comp+": increased latency", "Resolved", old, "This incident has been resolved."))
	doc := atomFeed{ID: v.p.StatusAPIURL, Title: v.name + " status", Updated: v.tu.Format(time.RFC3339),
		Links: []atomLink{{Href: v.site, Rel: "alternate"}, {Href: v.p.StatusAPIURL, Rel: "self"}}, Entries: entries}
	return 200, "application/atom+xml; charset=utf-8", encodeXML(doc)
}
