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

// providersJSON is ../shared/data/providers.json as published: 52 providers with their status-page URLs, the
// format of each page, and the evidence for it.
//
//go:embed providers.json
var providersJSON []byte

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
