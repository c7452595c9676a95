// Package catalog serves the reference catalogs of seeds/catalogs from memory. A Catalog is built once at start
// from one catalog file: its records are decoded into the endpoint's record type, put in every order the
// endpoint serves and indexed by provider, so that a request only walks the records of the provider it asks for
// and, without filters, gets a shared slice back without copying or sorting anything.
//
// Endpoints describe what differs between them (the record type, how to read its provider, its orders) in a
// Spec, and build each request from a Query of filters made by the constructors in filter.go.
package catalog

import (
	"fmt"
	"slices"

	"github.com/switchboard/switchboard/errs"
	"github.com/switchboard/switchboard/seeds"
)

// Natural names the order every catalog has: its natural listing order (Spec.Natural).
const Natural = ""

// Spec says how one endpoint reads its catalog.
type Spec[T any] struct {
	// Name is the seeds catalog name (seeds.CatalogPricing, ...).
	Name string
	// Provider returns the provider ID of a record.
	Provider func(*T) string
	// Model returns the model ID of a record, for catalogs with a record per model; nil for the others. The
	// server uses it to leave out a model once its shutdown day has come.
	Model func(*T) string
	// Natural is the listing order when the request names no other: a total order (end with a tie-break on
	// the record's identity, see ByKeys) so answers are deterministic.
	Natural Compare[T]
	// Orders are the other orders (or views) the endpoint serves, by name; each is precomputed at build time.
	Orders map[string]Order[T]
	// Known tells whether a provider ID exists at all (seeds.Registry.Known): an unknown provider is an error,
	// a known one without records an empty answer.
	Known func(string) bool
}

// Compare orders two records: negative when a comes first, like cmp.Compare.
type Compare[T any] func(a, b *T) int

// Order is a named order of a catalog, optionally over a subset of its records (a view): a request for it
// gets records already sorted and filtered at build time.
type Order[T any] struct {
	By Compare[T]
	// Only keeps the records the order holds; nil keeps all.
	Only func(*T) bool
}

// Catalog is one catalog in memory: read-only after Load, safe for concurrent use.
type Catalog[T any] struct {
	name    string
	asOf    string
	sources []seeds.Source
	size    int
	known   func(string) bool
	orders  map[string]*index[T]
}

// index is the records in one order, all of them and per provider (each a sub-sequence in the same order).
type index[T any] struct {
	all        []T
	byProvider map[string][]T
}

// Load reads the catalog spec.Name from seeds and builds it.
func Load[T any](spec Spec[T]) (*Catalog[T], error) {
	c, err := seeds.LoadCatalog(spec.Name)
	if err != nil {
		return nil, fmt.Errorf("loading catalog %s: %w", spec.Name, err)
	}
	recs, err := seeds.Records[T](c)
	if err != nil {
		return nil, fmt.Errorf("decoding catalog %s: %w", spec.Name, err)
	}
	return New(spec, c.AsOf, c.Sources, recs)
}

// New builds a catalog from records already decoded (Load does it from seeds; tests use it directly). The
// records slice is not kept.
func New[T any](spec Spec[T], asOf string, sources []seeds.Source, records []T) (*Catalog[T], error) {
	if spec.Provider == nil || spec.Natural == nil || spec.Known == nil {
		return nil, fmt.Errorf("catalog %s: spec needs Provider, Natural and Known", spec.Name)
	}
	c := &Catalog[T]{
		name: spec.Name, asOf: asOf, sources: slices.Clone(sources), size: len(records), known: spec.Known,
		orders: make(map[string]*index[T], len(spec.Orders)+1),
	}
	for i := range records {
		if id := spec.Provider(&records[i]); !spec.Known(id) {
			return nil, fmt.Errorf("catalog %s: record %d has unknown provider %q", spec.Name, i, id)
		}
	}
	c.orders[Natural] = build(records, spec.Provider, Order[T]{By: spec.Natural})
	for name, o := range spec.Orders {
		if name == Natural || o.By == nil {
			return nil, fmt.Errorf("catalog %s: order %q needs a name and a comparison", spec.Name, name)
		}
		// Each order is a stable sort of the natural order, so records the order deems equal keep the natural
		// order between them.
		c.orders[name] = build(c.orders[Natural].all, spec.Provider, o)
	}
	return c, nil
}

func build[T any](records []T, provider func(*T) string, o Order[T]) *index[T] {
	all := make([]T, 0, len(records))
	for i := range records {
		if o.Only == nil || o.Only(&records[i]) {
			all = append(all, records[i])
		}
	}
	slices.SortStableFunc(all, func(a, b T) int { return o.By(&a, &b) })
	ix := &index[T]{all: all, byProvider: map[string][]T{}}
	for i := range all {
		id := provider(&all[i])
		ix.byProvider[id] = append(ix.byProvider[id], all[i])
	}
	return ix
}

// AsOf is the date the catalog's data was checked (YYYY-MM-DD).
func (c *Catalog[T]) AsOf() string { return c.asOf }

// Sources are the catalog's sources; the slice is shared: do not modify it.
func (c *Catalog[T]) Sources() []seeds.Source { return c.sources }

// Len is the number of records in the catalog.
func (c *Catalog[T]) Len() int { return c.size }

// Query is one request to a catalog.
type Query[T any] struct {
	// Provider keeps one provider's records; "" keeps all. An ID the registry does not know is an
	// *errs.UnknownProviderError.
	Provider string
	// Order names the order (one of Spec.Orders); Natural ("") is the natural order.
	Order string
	// Filters keep the records every one of them accepts; nil filters (a constructor's "no filter") are skipped.
	Filters []Filter[T]
	// Limit caps the number of records returned; 0 or less is no cap.
	Limit int
}

// Select returns the records q keeps, in q's order, at most q.Limit. Without active filters the result shares
// the catalog's memory: callers must not modify it (encoding it is fine).
func (c *Catalog[T]) Select(q Query[T]) ([]T, error) {
	ix, ok := c.orders[q.Order]
	if !ok {
		return nil, fmt.Errorf("catalog %s: no order %q", c.name, q.Order)
	}
	recs := ix.all
	if q.Provider != "" {
		if !c.known(q.Provider) {
			return nil, &errs.UnknownProviderError{ID: q.Provider}
		}
		recs = ix.byProvider[q.Provider]
	}
	filters := make([]Filter[T], 0, len(q.Filters))
	for _, f := range q.Filters {
		if f != nil {
			filters = append(filters, f)
		}
	}
	if len(filters) == 0 {
		if q.Limit > 0 && len(recs) > q.Limit {
			recs = recs[:q.Limit]
		}
		// Never hand out nil: an empty answer encodes as [].
		if recs == nil {
			recs = []T{}
		}
		return recs, nil
	}
	out := []T{}
	for i := range recs {
		if q.Limit > 0 && len(out) == q.Limit {
			break
		}
		if accepts(filters, &recs[i]) {
			out = append(out, recs[i])
		}
	}
	return out, nil
}

func accepts[T any](filters []Filter[T], r *T) bool {
	for _, f := range filters {
		if !f(r) {
			return false
		}
	}
	return true
}

// Count is the number of records keep accepts, for the counts of an endpoint's meta.
func Count[T any](records []T, keep func(*T) bool) int {
	n := 0
	for i := range records {
		if keep(&records[i]) {
			n++
		}
	}
	return n
}
