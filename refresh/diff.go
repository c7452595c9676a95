package refresh

import (
	"encoding/json"
	"maps"
	"math"
	"slices"
	"sort"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/seeds"
	"github.com/switchboard/switchboard/store"
)

// The catalog event types (the OpenAPI WebhookEventType values of the change feed).
const (
	EventPriceChanged    = "catalog.price_changed"
	EventModelAdded      = "catalog.model_added"
	EventModelDeprecated = "catalog.model_deprecated"
	EventModelSunset     = "catalog.model_sunset"
	EventModelRemoved    = "catalog.model_removed"
	// EventChanged is the one webhook event a build with more than SummaryAbove changes sends instead of each.
	EventChanged = store.EventCatalogChanged
)

// EventTypes lists the catalog event types of the change feed, lifecycle first.
var EventTypes = []string{EventModelSunset, EventModelRemoved, EventModelDeprecated, EventModelAdded, EventPriceChanged}

// MaxEventsPerType bounds the events of one type in one build, so that no type crowds out another: a flood of
// price changes never cuts a deprecation (5 types x 400 = store.MaxCatalogEvents).
const MaxEventsPerType = store.MaxCatalogEvents / 5

// SummaryAbove: a build with more events than this sends subscribers one catalog.changed summary instead of each
// event (the change feed still lists each).
const SummaryAbove = 100

// CapEvents keeps at most MaxEventsPerType events of each type, in order, and counts what it left out per type.
func CapEvents(events []store.CatalogEvent) (kept []store.CatalogEvent, left map[string]int) {
	n, left := map[string]int{}, map[string]int{}
	for _, e := range events {
		if n[e.Type] >= MaxEventsPerType {
			left[e.Type]++
			continue
		}
		n[e.Type]++
		kept = append(kept, e)
	}
	return kept, left
}

// ChangedPayload is the payload of catalog.changed (the OpenAPI CatalogChangedPayload schema, which no operation
// returns, so the generator makes no type of it).
type ChangedPayload struct {
	Digest  string       `json:"digest"`
	Total   int          `json:"total"`
	LeftOut int          `json:"left_out"`
	Counts  ChangeCounts `json:"counts"`
}

// ChangeCounts are the changes of one build per event type (the OpenAPI CatalogChangeCounts schema).
type ChangeCounts struct {
	PriceChanged    int `json:"price_changed"`
	ModelAdded      int `json:"model_added"`
	ModelDeprecated int `json:"model_deprecated"`
	ModelSunset     int `json:"model_sunset"`
	ModelRemoved    int `json:"model_removed"`
}

// Summary is the catalog.changed payload of a build whose events exceed SummaryAbove, else nil.
func Summary(digest string, kept []store.CatalogEvent, left map[string]int) (json.RawMessage, error) {
	total := len(kept)
	for _, n := range left {
		total += n
	}
	if total <= SummaryAbove {
		return nil, nil
	}
	counts := map[string]int{}
	for _, e := range kept {
		counts[e.Type]++
	}
	for t, n := range left {
		counts[t] += n
	}
	p := ChangedPayload{Digest: digest, Total: total, LeftOut: total - len(kept), Counts: ChangeCounts{
		PriceChanged: counts[EventPriceChanged], ModelAdded: counts[EventModelAdded], ModelDeprecated: counts[EventModelDeprecated],
		ModelSunset: counts[EventModelSunset], ModelRemoved: counts[EventModelRemoved],
	}}
	return json.Marshal(p)
}

// EventPayload is the payload of a catalog event (the OpenAPI CatalogEventPayload schema): the fields of its type
// are set, the others null.
type EventPayload = api.CatalogEventPayload

type priceRec struct {
	ProviderID string `json:"provider_id"`
	Model      string `json:"model"`
	Pricing    struct {
		In  *float64 `json:"input_per_1m_tokens"`
		Out *float64 `json:"output_per_1m_tokens"`
	} `json:"pricing"`
}

type modelRec struct {
	ProviderID    string `json:"provider_id"`
	ModelID       string `json:"model_id"`
	Task          string `json:"task"`
	ContextWindow *int   `json:"context_window"`
}

type deprecationRec struct {
	ProviderID  string              `json:"provider_id"`
	ModelID     string              `json:"model_id"`
	Status      string              `json:"status"`
	SunsetDate  *openapi_types.Date `json:"sunset_date"`
	Replacement *string             `json:"replacement_model"`
}

// keyedPair decodes one catalog of both sets, keyed.
func keyedPair[T any](old, new *seeds.Set, name string, key func(*T) string) (before, after map[string]*T, err error) {
	if before, err = keyed(old, name, key); err != nil {
		return nil, nil, err
	}
	after, err = keyed(new, name, key)
	return before, after, err
}

func keyed[T any](set *seeds.Set, name string, key func(*T) string) (map[string]*T, error) {
	c := set.Catalog(name)
	if c == nil {
		return map[string]*T{}, nil
	}
	recs, err := seeds.Records[T](c)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*T, len(recs))
	for i := range recs {
		out[key(&recs[i])] = &recs[i]
	}
	return out, nil
}

// Diff lists what changed from old to new as catalog events, ordered by type, provider and model so that the same
// two sets always give the same events:
//   - catalog.price_changed: a priced model whose base input or output price per 1M tokens moved;
//   - catalog.model_added: a model of the model catalog that was not there before;
//   - catalog.model_deprecated: a model the deprecations catalog newly marks deprecated (or warning), or whose
//     shutdown day moved;
//   - catalog.model_sunset: a model the deprecations catalog newly marks sunset;
//   - catalog.model_removed: a model of the model catalog that is no longer there.
func Diff(old, new *seeds.Set) ([]store.CatalogEvent, error) {
	var out []store.CatalogEvent
	add := func(typ string, p EventPayload) error {
		b, err := json.Marshal(p)
		if err != nil {
			return err
		}
		out = append(out, store.CatalogEvent{Type: typ, ProviderID: p.ProviderId, ModelID: p.ModelId, Payload: b})
		return nil
	}
	pk := func(r *priceRec) string { return r.ProviderID + "/" + r.Model }
	oldP, newP, err := keyedPair(old, new, seeds.CatalogPricing, pk)
	if err != nil {
		return nil, err
	}
	for _, k := range slices.Sorted(maps.Keys(newP)) {
		n, o := newP[k], oldP[k]
		if o == nil || (samePrice(o.Pricing.In, n.Pricing.In) && samePrice(o.Pricing.Out, n.Pricing.Out)) {
			continue
		}
		if err := add(EventPriceChanged, EventPayload{
			ProviderId: n.ProviderID, ModelId: n.Model,
			OldInputPer1mTokens: o.Pricing.In, NewInputPer1mTokens: n.Pricing.In, InputChangePct: pct(o.Pricing.In, n.Pricing.In),
			OldOutputPer1mTokens: o.Pricing.Out, NewOutputPer1mTokens: n.Pricing.Out, OutputChangePct: pct(o.Pricing.Out, n.Pricing.Out),
		}); err != nil {
			return nil, err
		}
	}
	mk := func(r *modelRec) string { return r.ProviderID + "/" + r.ModelID }
	oldM, newM, err := keyedPair(old, new, seeds.CatalogModels, mk)
	if err != nil {
		return nil, err
	}
	for _, k := range slices.Sorted(maps.Keys(oldM)) {
		if newM[k] != nil {
			continue
		}
		o := oldM[k]
		task := o.Task
		if err := add(EventModelRemoved, EventPayload{ProviderId: o.ProviderID, ModelId: o.ModelID, Task: &task, ContextWindow: o.ContextWindow}); err != nil {
			return nil, err
		}
	}
	for _, k := range slices.Sorted(maps.Keys(newM)) {
		if oldM[k] != nil {
			continue
		}
		n := newM[k]
		task := n.Task
		if err := add(EventModelAdded, EventPayload{ProviderId: n.ProviderID, ModelId: n.ModelID, Task: &task, ContextWindow: n.ContextWindow}); err != nil {
			return nil, err
		}
	}
	dk := func(r *deprecationRec) string { return r.ProviderID + "/" + r.ModelID }
	oldD, newD, err := keyedPair(old, new, "deprecations", dk)
	if err != nil {
		return nil, err
	}
	for _, k := range slices.Sorted(maps.Keys(newD)) {
		n, o := newD[k], oldD[k]
		p := EventPayload{ProviderId: n.ProviderID, ModelId: n.ModelID, SunsetDate: n.SunsetDate, ReplacementModel: n.Replacement}
		switch {
		case n.Status == "sunset" && (o == nil || o.Status != "sunset"):
			err = add(EventModelSunset, p)
		case (n.Status == "deprecated" || n.Status == "warning") &&
			(o == nil || o.Status == "active" || !sameDay(o.SunsetDate, n.SunsetDate)):
			err = add(EventModelDeprecated, p)
		}
		if err != nil {
			return nil, err
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return typeOrder(out[i].Type) < typeOrder(out[j].Type) })
	return out, nil
}

func typeOrder(t string) int {
	for i, e := range EventTypes {
		if e == t {
			return i
		}
	}
	return len(EventTypes)
}

// samePrice compares two prices to a millionth of a dollar per 1M tokens: the build rounds to 9 significant
// digits, so a smaller step is noise of a conversion, not a price change.
func samePrice(a, b *float64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return math.Abs(*a-*b) < 1e-6
}

func sameDay(a, b *openapi_types.Date) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Equal(b.Time)
}

// pct is the change from a to b in percent, rounded to 0.01; nil when a is unknown or 0, or b unknown.
func pct(a, b *float64) *float64 {
	if a == nil || b == nil || *a == 0 {
		return nil
	}
	v := math.Round((*b-*a) / *a * 10000) / 100
	return &v
}
