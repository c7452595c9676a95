// Command catalogbuild regenerates the generated catalogs of seeds/catalogs (pricing.json, models.json,
// benchmarks.json, then every derived catalog of package catalogbuild/derive) from the reference data in sources/upstream:
//
//	go run ./cmd/catalogbuild [-data sources/upstream] [-out seeds/catalogs]
//
// Relative paths are resolved against the repository root (the folder with go.mod), so the command works from any
// folder inside the repository. The output is deterministic: running it again on the same data gives the same
// bytes. The sources, units and precedence rules are described in package catalogbuild. rate_limits.json and
// free_tier.json in the same folder are hand-curated and are not touched, but free_tier.json is read: the models
// it lists get free_tier=true in pricing.json.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/switchboard/switchboard/catalogbuild"
	"github.com/switchboard/switchboard/catalogbuild/derive"
	"github.com/switchboard/switchboard/catalogbuild/pipeline"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "fetch" {
		if err := fetch(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "catalogbuild fetch:", err)
			os.Exit(1)
		}
		return
	}
	data := flag.String("data", "sources/upstream", "folder with the upstream snapshots (relative to the repository root unless absolute)")
	out := flag.String("out", "seeds/catalogs", "folder the catalogs are written to (relative to the repository root unless absolute)")
	verbose := flag.Bool("v", false, "print what was kept and dropped")
	flag.Parse()
	if err := run(*data, *out, *verbose); err != nil {
		fmt.Fprintln(os.Stderr, "catalogbuild:", err)
		os.Exit(1)
	}
}

func run(data, out string, verbose bool) error {
	// Absolute paths need no repository (the refresh tests run the binary on a temporary folder).
	if !filepath.IsAbs(data) || !filepath.IsAbs(out) {
		root, err := repoRoot()
		if err != nil {
			return err
		}
		if !filepath.IsAbs(data) {
			data = filepath.Join(root, data)
		}
		if !filepath.IsAbs(out) {
			out = filepath.Join(root, out)
		}
	}
	// Ctrl-C stops the build between its steps.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res, err := pipeline.Run(ctx, data, out)
	if err != nil {
		return err
	}
	for _, name := range derive.Names() {
		fmt.Printf("%s.json: derived\n", name)
	}
	fmt.Printf("rejected values: %d, disputed values: %d\n", res.Rejected, res.Disputed)
	s := res.Stats
	fmt.Printf("pricing.json: %d records, %d providers\n", s.Pricing, len(s.PricingProviders))
	fmt.Printf("models.json: %d records, %d providers\n", s.Models, len(s.ModelsProviders))
	fmt.Printf("benchmarks.json: %d records, %d providers\n", s.Benchmarks, len(s.BenchmarkProviders))
	if verbose {
		fmt.Printf("pricing by provider: %v\n", s.ByPricingProvider)
		fmt.Printf("pricing by task: %v\n", s.PricingTasks)
		fmt.Printf("models by provider: %v\n", s.ByModelsProvider)
		fmt.Printf("benchmarks by provider: %v\n", s.ByBenchmarkProvider)
		fmt.Printf("retired (provider, model) pairs dropped: %d\n", s.Deprecated)
		fmt.Printf("genai-prices dated overrides: %s\n", strings.Join(s.GenAIOverrides, "; "))
		fmt.Printf("genai-prices fallbacks: %d, added: %d; cached prices filled from models.dev: %d\n", len(s.GenAIFallbacks), s.GenAIAdded, s.CachedFilled)
		fmt.Printf("knowledge cutoffs from llm-stats: %d\n", s.KnowledgeFromLLMStats)
		fmt.Printf("kept with a deprecation date after as_of: %s\n", strings.Join(s.DeprecatedAfterAsOf, "; "))
		fmt.Printf("litellm providers not mapped: %v\n", s.SkippedLiteLLMProviders)
	}
	return nil
}

// repoRoot walks up from the working directory to the folder holding go.mod.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}

// fetch downloads fresh upstream snapshots into sources/upstream (see catalogbuild.Fetch) and prints what changed.
func fetch(args []string) error {
	fs := flag.NewFlagSet("fetch", flag.ContinueOnError)
	data := fs.String("data", "sources/upstream", "folder of the upstream snapshots (relative to the repository root unless absolute)")
	base := fs.String("base-url", os.Getenv("CATALOG_SOURCES_BASE_URL"), "replace the scheme and host of every upstream URL (env CATALOG_SOURCES_BASE_URL)")
	registry := fs.String("registry", os.Getenv("CATALOG_NPM_REGISTRY"), "the npm registry of the npm snapshots (env CATALOG_NPM_REGISTRY; default "+catalogbuild.DefaultNPMRegistry+"); only releases listed in a snapshot manifest's accepted_releases are taken")
	timeout := fs.Duration("timeout", 5*time.Minute, "time limit for the whole refresh")
	if err := fs.Parse(args); err != nil {
		return err
	}
	root, err := repoRoot()
	if err != nil {
		return err
	}
	if !filepath.IsAbs(*data) {
		*data = filepath.Join(root, *data)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	opts := catalogbuild.FetchOptions{Dir: *data, BaseURL: *base, Registry: *registry, Log: os.Stderr}
	// The upstream URLs need the internet; the npm snapshots only the registry, which some machines reach alone.
	// Each part is refreshed on its own, and the command fails only when neither could be.
	res, upErr := catalogbuild.Fetch(ctx, opts)
	if upErr != nil {
		fmt.Fprintln(os.Stderr, "upstream URLs not refreshed (no internet?), their snapshots are kept:", upErr)
	}
	npm, npmErr := catalogbuild.FetchNPM(ctx, opts)
	if npmErr != nil {
		fmt.Fprintln(os.Stderr, "npm snapshots not refreshed, they are kept:", npmErr)
	}
	if upErr != nil && npmErr != nil {
		return errors.New("nothing was refreshed")
	}
	res = append(res, npm...)
	for _, r := range res {
		if r.Unchanged {
			fmt.Printf("%s: unchanged\n", r.File)
			continue
		}
		fmt.Printf("%s: %d added, %d removed, %d prices changed (sha256 %.12s -> %.12s)\n", r.File, len(r.Added), len(r.Removed), len(r.Changed), r.SHA256Before, r.SHA256After)
		for _, part := range []struct {
			what string
			list []string
		}{{"added", r.Added}, {"removed", r.Removed}, {"changed", r.Changed}} {
			for i, k := range part.list {
				if i == 20 {
					fmt.Printf("  ... and %d more %s\n", len(part.list)-20, part.what)
					break
				}
				fmt.Printf("  %s %s\n", part.what, k)
			}
		}
	}
	fmt.Println("next: make catalogs (rebuild), then review seeds/catalogs/REPORT.md and the diff")
	return nil
}
