// Package sources embeds the reference data the catalog build reads (upstream snapshots with their manifests, and
// the providers' official pages curated in official/), so that the run-time catalog refresh can rebuild with the
// same inputs as `make catalogs` on a machine that has only the binary.
package sources

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

//go:embed upstream official
var data embed.FS

// Materialize writes the embedded upstream/ and official/ folders under dir, laid out as in the repository, and
// returns the upstream folder (the build's data folder).
func Materialize(dir string) (string, error) {
	err := fs.WalkDir(data, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		target := filepath.Join(dir, filepath.FromSlash(path))
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := data.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		return "", fmt.Errorf("writing the embedded sources to %s: %w", dir, err)
	}
	return filepath.Join(dir, "upstream"), nil
}
