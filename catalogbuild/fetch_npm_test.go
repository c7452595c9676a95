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
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testNow is the clock of the npm tests: every fixture release is published well before it unless a test says
// otherwise.
var testNow = func() time.Time { return time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC) }

// tgzOf builds a gzipped tarball holding a README and one file.
func tgzOf(t *testing.T, name, content string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, f := range [][2]string{{"package/README.md", "hi"}, {name, content}} {
		if err := tw.WriteHeader(&tar.Header{Name: f[0], Mode: 0o644, Size: int64(len(f[1])), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(f[1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func integrityOf(tgz []byte) string {
	sum := sha512.Sum512(tgz)
	return "sha512-" + base64.StdEncoding.EncodeToString(sum[:])
}

// fakeRelease is one release a fake registry serves.
type fakeRelease struct {
	version, published string
	tgz                []byte
	integrity          string // the registry's word; the tarball's own when ""
}

// registry serves one package's document and tarballs on loopback, the way registry.npmjs.org does; the last
// release is the latest dist-tag. tarballHits counts the tarball downloads.
func registry(t *testing.T, releases ...fakeRelease) (srv *httptest.Server, tarballHits *int) {
	t.Helper()
	versions, times, tars := map[string]any{}, map[string]string{}, map[string][]byte{}
	for _, r := range releases {
		if r.integrity == "" {
			r.integrity = integrityOf(r.tgz)
		}
		tarPath := "/@pydantic/genai-prices/-/genai-prices-" + r.version + ".tgz"
		versions[r.version] = map[string]any{"dist": map[string]string{"tarball": "https://registry.npmjs.org" + tarPath, "integrity": r.integrity}}
		times[r.version] = r.published
		tars[tarPath] = r.tgz
	}
	hits := 0
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/@pydantic/genai-prices" {
			json.NewEncoder(w).Encode(map[string]any{"dist-tags": map[string]string{"latest": releases[len(releases)-1].version}, "versions": versions, "time": times})
			return
		}
		if b, ok := tars[r.URL.Path]; ok {
			hits++
			w.Write(b)
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(s.Close)
	return s, &hits
}

// npmDir is a sources/upstream folder whose npm manifest accepts the given releases (version, tarball).
func npmDir(t *testing.T, snapshotVersion string, accepted ...fakeRelease) string {
	t.Helper()
	dir := t.TempDir()
	var pins []npmPin
	for _, r := range accepted {
		pins = append(pins, npmPin{Version: r.version, Integrity: integrityOf(r.tgz)})
	}
	m := map[string]any{"license": "MIT", "status": "USED by the build", "accepted_releases": pins}
	if snapshotVersion != "" {
		m["version"] = snapshotVersion
	}
	b, _ := json.Marshal(m)
	if err := os.WriteFile(filepath.Join(dir, "genai-prices-npm.json.manifest.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// bundle is a dist/index.js in the shape of the real one: the provider array first, code after it.
func bundle(price float64) string {
	return fmt.Sprintf("const E = [\n  {id: 'anthropic', models: [{id: 'claude-x', prices: {input_mtok: %g}, required: !0}]},\n  {id: \"openai\", models: [{id: `gpt-x`, prices: {input_mtok: 1}}]}\n], J = {};\nexport function findProvider() {}\n", price)
}

// TestFetchNPM: make catalogs-fetch takes the newest accepted release from the registry, reads its bundled data
// as data (the same bytes each time), writes the snapshot and a manifest with the release's version and dates,
// and reports what changed.
func TestFetchNPM(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r1 := fakeRelease{version: "0.2.0", published: "2026-11-20T08:00:00.000Z", tgz: tgzOf(t, "package/dist/index.js", bundle(3))}
	r2 := fakeRelease{version: "0.2.1", published: "2026-11-20T09:00:00.000Z", tgz: tgzOf(t, "package/dist/index.js", bundle(2.5))}
	dir := npmDir(t, "", r1)
	reg, _ := registry(t, r1)
	res, err := FetchNPM(ctx, FetchOptions{Dir: dir, Registry: reg.URL, Now: testNow})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].Unchanged || len(res[0].Added) != 2 {
		t.Fatalf("first fetch = %+v", res)
	}
	first, _ := os.ReadFile(filepath.Join(dir, "genai-prices-npm.json"))
	var snap struct {
		Source    map[string]string `json:"source"`
		Providers []map[string]any  `json:"providers"`
	}
	if err := json.Unmarshal(first, &snap); err != nil || len(snap.Providers) != 2 || snap.Source["version"] != "0.2.0" ||
		snap.Source["published"] != "2026-11-20" || snap.Source["tarball"] != "https://registry.npmjs.org/@pydantic/genai-prices/-/genai-prices-0.2.0.tgz" {
		t.Fatalf("snapshot = %s (%v)", first, err)
	}
	var m map[string]any
	mb, _ := os.ReadFile(filepath.Join(dir, "genai-prices-npm.json.manifest.json"))
	json.Unmarshal(mb, &m)
	if m["version"] != "0.2.0" || m["date"] != "2026-11-20" || m["sha256"] != SHA256Hex(first) || m["tarball_sha256"] != SHA256Hex(r1.tgz) ||
		m["status"] != "USED by the build" || m["license"] != "MIT" || m["accepted_releases"] == nil {
		t.Errorf("manifest = %s", mb)
	}

	// The same release again: the same bytes, nothing changed.
	if res, err = FetchNPM(ctx, FetchOptions{Dir: dir, Registry: reg.URL, Now: testNow}); err != nil || !res[0].Unchanged {
		t.Fatalf("second fetch = %+v, %v", res, err)
	}

	// A newer release, accepted by the manifest, with a new price: the change is named.
	accept(t, dir, r1, r2)
	reg2, _ := registry(t, r1, r2)
	res, err = FetchNPM(ctx, FetchOptions{Dir: dir, Registry: reg2.URL, Now: testNow})
	if err != nil || len(res[0].Changed) != 1 || !strings.HasPrefix(res[0].Changed[0], "anthropic/claude-x:") {
		t.Fatalf("newer release = %+v, %v", res, err)
	}
}

// accept rewrites the accepted releases of dir's manifest.
func accept(t *testing.T, dir string, rs ...fakeRelease) {
	t.Helper()
	p := filepath.Join(dir, "genai-prices-npm.json.manifest.json")
	var m map[string]any
	b, _ := os.ReadFile(p)
	json.Unmarshal(b, &m)
	var pins []npmPin
	for _, r := range rs {
		pins = append(pins, npmPin{Version: r.version, Integrity: integrityOf(r.tgz)})
	}
	m["accepted_releases"] = pins
	b, _ = json.Marshal(m)
	os.WriteFile(p, b, 0o644)
}

// TestNPMSnapshotRebuildsFromRelease: the committed snapshot is exactly what the Go reader makes of the real
// @pydantic/genai-prices 0.1.8 tarball (testdata, the registry's bytes), with no node: the same bytes the earlier
// extraction with node wrote.
func TestNPMSnapshotRebuildsFromRelease(t *testing.T) {
	t.Parallel()
	tgz, err := os.ReadFile(filepath.Join("testdata", "genai-prices-0.1.8.tgz"))
	if err != nil {
		t.Fatal(err)
	}
	up := filepath.Join("..", "sources", "upstream")
	dir := t.TempDir()
	for _, f := range []string{"genai-prices-npm.json", "genai-prices-npm.json.manifest.json"} {
		b, err := os.ReadFile(filepath.Join(up, f))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, f), b, 0o644)
	}
	reg, _ := registry(t, fakeRelease{version: "0.1.8", published: "2026-09-23T10:11:04.622Z", tgz: tgz})
	res, err := FetchNPM(context.Background(), FetchOptions{Dir: dir, Registry: reg.URL, Now: testNow})
	if err != nil {
		t.Fatal(err)
	}
	if !res[0].Unchanged {
		t.Fatalf("the 0.1.8 tarball read in Go gives sha256 %s, the committed snapshot is %s", res[0].SHA256After, res[0].SHA256Before)
	}
}

// TestRefreshNeverRunsDownloadedCode reproduces the attack of issue 34: a release (even one a maintainer was
// fooled into accepting) whose dist/index.js runs a shell command when evaluated, served by a registry on
// loopback. The fetch reads the bundle as data: a literal that is code is refused, code after the literal is
// never read, and in no case does the command run (the file it would touch does not exist).
func TestRefreshNeverRunsDownloadedCode(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), "pwned")
	shell := fmt.Sprintf(`require("child_process").execSync("touch %s")`, marker)
	for name, tc := range map[string]struct {
		js     string
		refuse bool
	}{
		"call instead of the literal": {"const E = " + shell + "\n", true},
		"comma expression":            {"const E = (" + shell + ", [{id: 'a', models: []}])\n", true},
		"call inside the array":       {"const E = [{id: 'a', models: [{id: 'm', prices: " + shell + "}]}]\n", true},
		"getter":                      {"const E = [{id: 'a', get models() { " + shell + "; return [] }}]\n", true},
		"method":                      {"const E = [{id: 'a', models() { " + shell + " }}]\n", true},
		"template substitution":       {"const E = [{id: `${" + shell + "}`, models: []}]\n", true},
		"spread":                      {"const E = [...(" + shell + " || [])]\n", true},
		"computed key":                {"const E = [{[" + shell + "]: 1, models: []}]\n", true},
		"shorthand identifier":        {"const process = 1; const E = [{process, models: []}]\n", true},
		"identifier value":            {"const E = [{id: globalThis, models: []}]\n", true},
		"function value":              {"const E = [{id: 'a', models: [], f: function () { " + shell + " }}]\n", true},
		"arrow function":              {"const E = [{id: 'a', models: [], f: () => " + shell + "}]\n", true},
		"new":                         {"const E = [{id: new Function('" + shell + "')(), models: []}]\n", true},
		"member call on the literal":  {"const E = [{id: 'a', models: []}].map(() => " + shell + ")\n", true},
		"proto key":                   {"const E = [{__proto__: {toJSON() {}}, models: []}]\n", true},
		"regular expression":          {"const E = [{id: /a/, models: []}]\n", true},
		"code after the literal":      {"const E = [{id: 'a', models: [{id: 'm', prices: {input_mtok: 1}}]}];\n" + shell + ";\n", false},
	} {
		t.Run(name, func(t *testing.T) {
			rel := fakeRelease{version: "6.6.6", published: "2026-11-01T00:00:00Z", tgz: tgzOf(t, "package/dist/index.js", tc.js)}
			dir := npmDir(t, "", rel)
			reg, _ := registry(t, rel)
			_, err := FetchNPM(context.Background(), FetchOptions{Dir: dir, Registry: reg.URL, Now: testNow})
			if tc.refuse && err == nil {
				t.Error("code in the bundled data was accepted")
			}
			if !tc.refuse && err != nil {
				t.Errorf("the literal before the code was refused: %v", err)
			}
			if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("the downloaded code ran: %s exists", marker)
			}
		})
	}
}

// TestFetchNPMTakesOnlyAcceptedAgedReleases: the registry's word is not enough. A release the manifest does not
// list, a tarball whose integrity is not the manifest's (even when the registry vouches for it), a release
// published less than seven days ago and a release older than the one in the snapshot or in service are refused
// without their tarball being read; an unaccepted newer release is named for review while the accepted one is
// kept.
func TestFetchNPMTakesOnlyAcceptedAgedReleases(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ok := fakeRelease{version: "0.3.0", published: "2026-11-01T00:00:00Z", tgz: tgzOf(t, "package/dist/index.js", bundle(3))}
	evil := fakeRelease{version: "0.3.1", published: "2026-11-02T00:00:00Z", tgz: tgzOf(t, "package/dist/index.js", bundle(0.001))}
	fresh := fakeRelease{version: "0.3.2", published: "2026-11-25T00:00:00Z", tgz: tgzOf(t, "package/dist/index.js", bundle(1))}
	old := fakeRelease{version: "0.2.9", published: "2026-10-01T00:00:00Z", tgz: tgzOf(t, "package/dist/index.js", bundle(4))}

	t.Run("not accepted", func(t *testing.T) {
		reg, hits := registry(t, evil)
		_, err := FetchNPM(ctx, FetchOptions{Dir: npmDir(t, "", ok), Registry: reg.URL, Now: testNow})
		if err == nil || *hits != 0 {
			t.Fatalf("an unaccepted release: err %v, tarball read %d times", err, *hits)
		}
	})
	t.Run("integrity not the manifest's", func(t *testing.T) {
		swapped := evil
		swapped.version = ok.version // the registry serves other bytes under the accepted version, with their own integrity
		reg, hits := registry(t, swapped)
		_, err := FetchNPM(ctx, FetchOptions{Dir: npmDir(t, "", ok), Registry: reg.URL, Now: testNow})
		if err == nil || !strings.Contains(err.Error(), "integrity") || *hits != 0 {
			t.Fatalf("a tarball the manifest does not vouch for: err %v, tarball read %d times", err, *hits)
		}
	})
	t.Run("tarball not the integrity", func(t *testing.T) {
		lying := ok
		lying.tgz = evil.tgz
		lying.integrity = integrityOf(ok.tgz) // the document names the accepted integrity, the tarball is another
		reg, _ := registry(t, lying)
		dir := npmDir(t, "", ok)
		_, err := FetchNPM(ctx, FetchOptions{Dir: dir, Registry: reg.URL, Now: testNow})
		if err == nil || !strings.Contains(err.Error(), "integrity") {
			t.Fatalf("a tarball that is not its integrity: %v", err)
		}
		if _, err := os.Stat(filepath.Join(dir, "genai-prices-npm.json")); !errors.Is(err, os.ErrNotExist) {
			t.Error("a refused tarball wrote the snapshot")
		}
	})
	t.Run("published less than 7 days ago", func(t *testing.T) {
		reg, hits := registry(t, fresh)
		_, err := FetchNPM(ctx, FetchOptions{Dir: npmDir(t, "", fresh), Registry: reg.URL, Now: testNow})
		if err == nil || !strings.Contains(err.Error(), "less than") || *hits != 0 {
			t.Fatalf("a release of 3 days: err %v, tarball read %d times", err, *hits)
		}
	})
	t.Run("newer unaccepted is named, accepted kept", func(t *testing.T) {
		reg, _ := registry(t, ok, evil)
		var log bytes.Buffer
		res, err := FetchNPM(ctx, FetchOptions{Dir: npmDir(t, "", ok), Registry: reg.URL, Now: testNow, Log: &log})
		if err != nil || res[0].Unchanged {
			t.Fatal(res, err)
		}
		if !strings.Contains(log.String(), "0.3.1") {
			t.Errorf("the unaccepted 0.3.1 is not named: %q", log.String())
		}
	})
	t.Run("older than the snapshot", func(t *testing.T) {
		reg, hits := registry(t, old, ok)
		_, err := FetchNPM(ctx, FetchOptions{Dir: npmDir(t, "0.3.0", old), Registry: reg.URL, Now: testNow})
		if err == nil || !strings.Contains(err.Error(), "older than 0.3.0") || *hits != 0 {
			t.Fatalf("a rollback to 0.2.9: err %v, tarball read %d times", err, *hits)
		}
	})
	t.Run("older than in service", func(t *testing.T) {
		reg, hits := registry(t, ok)
		_, err := FetchNPM(ctx, FetchOptions{Dir: npmDir(t, "", ok), Registry: reg.URL, Now: testNow,
			InService: DataSetDates{SourceGenAINPM: "2026-11-10"}})
		if !errors.Is(err, ErrOlderThanInService) || *hits != 0 {
			t.Fatalf("a release older than the one in service: err %v, tarball read %d times", err, *hits)
		}
	})
}

// TestEntryOfBoundsTheTarball: a tarball of too many entries, an entry over the cap, and a gzip bomb are refused
// after reading at most the caps.
func TestEntryOfBoundsTheTarball(t *testing.T) {
	t.Parallel()
	build := func(entries int, size int64, name string) []byte {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
		tw := tar.NewWriter(zw)
		for i := range entries {
			n := fmt.Sprintf("package/f%d", i)
			if i == entries-1 {
				n = name
			}
			tw.WriteHeader(&tar.Header{Name: n, Mode: 0o644, Size: size, Typeflag: tar.TypeReg})
			tw.Write(make([]byte, size))
		}
		tw.Close()
		zw.Close()
		return buf.Bytes()
	}
	if _, err := entryOf(build(maxTarEntries+5, 0, "package/dist/index.js"), "package/dist/index.js"); err == nil || !strings.Contains(err.Error(), "entries") {
		t.Errorf("too many entries: %v", err)
	}
	if _, err := entryOf(build(1, maxEntryBytes+1, "package/dist/index.js"), "package/dist/index.js"); err == nil || !strings.Contains(err.Error(), "larger") {
		t.Errorf("an oversized entry: %v", err)
	}
	bomb := build(9, maxTarTotalBytes/8, "package/dist/index.js") // 72 MiB of zeros before the entry, ~70 KB gzipped
	if _, err := entryOf(bomb, "package/dist/index.js"); !errors.Is(err, errTooLarge) {
		t.Errorf("a gzip bomb: %v", err)
	}
}
