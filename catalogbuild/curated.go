package catalogbuild

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// curatedFiles reads every *.json file of dir (a folder of sources/official, one file per provider) in name
// order. Each is decoded strictly, since a misspelt key would otherwise drop a fact without a word, and must
// declare a known provider whose ID is its file's name. A missing folder is no curated data.
func curatedFiles[T any](dir string, known map[string]bool, provider func(*T) string) ([]*T, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	out := make([]*T, 0, len(names))
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("reading curated file: %w", err)
		}
		f := new(T)
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(f); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if p := provider(f); p+".json" != filepath.Base(name) || !known[p] {
			return nil, fmt.Errorf("%s: provider_id %q must be a known provider and the file's name", name, p)
		}
		out = append(out, f)
	}
	return out, nil
}
