// Package seeds embeds the reference data the service starts with: the 52 monitored providers (their official
// status pages) and, as later issues add them, the catalogs. Everything is loaded once, checked, and served from
// memory.
package seeds

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
)

// providersJSON is seeds/providers.json as published: 52 providers with their status-page URLs, the
// format of each page, and the evidence for it.
//
//go:embed providers.json
var providersJSON []byte

// apiScopesJSON names, per provider, the parts of its status page that stand for the developer API (hand-curated
// from the notes of providers.json and the pages themselves; see the file's own sources).
//
//go:embed api_scopes.json
var apiScopesJSON []byte

// Provider is one monitored provider.
type Provider struct {
	ID            string   `json:"id"`
	Name          string   `json:"name"`
	Homepage      string   `json:"homepage"`
	StatusPageURL string   `json:"status_page_url"`
	StatusAPIURL  string   `json:"status_api_url"`
	Format        string   `json:"format"`
	Categories    []string `json:"categories"`
	Confidence    string   `json:"confidence"`
	Evidence      string   `json:"evidence"`
	Notes         string   `json:"notes"`
	// Scope is filled from api_scopes.json: the components or keywords that stand for the API.
	Scope Scope `json:"-"`
}

// Scope names the parts of a status page that stand for a provider's developer API.
type Scope struct {
	// Components are component IDs or exact names (case-insensitive). Empty: the whole page counts.
	Components []string `json:"components"`
	// Keywords select entries of pages without components (product titles or IDs, service names, feed item
	// titles), as case-insensitive substrings. Empty: every entry counts.
	Keywords []string `json:"keywords"`
	// DisruptionTop says the page's own scale has no level above "disruption" (Status.io: partial disruption,
	// then disruption), so a disruption there reads outage; elsewhere it reads degraded (formats doc section 9).
	DisruptionTop bool `json:"disruption_top,omitempty"`
	// Source says where the scope was taken from.
	Source string `json:"source"`
}

// Registry is the set of monitored providers, in ID order.
type Registry struct {
	list []Provider
	byID map[string]*Provider
}

// MonitoredProviders is the number of providers the contract promises.
const MonitoredProviders = 52

// Providers returns the embedded registry. It panics if the embedded file is broken: that is a build defect,
// caught by the package's tests, not a run-time condition.
var Providers = sync.OnceValue(func() *Registry {
	r, err := parseProviders(providersJSON)
	if err == nil {
		err = r.applyScopes(apiScopesJSON)
	}
	if err != nil {
		panic(err)
	}
	return r
})

func parseProviders(b []byte) (*Registry, error) {
	var list []Provider
	if err := json.Unmarshal(b, &list); err != nil {
		return nil, fmt.Errorf("seeds: parsing providers.json: %w", err)
	}
	r := &Registry{byID: make(map[string]*Provider, len(list))}
	sort.Slice(list, func(i, j int) bool { return list[i].ID < list[j].ID })
	r.list = list
	for i := range r.list {
		p := &r.list[i]
		if p.ID == "" || p.Name == "" || p.StatusAPIURL == "" || p.Format == "" {
			return nil, fmt.Errorf("seeds: provider %d (%q) lacks an id, name, status URL or format", i, p.ID)
		}
		if _, dup := r.byID[p.ID]; dup {
			return nil, fmt.Errorf("seeds: provider %q listed twice", p.ID)
		}
		r.byID[p.ID] = p
	}
	return r, nil
}

// All returns the providers in ID order. The slice is shared: do not modify it.
func (r *Registry) All() []Provider { return r.list }

// Get returns the provider with that ID.
func (r *Registry) Get(id string) (Provider, bool) {
	p, ok := r.byID[id]
	if !ok {
		return Provider{}, false
	}
	return *p, true
}

// Known reports whether id is a monitored provider.
func (r *Registry) Known(id string) bool {
	_, ok := r.byID[id]
	return ok
}

// applyScopes attaches each provider's API scope. A scope for a provider that is not monitored is an error: it
// would be silently ignored otherwise.
func (r *Registry) applyScopes(b []byte) error {
	var f struct {
		AsOf      string           `json:"as_of"`
		Providers map[string]Scope `json:"providers"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("seeds: parsing api_scopes.json: %w", err)
	}
	for id, sc := range f.Providers {
		p, ok := r.byID[id]
		if !ok {
			return fmt.Errorf("seeds: api_scopes.json names unknown provider %q", id)
		}
		p.Scope = sc
	}
	return nil
}
