package catalogbuild

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/switchboard/switchboard/netguard"
)

// Fetchable is an upstream snapshot that `make catalogs-fetch` can download again as one file. The npm
// snapshots are refreshed from the registry (NPMSources, FetchNPM); the others (genai-prices from YAML, llm-stats
// from a tree of files, the frozen simple-evals and MTEB boards, RULER's table) are assembled by hand.
type Fetchable struct {
	File string
	// Source is the data set's id in the catalogs' sources (the key of FetchOptions.InService).
	Source string
	URL    string
	// Pin, when set, names the commit the file is taken at and its date, and the URL of the file at that
	// commit, so that what is downloaded is what the manifest records.
	Pin func(ctx context.Context, o FetchOptions) (pinned, error)
	// Adapt turns the downloaded bytes into the file as the build reads it, and checks its shape.
	Adapt func(raw []byte, fetched string) ([]byte, error)
	// DataDate reads the date the data holds for from the adapted file, for a source that cannot be pinned.
	DataDate func(file []byte, today string) (string, error)
	// Keys lists the models of a file and a comparable price line for each, for the change summary.
	Keys func(file []byte) (map[string]string, error)
}

// pinned is a download resolved to one commit.
type pinned struct {
	URL, Commit, Date string
}

// Fetchables are the snapshots refreshed by `make catalogs-fetch`.
//
// litellm is taken at the newest commit of its price file on main, named by GitHub's API, from
// raw.githubusercontent.com at that commit (an immutable URL). models.dev cannot be pinned: api.json is built by
// the site from the repository's TOML files, and no URL serves the build of a given commit; its date is the newest
// last_updated of its models.
var Fetchables = []Fetchable{
	{File: snapLiteLLM.File, Source: SourceLiteLLM, URL: "https://raw.githubusercontent.com/BerriAI/litellm/main/model_prices_and_context_window.json",
		Pin: pinLiteLLM, Adapt: adaptLiteLLM, Keys: litellmKeys},
	{File: snapModelsDev.File, Source: SourceModelsDev, URL: "https://models.dev/api.json", Adapt: adaptModelsDev,
		DataDate: modelsDevDate, Keys: modelsDevKeys},
}

// DefaultMaxFetchBytes bounds one download: about four times the largest source today (models.dev's api.json,
// about 4 MB), so that a source may grow but a flood is refused before it is parsed.
const DefaultMaxFetchBytes = 16 << 20

// maxSourceEntries bounds the entries (models, price keys) of one source: about five times the largest today
// (models.dev, 5,276 models; litellm 2,984 keys; genai-prices 1,694 models).
const maxSourceEntries = 25_000

// SourceGenAINPM is the key of the genai-prices npm release in FetchOptions.InService.
const SourceGenAINPM = "genai-prices-npm"

// ErrOlderThanInService is the error of a source whose own date is older than that of the data in service: a
// refresh never rolls the catalogs back (a stale mirror or a replayed download).
var ErrOlderThanInService = errors.New("is older than the data in service")

// FetchOptions configures Fetch.
type FetchOptions struct {
	// Dir is sources/upstream.
	Dir string
	// BaseURL, when set, replaces the scheme and host of every upstream URL (CATALOG_SOURCES_BASE_URL), so that a
	// test or a mirror serves the files.
	BaseURL string
	// Registry is the npm registry FetchNPM reads (CATALOG_NPM_REGISTRY); DefaultNPMRegistry when empty. When
	// set, the tarballs are fetched from it too, so that a test or a mirror serves them.
	Registry string
	// Client makes every download; NewFetchClient when nil.
	Client *http.Client
	// MaxBytes bounds each download (DefaultMaxFetchBytes when 0).
	MaxBytes int64
	// InService gives, by data set (SourceLiteLLM, SourceModelsDev, SourceGenAINPM), the date of the data the
	// catalogs in service were built from (DatesInService); a source older than that is refused. The manifests
	// in Dir are a floor too.
	InService DataSetDates
	// Now dates the manifests and ages the npm releases; time.Now when nil.
	Now func() time.Time
	Log io.Writer
}

func (o FetchOptions) withDefaults() FetchOptions {
	if o.Client == nil {
		o.Client = defaultFetchClient(o)
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxFetchBytes
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	return o
}

// FetchResult says what one refresh changed.
type FetchResult struct {
	File                      string
	Added, Removed, Changed   []string
	Unchanged                 bool
	SHA256Before, SHA256After string
}

func rebase(raw, base string) (string, error) {
	if base == "" {
		return raw, nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", err
	}
	b, err := url.Parse(base)
	if err != nil || b.Scheme == "" || b.Host == "" {
		return "", fmt.Errorf("CATALOG_SOURCES_BASE_URL %q is not an absolute URL", base)
	}
	b.Path = strings.TrimRight(b.Path, "/") + u.Path
	b.RawQuery = u.RawQuery
	return b.String(), nil
}

// Fetch downloads every Fetchable, checks and adapts it, refuses data older than the snapshot's manifest or the
// data in service, and replaces the snapshot and its manifest only when all of them arrived whole: a failed or
// malformed download leaves every file as it was.
func Fetch(ctx context.Context, o FetchOptions) ([]FetchResult, error) {
	o = o.withDefaults()
	today := o.Now().UTC().Format(time.DateOnly)
	type staged struct {
		f    Fetchable
		pin  pinned
		data []byte
		res  FetchResult
	}
	var all []staged
	for _, f := range Fetchables {
		pin := pinned{URL: f.URL}
		if f.Pin != nil {
			var err error
			if pin, err = f.Pin(ctx, o); err != nil {
				return nil, fmt.Errorf("%s: %w", f.File, err)
			}
		}
		u, err := rebase(pin.URL, o.BaseURL)
		if err != nil {
			return nil, err
		}
		raw, err := o.download(ctx, u, o.MaxBytes)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.File, err)
		}
		data, err := f.Adapt(raw, today)
		if err != nil {
			return nil, fmt.Errorf("%s from %s: %w: %w", f.File, u, ErrMalformed, err)
		}
		if f.DataDate != nil {
			if pin.Date, err = f.DataDate(data, today); err != nil {
				return nil, fmt.Errorf("%s: %w", f.File, err)
			}
		}
		if err := notOlder(o, f, pin.Date); err != nil {
			return nil, err
		}
		old, err := os.ReadFile(filepath.Join(o.Dir, f.File))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		res := FetchResult{File: f.File, SHA256Before: SHA256Hex(old), SHA256After: SHA256Hex(data)}
		res.Unchanged = res.SHA256Before == res.SHA256After
		if !res.Unchanged {
			before, _ := f.Keys(old)
			after, err := f.Keys(data)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f.File, err)
			}
			res.Added, res.Removed, res.Changed = diffKeys(before, after)
		}
		all = append(all, staged{f, pin, data, res})
	}
	var out []FetchResult
	for _, s := range all {
		out = append(out, s.res)
		if s.res.Unchanged {
			continue
		}
		m := Manifest{File: s.f.File, UpstreamURL: s.f.URL, Date: s.pin.Date, SHA256: s.res.SHA256After,
			Assembly:  "downloaded on " + today + ": " + adaptNote(s.f.File),
			FetchedBy: "make catalogs-fetch (" + s.pin.URL + ")"}
		if s.pin.Commit != "" {
			m.Commit = &s.pin.Commit
		}
		if old, err := readManifestFile(o.Dir, s.f.File); err == nil {
			m.License = old.License
		}
		mb, err := json.MarshalIndent(m, "", "  ")
		if err != nil {
			return nil, err
		}
		if err := writeAtomic(filepath.Join(o.Dir, s.f.File), s.data); err != nil {
			return nil, err
		}
		if err := writeAtomic(filepath.Join(o.Dir, s.f.File+ManifestSuffix), append(mb, '\n')); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// defaultFetchClient bounds every download in time and refuses internal addresses, plain-http redirects and
// redirects to other hosts (package netguard). Loopback is reachable only when the caller named a loopback
// mirror itself (BaseURL or Registry: a test, or a mirror on this machine given to the command line).
func defaultFetchClient(o FetchOptions) *http.Client {
	local := false
	for _, raw := range []string{o.BaseURL, o.Registry} {
		if u, err := url.Parse(raw); raw != "" && err == nil && netguard.IsLoopbackHost(u.Hostname()) {
			local = true
		}
	}
	return netguard.NewClient(netguard.Options{Timeout: 2 * time.Minute, AllowLoopback: local})
}

// notOlder refuses a source whose own date is older than its snapshot's manifest or the data in service.
func notOlder(o FetchOptions, f Fetchable, date string) error {
	if !manifestDateRE.MatchString(date) {
		return fmt.Errorf("%s: the source gives no date (%q)", f.File, date)
	}
	floor := o.InService[f.Source]
	if m, err := readManifestFile(o.Dir, f.File); err == nil && m.Date > floor {
		floor = m.Date
	}
	if date < floor {
		return fmt.Errorf("%s: the download (%s) %w (%s)", f.File, date, ErrOlderThanInService, floor)
	}
	return nil
}

// NewFetchClient is the HTTP client of every catalog download (make catalogs-fetch and the run-time refresh),
// made here alone so that one guarded client can replace it. Each download is also bounded in size
// (FetchOptions.MaxBytes) and by its context.
func NewFetchClient() *http.Client { return defaultFetchClient(FetchOptions{}) }

func adaptNote(file string) string {
	if file == snapModelsDev.File {
		return "models.dev's built api.json, wrapped as {providers: ...} like the assembled snapshot"
	}
	return "the upstream file unchanged"
}

func readManifestFile(dir, file string) (*Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, file+ManifestSuffix))
	if err != nil {
		return nil, err
	}
	var m Manifest
	return &m, json.Unmarshal(b, &m)
}

// download GETs u and returns its body, refusing more than limit bytes: at once when the response says its
// length, else as soon as the limit is passed, so that an oversized source costs at most limit bytes.
func (o FetchOptions) download(ctx context.Context, u string, limit int64) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", "switchboard-catalogbuild")
	resp, err := o.Client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, &HTTPStatusError{URL: u, Status: resp.Status}
	}
	if resp.ContentLength > limit {
		return nil, fmt.Errorf("GET %s: %w: %d bytes, more than the %d allowed", u, ErrTooLarge, resp.ContentLength, limit)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", u, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("GET %s: %w: more than the %d bytes allowed", u, ErrTooLarge, limit)
	}
	return b, nil
}

func writeAtomic(path string, b []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// adaptLiteLLM keeps litellm's file as published, after checking that it is the price map.
func adaptLiteLLM(raw []byte, _ string) ([]byte, error) {
	var m map[string]map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("not litellm's price map: %w", err)
	}
	withProvider := 0
	for _, e := range m {
		if _, ok := e["litellm_provider"].(string); ok {
			withProvider++
		}
	}
	if withProvider < 100 {
		return nil, fmt.Errorf("not litellm's price map: %d entries name a litellm_provider", withProvider)
	}
	if len(m) > maxSourceEntries {
		return nil, fmt.Errorf("litellm's price map has %d entries, more than the %d a source may hold", len(m), maxSourceEntries)
	}
	return raw, nil
}

// adaptModelsDev wraps models.dev's api.json ({provider: {models: {...}}}) as the build reads it.
func adaptModelsDev(raw []byte, fetched string) ([]byte, error) {
	var providers map[string]struct {
		Models map[string]json.RawMessage `json:"models"`
	}
	if err := json.Unmarshal(raw, &providers); err != nil {
		return nil, fmt.Errorf("not models.dev's api.json: %w", err)
	}
	models := 0
	for _, p := range providers {
		models += len(p.Models)
	}
	if len(providers) < 10 || models < 100 {
		return nil, fmt.Errorf("not models.dev's api.json: %d providers, %d models", len(providers), models)
	}
	if models > maxSourceEntries {
		return nil, fmt.Errorf("models.dev's api.json has %d models, more than the %d a source may hold", models, maxSourceEntries)
	}
	wrapped := struct {
		Source    map[string]string `json:"source"`
		Providers json.RawMessage   `json:"providers"`
	}{map[string]string{"url": "https://models.dev/api.json", "fetched": fetched, "license": "MIT"}, raw}
	return json.MarshalIndent(wrapped, "", "  ")
}

func litellmKeys(b []byte) (map[string]string, error) {
	out := map[string]string{}
	if len(b) == 0 {
		return out, nil
	}
	var m map[string]map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for k, e := range m {
		if k == "sample_spec" {
			continue
		}
		out[k] = fmt.Sprintf("in=%v out=%v", e["input_cost_per_token"], e["output_cost_per_token"])
	}
	return out, nil
}

func modelsDevKeys(b []byte) (map[string]string, error) {
	out := map[string]string{}
	if len(b) == 0 {
		return out, nil
	}
	var f struct {
		Providers map[string]struct {
			Models map[string]struct {
				Cost *mdCost `json:"cost"`
			} `json:"models"`
		} `json:"providers"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, err
	}
	for p, prov := range f.Providers {
		for id, m := range prov.Models {
			line := "no price"
			if m.Cost != nil {
				line = fmt.Sprintf("in=%v out=%v", deref(m.Cost.Input), deref(m.Cost.Output))
			}
			out[p+"/"+id] = line
		}
	}
	return out, nil
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

func diffKeys(before, after map[string]string) (added, removed, changed []string) {
	for k, v := range after {
		old, ok := before[k]
		switch {
		case !ok:
			added = append(added, k)
		case old != v:
			changed = append(changed, fmt.Sprintf("%s: %s -> %s", k, old, v))
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			removed = append(removed, k)
		}
	}
	slices.Sort(added)
	slices.Sort(removed)
	slices.Sort(changed)
	return added, removed, changed
}
