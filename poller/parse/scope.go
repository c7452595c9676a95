package parse

import (
	"iter"
	"strings"
	"time"
)

// componentScope answers which components of a page stand for the API.
//
// Decision (see the package comment of statuspage.go): when the provider's scope names components and at least one
// of them is on the page, the scope is "in effect": only the matched components, and the incidents and maintenances
// that name one of them, count; the page-wide indicator does not, because on mixed pages (ChatGPT, claude.ai,
// Cloudflare POPs) it speaks for things that are not the API. When the scope names components but none is on the
// page (component IDs rotate), the component part is ignored and the indicator and all incidents count. An empty
// scope counts the whole page.
type componentScope struct {
	want  []string        // the scope's entries, trimmed; empty entries dropped
	inIDs map[string]bool // lower-cased IDs and names of the page's components that matched
	found bool            // at least one component on the page matched
}

func newComponentScope(s Scope) *componentScope {
	cs := &componentScope{inIDs: map[string]bool{}}
	for _, c := range s.Components {
		if c = strings.TrimSpace(c); c != "" {
			cs.want = append(cs.want, c)
		}
	}
	return cs
}

// scoped reports whether the scope names any component at all.
func (cs *componentScope) scoped() bool { return len(cs.want) > 0 }

// inEffect reports whether the scope names components and some were found on the page.
func (cs *componentScope) inEffect() bool { return cs.scoped() && cs.found }

// names reports whether any of keys (a component's ID, name, or group ID) equals a scope entry,
// case-insensitively.
func (cs *componentScope) names(keys ...string) bool {
	for _, k := range keys {
		k = strings.TrimSpace(k)
		if k == "" {
			continue
		}
		for _, w := range cs.want {
			if strings.EqualFold(k, w) {
				return true
			}
		}
	}
	return false
}

// admit records a page component that the scope names; it is called while reading the page's component list.
func (cs *componentScope) admit(id, name string) {
	cs.found = true
	if id = strings.ToLower(strings.TrimSpace(id)); id != "" {
		cs.inIDs[id] = true
	}
	if name = strings.ToLower(strings.TrimSpace(name)); name != "" {
		cs.inIDs[name] = true
	}
}

// covers reports whether a component referenced elsewhere (by an incident or a maintenance) is in scope: it is
// one of the admitted components, or the scope names it directly.
func (cs *componentScope) covers(id, name string) bool {
	for _, k := range []string{id, name} {
		if k = strings.ToLower(strings.TrimSpace(k)); k != "" && cs.inIDs[k] {
			return true
		}
	}
	return cs.names(id, name)
}

// keywordScope selects entries of component-less pages.
type keywordScope []string

func newKeywordScope(s Scope) keywordScope {
	var ks keywordScope
	for _, k := range s.Keywords {
		if k = fold(k); k != "" {
			ks = append(ks, k)
		}
	}
	return ks
}

// matches reports whether any keyword is a substring of any of the texts (compared folded: case-insensitive, with
// '-' and '_' read as spaces). An empty keyword list matches everything.
func (ks keywordScope) matches(texts ...string) bool {
	if len(ks) == 0 {
		return true
	}
	for _, t := range texts {
		if t == "" {
			continue
		}
		ft := fold(t)
		for _, k := range ks {
			if strings.Contains(ft, k) {
				return true
			}
		}
	}
	return false
}

// Summary priorities: at equal status, an incident's name is a better summary than a component's name, which is
// better than the page's own description of its indicator.
const (
	prioIndicator = iota
	prioComponent
	prioIncident
)

// verdict accumulates the signals of a page into a Reading: the worst status wins; at equal status a non-
// maintenance signal wins over maintenance (so Maintenance is true only when maintenance alone made the reading
// degraded), then the higher summary priority, then the first seen.
type verdict struct {
	status  Status
	maint   bool
	summary string
	prio    int
}

func newVerdict() *verdict { return &verdict{status: Operational} }

// add records one signal. Operational signals, and anything that is not one of the three statuses, change nothing.
func (v *verdict) add(s Status, maint bool, prio int, summary string) {
	if s.rank() <= Operational.rank() {
		return
	}
	maint = maint && s == Degraded
	switch {
	case s.rank() > v.status.rank():
		*v = verdict{status: s, maint: maint, summary: summary, prio: prio}
	case s == v.status:
		if v.maint && !maint {
			v.maint = false
			if summary != "" {
				v.summary, v.prio = summary, prio
			}
			return
		}
		if v.maint == maint && summary != "" && (v.summary == "" || prio > v.prio) {
			v.summary, v.prio = summary, prio
		}
	}
}

func (v *verdict) reading() Reading {
	if v.status != Degraded && v.status != Outage {
		return Reading{Status: Operational}
	}
	return Reading{Status: v.status, Maintenance: v.maint, Summary: summarize(v.summary)}
}

// safe turns a panic in a parser into ErrUnparseable. The parsers are written not to panic (and fuzzed); this is
// the last line of defence for the poller, which must never die on a hostile body.
func safe(format string, p Parser) Parser {
	return func(body []byte, scope Scope, now time.Time) (r Reading, err error) {
		defer func() {
			if rec := recover(); rec != nil {
				r, err = Reading{}, unparseable(format, "parser panic: %v", rec)
			}
		}()
		return p(body, scope, now)
	}
}

// Status is about the API (DESIGN 2026-11-28): on a page that mixes the developer API with the provider's apps,
// console, website or chat product, trouble that is only on those leaves the API operational. Scoped pages get
// this from their scope; unscoped pages (no component list in api_scopes.json) get it from component and incident
// names, read by these words.
var (
	appWords = []string{"console", "dashboard", "website", "web app", "webapp", "playground", "app", "apps", "mobile",
		"ios", "android", "desktop", "chatgpt", "claude.ai", "claude code", "le chat", "sora", "docs", "documentation",
		"community", "forum", "blog", "help center", "login", "log in", "sign in", "signup",
		"sign up", "billing", "portal"}
	// apiWords make a name the API's even when it also names an app ("Console and API", "Chat Completions").
	apiWords = []string{"api", "apis", "completions", "inference", "endpoint", "endpoints", "embeddings", "serving",
		"gateway", "batch", "fine tuning", "realtime"}
	// gatewayWords name a component that carries the whole API, not one model (formats doc Pitfall 7).
	gatewayWords = []string{"api", "apis", "gateway"}
)

// hasWords reports whether any phrase occurs in s as whole words (folded comparison).
func hasWords(s string, phrases []string) bool {
	fs := fold(s)
	for _, p := range phrases {
		for range wholeWords(fs, p, isWordByte) {
			return true
		}
	}
	return false
}

// wholeWords yields each position of p in s where p stands as whole words: neither byte around it is one inWord
// counts as part of a word.
func wholeWords(s, p string, inWord func(byte) bool) iter.Seq[int] {
	return func(yield func(int) bool) {
		if p == "" {
			return
		}
		for from := 0; from < len(s); {
			i := strings.Index(s[from:], p)
			if i < 0 {
				return
			}
			i += from
			from = i + 1
			end := i + len(p)
			if (i > 0 && inWord(s[i-1])) || (end < len(s) && inWord(s[end])) {
				continue
			}
			if !yield(i) {
				return
			}
		}
	}
}

func isWordByte(c byte) bool { return isLetter(c) || ('0' <= c && c <= '9') || c >= 0x80 }

// isAppName reports whether a component or incident name is about an app, console, website or chat product and
// not the API.
func isAppName(name string) bool { return hasWords(name, appWords) && !hasWords(name, apiWords) }

// unscopedTally is what an unscoped page's components say as a whole, for the two rules that need the whole list:
// apps are not the API (above), and a component-only outage (one model down on a page with a component per
// model, formats doc Pitfall 7) reads degraded unless an API or gateway component, or more than half of the
// counted components, is down.
type unscopedTally struct {
	counted, down int  // API components (apps left out) and how many of them are in outage
	bad, appBad   int  // API and app components that are not operational
	gatewayDown   bool // an API or gateway component is in outage
}

// add counts one component (groups and unmonitored rows are not passed in).
func (t *unscopedTally) add(name string, s Status) {
	if isAppName(name) {
		if s.rank() > Operational.rank() {
			t.appBad++
		}
		return
	}
	t.counted++
	if s.rank() > Operational.rank() {
		t.bad++
	}
	if s == Outage {
		t.down++
		if hasWords(name, gatewayWords) {
			t.gatewayDown = true
		}
	}
}

// onlyApps reports whether the page's trouble is all on app components: the page-wide signals (indicator,
// incidents that name no component) then speak for the apps.
func (t *unscopedTally) onlyApps() bool { return t.appBad > 0 && t.bad == 0 }

// componentStatus is what one API component's status contributes: an outage of a single component among many
// that is not the API or a gateway reads degraded.
func (t *unscopedTally) componentStatus(name string, s Status) Status {
	if s == Outage && !hasWords(name, gatewayWords) && t.down*2 <= t.counted {
		return Degraded
	}
	return s
}

// pageOutageCapped is what a page-wide outage signal reads when the page lists components: outage only when the
// components bear it out (formats doc Pitfall 7), else degraded.
func (t *unscopedTally) pageOutageCapped(s Status) Status {
	if s == Outage && t.counted > 0 && !t.gatewayDown && t.down*2 <= t.counted {
		return Degraded
	}
	return s
}
