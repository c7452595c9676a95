package catalogbuild

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// ProviderFacts is sources/official/providers/<provider>.json: a provider's records of the per-provider catalogs
// (rate limits, SLA, data retention...), read from its own documentation, with the pages they come from and, for
// every fact left null, what was looked for and where.
type ProviderFacts struct {
	ProviderID string                  `json:"provider_id"`
	Pages      []OfficialPage          `json:"pages"`
	Catalogs   map[string]CatalogFacts `json:"catalogs"`
}

// CatalogFacts are one catalog's records of a provider.
type CatalogFacts struct {
	Records []json.RawMessage `json:"records"`
	Sources []string          `json:"sources"`
	// Unknown says, per field still null, what was looked for and on which page.
	Unknown map[string]string `json:"unknown"`
	// Review keeps, per record field ("records[2].notes"), how a fact was read (which version of a page, which
	// edition disagreed) for whoever checks the data next. Served notes state the fact, the page and the check
	// date only, so this goes into REPORT.md and nowhere else.
	Review map[string]string `json:"review,omitempty"`
}

// OfficialFacts are every provider's curated facts, by provider.
type OfficialFacts map[string]*ProviderFacts

// OfficialProvidersDir is where the curated per-provider facts sit beside the upstream snapshots.
func OfficialProvidersDir(dataDir string) string {
	return filepath.Join(filepath.Dir(filepath.Clean(dataDir)), "official", "providers")
}

// LoadProviderFacts reads and checks every file of dir; a missing folder is none.
func LoadProviderFacts(dir string, known map[string]bool) (OfficialFacts, error) {
	files, err := curatedFiles(dir, known, func(f *ProviderFacts) string { return f.ProviderID })
	if err != nil {
		return nil, err
	}
	out := OfficialFacts{}
	for _, f := range files {
		base := f.ProviderID + ".json"
		ids, err := CheckPages(base, f.Pages)
		if err != nil {
			return nil, err
		}
		for cat, cf := range f.Catalogs {
			if len(cf.Sources) == 0 {
				return nil, fmt.Errorf("%s: %s cites no page", base, cat)
			}
			for _, s := range cf.Sources {
				if !ids[s] {
					return nil, fmt.Errorf("%s: %s cites unknown page %q", base, cat, s)
				}
			}
			for i, r := range cf.Records {
				var rec struct {
					ProviderID string   `json:"provider_id"`
					Sources    []string `json:"sources"`
				}
				if err := json.Unmarshal(r, &rec); err != nil || rec.ProviderID != f.ProviderID {
					return nil, fmt.Errorf("%s: %s record %d is not a record of %s", base, cat, i, f.ProviderID)
				}
				for _, s := range rec.Sources {
					if !ids[s] {
						return nil, fmt.Errorf("%s: %s record %d cites unknown page %q", base, cat, i, s)
					}
				}
			}
			for k := range cf.Review {
				var i int
				var field string
				if n, err := fmt.Sscanf(k, "records[%d].%s", &i, &field); err != nil || n != 2 || i < 0 || i >= len(cf.Records) {
					return nil, fmt.Errorf("%s: %s review key %q names no record field (records[i].field)", base, cat, k)
				}
			}
		}
		out[f.ProviderID] = f
	}
	return out, nil
}

// ApplyOfficial replaces, in the catalog file data (catalog name), the records of every provider that has
// curated facts for it by those facts: each cites its pages and is `verified`. The pages join the catalog's
// sources. Other providers' records, and the file's order by provider, are kept.
func ApplyOfficial(name string, data []byte, facts OfficialFacts) ([]byte, error) {
	var providers []string
	for pid, f := range facts {
		if _, ok := f.Catalogs[name]; ok {
			providers = append(providers, pid)
		}
	}
	if len(providers) == 0 {
		return data, nil
	}
	slices.Sort(providers)
	var env provEnvelope
	if err := json.Unmarshal(data, &env); err != nil {
		return nil, err
	}
	for _, pid := range providers {
		f := facts[pid]
		cf := f.Catalogs[name]
		// Each page a record cites is a source of the catalog: the one already listed with its URL, or a new one.
		sourceID := func(p OfficialPage) string {
			env.AsOf = max(env.AsOf, p.Checked)
			i := slices.IndexFunc(env.Sources, func(s Source) bool { return s.URL == p.URL })
			if i < 0 {
				env.Sources = append(env.Sources, p.Source())
				i = len(env.Sources) - 1
			}
			if env.Sources[i].ID == "" {
				env.Sources[i].ID = p.ID
			}
			// The page's own check day, not the catalog's: a source with no date would later take the catalog's
			// as_of, which is the newest check of any page. Two checks of one URL give the older day.
			if s := &env.Sources[i]; s.AsOf == nil || *s.AsOf == "" || p.Checked < *s.AsOf {
				checked := p.Checked
				s.AsOf = &checked
			}
			return env.Sources[i].ID
		}
		records := slices.Clone(cf.Records)
		sortWithinProvider(name, records)
		var fresh []json.RawMessage
		for _, r := range records {
			// A record cites the pages it names itself, not every page of its catalog: a page that does not state
			// the record's values is not its source.
			cite, err := ownSources(r)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", name, pid, err)
			}
			if len(cite) == 0 {
				cite = cf.Sources
			}
			var ids, urls []string
			for _, p := range f.Pages {
				if slices.Contains(cite, p.ID) {
					ids = append(ids, sourceID(p))
					urls = append(urls, p.URL)
				}
			}
			withProv, err := setProvenance(r, ids, urls)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", name, pid, err)
			}
			fresh = append(fresh, withProv)
		}
		at := -1
		kept := env.Records[:0:0]
		for _, r := range env.Records {
			if recordProvider(r) == pid {
				if at < 0 {
					at = len(kept)
				}
				continue
			}
			kept = append(kept, r)
		}
		if at < 0 { // no record of the provider yet: its place in provider order
			at = len(kept)
			for i, r := range kept {
				if recordProvider(r) > pid {
					at = i
					break
				}
			}
		}
		env.Records = slices.Concat(kept[:at], fresh, kept[at:])
	}
	if order := catalogOrder[name]; order != nil {
		slices.SortStableFunc(env.Records, func(a, b json.RawMessage) int {
			var ma, mb map[string]any
			_ = json.Unmarshal(a, &ma)
			_ = json.Unmarshal(b, &mb)
			return order(ma, mb)
		})
	}
	return env.encode()
}

func recordProvider(r json.RawMessage) string {
	var rec struct {
		ProviderID string `json:"provider_id"`
	}
	_ = json.Unmarshal(r, &rec)
	return rec.ProviderID
}

// withinProvider are the keys that order one provider's records of the catalogs with several per provider (the
// order their endpoints and tests state); nulls sort last.
var withinProvider = map[string][]string{
	"rate_limits":             {"tier"},
	"security_certifications": {"certification"},
	"error_codes":             {"http_status", "provider_error_type", "provider_error_code", "standard_category"},
}

// catalogOrder are the catalogs whose file order is not by provider: a replaced record may have to move.
var catalogOrder = map[string]func(a, b map[string]any) int{
	// The SLA catalog lists guaranteed uptime descending, unknown last, then provider ID.
	"sla": func(a, b map[string]any) int {
		ua, okA := a["guaranteed_uptime_pct"].(float64)
		ub, okB := b["guaranteed_uptime_pct"].(float64)
		switch {
		case okA && !okB:
			return -1
		case !okA && okB:
			return 1
		case okA && ua != ub:
			if ua > ub {
				return -1
			}
			return 1
		}
		return strings.Compare(fmt.Sprint(a["provider_id"]), fmt.Sprint(b["provider_id"]))
	},
}

func sortWithinProvider(catalog string, recs []json.RawMessage) {
	keys := withinProvider[catalog]
	if len(keys) == 0 {
		return
	}
	val := func(r json.RawMessage) map[string]any {
		var m map[string]any
		_ = json.Unmarshal(r, &m)
		return m
	}
	slices.SortStableFunc(recs, func(a, b json.RawMessage) int {
		ma, mb := val(a), val(b)
		for _, k := range keys {
			x, y := ma[k], mb[k]
			switch {
			case x == nil && y == nil:
				continue
			case x == nil:
				return 1
			case y == nil:
				return -1
			}
			if fx, ok := x.(float64); ok {
				if fy, ok := y.(float64); ok && fx != fy {
					if fx < fy {
						return -1
					}
					return 1
				}
				continue
			}
			if c := strings.Compare(fmt.Sprint(x), fmt.Sprint(y)); c != 0 {
				return c
			}
		}
		return 0
	})
}

// setProvenance sets a record's sources and confidence (verified), keeping its other fields in order; a record
// with notes gets the pages' addresses in them, so that a reader of the record alone sees where it comes from.
// ownSources is the list of page IDs a curated record names in its own "sources" (none: the catalog's).
func ownSources(r json.RawMessage) ([]string, error) {
	var rec struct {
		Sources []string `json:"sources"`
	}
	if err := json.Unmarshal(r, &rec); err != nil {
		return nil, fmt.Errorf("sources: %w", err)
	}
	return rec.Sources, nil
}

func setProvenance(r json.RawMessage, sources, urls []string) (json.RawMessage, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(r, &fields); err != nil {
		return nil, err
	}
	delete(fields, "sources")
	delete(fields, "confidence")
	// Re-emit in the record's own key order.
	dec := json.NewDecoder(bytes.NewReader(r))
	var order []string
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key := k.(string)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
		if key != "sources" && key != "confidence" {
			order = append(order, key)
		}
	}
	if raw, ok := fields["notes"]; ok {
		var notes *string
		if err := json.Unmarshal(raw, &notes); err != nil {
			return nil, fmt.Errorf("notes: %w", err)
		}
		var missing []string
		for _, u := range urls {
			if notes == nil || !strings.Contains(*notes, u) {
				missing = append(missing, u)
			}
		}
		if len(missing) > 0 {
			text := "Sources: " + strings.Join(missing, ", ") + "."
			if notes != nil && strings.TrimSpace(*notes) != "" {
				text = strings.TrimSpace(*notes) + " " + text
			}
			nb, _ := json.Marshal(text)
			fields["notes"] = nb
		}
	}
	ids := slices.Clone(sources)
	slices.Sort(ids)
	var b strings.Builder
	b.WriteString("{")
	for i, k := range order {
		if i > 0 {
			b.WriteString(",")
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteString(":")
		b.Write(fields[k])
	}
	sb, _ := json.Marshal(ids)
	fmt.Fprintf(&b, `,"sources":%s,"confidence":%q}`, sb, ConfidenceVerified)
	return json.RawMessage(b.String()), nil
}
