package x402

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"strings"

	"github.com/ethereum/go-ethereum/common"
)

// PaymentPayload is a decoded payment (PaymentPayload of x402 v1 or v2, scheme exact on EVM). It is forwarded to
// the facilitator as decoded, field for field. v1 names scheme and network at the top; v2 carries the
// requirements the client chose in accepted, may echo the resource, and echoes the server's extensions.
type PaymentPayload struct {
	X402Version int             `json:"x402Version"`
	Scheme      string          `json:"scheme,omitempty"`   // v1
	Network     string          `json:"network,omitempty"`  // v1
	Resource    *ResourceInfo   `json:"resource,omitempty"` // v2, optional
	Accepted    *Requirements   `json:"accepted,omitempty"` // v2
	Payload     ExactPayload    `json:"payload"`
	Extensions  json.RawMessage `json:"extensions,omitempty"` // v2, optional, forwarded as sent
}

// ExactPayload is the scheme-specific part: the EIP-3009 authorization and its EIP-712 signature.
type ExactPayload struct {
	Signature     string        `json:"signature"`
	Authorization Authorization `json:"authorization"`
}

// Authorization is an EIP-3009 TransferWithAuthorization, numbers as decimal strings, addresses and the nonce
// as 0x-prefixed hex.
type Authorization struct {
	From        string `json:"from"`
	To          string `json:"to"`
	Value       string `json:"value"`
	ValidAfter  string `json:"validAfter"`
	ValidBefore string `json:"validBefore"`
	Nonce       string `json:"nonce"`
}

// Payment is a decoded payment whose fields are well formed. Nothing about it is checked yet: see Config.Check.
type Payment struct {
	Payload     PaymentPayload
	From, To    common.Address
	Value       *big.Int
	ValidAfter  *big.Int // unix seconds
	ValidBefore *big.Int // unix seconds
	Nonce       [32]byte
	Signature   []byte // 65 bytes: r, s, v
}

// Version is the protocol version the payment was made in.
func (p *Payment) Version() int { return p.Payload.X402Version }

// NonceHex is the nonce as stored: 0x and 64 lower-case hex digits.
func (p *Payment) NonceHex() string { return "0x" + hex.EncodeToString(p.Nonce[:]) }

// MaxHeaderLength bounds a payment header (and the JSON of an MCP payment); the OpenAPI document states the
// same bound.
const MaxHeaderLength = 16384

// The places a payment travels in, as Presented.In names them (and error reasons quote them).
const (
	InXPayment         = "X-PAYMENT"             // v1 over HTTP: base64 of the JSON payload
	InPaymentSignature = "PAYMENT-SIGNATURE"     // v2 over HTTP: base64 of the JSON payload
	InMCPMeta          = `_meta["x402/payment"]` // MCP tools/call params: the JSON payload itself
)

// Presented is a payment as a caller presented it: where it came (In) and its raw value (a header's base64
// text, or the JSON of an MCP payment). An empty Value means no payment.
type Presented struct {
	In    string
	Value string
	// Client names the caller for the per-client limit (its address as the server sees it); "" counts every
	// such caller as one.
	Client string
}

// XPayment is the value of an X-PAYMENT header (x402 v1).
func XPayment(header string) Presented { return Presented{In: InXPayment, Value: header} }

// PaymentSignature is the value of a PAYMENT-SIGNATURE header (x402 v2).
func PaymentSignature(header string) Presented {
	return Presented{In: InPaymentSignature, Value: header}
}

// MCPPayment is the JSON of _meta["x402/payment"] of an MCP tool call (nil or JSON null: no payment).
func MCPPayment(raw json.RawMessage) Presented {
	if s := strings.TrimSpace(string(raw)); s != "null" {
		return Presented{In: InMCPMeta, Value: s}
	}
	return Presented{In: InMCPMeta}
}

// version is the protocol version a payment in this place must be made in; 0 when either is accepted (MCP:
// the v1 and v2 MCP transports both use _meta["x402/payment"] and the payload says its version).
func (p Presented) version() int {
	switch p.In {
	case InXPayment:
		return Version1
	case InPaymentSignature:
		return Version2
	}
	return 0
}

// wireRequirements mirrors the v2 accepted object with pointers, so that a missing field is told apart from an
// empty one.
type wireRequirements struct {
	Scheme            *string `json:"scheme"`
	Network           *string `json:"network"`
	Amount            *string `json:"amount"`
	PayTo             *string `json:"payTo"`
	MaxTimeoutSeconds *int    `json:"maxTimeoutSeconds"`
	Asset             *string `json:"asset"`
	Extra             *Extra  `json:"extra"`
}

// wirePayload mirrors PaymentPayload with pointers.
type wirePayload struct {
	X402Version *int              `json:"x402Version"`
	Scheme      *string           `json:"scheme"`
	Network     *string           `json:"network"`
	Resource    *ResourceInfo     `json:"resource"`
	Accepted    *wireRequirements `json:"accepted"`
	Extensions  json.RawMessage   `json:"extensions"`
	Payload     *struct {
		Signature     *string `json:"signature"`
		Authorization *struct {
			From        *string `json:"from"`
			To          *string `json:"to"`
			Value       *string `json:"value"`
			ValidAfter  *string `json:"validAfter"`
			ValidBefore *string `json:"validBefore"`
			Nonce       *string `json:"nonce"`
		} `json:"authorization"`
	} `json:"payload"`
}

var (
	addressFieldRe = regexp.MustCompile(`^0x[0-9a-fA-F]{40}$`)
	nonceFieldRe   = regexp.MustCompile(`^0x[0-9a-fA-F]{64}$`)
	uintFieldRe    = regexp.MustCompile(`^[0-9]{1,78}$`)
	// An EOA signature is 65 bytes. Longer ones (ERC-1271 / ERC-6492 smart-wallet signatures) would need a
	// chain read to check, which this server does not do: they are refused.
	signatureFieldRe = regexp.MustCompile(`^0x[0-9a-fA-F]{130}$`)
	maxUint256       = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
)

// Decode decodes a presented payment: for a header, base64 (standard alphabet, as x402 clients send it;
// padding and the URL-safe alphabet are tolerated) of the JSON payment payload; for MCP, the JSON itself. Every
// field of its version must be present and well formed, and the version must be the one its place carries.
// Errors are *PaymentError values whose reason says what is wrong, naming the place, without echoing the
// caller's data.
func Decode(in Presented) (*Payment, error) {
	src := in.In
	if len(in.Value) > MaxHeaderLength {
		return nil, refuse("%s: longer than %d characters", src, MaxHeaderLength)
	}
	raw := []byte(in.Value)
	if src != InMCPMeta {
		var err error
		if raw, err = decodeBase64(strings.TrimSpace(in.Value)); err != nil {
			return nil, refuse("%s: not valid base64", src)
		}
	}
	var w wirePayload
	if err := json.Unmarshal(raw, &w); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return nil, refuse("%s field %s: must be of type %s", src, te.Field, jsonKind(te.Type.Kind().String()))
		}
		if errors.As(err, &te) {
			return nil, refuse("%s: not a JSON object", src)
		}
		return nil, refuse("%s: not valid JSON", src)
	}
	missing := func(f string) error { return refuse("%s: missing field %s", src, f) }
	if w.X402Version == nil {
		return nil, missing("x402Version")
	}
	version := *w.X402Version
	if want := in.version(); want != 0 && version != want {
		other := map[int]string{Version1: InXPayment, Version2: InPaymentSignature}[version]
		if other == "" {
			return nil, refuse("%s: x402Version %d is not supported: want %d", src, version, want)
		}
		return nil, refuse("%s carries x402 v%d payments; send a v%d payment in %s", src, want, version, other)
	}
	pl := PaymentPayload{X402Version: version}
	switch version {
	case Version1:
		switch {
		case w.Scheme == nil:
			return nil, missing("scheme")
		case w.Network == nil:
			return nil, missing("network")
		}
		pl.Scheme, pl.Network = *w.Scheme, *w.Network
	case Version2:
		a := w.Accepted
		if a == nil {
			return nil, missing("accepted")
		}
		for _, f := range []struct {
			name string
			ok   bool
		}{{"scheme", a.Scheme != nil}, {"network", a.Network != nil}, {"amount", a.Amount != nil},
			{"payTo", a.PayTo != nil}, {"asset", a.Asset != nil}} {
			if !f.ok {
				return nil, missing("accepted." + f.name)
			}
		}
		acc := Requirements{Scheme: *a.Scheme, Network: *a.Network, Amount: *a.Amount, PayTo: *a.PayTo, Asset: *a.Asset}
		if a.MaxTimeoutSeconds != nil {
			acc.MaxTimeoutSeconds = *a.MaxTimeoutSeconds
		}
		if a.Extra != nil {
			acc.Extra = *a.Extra
		}
		pl.Accepted, pl.Resource = &acc, w.Resource
		if len(w.Extensions) > 0 && string(w.Extensions) != "null" {
			if t := bytes.TrimSpace(w.Extensions); len(t) == 0 || t[0] != '{' {
				return nil, refuse("%s field extensions: must be of type object", src)
			}
			pl.Extensions = w.Extensions
		}
	default:
		return nil, refuse("%s: x402Version %d is not supported: want %d or %d", src, version, Version2, Version1)
	}
	switch {
	case w.Payload == nil:
		return nil, missing("payload")
	case w.Payload.Signature == nil:
		return nil, missing("payload.signature")
	case w.Payload.Authorization == nil:
		return nil, missing("payload.authorization")
	}
	a := w.Payload.Authorization
	for _, f := range []struct {
		name string
		v    *string
	}{{"from", a.From}, {"to", a.To}, {"value", a.Value}, {"validAfter", a.ValidAfter}, {"validBefore", a.ValidBefore}, {"nonce", a.Nonce}} {
		if f.v == nil {
			return nil, missing("payload.authorization." + f.name)
		}
	}
	pl.Payload = ExactPayload{Signature: *w.Payload.Signature, Authorization: Authorization{
		From: *a.From, To: *a.To, Value: *a.Value, ValidAfter: *a.ValidAfter, ValidBefore: *a.ValidBefore, Nonce: *a.Nonce,
	}}
	p := &Payment{Payload: pl}
	return p, p.parseFields(src)
}

// parseFields checks the formats of the authorization and signature and fills the typed fields.
func (p *Payment) parseFields(src string) error {
	a := p.Payload.Payload.Authorization
	bad := func(field, want string) error {
		return refuse("%s field payload.%s: want %s", src, field, want)
	}
	if !addressFieldRe.MatchString(a.From) {
		return bad("authorization.from", "an address, 0x and 40 hex digits")
	}
	if !addressFieldRe.MatchString(a.To) {
		return bad("authorization.to", "an address, 0x and 40 hex digits")
	}
	p.From, p.To = common.HexToAddress(a.From), common.HexToAddress(a.To)
	var ok bool
	for _, f := range []struct {
		name string
		s    string
		dst  **big.Int
	}{{"value", a.Value, &p.Value}, {"validAfter", a.ValidAfter, &p.ValidAfter}, {"validBefore", a.ValidBefore, &p.ValidBefore}} {
		if !uintFieldRe.MatchString(f.s) {
			return bad("authorization."+f.name, "a decimal integer")
		}
		if *f.dst, ok = new(big.Int).SetString(f.s, 10); !ok || (*f.dst).Cmp(maxUint256) > 0 {
			return bad("authorization."+f.name, "a uint256")
		}
	}
	if !nonceFieldRe.MatchString(a.Nonce) {
		return bad("authorization.nonce", "32 bytes, 0x and 64 hex digits")
	}
	nonce, _ := hex.DecodeString(a.Nonce[2:]) // the pattern guarantees valid hex
	copy(p.Nonce[:], nonce)
	if !signatureFieldRe.MatchString(p.Payload.Payload.Signature) {
		return bad("signature", "a 65-byte signature, 0x and 130 hex digits (smart-wallet signatures are not accepted)")
	}
	p.Signature, _ = hex.DecodeString(p.Payload.Payload.Signature[2:])
	return nil
}

func decodeBase64(s string) ([]byte, error) {
	if s == "" {
		return nil, errors.New("empty")
	}
	var firstErr error
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		b, err := enc.DecodeString(s)
		if err == nil {
			return b, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return nil, firstErr
}

// jsonKind words a Go kind as the JSON type the field should have had.
func jsonKind(k string) string {
	switch k {
	case "int", "int64", "float64":
		return "number"
	case "struct", "map":
		return "object"
	}
	return k
}

// Error reasons shared by the checks.
func refuse(format string, args ...any) error {
	return &PaymentError{Status: StatusPaymentRequired, Reason: fmt.Sprintf(format, args...)}
}
