package config_test

import (
	"io"
	"testing"

	"github.com/switchboard/switchboard/config"
)

// TestCatalogNPMOffByDefault: the run-time refresh reads no npm registry unless an operator names one (make run
// sets only SWITCHBOARD_CATALOG_REFRESH); "off" keeps it off.
func TestCatalogNPMOffByDefault(t *testing.T) {
	for _, v := range []string{"", "off"} {
		st, err := config.Load("serve", nil, env(map[string]string{"SWITCHBOARD_CATALOG_REFRESH": "24h", "SWITCHBOARD_CATALOG_NPM_REGISTRY": v}), io.Discard)
		if err != nil || st.CatalogNPMRegistry != "" {
			t.Errorf("SWITCHBOARD_CATALOG_NPM_REGISTRY=%q: registry %q, %v", v, st.CatalogNPMRegistry, err)
		}
	}
	st, err := config.Load("serve", nil, env(map[string]string{"SWITCHBOARD_CATALOG_NPM_REGISTRY": "https://registry.npmjs.org/"}), io.Discard)
	if err != nil || st.CatalogNPMRegistry != "https://registry.npmjs.org" {
		t.Errorf("a registry set by the operator: %q, %v", st.CatalogNPMRegistry, err)
	}
}
