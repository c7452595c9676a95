package parse

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"
)

// Generic feeds, format "rss" (statuspage-formats.md section 9): RSS 2.0, RSS 1.0 (RDF) and Atom, told apart by
// the root element, never by the content type. The same reading of entries serves aws-health (awshealth.go) and
// azure-status (azure.go) with their own policies.
//
// Feeds are history, so an entry says "open now" only through its lifecycle markers and its age. Decisions:
//   - Entries are grouped into incidents by guid (Atom id), else link, else title; the newest entry of each group
//     stands for the incident.
//   - Closed: the title says [RESOLVED]/Resolved:/[Completed]/operating normally, or the description's first
//     lifecycle marker ("Status: Resolved" as on xAI and incident.io feeds, or a Statuspage update header
//     "Resolved - ...") is resolved/completed/postmortem, or an IBM "Outage End:" time is in the past.
//   - Scheduled maintenance (marker scheduled, or a start time still in the future) is ignored; maintenance in
//     progress (marker in progress/verifying, IBM "Type: maintenance", or a maintenance title without a marker)
//     reads degraded with the maintenance flag.
//   - IBM items of Type announcement, release or security are not incidents and are skipped.
//   - Age: a history feed never closes an entry that lacks markers, so an entry counts only if its newest date
//     (pubDate, dc:date, updated, published) is within historyFeedMaxAge (24 h) of now; an undated entry is
//     ignored.
//   - Severity: degraded, or outage when the title or description says outage: major/full/complete/total/service
//     outage, unavailable or down (not a "partial"/"minor" outage, not "partially unavailable", not "slow down").
//     "Disruption" is read against the feed's own scale (doc section 9): xAI's and most feeds' scales have an
//     outage level above it, so a disruption, a partial outage or a high error rate reads degraded; on a
//     Status.io feed, whose scale tops out at disruption (Scope.DisruptionTop), a disruption reads outage.
//   - Scope: keywords select entries by title and description text; no keywords means every entry. An entry whose
//     title is about an app, console, website or portal (and not the API) is skipped: status is about the API
//     (DESIGN 2026-11-28).
//   - Shape: the root must be rss (with a channel), RDF or feed; an empty channel is a successful empty read.

func init() { register("rss", safe("rss", parseFeed)) }

// historyFeedMaxAge is how recent an unresolved entry of a history feed must be to count as open.
const historyFeedMaxAge = 24 * time.Hour

func parseFeed(body []byte, scope Scope, now time.Time) (Reading, error) {
	f, err := decodeFeed("rss", body)
	if err != nil {
		return Reading{}, err
	}
	outage := []string{"major outage", "full outage", "complete outage", "total outage", "service outage", "unavailable", "down"}
	if scope.DisruptionTop {
		outage = append(outage, "disruption")
	}
	return f.evaluate(scope, clock(now), feedPolicy{
		maxAge:   historyFeedMaxAge,
		outage:   outage,
		outageIn: outageInTitleAndText,
		groupKey: defaultGroupKey,
	}), nil
}

// xmlText is the text of an element: its character data, or its raw inner markup when it holds child elements
// (Atom type="xhtml" content, or unescaped HTML in a description).
type xmlText struct {
	Chardata string `xml:",chardata"`
	Inner    string `xml:",innerxml"`
}

func (x xmlText) String() string {
	if strings.TrimSpace(x.Chardata) == "" || hasChildElement(x.Inner) {
		return x.Inner
	}
	return x.Chardata
}

// hasChildElement reports whether raw inner XML holds an element (not just text, CDATA sections, comments and
// processing instructions).
func hasChildElement(inner string) bool {
	for {
		i := strings.IndexByte(inner, '<')
		if i < 0 || i+1 >= len(inner) {
			return false
		}
		inner = inner[i:]
		skipTo := ""
		switch {
		case strings.HasPrefix(inner, "<![CDATA["):
			skipTo = "]]>"
		case strings.HasPrefix(inner, "<!--"):
			skipTo = "-->"
		case strings.HasPrefix(inner, "<?"):
			skipTo = "?>"
		case strings.HasPrefix(inner, "<!"):
			skipTo = ">"
		default:
			return true
		}
		j := strings.Index(inner[2:], skipTo)
		if j < 0 {
			return false
		}
		inner = inner[2+j+len(skipTo):]
	}
}

type xmlLink struct {
	Href string `xml:"href,attr"`
	Text string `xml:",chardata"`
}

// xmlItem is the union of an RSS item and an Atom entry.
type xmlItem struct {
	Title       xmlText   `xml:"title"`
	Description xmlText   `xml:"description"`
	Encoded     xmlText   `xml:"encoded"` // content:encoded
	Summary     xmlText   `xml:"summary"`
	Content     xmlText   `xml:"content"`
	Links       []xmlLink `xml:"link"`
	GUID        string    `xml:"guid"`
	ID          string    `xml:"id"`
	PubDate     string    `xml:"pubDate"`
	Date        string    `xml:"date"` // dc:date
	Updated     string    `xml:"updated"`
	Published   string    `xml:"published"`
}

type xmlFeed struct {
	XMLName xml.Name
	Channel *struct {
		Title xmlText   `xml:"title"`
		Items []xmlItem `xml:"item"`
	} `xml:"channel"`
	Items   []xmlItem `xml:"item"`  // RSS 1.0: items are siblings of the channel
	Entries []xmlItem `xml:"entry"` // Atom
	Title   xmlText   `xml:"title"` // Atom feed title
}

// feed is a decoded feed: its title and its entries in document order.
type feed struct {
	title string
	items []xmlItem
}

// decodeFeed reads RSS 2.0, RSS 1.0 or Atom. HTML, JSON, truncated markup and other roots are unparseable.
func decodeFeed(format string, body []byte) (*feed, error) {
	b := utf8Body(body)
	if len(b) == 0 || b[0] != '<' {
		return nil, unparseable(format, "expected an xml feed, got %s", sniffKind(b))
	}
	if looksLikeHTML(b) {
		return nil, unparseable(format, "expected an xml feed, got html")
	}
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = false // tolerate HTML entities and stray '&' in text; truncation is still an error
	d.Entity = xml.HTMLEntity
	d.CharsetReader = charsetReader
	var x xmlFeed
	if err := d.Decode(&x); err != nil {
		return nil, unparseable(format, "invalid xml: %v", err)
	}
	// Decode stops at the root's end tag; anything but white space, comments and processing instructions after it
	// means the document is not what it seems.
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, unparseable(format, "invalid xml after the root element: %v", err)
		}
		switch t := tok.(type) {
		case xml.CharData:
			if len(bytes.TrimSpace(t)) > 0 {
				return nil, unparseable(format, "text after the root element")
			}
		case xml.StartElement:
			return nil, unparseable(format, "a second root element <%s>", t.Name.Local)
		}
	}
	switch strings.ToLower(x.XMLName.Local) {
	case "rss":
		if x.Channel == nil {
			return nil, unparseable(format, "rss without a channel")
		}
		return &feed{title: cleanText(x.Channel.Title.String()), items: x.Channel.Items}, nil
	case "rdf":
		title := ""
		if x.Channel != nil {
			title = cleanText(x.Channel.Title.String())
		}
		return &feed{title: title, items: x.Items}, nil
	case "feed":
		return &feed{title: cleanText(x.Title.String()), items: x.Entries}, nil
	}
	return nil, unparseable(format, "root element <%s> is not rss, RDF or feed", x.XMLName.Local)
}

// charsetReader accepts the encodings feeds declare. The body has already been turned into UTF-8 when it carried
// a UTF-16 byte-order mark, so a UTF-16 declaration reads as UTF-8.
func charsetReader(label string, in io.Reader) (io.Reader, error) {
	switch strings.ToLower(strings.TrimSpace(label)) {
	case "", "utf-8", "utf8", "us-ascii", "ascii", "utf-16", "utf-16le", "utf-16be", "unicode":
		return in, nil
	case "iso-8859-1", "iso8859-1", "latin1", "latin-1", "iso-8859-15", "windows-1252", "cp1252":
		b, err := io.ReadAll(in)
		if err != nil {
			return nil, err
		}
		out := make([]byte, 0, len(b))
		for _, c := range b {
			out = utf8.AppendRune(out, rune(c))
		}
		return bytes.NewReader(out), nil
	}
	return nil, fmt.Errorf("unsupported charset %q", label)
}

// feedEntry is one item in plain text.
type feedEntry struct {
	key   string
	title string
	lines []string // description (or summary, content) as lines of plain text
	when  time.Time
	extra []string // more text that keywords may match (AWS: guid, link, channel title)
}

func (e *feedEntry) text() string { return strings.Join(e.lines, " ") }

// feedPolicy is what differs between the feeds that share this reading.
type feedPolicy struct {
	maxAge      time.Duration // an open entry older than this is ignored
	undatedOpen bool          // an undated entry counts (feeds that only list current events)
	outage      []string      // phrases that make an open entry an outage
	outageIn    func(e *feedEntry) string
	groupKey    func(it xmlItem) string
	extra       func(it xmlItem, f *feed) []string
}

func outageInTitleAndText(e *feedEntry) string { return e.title + "\n" + e.text() }
func outageInTitle(e *feedEntry) string        { return e.title }

func defaultGroupKey(it xmlItem) string {
	for _, k := range []string{it.GUID, it.ID} {
		if k = strings.TrimSpace(k); k != "" {
			return k
		}
	}
	for _, l := range it.Links {
		if k := strings.TrimSpace(l.Href + l.Text); k != "" {
			return k
		}
	}
	return fold(cleanText(it.Title.String()))
}

func (f *feed) entries(pol feedPolicy) []*feedEntry {
	out := make([]*feedEntry, 0, len(f.items))
	for _, it := range f.items {
		body := it.Description.String()
		for _, alt := range []xmlText{it.Encoded, it.Summary, it.Content} {
			if strings.TrimSpace(body) == "" {
				body = alt.String()
			}
		}
		e := &feedEntry{key: pol.groupKey(it), title: cleanText(it.Title.String()), lines: htmlToLines(body)}
		for _, s := range []string{it.PubDate, it.Date, it.Updated, it.Published} {
			if t, ok := parseTime(s); ok && t.After(e.when) {
				e.when = t
			}
		}
		if pol.extra != nil {
			e.extra = pol.extra(it, f)
		}
		out = append(out, e)
	}
	return out
}

// evaluate applies the lifecycle rules of the file comment to the newest entry of each incident.
func (f *feed) evaluate(scope Scope, now time.Time, pol feedPolicy) Reading {
	all := f.entries(pol)
	newest := map[string]*feedEntry{}
	var order []string
	for _, e := range all {
		cur, ok := newest[e.key]
		if !ok {
			order = append(order, e.key)
			newest[e.key] = e
		} else if e.when.After(cur.when) {
			newest[e.key] = e
		}
	}
	ks := newKeywordScope(scope)
	v := newVerdict()
	for _, k := range order {
		e := newest[k]
		if !ks.matches(append([]string{e.title, e.text()}, e.extra...)...) || isAppName(e.title) {
			continue
		}
		s, maint, ok := judgeEntry(e, now, pol)
		if !ok {
			continue
		}
		summary := e.title
		if summary == "" {
			summary = e.text()
		}
		v.add(s, maint, prioIncident, summary)
	}
	return v.reading()
}

// lifecycle is what an entry's markers say.
type lifecycle int

const (
	lcNone        lifecycle = iota // no marker
	lcOpen                         // investigating, identified, monitoring, ...
	lcResolved                     // resolved, completed, ...
	lcScheduled                    // maintenance not started
	lcMaintenance                  // maintenance in progress
)

var (
	reIBMType  = regexp.MustCompile(`(?i)\btype:\s*(incident|maintenance|announcement|release|security)\b`)
	reIBMStart = regexp.MustCompile(`(?i)\boutage start:\s*(.*?)\s*(?:\boutage end:|\bregions:|\bresources:|\btype:|$)`)
	reIBMEnd   = regexp.MustCompile(`(?i)\boutage end:\s*(.*?)\s*(?:\boutage start:|\bregions:|\bresources:|\btype:|$)`)
)

// judgeEntry says whether an entry is an open incident or maintenance, and how bad.
func judgeEntry(e *feedEntry, now time.Time, pol feedPolicy) (s Status, maint bool, ok bool) {
	text := e.text()
	kind := ""
	if m := reIBMType.FindStringSubmatch(text); m != nil {
		kind = strings.ToLower(m[1])
		if kind != "incident" && kind != "maintenance" {
			return "", false, false
		}
	}
	lc := entryLifecycle(e.title, e.lines)
	if lc == lcResolved || lc == lcScheduled {
		return "", false, false
	}
	maint = lc == lcMaintenance || kind == "maintenance" ||
		(lc == lcNone && strings.Contains(strings.ToLower(e.title), "maintenance"))

	if m := reIBMEnd.FindStringSubmatch(text); m != nil {
		if end, ok := parseTime(m[1]); ok && !end.After(now) {
			return "", false, false
		}
	}
	if m := reIBMStart.FindStringSubmatch(text); m != nil {
		if start, ok := parseTime(m[1]); ok && start.After(now) {
			return "", false, false // not begun
		}
	}
	switch {
	case e.when.IsZero():
		if !pol.undatedOpen {
			return "", false, false
		}
	case e.when.After(now):
		if maint {
			return "", false, false // a maintenance dated in the future is scheduled
		}
	case now.Sub(e.when) > pol.maxAge:
		return "", false, false
	}
	if maint {
		return Degraded, true, true
	}
	if mentionsAny(pol.outageIn(e), pol.outage) {
		return Outage, false, true
	}
	return Degraded, false, true
}

// entryLifecycle reads the markers of a title and a description.
func entryLifecycle(title string, lines []string) lifecycle {
	t := strings.ToLower(strings.TrimSpace(title))
	for _, p := range []string{"[resolved]", "[completed]", "[mitigated]", "operating normally"} {
		if strings.Contains(t, p) {
			return lcResolved
		}
	}
	for _, p := range []string{"resolved:", "resolved -", "resolved –", "completed:", "mitigated:", "mitigated -", "post incident review"} {
		if strings.HasPrefix(t, p) {
			return lcResolved
		}
	}
	if strings.HasPrefix(t, "[scheduled]") {
		return lcScheduled
	}
	for _, l := range lines {
		ll := strings.ToLower(l)
		if i := strings.Index(ll, "status:"); i >= 0 && (i == 0 || !isLetter(ll[i-1])) {
			return lifecycleWord(strings.TrimSpace(ll[i+len("status:"):]))
		}
		for _, h := range updateHeaders {
			if rest, ok := strings.CutPrefix(ll, h); ok {
				rest = strings.TrimSpace(rest)
				if rest == "" || strings.HasPrefix(rest, "-") || strings.HasPrefix(rest, "–") || strings.HasPrefix(rest, ":") {
					return lifecycleWord(h)
				}
			}
		}
	}
	return lcNone
}

// updateHeaders are the labels Statuspage (and others) put at the head of each update in a feed description.
var updateHeaders = []string{"resolved", "investigating", "identified", "monitoring", "update", "postmortem",
	"completed", "scheduled", "in progress", "verifying"}

// lifecycleWord classifies the text after a "Status:" marker by its first word(s). An unknown word is an open
// incident.
func lifecycleWord(s string) lifecycle {
	s = strings.NewReplacer("_", " ", "-", " ").Replace(s)
	has := func(ws ...string) bool {
		for _, w := range ws {
			if s == w || strings.HasPrefix(s, w+" ") || strings.HasPrefix(s, w+".") || strings.HasPrefix(s, w+",") {
				return true
			}
		}
		return false
	}
	switch {
	case has("resolved", "completed", "complete", "postmortem", "post mortem", "closed", "recovered", "fixed",
		"ended", "canceled", "cancelled", "operational", "mitigated"):
		return lcResolved
	case has("scheduled", "planned", "upcoming", "not started", "notstartedyet"):
		return lcScheduled
	case has("in progress", "inprogress", "verifying", "under maintenance", "maintenance"):
		return lcMaintenance
	}
	return lcOpen
}

func isLetter(c byte) bool { return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') }

// qualifiersBelow are words that, just before "outage", "disruption" or "unavailable", make it less than an outage.
var qualifiersBelow = map[string]bool{"partial": true, "minor": true, "no": true, "brief": true, "possible": true,
	"potential": true, "limited": true, "regional": true, "partially": true, "intermittently": true,
	"occasionally": true, "sporadically": true, "briefly": true, "may": true, "might": true}

// serviceWords may stand between a qualifier and the phrase it qualifies ("partial service disruption").
var serviceWords = map[string]bool{"service": true, "system": true, "api": true, "platform": true}

// notAnOutageBefore lists, per phrase, the words that give it another sense just before it: "slow down" and
// "scaled down" are not "down".
var notAnOutageBefore = map[string]map[string]bool{
	"down": {"slow": true, "slowed": true, "slowing": true, "slows": true, "scale": true, "scaled": true,
		"scaling": true, "wind": true, "winding": true, "step": true, "stepped": true, "stepping": true,
		"ramp": true, "ramped": true, "ramping": true, "track": true, "tracked": true, "narrow": true,
		"narrowed": true, "narrowing": true, "turn": true, "turned": true},
}

// mentionsAny reports whether text contains one of the phrases as whole words (folded comparison), not preceded by
// a qualifier such as "partial".
func mentionsAny(text string, phrases []string) bool {
	ft := fold(text)
	for _, p := range phrases {
		p = fold(p)
		for i := range wholeWords(ft, p, isLetter) {
			w := wordBefore(ft, i)
			if serviceWords[w] { // "partial service disruption": the qualifier is one word further
				w = wordBefore(ft, strings.LastIndex(ft[:i], w))
			}
			if qualifiersBelow[w] || notAnOutageBefore[p][w] {
				continue
			}
			return true
		}
	}
	return false
}

// wordBefore returns the word that ends just before position i of s (skipping spaces and punctuation).
func wordBefore(s string, i int) string {
	j := i
	for j > 0 && !isLetter(s[j-1]) {
		j--
	}
	k := j
	for k > 0 && isLetter(s[k-1]) {
		k--
	}
	return s[k:j]
}
