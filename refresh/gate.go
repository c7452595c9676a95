package refresh

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"

	"github.com/switchboard/switchboard/catalogbuild"
	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/openapi"
	"github.com/switchboard/switchboard/seeds"
)

// The limits of the check a build passes against the catalogs in service before it is installed (issue 34).
const (
	// MaxPriceFactor: a price that moves more than this factor either way is held (the old value kept) unless a
	// second source or an official record agrees.
	MaxPriceFactor = 5.0
	// A build that changes more than MaxChangedPrices of the priced records, removes more than MaxRemovedRecords
	// of all records or shrinks one catalog by more than MaxCatalogShrink is held whole for an operator.
	MaxChangedPrices  = 0.05
	MaxRemovedRecords = 0.02
	MaxCatalogShrink  = 0.10
	// ProbationDays: a model new in a build and backed by one source stays out of rankings this long, unless a
	// second source comes first.
	ProbationDays = 7
)

// CheckRecords refuses a build whose records carry an ID outside the ID pattern (catalogbuild.ValidID) or do not
// validate against the OpenAPI schema of their endpoint. Such a build is broken, not merely large: it is never
// installed, not even by an operator. A set that passed is remembered by digest, so that a replica loading the
// build another made, or a rebuild of the same catalogs, does not check it twice.
func CheckRecords(set *seeds.Set) error {
	if passed.has(set.Digest()) {
		return nil
	}
	schemas, err := recordSchemas()
	if err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(set.Files())) {
		c := set.Catalog(name)
		sch, err := schemas.of(name)
		if err != nil {
			return err
		}
		for i, raw := range c.Records {
			v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
			if err != nil {
				return fmt.Errorf("%s record %d: %w", name, i, err)
			}
			rec, _ := v.(map[string]any)
			for _, f := range catalogbuild.IDFields {
				if id, ok := rec[f].(string); ok && !catalogbuild.ValidID(id) {
					return fmt.Errorf("%s record %d: %s %q is not an ID", name, i, f, clip(id))
				}
			}
			if err := sch.Validate(v); err != nil {
				return fmt.Errorf("%s record %d does not match its schema: %s", name, i, clip(err.Error()))
			}
		}
	}
	passed.add(set.Digest())
	return nil
}

// passed holds the digests of the last few sets CheckRecords passed.
var passed digests

type digests struct {
	mu   sync.Mutex
	last []string
}

func (d *digests) has(digest string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Contains(d.last, digest)
}

func (d *digests) add(digest string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.last = append(d.last, digest)
	if len(d.last) > 4 {
		d.last = d.last[1:]
	}
}

// clip shortens text from a source for a log line or an error, quoted so that no control character passes.
func clip(s string) string {
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return strings.Trim(fmt.Sprintf("%q", s), `"`)
}

// schemaSet compiles the record schemas of the OpenAPI document, each once per process: the document is read once,
// and a schema is compiled the first time a catalog needs it (a validator compiled per record made the seeds test
// take 20 s).
type schemaSet struct {
	mu       sync.Mutex
	compiler *jsonschema.Compiler
	compiled map[string]*jsonschema.Schema
}

const docURL = "file:///openapi.json"

var recordSchemas = sync.OnceValues(func() (*schemaSet, error) {
	var doc struct {
		Components struct {
			Schemas map[string]any `yaml:"schemas"`
		} `yaml:"components"`
	}
	if err := yaml.Unmarshal(openapi.YAML(), &doc); err != nil {
		return nil, fmt.Errorf("reading the OpenAPI document: %w", err)
	}
	// Through JSON, so that the validator sees JSON values (numbers as json.Number), as it does the records.
	b, err := json.Marshal(map[string]any{"components": map[string]any{"schemas": doc.Components.Schemas}})
	if err != nil {
		return nil, fmt.Errorf("reading the OpenAPI document: %w", err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("reading the OpenAPI document: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(docURL, v); err != nil {
		return nil, fmt.Errorf("reading the OpenAPI document: %w", err)
	}
	return &schemaSet{compiler: c, compiled: map[string]*jsonschema.Schema{}}, nil
})

// RecordSchema names the OpenAPI schema of a catalog's records: the catalog's name in CamelCase with "Record",
// but for the two catalogs the contract named otherwise.
func RecordSchema(catalog string) string {
	switch catalog {
	case seeds.CatalogModels:
		return "ModelRecord"
	case seeds.CatalogRateLimits:
		return "RateLimitTier"
	}
	var b strings.Builder
	for _, w := range strings.Split(catalog, "_") {
		if w != "" {
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	return b.String() + "Record"
}

func (s *schemaSet) of(catalog string) (*jsonschema.Schema, error) {
	name := RecordSchema(catalog)
	s.mu.Lock()
	defer s.mu.Unlock()
	if sch := s.compiled[name]; sch != nil {
		return sch, nil
	}
	sch, err := s.compiler.Compile(docURL + "#/components/schemas/" + name)
	if err != nil {
		// A catalog without a schema in the document is refused: nothing unchecked is installed.
		return nil, fmt.Errorf("catalog %s: compiling its record schema %s: %w", catalog, name, err)
	}
	s.compiled[name] = sch
	return sch, nil
}

// HeldPrice is one price the check kept at its value in service.
type HeldPrice struct {
	ProviderID, Model, Field string
	Old, New                 *float64
	Reason                   string
}

// corroborated reports whether a record's values have a second source or an official page behind them.
func corroborated(c api.Confidence) bool {
	return c == api.ConfidenceAgreed || c == api.ConfidenceVerified
}

func priceFields(p *api.PricingRates) []struct {
	name string
	dst  **float64
} {
	return []struct {
		name string
		dst  **float64
	}{{"input_per_1m_tokens", &p.InputPer1mTokens}, {"output_per_1m_tokens", &p.OutputPer1mTokens},
		{"cached_input_per_1m_tokens", &p.CachedInputPer1mTokens}, {"per_image", &p.PerImage},
		{"per_minute_audio", &p.PerMinuteAudio}, {"per_1k_characters", &p.Per1kCharacters},
		{"per_request", &p.PerRequest}, {"per_second_video", &p.PerSecondVideo}}
}

// holdReason says why a price moving from old to new is held, or "" when it may go in. Only a record that a
// second source or an official page backs may move a price more than MaxPriceFactor or make it $0; a model's name
// (":free") is no source.
func holdReason(old, new *float64, backed bool) string {
	switch {
	case backed || new == nil:
		return ""
	case *new == 0 && (old == nil || *old != 0):
		return "a new $0 price from one source"
	case old == nil || *old == 0:
		return ""
	case *new > *old*MaxPriceFactor || *new < *old/MaxPriceFactor:
		return fmt.Sprintf("moves more than %gx from one source", MaxPriceFactor)
	}
	return ""
}

// HoldPrices returns next with every price holdReason refuses kept at its value in cur (null for a model cur
// does not price), and the prices it kept.
func HoldPrices(cur, next *seeds.Set) (*seeds.Set, []HeldPrice, error) {
	oldRecs, err := pricingByKey(cur)
	if err != nil {
		return nil, nil, err
	}
	c := next.Catalog(seeds.CatalogPricing)
	if c == nil {
		return next, nil, nil
	}
	recs, err := seeds.Records[api.PricingRecord](c)
	if err != nil {
		return nil, nil, err
	}
	var held []HeldPrice
	edited := slices.Clone(c.Records)
	for i := range recs {
		n := &recs[i]
		o := oldRecs[n.ProviderId+"/"+n.Model]
		changed := false
		for j, f := range priceFields(&n.Pricing) {
			var old *float64
			if o != nil {
				old = *priceFields(&o.Pricing)[j].dst
			}
			if why := holdReason(old, *f.dst, corroborated(n.Confidence)); why != "" {
				held = append(held, HeldPrice{ProviderID: n.ProviderId, Model: n.Model, Field: f.name, Old: old, New: *f.dst, Reason: why})
				*f.dst, changed = old, true
			}
		}
		if changed {
			if edited[i], err = json.Marshal(n); err != nil {
				return nil, nil, err
			}
		}
	}
	if len(held) == 0 {
		return next, nil, nil
	}
	file, err := json.MarshalIndent(seeds.Catalog{AsOf: c.AsOf, Sources: c.Sources, Records: edited}, "", "  ")
	if err != nil {
		return nil, nil, err
	}
	files := maps.Clone(next.Files())
	files[seeds.CatalogPricing] = file
	out, err := seeds.NewSet(files, next.Origin())
	if err != nil {
		return nil, nil, fmt.Errorf("keeping the held prices: %w", err)
	}
	return out.WithProbation(next.Probation()), held, nil
}

func pricingByKey(set *seeds.Set) (map[string]*api.PricingRecord, error) {
	c := set.Catalog(seeds.CatalogPricing)
	if c == nil {
		return map[string]*api.PricingRecord{}, nil
	}
	recs, err := seeds.Records[api.PricingRecord](c)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*api.PricingRecord, len(recs))
	for i := range recs {
		out[recs[i].ProviderId+"/"+recs[i].Model] = &recs[i]
	}
	return out, nil
}

// Hold is what the whole-build check counted; /health shows it while a build is held.
type Hold struct {
	PricesChanged  int      `json:"prices_changed"`
	PricesTotal    int      `json:"prices_total"`
	RecordsRemoved int      `json:"records_removed"`
	RecordsTotal   int      `json:"records_total"`
	Shrunk         []Shrink `json:"shrunk_catalogs"`
	// PricesHeld counts the prices kept at their value in service one by one (HoldPrices).
	PricesHeld int `json:"prices_held"`
}

// Shrink is one catalog that lost more than MaxCatalogShrink of its records.
type Shrink struct {
	Catalog string `json:"catalog"`
	Before  int    `json:"before"`
	After   int    `json:"after"`
}

// Held reports whether the counts exceed a limit, so that the build waits for an operator.
func (h Hold) Held() bool {
	return float64(h.PricesChanged) > MaxChangedPrices*float64(h.PricesTotal) ||
		float64(h.RecordsRemoved) > MaxRemovedRecords*float64(h.RecordsTotal) || len(h.Shrunk) > 0
}

// Reasons words the limits the counts exceed, for the log line.
func (h Hold) Reasons() string {
	var out []string
	if float64(h.PricesChanged) > MaxChangedPrices*float64(h.PricesTotal) {
		out = append(out, fmt.Sprintf("%d of %d prices change (limit %g%%)", h.PricesChanged, h.PricesTotal, MaxChangedPrices*100))
	}
	if float64(h.RecordsRemoved) > MaxRemovedRecords*float64(h.RecordsTotal) {
		out = append(out, fmt.Sprintf("%d of %d records removed (limit %g%%)", h.RecordsRemoved, h.RecordsTotal, MaxRemovedRecords*100))
	}
	for _, s := range h.Shrunk {
		out = append(out, fmt.Sprintf("%s shrinks from %d to %d records (limit %g%%)", s.Catalog, s.Before, s.After, MaxCatalogShrink*100))
	}
	return strings.Join(out, "; ")
}

// Count compares a build with the catalogs in service: priced records whose prices changed, records removed
// (per provider and model, so that a reshuffle is no removal) and catalogs that shrank.
func Count(cur, next *seeds.Set) (Hold, error) {
	var h Hold
	oldP, err := pricingByKey(cur)
	if err != nil {
		return h, err
	}
	newP, err := pricingByKey(next)
	if err != nil {
		return h, err
	}
	h.PricesTotal = len(oldP)
	for k, o := range oldP {
		n := newP[k]
		if n == nil {
			continue
		}
		nf := priceFields(&n.Pricing)
		for j, f := range priceFields(&o.Pricing) {
			if !samePrice(*f.dst, *nf[j].dst) {
				h.PricesChanged++
				break
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(cur.Files())) {
		before := cur.Catalog(name)
		after := next.Catalog(name)
		h.RecordsTotal += len(before.Records)
		if after == nil {
			h.RecordsRemoved += len(before.Records)
			h.Shrunk = append(h.Shrunk, Shrink{Catalog: name, Before: len(before.Records)})
			continue
		}
		if float64(len(after.Records)) < (1-MaxCatalogShrink)*float64(len(before.Records)) {
			h.Shrunk = append(h.Shrunk, Shrink{Catalog: name, Before: len(before.Records), After: len(after.Records)})
		}
		bk, err := recordKeys(before)
		if err != nil {
			return h, err
		}
		ak, err := recordKeys(after)
		if err != nil {
			return h, err
		}
		for k, n := range bk {
			h.RecordsRemoved += max(0, n-ak[k])
		}
	}
	return h, nil
}

// recordKeys counts a catalog's records per provider and model (the records of a provider-level catalog per
// provider).
func recordKeys(c *seeds.Catalog) (map[string]int, error) {
	out := map[string]int{}
	for i, raw := range c.Records {
		var k struct {
			Provider string `json:"provider_id"`
			From     string `json:"from_provider"`
			To       string `json:"to_provider"`
			Model    string `json:"model"`
			ModelID  string `json:"model_id"`
		}
		if err := json.Unmarshal(raw, &k); err != nil {
			return nil, fmt.Errorf("%s record %d: %w", c.Name, i, err)
		}
		out[k.Provider+"|"+k.From+"|"+k.To+"|"+k.Model+"|"+k.ModelID]++
	}
	return out, nil
}

// NextProbation lists the models next keeps out of rankings, each with the day it may enter them: a model priced
// in next that cur neither priced nor listed, backed by one source, for ProbationDays from now; a model already on
// probation in cur stays until its day while one source still backs it. A second source ends it at once.
func NextProbation(cur, next *seeds.Set, now time.Time) (map[string]string, error) {
	oldP, err := pricingByKey(cur)
	if err != nil {
		return nil, err
	}
	newP, err := pricingByKey(next)
	if err != nil {
		return nil, err
	}
	listed := map[string]bool{}
	if c := cur.Catalog(seeds.CatalogModels); c != nil {
		recs, err := seeds.Records[api.ModelRecord](c)
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			listed[r.ProviderId+"/"+r.ModelId] = true
		}
	}
	today := now.UTC().Format(time.DateOnly)
	until := now.UTC().AddDate(0, 0, ProbationDays).Format(time.DateOnly)
	out := map[string]string{}
	for k, n := range newP {
		if corroborated(n.Confidence) {
			continue
		}
		switch day, on := cur.Probation()[k]; {
		case on && day > today:
			out[k] = day
		case !on && oldP[k] == nil && !listed[k]:
			out[k] = until
		}
	}
	return out, nil
}
