package impl

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/seeds"
	"github.com/switchboard/switchboard/store"
)

// maxRefreshEntries bounds the refresh events one /changelog/api answer reads from the store (a build records at
// most store.MaxCatalogEvents; a 90-day window holds a few builds' worth).
const maxRefreshEntries = 5000

// refreshFilter is what a /changelog/api request keeps.
type refreshFilter struct {
	provider string
	typ      *api.ApiChangelogChangeType
	impact   *api.ApiChangelogImpact
	from, to time.Time // days, both inclusive
}

// refreshEntries are the change-feed entries the run-time catalog refresh recorded in the window, with the
// sources they cite (the sources of the records they changed, from the catalogs in service).
func (s *Server) refreshEntries(ctx context.Context, f refreshFilter) ([]api.ApiChangelogRecord, []api.Source, error) {
	evs, err := s.deps.Store.CatalogEventsSince(ctx, f.from, maxRefreshEntries)
	if err != nil {
		return nil, nil, fmt.Errorf("reading catalog events: %w", err)
	}
	if len(evs) == 0 {
		return nil, nil, nil
	}
	set, err := seeds.Current()
	if err != nil {
		return nil, nil, fmt.Errorf("reading the catalogs: %w", err)
	}
	cites := newCitations(set)
	var out []api.ApiChangelogRecord
	for _, ev := range evs {
		day := ev.CreatedAt.UTC().Truncate(24 * time.Hour)
		if day.After(f.to) || (f.provider != "" && ev.ProviderID != f.provider) {
			continue
		}
		r, err := refreshEntry(ev, day)
		if err != nil {
			return nil, nil, err
		}
		if (f.typ != nil && r.ChangeType != *f.typ) || (f.impact != nil && r.Impact != *f.impact) {
			continue
		}
		r.Sources, r.Confidence = cites.of(catalogOfEvent(ev.Type), ev.ProviderID, ev.ModelID)
		out = append(out, r)
	}
	return out, cites.used(), nil
}

// refreshEntry turns a catalog event into a change-feed entry, as the /changelog/api description maps them.
func refreshEntry(ev store.CatalogEvent, day time.Time) (api.ApiChangelogRecord, error) {
	var p api.CatalogEventPayload
	if err := json.Unmarshal(ev.Payload, &p); err != nil {
		return api.ApiChangelogRecord{}, fmt.Errorf("catalog event %d: %w", ev.ID, err)
	}
	r := api.ApiChangelogRecord{
		Date: openapi_types.Date{Time: day}, ProviderId: ev.ProviderID, AffectedModels: []string{ev.ModelID},
		CatalogEvent: &api.CatalogEvent{Type: api.CatalogEventType(ev.Type), ObservedAt: ev.CreatedAt.UTC(), Details: p},
	}
	name := ev.ProviderID + "/" + ev.ModelID
	switch ev.Type {
	case "catalog.price_changed":
		r.ChangeType, r.Impact = api.ApiChangelogChangeTypePricingChange, api.ApiChangelogImpactLow
		if rose(p.OldInputPer1mTokens, p.NewInputPer1mTokens) || rose(p.OldOutputPer1mTokens, p.NewOutputPer1mTokens) {
			r.Impact = api.ApiChangelogImpactHigh
		}
		r.Title = "Price change: " + name
		r.Description = fmt.Sprintf("%s: input %s, output %s (USD per 1M tokens).", name,
			priceMove(p.OldInputPer1mTokens, p.NewInputPer1mTokens, p.InputChangePct), priceMove(p.OldOutputPer1mTokens, p.NewOutputPer1mTokens, p.OutputChangePct))
	case "catalog.model_added":
		r.ChangeType, r.Impact = api.ApiChangelogChangeTypeNewModel, api.ApiChangelogImpactLow
		r.Title = "New model: " + name
		r.Description = name + " is new in the model catalog."
	case "catalog.model_removed":
		r.ChangeType, r.Impact = api.ApiChangelogChangeTypeDeprecation, api.ApiChangelogImpactHigh
		r.Title = "Model removed: " + name
		r.Description = name + " is no longer in the model catalog."
	case "catalog.model_deprecated", "catalog.model_sunset":
		r.ChangeType, r.Impact = api.ApiChangelogChangeTypeDeprecation, api.ApiChangelogImpactHigh
		word := "deprecated"
		if ev.Type == "catalog.model_sunset" {
			word = "shut down"
		}
		r.Title = "Model " + word + ": " + name
		r.Description = name + " is " + word
		if p.SunsetDate != nil {
			r.Description += ", shutdown day " + p.SunsetDate.Format(time.DateOnly)
		}
		if p.ReplacementModel != nil {
			r.Description += ", replacement " + *p.ReplacementModel
		}
		r.Description += "."
	default:
		return api.ApiChangelogRecord{}, fmt.Errorf("catalog event %d: unknown type %q", ev.ID, ev.Type)
	}
	return r, nil
}

func catalogOfEvent(typ string) string {
	switch typ {
	case "catalog.price_changed":
		return seeds.CatalogPricing
	case "catalog.model_added", "catalog.model_removed":
		return seeds.CatalogModels
	}
	return "deprecations"
}

func rose(a, b *float64) bool { return a != nil && b != nil && *b > *a }

func priceMove(a, b, pct *float64) string {
	f := func(v *float64) string {
		if v == nil {
			return "unknown"
		}
		return fmt.Sprintf("%g", *v)
	}
	if a == nil && b == nil || (a != nil && b != nil && math.Abs(*a-*b) < 1e-9) {
		return "unchanged at " + f(b)
	}
	out := f(a) + " -> " + f(b)
	if pct != nil {
		out += fmt.Sprintf(" (%+.2f%%)", *pct)
	}
	return out
}

// citations finds the sources and confidence of catalog records, decoding each catalog once.
type citations struct {
	set     *seeds.Set
	records map[string]map[string]cited
	sources map[string]api.Source
	order   []string
}

type cited struct {
	Sources    []string       `json:"sources"`
	Confidence api.Confidence `json:"confidence"`
}

func newCitations(set *seeds.Set) *citations {
	return &citations{set: set, records: map[string]map[string]cited{}, sources: map[string]api.Source{}}
}

// of returns what the record of provider/model in the catalog cites; a record gone from the catalog (a model shut
// down since) cites nothing it can be checked on, so the entry says "single" with the catalog's own sources.
func (c *citations) of(catalogName, provider, model string) ([]string, api.Confidence) {
	cat := c.set.Catalog(catalogName)
	if cat == nil {
		return []string{}, api.ConfidenceSingle
	}
	recs, ok := c.records[catalogName]
	if !ok {
		recs = map[string]cited{}
		for _, raw := range cat.Records {
			var k struct {
				ProviderID string `json:"provider_id"`
				ModelID    string `json:"model_id"`
				Model      string `json:"model"`
			}
			var v cited
			if json.Unmarshal(raw, &k) != nil || json.Unmarshal(raw, &v) != nil {
				continue
			}
			recs[k.ProviderID+"/"+k.ModelID+k.Model] = v
		}
		c.records[catalogName] = recs
	}
	v, ok := recs[provider+"/"+model]
	if !ok || len(v.Sources) == 0 {
		v = cited{Confidence: api.ConfidenceSingle}
		for _, s := range cat.Sources {
			v.Sources = append(v.Sources, s.ID)
		}
	}
	for _, id := range v.Sources {
		if _, seen := c.sources[id]; seen {
			continue
		}
		for _, s := range cat.Sources {
			if s.ID == id {
				src := api.Source{Id: s.ID, Name: s.Name, Url: s.URL, License: s.License}
				if s.AsOf != nil {
					if d, err := time.Parse(time.DateOnly, *s.AsOf); err == nil {
						src.AsOf = openapi_types.Date{Time: d}
					}
				}
				c.sources[id] = src
				c.order = append(c.order, id)
			}
		}
	}
	return v.Sources, v.Confidence
}

func (c *citations) used() []api.Source {
	out := make([]api.Source, len(c.order))
	for i, id := range c.order {
		out[i] = c.sources[id]
	}
	return out
}
