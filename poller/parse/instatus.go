package parse

import (
	"bytes"
	"encoding/json"
	"time"
)

// Instatus pages (statuspage-formats.md section 4): /summary.json ({page, activeIncidents?, activeMaintenances?})
// and the component lists (/v3/components.json as {components: [...]} with group, the documented
// /v2/components.json as a bare array with isParent/children). All three shapes are accepted, and a summary that
// also carries components is read as both.
//
// Mapping decisions:
//   - page.status: UP -> operational; HASISSUES -> at least degraded (the worst of incidents and components, with
//     a floor of degraded); UNDERMAINTENANCE -> degraded with the maintenance flag, unless components are on the
//     page and every counted one is operational.
//   - components[].status and activeIncidents[].impact: DEGRADEDPERFORMANCE, PARTIALOUTAGE, MINOROUTAGE ->
//     degraded; MAJOROUTAGE -> outage; UNDERMAINTENANCE -> degraded with the maintenance flag; OPERATIONAL ->
//     nothing. Incidents with status RESOLVED are skipped.
//   - activeMaintenances[]: INPROGRESS -> degraded with the maintenance flag; NOTSTARTEDYET (future) and COMPLETED
//     are ignored, and so is a maintenance status this code does not know.
//   - Unknown values of page.status, component status and incident impact read degraded: providers.json says so
//     for Exa, the custom page behind this format that has only ever shown UP/OPERATIONAL. (Elsewhere an unknown
//     value adds nothing; Instatus has the note.) Parent components (isParent, or with children) are containers and
//     are skipped unless the scope names them.
//   - Scope: as for Statuspage (componentScope): with the scope in effect page.status is ignored and incidents
//     count only when they name an in-scope component. Without one, apps are not the API and a single model's
//     MAJOROUTAGE reads degraded, as for Statuspage (unscopedTally in scope.go).

func init() { register("instatus", safe("instatus", parseInstatus)) }

type isDocument struct {
	Page               *isPage        `json:"page"`
	ActiveIncidents    []isItem       `json:"activeIncidents"`
	ActiveMaintenances []isItem       `json:"activeMaintenances"`
	Components         *[]isComponent `json:"components"`
}

type isPage struct {
	Name   text `json:"name"`
	Status text `json:"status"`
}

type isItem struct {
	ID         text          `json:"id"`
	Name       text          `json:"name"`
	Status     text          `json:"status"`
	Impact     text          `json:"impact"`
	Components []isComponent `json:"components"`
}

type isComponent struct {
	ID       text            `json:"id"`
	Name     text            `json:"name"`
	Status   text            `json:"status"`
	IsParent text            `json:"isParent"`
	Children []isComponent   `json:"children"`
	Group    json.RawMessage `json:"group"`
}

// groupKeys returns the ID and name of a component's group, whether group is an object, a string or null.
func (c isComponent) groupKeys() []string {
	g := bytes.TrimSpace(c.Group)
	if len(g) == 0 {
		return nil
	}
	var obj struct {
		ID   text `json:"id"`
		Name text `json:"name"`
	}
	if g[0] == '{' && json.Unmarshal(g, &obj) == nil {
		return []string{string(obj.ID), string(obj.Name)}
	}
	var s text
	if json.Unmarshal(g, &s) == nil {
		return []string{string(s)}
	}
	return nil
}

func parseInstatus(body []byte, scope Scope, now time.Time) (Reading, error) {
	var doc isDocument
	b := utf8Body(body)
	if len(b) > 0 && b[0] == '[' {
		var list []isComponent
		if err := decodeJSON("instatus", b, '[', &list); err != nil {
			return Reading{}, err
		}
		doc.Components = &list
	} else if err := decodeJSON("instatus", b, '{', &doc); err != nil {
		return Reading{}, err
	}
	if (doc.Page == nil || doc.Page.Status.norm() == "") && doc.Components == nil {
		return Reading{}, unparseable("instatus", "no page status and no components")
	}
	return doc.read(scope), nil
}

// flatComponent is a component with the keys that put it in a scope.
type flatComponent struct {
	c      isComponent
	parent bool
	keys   []string // group or parent IDs and names
}

func flattenInstatus(list []isComponent, parentKeys []string, out []flatComponent, depth int) []flatComponent {
	if depth > 8 {
		return out
	}
	for _, c := range list {
		keys := append(append([]string(nil), parentKeys...), c.groupKeys()...)
		parent := c.IsParent.norm() == "true" || len(c.Children) > 0
		out = append(out, flatComponent{c: c, parent: parent, keys: keys})
		if len(c.Children) > 0 {
			out = flattenInstatus(c.Children, append(keys, string(c.ID), string(c.Name)), out, depth+1)
		}
	}
	return out
}

func (d *isDocument) read(scope Scope) Reading {
	cs := newComponentScope(scope)
	var comps []flatComponent
	if d.Components != nil {
		comps = flattenInstatus(*d.Components, nil, nil, 0)
	}
	if cs.scoped() {
		for _, f := range comps {
			if cs.names(append([]string{string(f.c.ID), string(f.c.Name)}, f.keys...)...) {
				cs.admit(string(f.c.ID), string(f.c.Name))
			}
		}
	}
	v := newVerdict()
	// Without a scope in effect: apps are not the API, and one component down among many is not an API outage.
	var tally unscopedTally
	if !cs.inEffect() {
		for _, f := range comps {
			if !f.parent {
				s, _, _ := isLevel(f.c.Status.norm())
				tally.add(string(f.c.Name), s)
			}
		}
	}
	counted, allOperational := 0, true
	for _, f := range comps {
		switch {
		case !cs.scoped():
			if f.parent || isAppName(string(f.c.Name)) {
				continue
			}
		case cs.inEffect():
			if !cs.covers(string(f.c.ID), string(f.c.Name)) {
				continue
			}
		default:
			continue
		}
		counted++
		s, maint, label := isLevel(f.c.Status.norm())
		if !cs.scoped() {
			s = tally.componentStatus(string(f.c.Name), s)
		}
		if s != Operational {
			allOperational = false
		}
		v.add(s, maint, prioComponent, string(f.c.Name)+": "+label)
	}

	for _, inc := range d.ActiveIncidents {
		if inc.Status.norm() == "resolved" || !isItemInScope(cs, inc.Components) ||
			(!cs.inEffect() && isAppItem(&tally, string(inc.Name), inc.Components)) {
			continue
		}
		s, maint, _ := isLevel(inc.Impact.norm())
		if inc.Impact.norm() == "" {
			s = Degraded // an active incident without an impact is still an incident
		}
		v.add(s, maint, prioIncident, string(inc.Name))
	}
	for _, m := range d.ActiveMaintenances {
		if m.Status.norm() != "inprogress" || !isItemInScope(cs, m.Components) ||
			(!cs.inEffect() && isAppItem(&tally, string(m.Name), m.Components)) {
			continue
		}
		v.add(Degraded, true, prioIncident, string(m.Name))
	}

	if d.Page != nil && !cs.inEffect() && !tally.onlyApps() {
		switch st := d.Page.Status.norm(); st {
		case "", "up":
		case "hasissues":
			v.add(Degraded, false, prioIndicator, "")
		case "undermaintenance":
			if counted == 0 || !allOperational {
				v.add(Degraded, true, prioIndicator, "")
			}
		default:
			v.add(Degraded, false, prioIndicator, "")
		}
	}
	return v.reading()
}

// isAppItem is appItem (statuspage.go) for Instatus items.
func isAppItem(t *unscopedTally, name string, comps []isComponent) bool {
	sp := make([]spComponent, 0, len(comps))
	for _, c := range comps {
		sp = append(sp, spComponent{ID: c.ID, Name: c.Name})
	}
	return appItem(t, name, sp)
}

func isItemInScope(cs *componentScope, comps []isComponent) bool {
	if !cs.inEffect() {
		return true
	}
	for _, c := range comps {
		if cs.covers(string(c.ID), string(c.Name)) {
			return true
		}
	}
	return false
}

// isLevel maps an Instatus component status or incident impact.
func isLevel(st string) (s Status, maint bool, label string) {
	switch st {
	case "", "operational", "up":
		return Operational, false, "operational"
	case "degradedperformance":
		return Degraded, false, "degraded performance"
	case "partialoutage":
		return Degraded, false, "partial outage"
	case "minoroutage":
		return Degraded, false, "minor outage"
	case "majoroutage":
		return Outage, false, "major outage"
	case "undermaintenance":
		return Degraded, true, "under maintenance"
	}
	return Degraded, false, st
}
