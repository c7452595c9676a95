package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/catalogbuild"
)

// TestNamesFresh fails while gateway/names.json differs from what the committed snapshots give.
func TestNamesFresh(t *testing.T) {
	want, err := Generate("../../sources/upstream")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../gateway/names.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("gateway/names.json is stale: run `go generate ./gateway`")
	}
}

// TestLiteLLMRoutesAreProviders: the route of every LiteLLM name (what precedes its first "/") is a provider
// name LiteLLM's own model map uses (its litellm_provider values), so LiteLLM routes the name to that provider.
func TestLiteLLMRoutesAreProviders(t *testing.T) {
	b, err := os.ReadFile("../../sources/upstream/litellm-model-prices.json")
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]struct {
		Provider string `json:"litellm_provider"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	providers := map[string]bool{}
	for _, e := range raw {
		providers[e.Provider] = true
	}
	routes, err := catalogbuild.LiteLLMRoutes("../../sources/upstream")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for pid, models := range routes {
		for id, name := range models {
			route, rest, ok := strings.Cut(name, "/")
			if !ok || !providers[route] || rest == "" {
				t.Errorf("%s/%s: LiteLLM name %q does not start with a LiteLLM provider", pid, id, name)
			}
			n++
		}
	}
	if n < 1000 {
		t.Errorf("only %d names", n)
	}
}
