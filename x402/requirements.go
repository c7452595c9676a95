package x402

import "encoding/json"

// Requirements is one entry of accepts: what to pay, to whom, on which network. One type serves both protocol
// versions, each filling its own fields: v1 (PaymentRequirements of the 402 body) has network as a name
// (base-sepolia), the amount in maxAmountRequired and describes the resource in every entry; v2 has network as
// CAIP-2 (eip155:84532), the amount in amount, and describes the resource once, in PaymentRequired.resource.
// The same object goes to the facilitator with every verify and settle call of its version.
type Requirements struct {
	Scheme            string `json:"scheme"`
	Network           string `json:"network"`
	Amount            string `json:"amount,omitempty"`            // v2: the asset's smallest unit, decimal
	MaxAmountRequired string `json:"maxAmountRequired,omitempty"` // v1: the same amount
	Resource          string `json:"resource,omitempty"`          // v1: full URL of the paid route
	Description       string `json:"description,omitempty"`       // v1
	MimeType          string `json:"mimeType,omitempty"`          // v1
	PayTo             string `json:"payTo"`
	MaxTimeoutSeconds int    `json:"maxTimeoutSeconds"`
	Asset             string `json:"asset"`
	Extra             Extra  `json:"extra"`
}

// Price is the amount of the requirements, whichever version's field holds it.
func (r Requirements) Price() string {
	if r.Amount != "" {
		return r.Amount
	}
	return r.MaxAmountRequired
}

// Extra carries the asset's EIP-712 domain name and version, which clients need to sign.
type Extra struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// ResourceInfo describes the paid resource in v2 (PaymentRequired.resource, and echoed in the payload).
type ResourceInfo struct {
	URL         string `json:"url"`
	Description string `json:"description,omitempty"`
	MimeType    string `json:"mimeType,omitempty"`
}

// PaymentRequired says why and how to pay: the 402 body (v1), the PAYMENT-REQUIRED header and the structured
// content of an unpaid MCP tool call (v2). Resource and Extensions are v2 only.
type PaymentRequired struct {
	X402Version int                        `json:"x402Version"`
	Error       string                     `json:"error"`
	Resource    *ResourceInfo              `json:"resource,omitempty"`
	Accepts     []Requirements             `json:"accepts"`
	Extensions  map[string]json.RawMessage `json:"extensions,omitempty"`
}

// Requirements returns the one accepted way to pay for resource, in x402 v1. Addresses are in EIP-55 checksum
// form, as x402 clients compare the asset against their own USDC table by string.
func (c Config) Requirements(resource, description string) Requirements {
	return Requirements{
		Scheme:            SchemeExact,
		Network:           c.Network.Name,
		MaxAmountRequired: c.Price.String(),
		Resource:          resource,
		Description:       description,
		MimeType:          "application/json",
		PayTo:             c.PayTo.Hex(),
		MaxTimeoutSeconds: int(c.maxTimeout().Seconds()),
		Asset:             c.Asset.Hex(),
		Extra:             Extra{Name: c.AssetName, Version: c.AssetVersion},
	}
}

// RequirementsV2 returns the same way to pay in x402 v2.
func (c Config) RequirementsV2() Requirements {
	return Requirements{
		Scheme:            SchemeExact,
		Network:           c.Network.CAIP2,
		Amount:            c.Price.String(),
		PayTo:             c.PayTo.Hex(),
		MaxTimeoutSeconds: int(c.maxTimeout().Seconds()),
		Asset:             c.Asset.Hex(),
		Extra:             Extra{Name: c.AssetName, Version: c.AssetVersion},
	}
}
