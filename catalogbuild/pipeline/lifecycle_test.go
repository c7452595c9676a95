package pipeline

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/catalogbuild"
	"github.com/switchboard/switchboard/seeds"
)

// servedCatalogs reads every committed catalog of seeds/catalogs, as the server serves them.
func servedCatalogs(t *testing.T) map[string][]byte {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "..", "seeds", "catalogs", "*.json"))
	if err != nil || len(paths) < 40 {
		t.Fatalf("%d catalogs found: %v", len(paths), err)
	}
	out := map[string][]byte{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimSuffix(filepath.Base(p), ".json")] = b
	}
	return out
}

func officialLifecycle(t *testing.T) map[string]*catalogbuild.LifecycleFile {
	t.Helper()
	known := map[string]bool{}
	for _, p := range seeds.Providers().All() {
		known[p.ID] = true
	}
	files, err := catalogbuild.LoadLifecycle(filepath.Join("..", "..", "sources", "official", "lifecycle"), known)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestServedCatalogsOneLifecycle: no (provider, model) is live in one served catalog and sunset in another, and no
// alias or host's spelling outlives the model it follows.
func TestServedCatalogsOneLifecycle(t *testing.T) {
	files := servedCatalogs(t)
	official := officialLifecycle(t)
	if err := catalogbuild.CheckOneLifecycle(files, official); err != nil {
		t.Fatal(err)
	}
	// The check bites on these very files: a sunset model put back into pricing, or a host's spelling of a sunset
	// model, fails it.
	var dep struct {
		Records []struct {
			ProviderID string `json:"provider_id"`
			ModelID    string `json:"model_id"`
			Status     string `json:"status"`
		} `json:"records"`
	}
	if err := json.Unmarshal(files["deprecations"], &dep); err != nil {
		t.Fatal(err)
	}
	var gone [2]string
	for _, r := range dep.Records {
		if r.Status == "sunset" && r.ProviderID == "openai" {
			gone = [2]string{r.ProviderID, r.ModelID}
			break
		}
	}
	if gone[0] == "" {
		t.Fatal("no sunset OpenAI model in the served catalogs")
	}
	for _, offer := range []struct{ provider, model string }{
		{gone[0], gone[1]},
		{"openrouter", "openai/" + gone[1]},
		{gone[0], strings.ToUpper(gone[1])}, // the same ID in another case (Azure's DeepSeek-R1, litellm's deepseek-r1)
	} {
		bad := withPricing(t, files, offer.provider, offer.model)
		if err := catalogbuild.CheckOneLifecycle(bad, official); err == nil || !strings.Contains(err.Error(), offer.provider+"/"+offer.model) {
			t.Errorf("pricing offers %s/%s, sunset (or following %s/%s): check says %v", offer.provider, offer.model, gone[0], gone[1], err)
		}
	}
}

// withPricing is files with one more pricing record.
func withPricing(t *testing.T, files map[string][]byte, provider, model string) map[string][]byte {
	t.Helper()
	var env map[string]any
	if err := json.Unmarshal(files["pricing"], &env); err != nil {
		t.Fatal(err)
	}
	env["records"] = append(env["records"].([]any), map[string]any{"provider_id": provider, "model": model})
	b, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for k, v := range files {
		out[k] = v
	}
	out["pricing"] = b
	return out
}
