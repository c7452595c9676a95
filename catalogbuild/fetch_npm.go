package catalogbuild

import (
	"archive/tar"
	"bytes"
	"cmp"
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
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// NPMSource is an npm package whose bundled data is one snapshot of sources/upstream: `make catalogs-fetch` takes
// a release the repository accepts from the registry, which machines without the rest of the internet can still
// reach. The release is read as data (readBundledLiteral), never run.
type NPMSource struct {
	File    string // the snapshot in sources/upstream
	Package string // the npm package
	Entry   string // the file of the tarball the data is bundled in
	// Source is the snapshot's `source` object, without the version, publish date and tarball that the
	// release gives.
	License, Units, Notes string
}

// NPMSources are the npm snapshots refreshed by `make catalogs-fetch`.
var NPMSources = []NPMSource{{
	File: "genai-prices-npm.json", Package: "@pydantic/genai-prices", Entry: "package/dist/index.js",
	License: "MIT (Copyright (c) Pydantic Services Inc.)",
	Units: "prices in USD per 1M tokens (*_mtok), per request/call where named (requests_kcount = per 1000 requests); " +
		"prices may be a list of {constraint:{start_date|time_of_date...}, prices} for historical/time-of-day prices, " +
		"and tiered {base, tiers:[{start, price}]} for context-length tiers",
	Notes: "Extracted from the provider array bundled in dist/index.js of the npm tarball (the same data findProvider searches).",
}}

// DefaultNPMRegistry is the registry FetchNPM asks unless FetchOptions.Registry says otherwise.
const DefaultNPMRegistry = "https://registry.npmjs.org"

// MinReleaseAge is how long a release must have been published before it is taken: a hijacked or mistaken
// publish is usually found and unpublished within days, and by then it has not reached the catalogs.
const MinReleaseAge = 7 * 24 * time.Hour

// maxRegistryDocBytes bounds the registry's document of one package (the genai-prices one is about 35 KB).
const maxRegistryDocBytes = 4 << 20

// npmRelease is one release of a package as the registry describes it.
type npmRelease struct {
	Version, Tarball, Integrity, Published string
	// NewerUnaccepted names the registry's latest release when it is newer than the one taken and not accepted.
	NewerUnaccepted string
}

// npmPin is a release the repository accepts: listed with its integrity in the snapshot's manifest
// (`accepted_releases`) by a maintainer who reviewed it. The registry's word alone is never enough: it is the
// same party that serves the tarball.
type npmPin struct {
	Version   string `json:"version"`
	Integrity string `json:"integrity"`
}

// npmManifestState is what the snapshot's manifest says of the release in the snapshot and of the accepted ones.
type npmManifestState struct {
	Version   string   `json:"version"`
	Published string   `json:"published"`
	Accepted  []npmPin `json:"accepted_releases"`
}

func readNPMManifestState(dir string, s NPMSource) (npmManifestState, error) {
	var st npmManifestState
	b, err := os.ReadFile(filepath.Join(dir, s.File+ManifestSuffix))
	if errors.Is(err, os.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, err
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return st, fmt.Errorf("%s%s: %w", s.File, ManifestSuffix, err)
	}
	return st, nil
}

// registryReleases reads the registry's document of pkg: every version's tarball, integrity and publish time.
func registryReleases(ctx context.Context, o FetchOptions, registry, pkg string) (map[string]npmRelease, string, error) {
	raw, err := o.download(ctx, registry+"/"+strings.Replace(url.PathEscape(pkg), "%40", "@", 1), maxRegistryDocBytes)
	if err != nil {
		return nil, "", err
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
		return nil, "", fmt.Errorf("the registry's document of %s: %w", pkg, err)
	}
	out := map[string]npmRelease{}
	for v, d := range doc.Versions {
		// The tarball's address is npm's canonical one, not the document's word: a document naming another host
		// would send the download there, and the address is written into the snapshot.
		out[v] = npmRelease{Version: v, Tarball: canonicalTarball(pkg, v), Integrity: d.Dist.Integrity, Published: doc.Time[v]}
	}
	return out, doc.DistTags["latest"], nil
}

// chooseRelease picks the newest release that the manifest accepts, that the registry lists with the same
// integrity, that was published at least MinReleaseAge before now, and that is not older than the one in the
// snapshot (floor). It says why none fits.
func chooseRelease(pkg string, st npmManifestState, releases map[string]npmRelease, latest string, now time.Time) (npmRelease, error) {
	var best npmRelease
	var why []string
	for _, pin := range st.Accepted {
		rel, ok := releases[pin.Version]
		switch {
		case !strings.HasPrefix(pin.Integrity, "sha512-"):
			why = append(why, pin.Version+": the manifest gives no sha512 integrity")
			continue
		case !ok:
			why = append(why, pin.Version+": not in the registry")
			continue
		case rel.Integrity != pin.Integrity:
			why = append(why, pin.Version+": the registry's integrity differs from the manifest's")
			continue
		}
		pub, err := time.Parse(time.RFC3339, rel.Published)
		if err != nil {
			why = append(why, pin.Version+": no publish time")
			continue
		}
		if now.Sub(pub) < MinReleaseAge {
			why = append(why, fmt.Sprintf("%s: published %s, less than %s ago", pin.Version, rel.Published, MinReleaseAge))
			continue
		}
		if st.Version != "" && compareVersions(pin.Version, st.Version) < 0 {
			why = append(why, fmt.Sprintf("%s: older than %s, the release in the snapshot", pin.Version, st.Version))
			continue
		}
		if best.Version == "" || compareVersions(pin.Version, best.Version) > 0 {
			best = rel
		}
	}
	if best.Version == "" {
		return best, fmt.Errorf("no release of %s is both accepted by the manifest and fit to take (%s)", pkg, strings.Join(why, "; "))
	}
	if latest != "" && latest != best.Version && compareVersions(latest, best.Version) > 0 {
		if r, ok := releases[latest]; ok {
			// Not an error: a maintainer reviews a release before adding it to accepted_releases.
			best.NewerUnaccepted = latest + " (" + r.Integrity + ")"
		}
	}
	return best, nil
}

// canonicalTarball is the address registry.npmjs.org gives a release's tarball:
// https://registry.npmjs.org/@scope/name/-/name-1.2.3.tgz.
func canonicalTarball(pkg, version string) string {
	return DefaultNPMRegistry + "/" + pkg + "/-/" + path.Base(pkg) + "-" + version + ".tgz"
}

// compareVersions compares two npm versions (major.minor.patch, a pre-release after -) the way semver orders
// them, enough for the releases of one package.
func compareVersions(a, b string) int {
	ac, apre, _ := strings.Cut(a, "-")
	bc, bpre, _ := strings.Cut(b, "-")
	as, bs := strings.Split(ac, "."), strings.Split(bc, ".")
	for i := range max(len(as), len(bs)) {
		var x, y int
		if i < len(as) {
			x, _ = strconv.Atoi(as[i])
		}
		if i < len(bs) {
			y, _ = strconv.Atoi(bs[i])
		}
		if c := cmp.Compare(x, y); c != 0 {
			return c
		}
	}
	switch {
	case apre == bpre:
		return 0
	case apre == "": // a release is newer than its pre-releases
		return 1
	case bpre == "":
		return -1
	}
	return strings.Compare(apre, bpre)
}

// Bounds of a tarball read: a package of ours has a handful of files of a few hundred KB.
const (
	maxTarEntries    = 1000
	maxEntryBytes    = 8 << 20
	maxTarTotalBytes = 64 << 20
)

// entryOf returns the named file of a gzipped tarball, reading at most maxTarEntries headers and
// maxTarTotalBytes of decompressed bytes, so that a gzip bomb or a tarball of a million entries is refused early.
func entryOf(tgz []byte, name string) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	total := &capReader{r: zr, left: maxTarTotalBytes}
	tr := tar.NewReader(total)
	for i := 0; ; i++ {
		if i == maxTarEntries {
			return nil, fmt.Errorf("the tarball has more than %d entries", maxTarEntries)
		}
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("no %s in the tarball", name)
		}
		if err != nil {
			return nil, fmt.Errorf("reading the tarball: %w", err)
		}
		if h.Name != name || h.Typeflag != tar.TypeReg {
			continue
		}
		if h.Size > maxEntryBytes {
			return nil, fmt.Errorf("%s is larger than %d bytes", name, maxEntryBytes)
		}
		b, err := io.ReadAll(io.LimitReader(tr, maxEntryBytes+1))
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", name, err)
		}
		if len(b) > maxEntryBytes {
			return nil, fmt.Errorf("%s is larger than %d bytes", name, maxEntryBytes)
		}
		return b, nil
	}
}

// errTooLarge is the error of a read past its cap.
var errTooLarge = fmt.Errorf("%w: larger than allowed", ErrTooLarge)

// capReader fails once more than left bytes were read.
type capReader struct {
	r    io.Reader
	left int64
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, errTooLarge
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// FetchNPM refreshes every NPMSource from the registry (o.Registry, DefaultNPMRegistry when empty): the newest
// release the snapshot's manifest accepts (chooseRelease), its tarball checked against the manifest's sha512,
// its bundled data read as data in Go, and the snapshot and its manifest replaced only when every source
// arrived whole. Nothing of the release is ever run.
func FetchNPM(ctx context.Context, o FetchOptions) ([]FetchResult, error) {
	o = o.withDefaults()
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
		st, err := readNPMManifestState(o.Dir, s)
		if err != nil {
			return nil, err
		}
		releases, latest, err := registryReleases(ctx, o, registry, s.Package)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.File, err)
		}
		rel, err := chooseRelease(s.Package, st, releases, latest, o.Now())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.File, err)
		}
		if floor := o.InService[SourceGenAINPM]; floor != "" && rel.Published[:10] < floor {
			return nil, fmt.Errorf("%s: %s %s (published %s) %w (%s)", s.File, s.Package, rel.Version, rel.Published[:10], ErrOlderThanInService, floor)
		}
		if rel.NewerUnaccepted != "" {
			fmt.Fprintf(o.Log, "%s: %s %s is published but not in accepted_releases of %s%s; review it and add it to take it\n",
				s.File, s.Package, rel.NewerUnaccepted, s.File, ManifestSuffix)
		}
		tarURL, err := rebase(rel.Tarball, registry) // from the registry asked, a mirror or a test's too
		if err != nil {
			return nil, err
		}
		tgz, err := o.download(ctx, tarURL, o.MaxBytes)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.File, err)
		}
		sum := sha512.Sum512(tgz)
		if got := "sha512-" + base64.StdEncoding.EncodeToString(sum[:]); got != rel.Integrity {
			return nil, fmt.Errorf("%s: the tarball of %s %s does not match the integrity the manifest accepts", s.File, s.Package, rel.Version)
		}
		entry, err := entryOf(tgz, s.Entry)
		if err != nil {
			return nil, fmt.Errorf("%s: %s %s: %w", s.File, s.Package, rel.Version, err)
		}
		data, err := npmSnapshot(s, rel, entry)
		if err != nil {
			return nil, fmt.Errorf("%s: %s %s: %w", s.File, s.Package, rel.Version, err)
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

// npmSnapshot reads the data bundled in entry as data and writes the snapshot: {source, providers} as
// JSON.stringify(_, null, 2) writes it, so that one release always gives the same bytes (those of the extraction
// with node that made the first snapshot).
func npmSnapshot(s NPMSource, rel npmRelease, entry []byte) ([]byte, error) {
	providers, err := readBundledLiteral(entry)
	if err != nil {
		return nil, err
	}
	list, ok := providers.([]any)
	if !ok || len(list) == 0 {
		return nil, errors.New("the bundled data is not a list of providers")
	}
	if n := countModels(list); n > maxSourceEntries {
		return nil, fmt.Errorf("%d models, more than the %d a source may hold", n, maxSourceEntries)
	}
	source := &jsObject{vals: map[string]any{}}
	for _, kv := range [][2]string{{"package", s.Package}, {"version", rel.Version}, {"published", rel.Published[:10]},
		{"tarball", rel.Tarball}, {"file", s.Entry}, {"license", s.License}, {"units", s.Units}, {"notes", s.Notes}} {
		source.keys = append(source.keys, kv[0])
		source.vals[kv[0]] = kv[1]
	}
	text, err := stringifyJS(&jsObject{keys: []string{"source", "providers"}, vals: map[string]any{"source": source, "providers": list}})
	if err != nil {
		return nil, err
	}
	out := []byte(text + "\n")
	if _, err := genaiNPMKeys(out); err != nil {
		return nil, fmt.Errorf("the bundled data is not a provider list: %w", err)
	}
	return out, nil
}

// countModels counts the models of a provider list (objects with a models array).
func countModels(providers []any) int {
	n := 0
	for _, p := range providers {
		if o, ok := p.(*jsObject); ok {
			if ms, ok := o.vals["models"].([]any); ok {
				n += len(ms)
			}
		}
	}
	return n
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
	m["assembly"] = "the npm release " + rel.Version + " of " + s.Package + ", the provider array literal bundled at the top of its " + s.Entry +
		" read as data in Go (catalogbuild.readBundledLiteral; never run) and written as JSON.stringify(_, null, 2) does; the same version always gives the same bytes"
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
