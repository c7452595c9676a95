package seeds

import (
	"embed"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/switchboard/switchboard/gen/api"
)

// catalogFS holds the reference catalogs of seeds/catalogs. pricing.json, models.json and benchmarks.json are
// generated from sources/upstream by `make catalogs` (cmd/catalogbuild) (do not edit them by hand); rate_limits.json and
// free_tier.json are hand-curated from the providers' official pages.
//
//go:embed catalogs/*.json
var catalogFS embed.FS

// Catalog names, as passed to LoadCatalog.
const (
	CatalogPricing    = "pricing"
	CatalogModels     = "models"
	CatalogBenchmarks = "benchmarks"
	CatalogRateLimits = "rate_limits"
	CatalogFreeTier   = "free_tier"
)

// CoreCatalogNames are the catalogs the decision endpoints read; the service does not start without them.
func CoreCatalogNames() []string {
	return []string{CatalogBenchmarks, CatalogFreeTier, CatalogModels, CatalogPricing, CatalogRateLimits}
}

// CatalogNames lists every embedded catalog (each file of seeds/catalogs), in name order.
func CatalogNames() []string {
	all, err := loadCatalogs()
	if err != nil {
		return CoreCatalogNames()
	}
	names := make([]string, 0, len(all))
	for n := range all {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Source is one source of a catalog (the OpenAPI Source schema): a data set or a provider's official page.
type Source struct {
	// ID is what records cite in their `sources`.
	ID   string `json:"id"`
	Name string `json:"name"`
	URL  string `json:"url"`
	// License of the data (for example CC-BY-4.0, which requires crediting the source), or null for a provider's
	// own documentation.
	License *string `json:"license"`
	// AsOf is the date the source's data holds for (YYYY-MM-DD).
	AsOf *string `json:"as_of,omitempty"`
}

// Catalog is one loaded catalog file: its as-of date, sources and records. Records are kept as raw JSON, each
// valid against the OpenAPI record schema of its endpoint; decode them with Records or the typed accessors.
type Catalog struct {
	Name    string            `json:"-"`
	AsOf    string            `json:"as_of"`
	Sources []Source          `json:"sources"`
	Records []json.RawMessage `json:"records"`
}

// Records decodes every record of c into a slice of T.
func Records[T any](c *Catalog) ([]T, error) {
	out := make([]T, len(c.Records))
	for i, r := range c.Records {
		if err := json.Unmarshal(r, &out[i]); err != nil {
			return nil, fmt.Errorf("seeds: %s record %d: %w", c.Name, i, err)
		}
	}
	return out, nil
}

var asOfRE = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)

// embeddedSet is the catalogs built into the binary, read and checked once.
var embeddedSet = sync.OnceValues(func() (*Set, error) {
	entries, err := catalogFS.ReadDir("catalogs")
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for _, e := range entries {
		b, err := catalogFS.ReadFile(path.Join("catalogs", e.Name()))
		if err != nil {
			return nil, err
		}
		files[strings.TrimSuffix(e.Name(), ".json")] = b
	}
	return NewSet(files, "embedded")
})

// loadCatalogs returns the catalogs of the set in service.
func loadCatalogs() (map[string]*Catalog, error) {
	s, err := Current()
	if err != nil {
		return nil, err
	}
	return s.catalogs, nil
}

// ParseCatalog decodes one catalog file and checks its envelope and provider IDs.
func ParseCatalog(name string, b []byte) (*Catalog, error) {
	var c Catalog
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("seeds: parsing catalogs/%s.json: %w", name, err)
	}
	c.Name = name
	if !asOfRE.MatchString(c.AsOf) {
		return nil, fmt.Errorf("seeds: catalogs/%s.json: as_of %q is not YYYY-MM-DD", name, c.AsOf)
	}
	if len(c.Sources) == 0 {
		return nil, fmt.Errorf("seeds: catalogs/%s.json has no sources", name)
	}
	for i, s := range c.Sources {
		if s.Name == "" || s.URL == "" {
			return nil, fmt.Errorf("seeds: catalogs/%s.json: source %d lacks a name or url", name, i)
		}
	}
	if c.Records == nil {
		return nil, fmt.Errorf("seeds: catalogs/%s.json has no records array", name)
	}
	reg := Providers()
	for i, r := range c.Records {
		// A record names its provider, or (migration guides) the two providers it goes between.
		var id struct {
			ProviderID string `json:"provider_id"`
			From       string `json:"from_provider"`
			To         string `json:"to_provider"`
		}
		if err := json.Unmarshal(r, &id); err != nil {
			return nil, fmt.Errorf("seeds: catalogs/%s.json record %d: %w", name, i, err)
		}
		ids := []string{id.ProviderID}
		if id.ProviderID == "" && (id.From != "" || id.To != "") {
			ids = []string{id.From, id.To}
		}
		for _, p := range ids {
			if !reg.Known(p) {
				return nil, fmt.Errorf("seeds: catalogs/%s.json record %d: unknown provider %q", name, i, p)
			}
		}
	}
	return &c, nil
}

// LoadCatalog returns the catalog of that name (see CatalogNames). The catalogs are read and checked once; the
// returned value is shared: do not modify it.
func LoadCatalog(name string) (*Catalog, error) {
	all, err := loadCatalogs()
	if err != nil {
		return nil, err
	}
	c, ok := all[name]
	if !ok {
		names := make([]string, 0, len(all))
		for n := range all {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("seeds: no catalog %q (have %s)", name, strings.Join(names, ", "))
	}
	return c, nil
}

// CatalogJSON returns the raw bytes of a catalog file of the set in service.
func CatalogJSON(name string) ([]byte, error) {
	s, err := Current()
	if err != nil {
		return nil, err
	}
	b, ok := s.files[name]
	if !ok {
		return nil, fmt.Errorf("seeds: no catalog %q", name)
	}
	return b, nil
}

// ---- typed records (the OpenAPI record schemas) ----

// The records of the core catalogs are the generated API types (the OpenAPI record schemas): one type per
// catalog, shared by the build, this loader and the handlers.
type (
	// PricingRates are prices in USD; each nil when it does not apply or is unknown.
	PricingRates = api.PricingRates
	// PricingRecord is one record of the pricing catalog.
	PricingRecord = api.PricingRecord
	// ModelCapabilities are the capability flags of a model.
	ModelCapabilities = api.ModelsCapabilities
	// ModelRecord is one record of the model catalog.
	ModelRecord = api.ModelRecord
	// BenchmarkRecord is one record of the benchmark catalog: scores in percent by benchmark name.
	BenchmarkRecord = api.BenchmarksRecord
	// RateLimitValues are the limits of one tier; each nil when unknown, not published or unlimited.
	RateLimitValues = api.RateLimitValues
	// RateLimitRecord is one record of the rate-limit catalog (one provider tier).
	RateLimitRecord = api.RateLimitTier
	// FreeTierRecord is one record of the free-tier catalog (one per provider); HasFreeTier nil: not confirmed
	// either way.
	FreeTierRecord = api.FreeTierRecord
)

func typed[T any](name string) ([]T, error) {
	c, err := LoadCatalog(name)
	if err != nil {
		return nil, err
	}
	return Records[T](c)
}

func typedIn[T any](s *Set, name string) ([]T, error) {
	c, ok := s.catalogs[name]
	if !ok {
		return nil, fmt.Errorf("seeds: no catalog %q", name)
	}
	return Records[T](c)
}

// PricingRecords decodes the pricing catalog.
func PricingRecords() ([]PricingRecord, error) { return typed[PricingRecord](CatalogPricing) }

// ModelRecords decodes the model catalog.
func ModelRecords() ([]ModelRecord, error) { return typed[ModelRecord](CatalogModels) }

// BenchmarkRecords decodes the benchmark catalog.
func BenchmarkRecords() ([]BenchmarkRecord, error) { return typed[BenchmarkRecord](CatalogBenchmarks) }

// RateLimitRecords decodes the rate-limit catalog.
func RateLimitRecords() ([]RateLimitRecord, error) { return typed[RateLimitRecord](CatalogRateLimits) }

// FreeTierRecords decodes the free-tier catalog.
func FreeTierRecords() ([]FreeTierRecord, error) { return typed[FreeTierRecord](CatalogFreeTier) }

// Shutdowns maps "provider/model" to the day (YYYY-MM-DD) the provider stops serving the model, for every model of
// the deprecations catalog with a sunset date. The build leaves out models shut down before it ran; the server
// reads this to leave out, at its own clock, those whose day has come since. Decoded once; do not modify the map.
func Shutdowns() (map[string]string, error) {
	s, err := Current()
	if err != nil {
		return nil, err
	}
	return s.shutdowns()
}

// Probation maps "provider/model" to the day from which a model the last refresh added on one source's word may
// enter the decisions' rankings (Set.WithProbation); nil for the embedded set.
func Probation() (map[string]string, error) {
	s, err := Current()
	if err != nil {
		return nil, err
	}
	return s.Probation(), nil
}

func shutdownsOf(s *Set) (map[string]string, error) {
	recs, err := typedIn[struct {
		ProviderID string  `json:"provider_id"`
		ModelID    string  `json:"model_id"`
		SunsetDate *string `json:"sunset_date"`
	}](s, "deprecations")
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, r := range recs {
		if r.SunsetDate != nil {
			out[r.ProviderID+"/"+r.ModelID] = *r.SunsetDate
		}
	}
	return out, nil
}

// Replacements maps "provider/model" to the replacement its provider names for it (the deprecations catalog);
// models without one are missing.
func Replacements() (map[string]string, error) {
	recs, err := typed[struct {
		ProviderID  string  `json:"provider_id"`
		ModelID     string  `json:"model_id"`
		Replacement *string `json:"replacement_model"`
	}]("deprecations")
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, r := range recs {
		if r.Replacement != nil && *r.Replacement != "" {
			out[r.ProviderID+"/"+r.ModelID] = *r.Replacement
		}
	}
	return out, nil
}

// Stages maps "provider/model" to the model's lifecycle stage (the model lifecycle catalog: experimental,
// preview, beta, ga, soft_deprecated, hard_deprecated, sunset). Models outside that catalog are missing.
func Stages() (map[string]string, error) {
	recs, err := typed[struct {
		ProviderID string `json:"provider_id"`
		ModelID    string `json:"model_id"`
		Stage      string `json:"stage"`
	}]("model_lifecycle")
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(recs))
	for _, r := range recs {
		out[r.ProviderID+"/"+r.ModelID] = r.Stage
	}
	return out, nil
}

// PinnedVersions maps "provider/version" to its alias for every pinned version that model_versions lists under an
// alias of the same provider (gpt-4o-2024-08-06 under gpt-4o).
func PinnedVersions() (map[string]string, error) {
	recs, err := typed[struct {
		ProviderID string `json:"provider_id"`
		Alias      string `json:"alias"`
		Versions   []struct {
			VersionID string `json:"version_id"`
		} `json:"versions"`
	}]("model_versions")
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, r := range recs {
		for _, v := range r.Versions {
			if v.VersionID != r.Alias {
				out[r.ProviderID+"/"+v.VersionID] = r.Alias
			}
		}
	}
	return out, nil
}

// CatalogSourceDate is one source of one catalog with the date its data holds for.
type CatalogSourceDate struct {
	Catalog, Source string
	AsOf            time.Time
}

// CatalogSourceDates lists every source of every embedded catalog with its date, by catalog then source.
func CatalogSourceDates() ([]CatalogSourceDate, error) {
	var out []CatalogSourceDate
	for _, name := range CatalogNames() {
		c, err := LoadCatalog(name)
		if err != nil {
			return nil, err
		}
		for _, s := range c.Sources {
			if s.AsOf == nil {
				return nil, fmt.Errorf("seeds: %s source %s has no as_of", name, s.ID)
			}
			d, err := time.Parse(time.DateOnly, *s.AsOf)
			if err != nil {
				return nil, fmt.Errorf("seeds: %s source %s: %w", name, s.ID, err)
			}
			out = append(out, CatalogSourceDate{Catalog: name, Source: s.ID, AsOf: d})
		}
	}
	return out, nil
}

// StaleAfter is how old the newest source behind a catalog may be before the service calls the catalog stale.
const StaleAfter = 45 * 24 * time.Hour

// StaleCatalog is a catalog whose newest source is older than StaleAfter.
type StaleCatalog struct {
	Catalog string
	Newest  time.Time
	AgeDays int
}

// StaleCatalogs lists, at now, the catalogs whose newest source is older than StaleAfter, oldest first.
func StaleCatalogs(now time.Time) ([]StaleCatalog, error) {
	dates, err := CatalogSourceDates()
	if err != nil {
		return nil, err
	}
	newest := map[string]time.Time{}
	for _, d := range dates {
		if d.AsOf.After(newest[d.Catalog]) {
			newest[d.Catalog] = d.AsOf
		}
	}
	var out []StaleCatalog
	for name, d := range newest {
		if age := now.Sub(d); age > StaleAfter {
			out = append(out, StaleCatalog{Catalog: name, Newest: d, AgeDays: int(age.Hours() / 24)})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Newest.Equal(out[j].Newest) {
			return out[i].Newest.Before(out[j].Newest)
		}
		return out[i].Catalog < out[j].Catalog
	})
	return out, nil
}
