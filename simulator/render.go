package simulator

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard/switchboard/seeds"
)

// page is one rendered status page. It is immutable once built.
type page struct {
	code         int // 200, or 503 for a reachability page that is down
	contentType  string
	body         []byte
	etag         string
	lastModified time.Time
}

// view is what a renderer needs: the provider, the status to show and the moment it began.
type view struct {
	p      seeds.Provider
	status string
	t0     time.Time // when the status was set (UTC, millisecond precision): starts and IDs derive from it
	tu     time.Time // the latest update of a status held for a while (t0, or t0 + n * UpdateInterval)
	url    *url.URL  // the provider's status_api_url
	site   string    // the public page address, e.g. "https://status.openai.com"
	name   string    // the provider's name without a trailing parenthesis: "Amazon Bedrock (AWS)" -> "Amazon Bedrock"
}

// renderer builds one format's page.
type renderer func(v view) (code int, contentType string, body []byte)

var renderers = map[string]renderer{
	"statuspage":   renderStatuspage,
	"incidentio":   renderIncidentio,
	"instatus":     renderInstatus,
	"betterstack":  renderBetterstack,
	"google-cloud": renderGoogleCloud,
	"aws-health":   renderAWSHealth,
	"azure-status": renderAzureStatus,
	"rss":          renderFeed,
	"atom":         renderAtom,
	"http":         renderReachability,
}

// Formats lists the formats the simulator renders. Any other format is served as a plain reachability page.
func Formats() []string { return sortedIDs(renderers) }

// renderPage renders p's page for status, set at since and last updated at update (since, or a later update
// epoch). prev is the page it replaces (nil for the first): when the new body is the same, prev is returned, so
// the validators stay; otherwise the new Last-Modified is always later than prev's, so If-Modified-Since sees
// every change.
func renderPage(p seeds.Provider, status string, since, update time.Time, prev *page) *page {
	u, err := url.Parse(p.StatusAPIURL)
	if err != nil {
		u = &url.URL{Scheme: "https", Host: "status.invalid", Path: "/"}
	}
	v := view{p: p, status: status, t0: since.UTC().Truncate(time.Millisecond), url: u, name: displayName(p.Name)}
	v.tu = v.t0
	if update.After(since) {
		v.tu = update.UTC().Truncate(time.Millisecond)
	}
	v.site = strings.TrimRight(p.StatusPageURL, "/")
	if v.site == "" {
		v.site = u.Scheme + "://" + u.Host
	}
	r, ok := renderers[p.Format]
	if !ok {
		r = renderReachability
	}
	code, ctype, body := r(v)
	if prev != nil && prev.code == code && prev.contentType == ctype && bytes.Equal(prev.body, body) {
		return prev
	}
	sum := sha256.Sum256(body)
	lm := v.tu.Truncate(time.Second)
	if prev != nil && !lm.After(prev.lastModified) {
		lm = prev.lastModified.Add(time.Second)
	}
	return &page{code: code, contentType: ctype, body: body, etag: `"` + hex.EncodeToString(sum[:10]) + `"`, lastModified: lm}
}

// updated reports whether the status has been held long enough for a later update to be posted.
func (v view) updated() bool { return v.tu.After(v.t0) }

// posted is when the newest post about the current status was made: offset from t0 (a negative offset: the
// incident was posted a little before the simulator was told), or the latest update.
func (v view) posted(offset time.Duration) time.Time {
	if v.updated() {
		return v.tu
	}
	return v.t0.Add(offset)
}

// windowEnd is the end of an in-progress maintenance window: d after the next update is due, so the window never
// runs out while the maintenance is held (it is "extended" at every update).
func (v view) windowEnd(d time.Duration) time.Time { return v.tu.Add(UpdateInterval + d) }

var trailingParen = regexp.MustCompile(`\s*\([^()]*\)\s*$`)

func displayName(name string) string {
	if n := trailingParen.ReplaceAllString(name, ""); n != "" {
		return n
	}
	return name
}

// apiComponent is the component that stands for the provider's API: the first of Scope.Components, else "API".
// A scope entry that looks like a platform ID (rather than a name) becomes the component's ID, named "API".
func (v view) apiComponent(idOf func(name string) string) (id, name string) {
	if len(v.p.Scope.Components) > 0 {
		c := v.p.Scope.Components[0]
		if looksLikeID(c) {
			return c, "API"
		}
		return idOf(c), c
	}
	return idOf("API"), "API"
}

// otherScopeComponents are the scope's components after the first; they stay operational.
func (v view) otherScopeComponents(idOf func(name string) string) (ids, names []string) {
	for i, c := range v.p.Scope.Components {
		if i == 0 {
			continue
		}
		if looksLikeID(c) {
			ids, names = append(ids, c), append(names, "API "+itoa(i+1))
			continue
		}
		ids, names = append(ids, idOf(c)), append(names, c)
	}
	return ids, names
}

// fillerComponents are the components a page shows besides the API (consoles, docs); they are always
// operational and never collide with a scoped name.
func (v view) fillerComponents() []string {
	var out []string
	for _, n := range []string{"Dashboard", "Playground", "Documentation"} {
		taken := strings.EqualFold(n, "API")
		for _, c := range v.p.Scope.Components {
			taken = taken || strings.EqualFold(c, n)
		}
		if !taken {
			out = append(out, n)
		}
	}
	return out
}

var (
	base36ID = regexp.MustCompile(`^[a-z0-9]{12}$`)
	ulidID   = regexp.MustCompile(`^[0-9A-HJKMNP-TV-Z]{26}$`)
	cuidID   = regexp.MustCompile(`^c[a-z0-9]{24}$`)
	numID    = regexp.MustCompile(`^[0-9]{3,}$`)
	googleID = regexp.MustCompile(`^[A-Za-z0-9]{20}$`)
)

// looksLikeID reports whether a scope entry is a platform component ID rather than a name: a Statuspage ID
// (12 base36 characters with a digit), an incident.io ULID, an Instatus cuid or a Better Stack number.
func looksLikeID(s string) bool {
	switch {
	case base36ID.MatchString(s):
		return strings.ContainsAny(s, "0123456789")
	case ulidID.MatchString(s), cuidID.MatchString(s), numID.MatchString(s):
		return true
	}
	return false
}

// subject is how entries of component-less formats name the API: the first scope keyword, unless the
// provider's name already contains one of them (then the name, which reads better); the name when there are no
// keywords.
func (v view) subject() string {
	kws := v.p.Scope.Keywords
	if len(kws) == 0 {
		return v.name
	}
	for _, k := range kws {
		if k != "" && strings.Contains(strings.ToLower(v.name), strings.ToLower(k)) {
			return v.name
		}
	}
	return kws[0]
}

// unrelated is the name of a product of the same platform that is not the provider's API, for entries that a
// scoped parser must skip; empty when there are no keywords (then every entry counts) or it would match one.
func (v view) unrelated(candidates ...string) string {
	if len(v.p.Scope.Keywords) == 0 {
		return ""
	}
	for _, c := range candidates {
		hit := false
		for _, k := range v.p.Scope.Keywords {
			hit = hit || (k != "" && strings.Contains(strings.ToLower(c), strings.ToLower(k)))
		}
		if !hit {
			return c
		}
	}
	return ""
}

// --- IDs: deterministic per provider (and per status change for incidents), shaped like each platform's. ---

func digest(parts ...string) [32]byte {
	return sha256.Sum256([]byte(strings.Join(parts, "\x00")))
}

// idFrom draws n characters of alphabet from the digest of parts.
func idFrom(alphabet string, n int, parts ...string) string {
	var out []byte
	for round := 0; len(out) < n; round++ {
		d := digest(append(parts, itoa(round))...)
		for _, b := range d {
			if len(out) == n {
				break
			}
			out = append(out, alphabet[int(b)%len(alphabet)])
		}
	}
	return string(out)
}

const (
	lowerAlnum = "0123456789abcdefghijklmnopqrstuvwxyz"
	mixedAlnum = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	crockford  = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
	decimal    = "0123456789"
)

// ulid is a ULID whose time part is t and whose random part is drawn from parts.
func ulid(t time.Time, parts ...string) string {
	ms := uint64(t.UnixMilli())
	var ts [10]byte
	for i := 9; i >= 0; i-- {
		ts[i] = crockford[ms&31]
		ms >>= 5
	}
	return string(ts[:]) + idFrom(crockford, 16, parts...)
}

// numericID is a decimal ID of n digits that does not start with 0.
func numericID(n int, parts ...string) string {
	id := idFrom(decimal, n, parts...)
	if id[0] == '0' {
		id = "1" + id[1:]
	}
	return id
}

func itoa(i int) string { return strconv.Itoa(i) }

// marshal encodes a page body; the values are the renderers' own types, so it cannot fail.
func marshal(v any) []byte {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		panic("simulator: encoding a page: " + err.Error())
	}
	return append(b, '\n')
}

// --- Times. ---

// isoMillis is the RFC 3339 form with milliseconds and Z used by Statuspage, incident.io, Instatus, Better Stack.
func isoMillis(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// rfc1123GMT is the RSS pubDate form with GMT.
func rfc1123GMT(t time.Time) string { return t.UTC().Format(http.TimeFormat) }

// pacific returns t in US Pacific time with its abbreviation (PST or PDT), by the US rules in force since 2007,
// without depending on the machine's time zone database.
func pacific(t time.Time) time.Time {
	t = t.UTC()
	y := t.Year()
	// DST starts the second Sunday of March at 2:00 PST (10:00 UTC) and ends the first Sunday of November at
	// 2:00 PDT (09:00 UTC).
	start := nthSunday(y, time.March, 2).Add(10 * time.Hour)
	end := nthSunday(y, time.November, 1).Add(9 * time.Hour)
	if !t.Before(start) && t.Before(end) {
		return t.In(time.FixedZone("PDT", -7*3600))
	}
	return t.In(time.FixedZone("PST", -8*3600))
}

func nthSunday(year int, month time.Month, n int) time.Time {
	d := time.Date(year, month, 1, 0, 0, 0, 0, time.UTC)
	for d.Weekday() != time.Sunday {
		d = d.AddDate(0, 0, 1)
	}
	return d.AddDate(0, 0, 7*(n-1))
}

// humanUTC is "Oct 2, 2026 12:30 UTC", the form status feeds use in their HTML.
func humanUTC(t time.Time) string { return t.UTC().Format("Jan 2, 2006 15:04 UTC") }
