package catalogbuild

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// needNode skips without node, unless the run requires it (make test sets SWITCHBOARD_REQUIRE_NODE).
func needNode(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("SWITCHBOARD_REQUIRE_NODE") != "" {
			t.Fatal("node is required")
		}
		t.Skip("no node")
	}
}

// tgzOf builds a gzipped tarball holding one file.
func tgzOf(t *testing.T, name, content string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	if err := tw.WriteHeader(&tar.Header{Name: "package/README.md", Mode: 0o644, Size: 2, Typeflag: tar.TypeReg}); err != nil {
		t.Fatal(err)
	}
	tw.Write([]byte("hi"))
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(content)), Typeflag: tar.TypeReg}); err != nil {
		t.Fatal(err)
	}
	tw.Write([]byte(content))
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

// registry serves one package's document and tarball on loopback, the way registry.npmjs.org does; integrity
// is the sha512 the document gives (the tarball's own unless the test lies).
func registry(t *testing.T, version, published string, tgz []byte, integrity string) *httptest.Server {
	t.Helper()
	if integrity == "" {
		sum := sha512.Sum512(tgz)
		integrity = "sha512-" + base64.StdEncoding.EncodeToString(sum[:])
	}
	tarPath := "/@pydantic/genai-prices/-/genai-prices-" + version + ".tgz"
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/@pydantic/genai-prices":
			json.NewEncoder(w).Encode(map[string]any{
				"dist-tags": map[string]string{"latest": version},
				"versions": map[string]any{version: map[string]any{"dist": map[string]string{
					"tarball": "https://registry.npmjs.org" + tarPath, "integrity": integrity}}},
				"time": map[string]string{version: published},
			})
		case tarPath:
			w.Write(tgz)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

// bundle is a dist/index.js in the shape the extractor reads: the provider array first, code after it.
func bundle(price float64) string {
	return fmt.Sprintf("const E = [\n  {id: 'anthropic', models: [{id: 'claude-x', prices: {input_mtok: %g}}]},\n  {id: 'openai', models: [{id: 'gpt-x', prices: {input_mtok: 1}}]}\n]\nexport function findProvider() {}\n", price)
}

// TestFetchNPM: make catalogs-fetch takes the newest release from the registry, checks the tarball against the
// registry's integrity, extracts the bundled data with the repository's extractor (the same bytes each time),
// writes the snapshot and a manifest with the release's version and dates, and reports what changed; a tarball
// that does not match its integrity changes nothing.
func TestFetchNPM(t *testing.T) {
	needNode(t)
	dir := t.TempDir()
	script, err := os.ReadFile(filepath.Join("..", "sources", "upstream", "genai-prices-npm.extract.cjs"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "genai-prices-npm.extract.cjs"), script, 0o644)
	os.WriteFile(filepath.Join(dir, "genai-prices-npm.json.manifest.json"), []byte(`{"license": "MIT", "status": "USED by the build"}`), 0o644)
	ctx := context.Background()

	tgz := tgzOf(t, "package/dist/index.js", bundle(3))
	reg := registry(t, "0.2.0", "2026-11-20T08:00:00.000Z", tgz, "")
	res, err := FetchNPM(ctx, FetchOptions{Dir: dir, Registry: reg.URL})
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
	if m["version"] != "0.2.0" || m["date"] != "2026-11-20" || m["sha256"] != SHA256Hex(first) || m["tarball_sha256"] != SHA256Hex(tgz) ||
		m["status"] != "USED by the build" || m["license"] != "MIT" {
		t.Errorf("manifest = %s", mb)
	}

	// The same release again: the same bytes, nothing changed.
	if res, err = FetchNPM(ctx, FetchOptions{Dir: dir, Registry: reg.URL}); err != nil || !res[0].Unchanged {
		t.Fatalf("second fetch = %+v, %v", res, err)
	}

	// A newer release with a new price: the change is named.
	reg2 := registry(t, "0.2.1", "2026-11-26T08:00:00.000Z", tgzOf(t, "package/dist/index.js", bundle(2.5)), "")
	res, err = FetchNPM(ctx, FetchOptions{Dir: dir, Registry: reg2.URL})
	if err != nil || len(res[0].Changed) != 1 || !strings.HasPrefix(res[0].Changed[0], "anthropic/claude-x:") {
		t.Fatalf("newer release = %+v, %v", res, err)
	}

	// A tarball that is not the one the registry vouches for: refused, the files stay.
	before, _ := os.ReadFile(filepath.Join(dir, "genai-prices-npm.json"))
	reg3 := registry(t, "0.2.2", "2026-11-27T08:00:00.000Z", tgzOf(t, "package/dist/index.js", bundle(1)), "sha512-AAAA")
	if _, err := FetchNPM(ctx, FetchOptions{Dir: dir, Registry: reg3.URL}); err == nil || !strings.Contains(err.Error(), "integrity") {
		t.Fatalf("a tarball that fails its integrity: %v", err)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "genai-prices-npm.json")); !bytes.Equal(before, after) {
		t.Error("a refused tarball changed the snapshot")
	}
}
