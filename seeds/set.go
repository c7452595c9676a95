package seeds

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
)

// Set is one generation of the reference catalogs: every catalog file, parsed and checked. The binary starts on
// the embedded set; a catalog refresh (package refresh) builds a new set and installs it, and every reader
// (LoadCatalog, the typed accessors, the server's indexes) moves to it at its next call. A set never changes once
// made, so a reader holding one sees a consistent whole.
type Set struct {
	generation uint64
	origin     string
	digest     string
	files      map[string][]byte
	catalogs   map[string]*Catalog
	shutdowns  func() (map[string]string, error)
	// probation maps "provider/model" to the day (YYYY-MM-DD) from which a model new in a refresh and backed by
	// one source may enter the decisions' rankings; it travels with the set, not in its files or digest.
	probation map[string]string
}

// generations numbers sets in the order they are made, so a cache keyed on a generation never confuses two.
var generations atomic.Uint64

// current is the installed set; nil until the first Install, which means the embedded set.
var current atomic.Pointer[Set]

// NewSet parses and checks every catalog file (name without .json -> bytes). origin says where the files came
// from ("embedded", "refresh", "store") for logs and /health. The core catalogs must be present.
func NewSet(files map[string][]byte, origin string) (*Set, error) {
	s := &Set{origin: origin, files: make(map[string][]byte, len(files)), catalogs: make(map[string]*Catalog, len(files))}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, name := range names {
		b := files[name]
		c, err := ParseCatalog(name, b)
		if err != nil {
			return nil, err
		}
		s.files[name], s.catalogs[name] = b, c
		fmt.Fprintf(h, "%s %d\n", name, len(b))
		h.Write(b)
	}
	for _, n := range CoreCatalogNames() {
		if s.catalogs[n] == nil {
			return nil, fmt.Errorf("seeds: catalog %s.json is missing", n)
		}
	}
	s.digest = hex.EncodeToString(h.Sum(nil))
	s.shutdowns = sync.OnceValues(func() (map[string]string, error) { return shutdownsOf(s) })
	s.generation = generations.Add(1)
	return s, nil
}

// WithProbation returns a copy of s, as a new generation, whose models in p stay out of rankings until their day.
func (s *Set) WithProbation(p map[string]string) *Set {
	c := *s
	c.probation = p
	c.generation = generations.Add(1)
	return &c
}

// Probation maps "provider/model" to the day a model on probation may enter rankings (see WithProbation); do not
// modify it.
func (s *Set) Probation() map[string]string { return s.probation }

// Generation numbers the set among those this process made; a later set has a higher number.
func (s *Set) Generation() uint64 { return s.generation }

// Origin says where the set came from: "embedded", "refresh" or "store".
func (s *Set) Origin() string { return s.origin }

// Digest is the SHA-256 of every file of the set, in hex: equal digests are equal catalogs, across replicas.
func (s *Set) Digest() string { return s.digest }

// Files returns the catalog files of the set (name without .json -> bytes). Do not modify them.
func (s *Set) Files() map[string][]byte { return s.files }

// Catalog returns one catalog of the set, or nil.
func (s *Set) Catalog(name string) *Catalog { return s.catalogs[name] }

// Embedded returns the set built into the binary.
func Embedded() (*Set, error) { return embeddedSet() }

// Current returns the set in service: the last one installed, else the embedded one.
func Current() (*Set, error) {
	if s := current.Load(); s != nil {
		return s, nil
	}
	return embeddedSet()
}

// Install puts s in service (nil goes back to the embedded set) and returns the set it replaced (nil for the
// embedded one). Readers move to s at their next call.
func Install(s *Set) (previous *Set) {
	return current.Swap(s)
}
