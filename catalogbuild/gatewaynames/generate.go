package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/switchboard/switchboard/catalogbuild"
)

// names is the document gateway/names.json holds (gateway.names reads it).
type names struct {
	Sources    map[string]string            `json:"sources"`
	LiteLLM    map[string]map[string]string `json:"litellm"`
	OpenRouter map[string]string            `json:"openrouter"`
}

// Generate reads the snapshots in dir and returns names.json.
func Generate(dir string) ([]byte, error) {
	lm, err := catalogbuild.LiteLLMRoutes(dir)
	if err != nil {
		return nil, fmt.Errorf("reading the LiteLLM model map: %w", err)
	}
	or, err := openRouterModels(dir)
	if err != nil {
		return nil, err
	}
	n := names{
		Sources: map[string]string{
			"litellm":    "sources/upstream/litellm-model-prices.json (BerriAI/litellm model_prices_and_context_window.json)",
			"openrouter": "sources/upstream/models-dev.json, provider openrouter (models.dev)",
		},
		LiteLLM: lm, OpenRouter: or,
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", " ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(n); err != nil {
		return nil, fmt.Errorf("encoding names.json: %w", err)
	}
	return buf.Bytes(), nil
}

// openRouterModels maps each OpenRouter model slug of models.dev to its base_model ("" when models.dev gives
// none). Variant slugs (":free", ":extended"...) are left out: they are the same model under other terms, and a
// failover export names the model itself.
func openRouterModels(dir string) (map[string]string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "models-dev.json"))
	if err != nil {
		return nil, fmt.Errorf("reading models.dev: %w", err)
	}
	var md struct {
		Providers map[string]struct {
			Models map[string]struct {
				ID        string `json:"id"`
				BaseModel string `json:"base_model"`
			} `json:"models"`
		} `json:"providers"`
	}
	if err := json.Unmarshal(b, &md); err != nil {
		return nil, fmt.Errorf("models-dev.json: %w", err)
	}
	p, ok := md.Providers["openrouter"]
	if !ok {
		return nil, fmt.Errorf("models-dev.json has no openrouter provider")
	}
	out := map[string]string{}
	for slug, m := range p.Models {
		if m.ID != "" {
			slug = m.ID
		}
		if strings.Contains(slug, ":") || !strings.Contains(slug, "/") {
			continue
		}
		out[slug] = m.BaseModel
	}
	return out, nil
}
