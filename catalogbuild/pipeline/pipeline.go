// Package pipeline runs the whole catalog build: curated catalogs with the providers' official facts, the
// converted catalogs (pricing, models, benchmarks), the derived catalogs and the report. `make catalogs`
// (cmd/catalogbuild) and the run-time catalog refresh (package refresh) both call Run, so a refreshed catalog is
// made by the same code and checks as a committed one.
package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/switchboard/switchboard/catalogbuild"
	"github.com/switchboard/switchboard/catalogbuild/derive"
	"github.com/switchboard/switchboard/seeds"
)

// Result is one build: every catalog file (name without .json -> bytes), the report and the converter's figures.
type Result struct {
	Files    map[string][]byte
	Report   []byte
	Rejected int
	Disputed int
	Stats    catalogbuild.Stats
}

// Run builds the catalogs from data (a sources/upstream folder, with sources/official beside it) into out, which
// must already hold the curated catalogs: they are read, completed with the official facts, provenance and source
// dates, and written back, then the generated and derived catalogs and REPORT.md are written beside them.
//
// ctx stops the build between its steps (each curated file, the conversion's steps, each deriver): the run-time
// refresh's timeout and the server's shutdown end it within a step.
func Run(ctx context.Context, data, out string) (Result, error) {
	known := map[string]bool{}
	for _, p := range seeds.Providers().All() {
		known[p.ID] = true
	}
	facts, err := catalogbuild.LoadProviderFacts(catalogbuild.OfficialProvidersDir(data), known)
	if err != nil {
		return Result{}, err
	}
	dates, err := catalogbuild.ReadDataSetDates(data)
	if err != nil {
		return Result{}, err
	}
	// The curated catalogs come first: the converter reads free_tier, and derivers read others (the migration
	// guides read reference_compat and function_calling). They are kept in place; the build applies the
	// providers' curated facts (sources/official/providers) and adds what provenance and dates they lack.
	generated := map[string]bool{}
	for _, name := range catalogbuild.Files {
		generated[strings.TrimSuffix(name, ".json")] = true
	}
	for _, name := range derive.Names() {
		generated[name] = true
	}
	files, err := filepath.Glob(filepath.Join(out, "*.json"))
	if err != nil {
		return Result{}, err
	}
	all := map[string][]byte{}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		if generated[name] {
			continue
		}
		if err := ctx.Err(); err != nil {
			return Result{}, fmt.Errorf("catalog build stopped: %w", err)
		}
		b, err := os.ReadFile(f)
		if err != nil {
			return Result{}, err
		}
		if b, err = catalogbuild.ApplyOfficial(name, b, facts); err != nil {
			return Result{}, fmt.Errorf("%s: %w", f, err)
		}
		if b, err = catalogbuild.WithProvenance(b, derive.ProviderNames(), nil); err != nil {
			return Result{}, fmt.Errorf("%s: %w", f, err)
		}
		if b, err = catalogbuild.WithSourceDates(b, dates); err != nil {
			return Result{}, fmt.Errorf("%s: %w", f, err)
		}
		if err := os.WriteFile(f, b, 0o644); err != nil {
			return Result{}, err
		}
		all[name] = b
	}
	res, err := catalogbuild.Convert(catalogbuild.Input{DataDir: data, KnownProviders: known, ProviderNames: derive.ProviderNames(), FreeTierJSON: all["free_tier"], Context: ctx})
	if err != nil {
		return Result{}, err
	}
	for _, name := range catalogbuild.Files {
		if err := os.WriteFile(filepath.Join(out, name), res.Files[name], 0o644); err != nil {
			return Result{}, err
		}
		all[strings.TrimSuffix(name, ".json")] = res.Files[name]
	}
	// The derived catalogs read the files just written.
	derived, err := derive.Build(ctx, data, out)
	if err != nil {
		return Result{}, err
	}
	for _, name := range derive.Names() {
		if err := os.WriteFile(filepath.Join(out, name+".json"), derived[name], 0o644); err != nil {
			return Result{}, err
		}
		all[name] = derived[name]
	}
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("catalog build stopped: %w", err)
	}
	// One lifecycle per model: no catalog of this build may offer a model another calls shut down.
	official, _, err := catalogbuild.Lifecycle(data, known)
	if err != nil {
		return Result{}, err
	}
	if err := catalogbuild.CheckOneLifecycle(all, official); err != nil {
		return Result{}, err
	}
	report, err := catalogbuild.BuildReport(all, res.Report, facts)
	if err != nil {
		return Result{}, err
	}
	if err := os.WriteFile(filepath.Join(out, "REPORT.md"), report, 0o644); err != nil {
		return Result{}, err
	}
	// A build that ran past its deadline is not used: the refresh has given up on it.
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("catalog build stopped: %w", err)
	}
	return Result{Files: all, Report: report, Rejected: len(res.Report.Rejected), Disputed: len(res.Report.Disputed), Stats: res.Stats}, nil
}
