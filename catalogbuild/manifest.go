package catalogbuild

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
)

// Manifest describes one upstream snapshot kept in sources/upstream: where it came from, under which license,
// which commit or package version it holds, the date its data holds for, and the sha256 of the bytes, so that the
// build never converts a file under a stale date or attribution, and a changed file is noticed.
type Manifest struct {
	File        string  `json:"file"`
	UpstreamURL string  `json:"upstream_url"`
	License     *string `json:"license"`
	Version     *string `json:"version"`
	Commit      *string `json:"commit"`
	// Date is the as-of date of the data (YYYY-MM-DD): the upstream commit date, or the newest check date the
	// data records.
	Date      string  `json:"date"`
	Published *string `json:"published"`
	SHA256    string  `json:"sha256"`
	Assembly  string  `json:"assembly,omitempty"`
	FetchedBy string  `json:"fetched_by"`
}

// ManifestSuffix names a snapshot's manifest: sources/upstream/<file><ManifestSuffix>.
const ManifestSuffix = ".manifest.json"

var manifestDateRE = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)

// ReadManifest reads the manifest of file in dir and checks it against the file's bytes.
func ReadManifest(dir, file string) (*Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, file+ManifestSuffix))
	if err != nil {
		return nil, fmt.Errorf("manifest of %s: %w", file, err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("manifest of %s: %w", file, err)
	}
	if m.File != file {
		return nil, fmt.Errorf("manifest of %s names file %q", file, m.File)
	}
	if !manifestDateRE.MatchString(m.Date) {
		return nil, fmt.Errorf("manifest of %s: date %q is not YYYY-MM-DD", file, m.Date)
	}
	data, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		return nil, err
	}
	if got := SHA256Hex(data); got != m.SHA256 {
		return nil, fmt.Errorf("%s: sha256 is %s, its manifest says %s: a changed snapshot needs a new manifest (make catalogs-fetch writes both)", file, got, m.SHA256)
	}
	return &m, nil
}

// SHA256Hex is the lower-case hex sha256 of b.
func SHA256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// resolve fills a snapshot's commit and date from its manifest, and names the source after them.
func (s snapshot) resolve(dir string) (snapshot, error) {
	m, err := ReadManifest(dir, s.File)
	if err != nil {
		return s, err
	}
	s.Date = m.Date
	s.Commit = ""
	ref := ""
	switch {
	case m.Commit != nil && len(*m.Commit) >= 8:
		s.Commit = *m.Commit
		ref = "commit " + (*m.Commit)[:8] + ", "
	case m.Version != nil:
		ref = "version " + *m.Version + ", "
	}
	s.Source.Name = fmt.Sprintf("%s (%s%s)", s.Title, ref, m.Date)
	s.Source.License = m.License
	return s, nil
}
