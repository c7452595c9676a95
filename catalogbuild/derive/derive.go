// Package derive builds the catalogs of seeds/catalogs that follow, by written rules, from other catalogs and
// from the reference data in sources/upstream (for example per-model capability catalogs from models.json and
// litellm's flags, embedding scores from the MTEB leaderboard, task fit from benchmark scores). Each derived
// catalog registers a Deriver from its own file; `make catalogs` (cmd/catalogbuild) writes them after
// the converted catalogs, and a test fails when a committed file differs from what its deriver produces.
//
// Hand-curated facts a rule needs (a provider's documented behaviour, say) live next to the rule, each with the
// official page it comes from; the generated file names every source in its envelope.
package derive

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/switchboard/switchboard/catalogbuild"
	"github.com/switchboard/switchboard/seeds"
)

// Input is what derivers read.
type Input struct {
	// DataDir is the folder of the reference data (sources/upstream).
	DataDir string
	// catalogDir is the folder the other catalogs are read from; "" reads the embedded ones.
	catalogDir string
	// built holds the catalogs derived earlier in this run, by name.
	built map[string]*seeds.Catalog
	// facts caches ModelFacts.
	facts map[string]catalogbuild.SourceFacts
	// modelSets caches modelDataSets.
	modelSets map[string][]string
	// lineage is ModelFacts' run's lineage (modelLineage).
	lineage map[string]catalogbuild.LineageFact
	// lifecycleCache caches lifecycle.
	lifecycleCache *lifecycleFacts
	// factsCache caches providerFacts; datesCache dataSetDates; names the provider registry's names.
	factsCache catalogbuild.OfficialFacts
	datesCache catalogbuild.DataSetDates
	names      catalogbuild.ProviderNames
	// ctx is the run's context (see Context).
	ctx context.Context
}

// Context is the context of the build: a deriver with a long loop checks it, and passes it to the converter's
// readers (catalogbuild.Input.Context), so that the run-time refresh's timeout and shutdown stop the build.
func (in *Input) Context() context.Context {
	if in.ctx == nil {
		return context.Background()
	}
	return in.ctx
}

// converterInput is the converter's input for this run: its data folder, the known providers and the context.
func (in *Input) converterInput(known map[string]bool) catalogbuild.Input {
	return catalogbuild.Input{DataDir: in.DataDir, KnownProviders: known, Context: in.Context()}
}

// Catalog returns the catalog of that name: the one derived earlier in this run if there is one (a deriver
// lists it in Needs), else the one of seeds/catalogs.
func (in *Input) Catalog(name string) (*seeds.Catalog, error) {
	if c, ok := in.built[name]; ok {
		return c, nil
	}
	if in.catalogDir == "" {
		return seeds.LoadCatalog(name)
	}
	b, err := os.ReadFile(filepath.Join(in.catalogDir, name+".json"))
	if err != nil {
		return nil, err
	}
	return seeds.ParseCatalog(name, b)
}

// Records decodes the records of the catalog of that name (see Catalog).
func Records[T any](in *Input, name string) ([]T, error) {
	c, err := in.Catalog(name)
	if err != nil {
		return nil, err
	}
	return seeds.Records[T](c)
}

// Catalog is what a deriver produces: the envelope of a catalog file and its records, a slice of the generated
// API record type (gen/api), which Encode writes with its keys in the order of the OpenAPI record schema.
type Catalog struct {
	AsOf    string
	Sources []seeds.Source
	Records any
}

// Deriver builds one catalog.
type Deriver struct {
	// Name is the catalog name: the file is seeds/catalogs/<Name>.json.
	Name string
	// Needs are derived catalogs this one reads, so they are built first in the same run.
	Needs []string
	Build func(in *Input) (*Catalog, error)
}

var derivers = map[string]Deriver{}

// Register adds a deriver; derivers call it from an init function. A name registered twice panics.
func Register(d Deriver) {
	if _, dup := derivers[d.Name]; dup || d.Name == "" || d.Build == nil {
		panic(fmt.Sprintf("derive: bad or duplicate deriver %q", d.Name))
	}
	derivers[d.Name] = d
}

// Names lists the registered derived catalogs, in name order.
func Names() []string {
	names := make([]string, 0, len(derivers))
	for n := range derivers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Build runs every deriver (dependencies first) and returns each catalog file's bytes by name. The catalogs
// the derivers read come from catalogDir (the converter's fresh output), or from the embedded seeds when it is "".
// It stops with ctx's error before each deriver, and the derivers' readers stop on it too.
func Build(ctx context.Context, dataDir, catalogDir string) (map[string][]byte, error) {
	in := &Input{DataDir: dataDir, catalogDir: catalogDir, built: map[string]*seeds.Catalog{}, ctx: ctx}
	out := map[string][]byte{}
	var visit func(name string, path []string) error
	visit = func(name string, path []string) error {
		if _, done := out[name]; done {
			return nil
		}
		if slices.Contains(path, name) {
			return fmt.Errorf("derive: dependency cycle %v -> %s", path, name)
		}
		d, ok := derivers[name]
		if !ok {
			return fmt.Errorf("derive: %v needs %q, which no deriver builds", path, name)
		}
		for _, n := range d.Needs {
			if err := visit(n, append(path, name)); err != nil {
				return err
			}
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("derive %s: catalog build stopped: %w", name, err)
		}
		c, err := d.Build(in)
		if err != nil {
			return fmt.Errorf("derive %s: %w", name, err)
		}
		b, err := Encode(c)
		if err != nil {
			return fmt.Errorf("derive %s: %w", name, err)
		}
		facts, err := in.providerFacts()
		if err != nil {
			return fmt.Errorf("derive %s: %w", name, err)
		}
		if b, err = catalogbuild.ApplyOfficial(name, b, facts); err != nil {
			return fmt.Errorf("derive %s: %w", name, err)
		}
		if in.names == nil {
			in.names = ProviderNames()
		}
		perModel, err := in.modelDataSets()
		if err != nil {
			return fmt.Errorf("derive %s: %w", name, err)
		}
		if b, err = catalogbuild.WithProvenance(b, in.names, perModel); err != nil {
			return fmt.Errorf("derive %s: %w", name, err)
		}
		dates, err := in.dataSetDates()
		if err != nil {
			return fmt.Errorf("derive %s: %w", name, err)
		}
		if b, err = catalogbuild.WithSourceDates(b, dates); err != nil {
			return fmt.Errorf("derive %s: %w", name, err)
		}
		parsed, err := seeds.ParseCatalog(name, b)
		if err != nil {
			return fmt.Errorf("derive %s: %w", name, err)
		}
		in.built[name] = parsed
		out[name] = b
		return nil
	}
	for _, n := range Names() {
		if err := visit(n, nil); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Encode writes a catalog file as the other catalog files are written: indented JSON with a final newline, no
// HTML escaping, the records' keys in the order of their OpenAPI schema (records of a generated API type) or of
// their struct. The same catalog always gives the same bytes.
func Encode(c *Catalog) ([]byte, error) {
	if c.Sources == nil || c.Records == nil {
		return nil, fmt.Errorf("catalog needs sources and records")
	}
	records, err := catalogbuild.SchemaOrdered(c.Records)
	if err != nil {
		return nil, err
	}
	env := struct {
		AsOf    string         `json:"as_of"`
		Sources []seeds.Source `json:"sources"`
		Records any            `json:"records"`
	}{c.AsOf, c.Sources, records}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(env); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// ProviderNames are the display names of the provider registry, by ID.
func ProviderNames() catalogbuild.ProviderNames {
	out := catalogbuild.ProviderNames{}
	for _, p := range seeds.Providers().All() {
		out[p.ID] = p.Name
	}
	return out
}

// providerFacts reads the providers' curated per-provider facts once per run.
func (in *Input) providerFacts() (catalogbuild.OfficialFacts, error) {
	if in.factsCache != nil {
		return in.factsCache, nil
	}
	known := map[string]bool{}
	for _, p := range seeds.Providers().All() {
		known[p.ID] = true
	}
	f, err := catalogbuild.LoadProviderFacts(catalogbuild.OfficialProvidersDir(in.DataDir), known)
	if err != nil {
		return nil, err
	}
	in.factsCache = f
	return f, nil
}
