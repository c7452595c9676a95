package x402

// Requirements is one entry of the 402 body's accepts: what to pay, to whom, on which network (x402 v1
// PaymentRequirements). The same object goes to the facilitator with every verify and settle call.
type Requirements struct {
	Scheme            string `json:"scheme"`
	Network           string `json:"network"`
	MaxAmountRequired string `json:"maxAmountRequired"` // the asset's smallest unit, decimal
	Resource          string `json:"resource"`          // full URL of the paid route
	Description       string `json:"description"`
	MimeType          string `json:"mimeType"`
	PayTo             string `json:"payTo"`
	MaxTimeoutSeconds int    `json:"maxTimeoutSeconds"`
	Asset             string `json:"asset"`
	Extra             Extra  `json:"extra"`
}

// Extra carries the asset's EIP-712 domain name and version, which clients need to sign.
type Extra struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// PaymentRequired is the 402 body: why, and how to pay.
type PaymentRequired struct {
	X402Version int            `json:"x402Version"`
	Error       string         `json:"error"`
	Accepts     []Requirements `json:"accepts"`
}

// Requirements returns the one accepted way to pay for resource. Addresses are in EIP-55 checksum form, as
// x402 clients compare the asset against their own USDC table by string.
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
