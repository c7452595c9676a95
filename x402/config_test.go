package x402_test

import (
	"strings"
	"testing"
	"time"

	"github.com/switchboard/switchboard/config"
	"github.com/switchboard/switchboard/x402"
)

const payee = "0x52908400098527886E0F7030069857D2E4169EE7" // an EIP-55 test vector (all-caps checksum)

func TestParseSettings(t *testing.T) {
	ok := func(s config.X402Settings) x402.Config {
		t.Helper()
		c, err := x402.ParseSettings(s)
		if err != nil {
			t.Fatalf("ParseSettings(%+v): %v", s, err)
		}
		return c
	}

	// The defaults of config.Load: network base, price 0.001, no payee: payments off.
	if c := ok(config.X402Settings{Network: "base", PriceUSD: "0.001"}); c.Enabled() {
		t.Errorf("no payee but enabled: %+v", c)
	}

	c := ok(config.X402Settings{PayTo: strings.ToLower(payee), FacilitatorURL: "https://facilitator.example/x402/"})
	if !c.Enabled() || c.PayTo.Hex() != payee || c.Network.Name != "base" || c.Network.ChainID != 8453 {
		t.Errorf("defaults: %+v", c)
	}
	if c.Asset.Hex() != "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913" || c.AssetName != "USD Coin" || c.AssetVersion != "2" {
		t.Errorf("base asset: %s %q %q", c.Asset.Hex(), c.AssetName, c.AssetVersion)
	}
	if c.Price.String() != "1000" || c.FacilitatorURL != "https://facilitator.example/x402" {
		t.Errorf("price %s, facilitator %q", c.Price, c.FacilitatorURL)
	}
	d := c.Domain()
	if d.ChainID != 8453 || d.Name != "USD Coin" || d.Version != "2" || d.VerifyingContract != c.Asset {
		t.Errorf("domain = %+v", d)
	}

	s := ok(config.X402Settings{PayTo: payee, Network: "base-sepolia", FacilitatorURL: "http://127.0.0.1:9/",
		Asset: "0x036cbd53842c5426634e7929541ec2318f3dcf7e", PriceUSD: "1.25"})
	if s.Network.ChainID != 84532 || s.Asset.Hex() != "0x036CbD53842c5426634e7929541eC2318f3dCF7e" || s.AssetName != "USDC" ||
		s.Price.String() != "1250000" || s.FacilitatorURL != "http://127.0.0.1:9" {
		t.Errorf("base-sepolia: %+v", s)
	}

	for _, tc := range []struct {
		name string
		s    config.X402Settings
		want string // the setting named in the error, and a word of why
	}{
		{"unknown network", config.X402Settings{Network: "ethereum"}, "SWITCHBOARD_X402_NETWORK"},
		{"bad price", config.X402Settings{PriceUSD: "1e-3"}, "SWITCHBOARD_X402_PRICE_USD"},
		{"price below the unit", config.X402Settings{PriceUSD: "0.0000001"}, "SWITCHBOARD_X402_PRICE_USD"},
		{"zero price", config.X402Settings{PriceUSD: "0"}, "SWITCHBOARD_X402_PRICE_USD"},
		{"negative price", config.X402Settings{PriceUSD: "-0.001"}, "SWITCHBOARD_X402_PRICE_USD"},
		{"bad payee", config.X402Settings{PayTo: "0x1234", FacilitatorURL: "https://f.example"}, "SWITCHBOARD_X402_PAY_TO"},
		{"payee checksum", config.X402Settings{PayTo: "0x52908400098527886E0F7030069857D2E4169Ee7", FacilitatorURL: "https://f.example"}, "SWITCHBOARD_X402_PAY_TO"},
		{"zero payee", config.X402Settings{PayTo: "0x0000000000000000000000000000000000000000", FacilitatorURL: "https://f.example"}, "SWITCHBOARD_X402_PAY_TO"},
		{"payee without facilitator", config.X402Settings{PayTo: payee}, "SWITCHBOARD_X402_FACILITATOR_URL"},
		{"plain http facilitator", config.X402Settings{PayTo: payee, FacilitatorURL: "http://facilitator.example"}, "SWITCHBOARD_X402_FACILITATOR_URL"},
		{"relative facilitator", config.X402Settings{FacilitatorURL: "/facilitator"}, "SWITCHBOARD_X402_FACILITATOR_URL"},
		{"facilitator with query", config.X402Settings{FacilitatorURL: "https://f.example/?k=v"}, "SWITCHBOARD_X402_FACILITATOR_URL"},
		{"other asset", config.X402Settings{Asset: "0x5425890298aed601595a70AB815c96711a31Bc65"}, "SWITCHBOARD_X402_ASSET"},
		{"sepolia USDC on mainnet", config.X402Settings{Asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e"}, "SWITCHBOARD_X402_ASSET"},
		{"bad asset", config.X402Settings{Asset: "USDC"}, "SWITCHBOARD_X402_ASSET"},
		{"zero client limit", config.X402Settings{ClientLimit: "0"}, "SWITCHBOARD_X402_CLIENT_LIMIT"},
		{"bad payer limit", config.X402Settings{PayerLimit: "ten"}, "SWITCHBOARD_X402_PAYER_LIMIT"},
		{"negative concurrency", config.X402Settings{Concurrency: "-1"}, "SWITCHBOARD_X402_FACILITATOR_CONCURRENCY"},
	} {
		_, err := x402.ParseSettings(tc.s)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one naming %s", tc.name, err, tc.want)
		}
	}
}

func TestRequirements(t *testing.T) {
	for _, tc := range []struct {
		network, asset, name string
	}{
		{"base", "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", "USD Coin"},
		{"base-sepolia", "0x036CbD53842c5426634e7929541eC2318f3dCF7e", "USDC"},
	} {
		c, err := x402.ParseSettings(config.X402Settings{PayTo: strings.ToLower(payee), Network: tc.network, FacilitatorURL: "https://f.example"})
		if err != nil {
			t.Fatal(err)
		}
		got := c.Requirements("https://sb.example/api/v1/health/premium", "premium health")
		want := x402.Requirements{
			Scheme: "exact", Network: tc.network, MaxAmountRequired: "1000", Resource: "https://sb.example/api/v1/health/premium",
			Description: "premium health", MimeType: "application/json", PayTo: payee, MaxTimeoutSeconds: 60,
			Asset: tc.asset, Extra: x402.Extra{Name: tc.name, Version: "2"},
		}
		if got != want {
			t.Errorf("%s: requirements\n got %+v\nwant %+v", tc.network, got, want)
		}
	}
	// The timeout follows the config.
	c, _ := x402.ParseSettings(config.X402Settings{PayTo: payee, FacilitatorURL: "https://f.example"})
	c.MaxTimeout = 90 * time.Second
	if got := c.Requirements("https://x", "").MaxTimeoutSeconds; got != 90 {
		t.Errorf("maxTimeoutSeconds = %d, want 90", got)
	}
}

func TestLimitSettings(t *testing.T) {
	c, err := x402.ParseSettings(config.X402Settings{PayTo: payee, FacilitatorURL: "https://f.example",
		ClientLimit: "30", PayerLimit: " 5 ", Concurrency: "4"})
	if err != nil || c.ClientLimit != 30 || c.PayerLimit != 5 || c.Concurrency != 4 {
		t.Errorf("limits = %d %d %d, %v", c.ClientLimit, c.PayerLimit, c.Concurrency, err)
	}
}
