package refresh_test

import (
	"encoding/json"
	"maps"
	"testing"

	"github.com/switchboard/switchboard/refresh"
	"github.com/switchboard/switchboard/seeds"
)

// edit returns the embedded catalogs with fn applied to the records of one catalog.
func edit(t *testing.T, name string, fn func(recs []map[string]any) []map[string]any) *seeds.Set {
	t.Helper()
	emb, err := seeds.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	return editFiles(t, maps.Clone(emb.Files()), name, fn)
}

// core returns the five core catalogs of the embedded set alone (a set a fifth the size, quicker to make and
// check), with fn applied to the records of one of them when fn is set.
func core(t *testing.T, name string, fn func(recs []map[string]any) []map[string]any) *seeds.Set {
	t.Helper()
	emb, err := seeds.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, n := range seeds.CoreCatalogNames() {
		files[n] = emb.Files()[n]
	}
	if fn == nil {
		set, err := seeds.NewSet(files, "embedded")
		if err != nil {
			t.Fatal(err)
		}
		return set
	}
	return editFiles(t, files, name, fn)
}

func editFiles(t *testing.T, files map[string][]byte, name string, fn func(recs []map[string]any) []map[string]any) *seeds.Set {
	t.Helper()
	var err error
	var c map[string]any
	if err := json.Unmarshal(files[name], &c); err != nil {
		t.Fatal(err)
	}
	var recs []map[string]any
	b, _ := json.Marshal(c["records"])
	json.Unmarshal(b, &recs)
	c["records"] = fn(recs)
	if files[name], err = json.Marshal(c); err != nil {
		t.Fatal(err)
	}
	set, err := seeds.NewSet(files, "refresh")
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// TestDiff: the same catalogs give no event; each kind of change gives its one event, with its payload.
func TestDiff(t *testing.T) {
	emb, err := seeds.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	if evs, err := refresh.Diff(emb, emb); err != nil || len(evs) != 0 {
		t.Fatalf("same catalogs: %d events, %v", len(evs), err)
	}
	var changed string
	priced := edit(t, seeds.CatalogPricing, func(recs []map[string]any) []map[string]any {
		for _, r := range recs {
			p := r["pricing"].(map[string]any)
			if in, ok := p["input_per_1m_tokens"].(float64); ok && in > 0 && r["provider_id"] == "openai" {
				p["input_per_1m_tokens"] = in / 2
				changed = r["model"].(string)
				break
			}
		}
		return recs
	})
	evs, err := refresh.Diff(emb, priced)
	if err != nil || len(evs) != 1 || evs[0].Type != refresh.EventPriceChanged || evs[0].ModelID != changed {
		t.Fatalf("halved price: %+v, %v", evs, err)
	}
	var p refresh.EventPayload
	if err := json.Unmarshal(evs[0].Payload, &p); err != nil || p.InputChangePct == nil || *p.InputChangePct != -50 || p.OutputChangePct != nil && *p.OutputChangePct != 0 {
		t.Errorf("payload %s (%v)", evs[0].Payload, err)
	}
	// A model gone from the model catalog is no event of its own (its deprecation record says sunset); one that
	// appears is catalog.model_added.
	var dropped map[string]any
	fewer := edit(t, seeds.CatalogModels, func(recs []map[string]any) []map[string]any {
		dropped = recs[0]
		return recs[1:]
	})
	evs, err = refresh.Diff(fewer, emb)
	if err != nil || len(evs) != 1 || evs[0].Type != refresh.EventModelAdded || evs[0].ModelID != dropped["model_id"] {
		t.Fatalf("added model: %+v, %v", evs, err)
	}
	// A live model the deprecations catalog newly marks sunset.
	var gone string
	sunset := edit(t, "deprecations", func(recs []map[string]any) []map[string]any {
		for _, r := range recs {
			if r["status"] == "active" {
				r["status"], r["sunset_date"] = "sunset", "2026-11-01"
				gone = r["model_id"].(string)
				break
			}
		}
		return recs
	})
	evs, err = refresh.Diff(emb, sunset)
	if err != nil || len(evs) != 1 || evs[0].Type != refresh.EventModelSunset || evs[0].ModelID != gone {
		t.Fatalf("sunset: %+v, %v", evs, err)
	}
}
