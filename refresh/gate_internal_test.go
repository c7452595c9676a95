// These tests work on the whole catalogs in one goroutine: they run without the race detector (make test runs
// the package twice, see DATA_ONLY_PKGS in the Makefile), where they take a tenth of the time.

//go:build !race

package refresh

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/switchboard/switchboard/store"
)

// TestEventPayloadsMatchTheirSchemas: the catalog.changed summary and a catalog.model_removed payload validate
// against the schemas the document gives subscribers.
func TestEventPayloadsMatchTheirSchemas(t *testing.T) {
	s, err := recordSchemas()
	if err != nil {
		t.Fatal(err)
	}
	compile := func(name string) *jsonschema.Schema {
		s.mu.Lock()
		defer s.mu.Unlock()
		sch, err := s.compiler.Compile(docURL + "#/components/schemas/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return sch
	}
	var evs []store.CatalogEvent
	for range SummaryAbove + 1 {
		evs = append(evs, store.CatalogEvent{Type: EventModelRemoved})
	}
	sum, err := Summary(strings.Repeat("0", 64), evs, map[string]int{EventPriceChanged: 7})
	if err != nil || sum == nil {
		t.Fatalf("summary %s, %v", sum, err)
	}
	task, cw := "llm", 128000
	removed, _ := json.Marshal(EventPayload{ProviderId: "openai", ModelId: "gpt-4o", Task: &task, ContextWindow: &cw})
	for name, b := range map[string][]byte{"CatalogChangedPayload": sum, "CatalogEventPayload": removed} {
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if err := compile(name).Validate(v); err != nil {
			t.Errorf("%s %s: %v", name, b, err)
		}
	}
}
