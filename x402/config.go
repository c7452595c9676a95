// Package x402 takes x402 payments (scheme "exact", EVM) for the premium route, in protocol v2 and v1 side by
// side: it builds the payment requirements (v2 in the PAYMENT-REQUIRED header or an MCP tool result, v1 in the
// 402 body), decodes the payment (v2 PAYMENT-SIGNATURE or MCP _meta["x402/payment"], v1 X-PAYMENT), checks the
// EIP-3009 TransferWithAuthorization locally (EIP-712 signature, payee, amount, time window, network, asset,
// single-use nonce), asks the facilitator to verify and, once the paid answer exists, to settle, in the
// version the client paid in, and returns the settlement receipt (PAYMENT-RESPONSE or X-PAYMENT-RESPONSE).
//
// The protocol is implemented here from its description (the x402 v1 and v2 specifications, their HTTP and MCP
// transports, the "exact" EVM scheme and the bazaar discovery extension);
// signatures use go-ethereum's EIP-712 hashing and secp256k1 recovery. No secret key lives in the server: it
// only checks signatures and forwards them to the facilitator, which submits the transfer.
package x402

import (
	"cmp"
	"fmt"
	"math/big"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/switchboard/switchboard/config"
	"github.com/switchboard/switchboard/netguard"
)

// The x402 protocol versions this package speaks. A payment is answered in the version it was made in.
const (
	Version1 = 1
	Version2 = 2
)

// SchemeExact is the only payment scheme offered: a fixed amount, paid with an EIP-3009 authorization.
const SchemeExact = "exact"

// Defaults.
const (
	// DefaultNetwork is the network when the setting is empty.
	DefaultNetwork = "base"
	// DefaultPriceUSD is the price of one premium call (the contract: 0.001 USD per call).
	DefaultPriceUSD = "0.001"
	// DefaultMaxTimeout is maxTimeoutSeconds of the requirements: how long the server may take to answer once
	// it holds the payment. x402 clients also make the authorization valid until now + this.
	DefaultMaxTimeout = 60 * time.Second
	// DefaultFacilitatorTimeout bounds each call to the facilitator (verify, then settle).
	DefaultFacilitatorTimeout = 10 * time.Second
	// DefaultClientLimit is how many payment attempts one client may bring to the store and the facilitator in
	// a minute: a paying client makes one per call, so 20 is generous, and an attacker signing with throwaway
	// keys gets no more.
	DefaultClientLimit = 20
	// DefaultPayerLimit is the same per payer address.
	DefaultPayerLimit = 10
	// DefaultConcurrency bounds the payments being verified or settled with the facilitator at once.
	DefaultConcurrency = 16
	// RefusalMemory is how long a payer the facilitator refused is refused again without asking.
	RefusalMemory = time.Minute
)

// usdcDecimals: USDC has 6 decimals on every network, so 1 USD = 1,000,000 units and 0.001 USD = 1000.
const usdcDecimals = 6

// usdcVersion is the EIP-712 domain version of Circle's USDC (FiatTokenV2 and later): "2" on every network.
const usdcVersion = "2"

// Network is an EVM network payments can settle on, with the USDC contract the server accepts there.
type Network struct {
	Name    string // x402 v1 network name, as in v1 requirements and payloads
	CAIP2   string // CAIP-2 identifier, as in v2 requirements and payloads (eip155:<chain ID>)
	ChainID int64  // EIP-155 chain ID, part of the EIP-712 domain
	// USDC is Circle's USDC contract on the network; USDCName its EIP-712 domain name (the contract's name()).
	USDC     common.Address
	USDCName string
}

// networks lists the networks the server can take payments on. Values as published by Circle and used by the
// x402 reference implementation (npm x402 1.2.0, src/types/shared/evm/config.ts):
//   - base (Base mainnet, chain 8453): USDC 0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913, name "USD Coin";
//   - base-sepolia (Base Sepolia testnet, chain 84532): USDC 0x036CbD53842c5426634e7929541eC2318f3dCF7e, name
//     "USDC" (Circle's testnet deployments name themselves "USDC").
//
// Both have EIP-712 version "2".
var networks = map[string]Network{
	"base": {Name: "base", CAIP2: "eip155:8453", ChainID: 8453,
		USDC: common.HexToAddress("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"), USDCName: "USD Coin"},
	"base-sepolia": {Name: "base-sepolia", CAIP2: "eip155:84532", ChainID: 84532,
		USDC: common.HexToAddress("0x036CbD53842c5426634e7929541eC2318f3dCF7e"), USDCName: "USDC"},
}

// lookupNetwork finds a network by its v1 name or its CAIP-2 identifier.
func lookupNetwork(name string) (Network, bool) {
	if nw, ok := networks[name]; ok {
		return nw, true
	}
	for _, nw := range networks {
		if nw.CAIP2 == name {
			return nw, true
		}
	}
	return Network{}, false
}

// Config is the validated payment setup of the premium route. The zero value takes no payments (Enabled is
// false): the route then answers 503, never free data.
type Config struct {
	PayTo   common.Address // receives the transfers
	Network Network
	// Asset is the token contract (the EIP-712 verifying contract); AssetName and AssetVersion its EIP-712
	// domain, sent to clients in the requirements' extra.
	Asset        common.Address
	AssetName    string
	AssetVersion string
	// Price is the amount of one call in the asset's smallest unit (maxAmountRequired).
	Price *big.Int
	// FacilitatorURL is the facilitator's base address, without a trailing slash: /verify and /settle are
	// appended.
	FacilitatorURL string
	// MaxTimeout is maxTimeoutSeconds of the requirements (DefaultMaxTimeout when zero).
	MaxTimeout time.Duration
	// FacilitatorTimeout bounds each facilitator call (DefaultFacilitatorTimeout when zero).
	FacilitatorTimeout time.Duration
	// Outbound guards the facilitator client (package netguard): a facilitator on loopback or an internal
	// address needs the operator's allowance (SWITCHBOARD_OUTBOUND_*). Not a setting of its own: main sets it.
	Outbound netguard.Options
	// ClientLimit and PayerLimit bound the payment attempts that reach the store and the facilitator, per
	// client and per payer address, in a minute; Concurrency bounds the payments with the facilitator at once.
	// Defaults DefaultClientLimit, DefaultPayerLimit, DefaultConcurrency.
	ClientLimit, PayerLimit, Concurrency int
	// OnOutcome, when set, is told the outcome of every call of the paid route (OutcomeSettled, ...): it is how
	// metrics count payments. Not a setting: main sets it.
	OnOutcome func(outcome string)
}

// Enabled reports whether payments are configured (a payee is set).
func (c Config) Enabled() bool { return c.PayTo != (common.Address{}) && c.Price != nil }

func (c Config) maxTimeout() time.Duration { return cmp.Or(c.MaxTimeout, DefaultMaxTimeout) }

func (c Config) clientLimit() int { return cmp.Or(c.ClientLimit, DefaultClientLimit) }
func (c Config) payerLimit() int  { return cmp.Or(c.PayerLimit, DefaultPayerLimit) }
func (c Config) concurrency() int { return cmp.Or(c.Concurrency, DefaultConcurrency) }

func (c Config) facilitatorTimeout() time.Duration {
	return cmp.Or(c.FacilitatorTimeout, DefaultFacilitatorTimeout)
}

var (
	hexAddressRe = regexp.MustCompile(`^0x[0-9a-fA-F]{40}$`)
	decimalRe    = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)
)

// ParseSettings validates the raw settings. Without a pay-to address it returns the zero Config (payments off)
// after checking the other settings all the same, so that a typo fails at start rather than on the day
// payments are switched on. Every error names the environment variable at fault.
func ParseSettings(s config.X402Settings) (Config, error) {
	name := cmp.Or(strings.TrimSpace(s.Network), DefaultNetwork)
	nw, ok := lookupNetwork(name)
	if !ok {
		return Config{}, fmt.Errorf("SWITCHBOARD_X402_NETWORK %q: want base (eip155:8453) or base-sepolia (eip155:84532)", name)
	}
	c := Config{Network: nw, Asset: nw.USDC, AssetName: nw.USDCName, AssetVersion: usdcVersion}
	if a := strings.TrimSpace(s.Asset); a != "" {
		addr, err := parseAddress(a)
		if err != nil {
			return Config{}, fmt.Errorf("SWITCHBOARD_X402_ASSET: %w", err)
		}
		// Only USDC: its EIP-712 domain (name, version) and its 6 decimals are known. Another token would get
		// signatures for the wrong domain, which verify here but fail on chain at settlement.
		if addr != nw.USDC {
			return Config{}, fmt.Errorf("SWITCHBOARD_X402_ASSET %s: only the USDC contract of %s (%s) is supported", a, nw.Name, nw.USDC.Hex())
		}
	}
	price, err := parsePrice(cmp.Or(strings.TrimSpace(s.PriceUSD), DefaultPriceUSD))
	if err != nil {
		return Config{}, fmt.Errorf("SWITCHBOARD_X402_PRICE_USD: %w", err)
	}
	c.Price = price
	for _, l := range []struct {
		env, raw string
		dst      *int
	}{
		{"SWITCHBOARD_X402_CLIENT_LIMIT", s.ClientLimit, &c.ClientLimit},
		{"SWITCHBOARD_X402_PAYER_LIMIT", s.PayerLimit, &c.PayerLimit},
		{"SWITCHBOARD_X402_FACILITATOR_CONCURRENCY", s.Concurrency, &c.Concurrency},
	} {
		if strings.TrimSpace(l.raw) == "" {
			continue // the default
		}
		n, err := strconv.Atoi(strings.TrimSpace(l.raw))
		if err != nil || n < 1 {
			return Config{}, fmt.Errorf("%s %q: want a positive whole number", l.env, l.raw)
		}
		*l.dst = n
	}
	if f := strings.TrimSpace(s.FacilitatorURL); f != "" {
		if c.FacilitatorURL, err = parseFacilitatorURL(f); err != nil {
			return Config{}, fmt.Errorf("SWITCHBOARD_X402_FACILITATOR_URL: %w", err)
		}
	}
	payTo := strings.TrimSpace(s.PayTo)
	if payTo == "" {
		return Config{}, nil
	}
	if c.PayTo, err = parseAddress(payTo); err != nil {
		return Config{}, fmt.Errorf("SWITCHBOARD_X402_PAY_TO: %w", err)
	}
	if c.FacilitatorURL == "" {
		return Config{}, fmt.Errorf("SWITCHBOARD_X402_FACILITATOR_URL: required when SWITCHBOARD_X402_PAY_TO is set (the facilitator settles the payments)")
	}
	return c, nil
}

// parseAddress accepts 0x + 40 hex digits, all lower case, all upper case, or mixed case with a valid EIP-55
// checksum (so that a mistyped address is caught), and never the zero address.
func parseAddress(s string) (common.Address, error) {
	if !hexAddressRe.MatchString(s) {
		return common.Address{}, fmt.Errorf("%q: want an address, 0x and 40 hex digits", s)
	}
	a := common.HexToAddress(s)
	digits := s[2:]
	if digits != strings.ToLower(digits) && digits != strings.ToUpper(digits) && a.Hex() != s {
		return common.Address{}, fmt.Errorf("%q: EIP-55 checksum does not match (mistyped?)", s)
	}
	if a == (common.Address{}) {
		return common.Address{}, fmt.Errorf("%q: the zero address cannot receive payments", s)
	}
	return a, nil
}

// parsePrice turns a USD amount such as "0.001" into USDC units (1000), exactly: no float rounding.
func parsePrice(s string) (*big.Int, error) {
	if !decimalRe.MatchString(s) {
		return nil, fmt.Errorf("%q: want a decimal amount of USD such as 0.001", s)
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return nil, fmt.Errorf("%q: want a decimal amount of USD such as 0.001", s)
	}
	r.Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(usdcDecimals), nil)))
	if !r.IsInt() {
		return nil, fmt.Errorf("%q: at most %d decimals (the asset's smallest unit)", s, usdcDecimals)
	}
	if r.Sign() <= 0 {
		return nil, fmt.Errorf("%q: must be more than 0", s)
	}
	return new(big.Int).Set(r.Num()), nil
}

// parseFacilitatorURL wants an absolute https address; plain http only for a loopback host (local facilitators
// and tests), since the payment travels in the body.
func parseFacilitatorURL(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", fmt.Errorf("%q: want an absolute https:// address", s)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", fmt.Errorf("%q: want a base address without query, fragment or credentials", s)
	}
	if u.Scheme == "http" && !isLoopback(u.Hostname()) {
		return "", fmt.Errorf("%q: must be https (plain http only for a loopback host)", s)
	}
	return strings.TrimRight(u.String(), "/"), nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
