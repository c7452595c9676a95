package x402

import (
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

// PaymentPayload is the decoded X-PAYMENT header (x402 v1 PaymentPayload, scheme exact on EVM). It is forwarded
// to the facilitator as decoded, field for field.
type PaymentPayload struct {
	X402Version int          `json:"x402Version"`
	Scheme      string       `json:"scheme"`
	Network     string       `json:"network"`
	Payload     ExactPayload `json:"payload"`
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

// Payment is a decoded X-PAYMENT header whose fields are well formed. Nothing about it is checked yet: see
// Config.Check.
type Payment struct {
	Payload     PaymentPayload
	From, To    common.Address
	Value       *big.Int
	ValidAfter  *big.Int // unix seconds
	ValidBefore *big.Int // unix seconds
	Nonce       [32]byte
	Signature   []byte // 65 bytes: r, s, v
}

// NonceHex is the nonce as stored: 0x and 64 lower-case hex digits.
func (p *Payment) NonceHex() string { return "0x" + hex.EncodeToString(p.Nonce[:]) }

// MaxHeaderLength bounds the X-PAYMENT header; the OpenAPI document states the same bound.
const MaxHeaderLength = 16384

// wirePayload mirrors PaymentPayload with pointers, so that a missing field is told apart from an empty one.
type wirePayload struct {
	X402Version *int    `json:"x402Version"`
	Scheme      *string `json:"scheme"`
	Network     *string `json:"network"`
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

// DecodeHeader decodes an X-PAYMENT header: base64 (standard alphabet, as x402 clients send it; padding and the
// URL-safe alphabet are tolerated) of the JSON payment payload. Every field must be present and well formed.
// Errors are *PaymentError values whose reason says what is wrong without echoing the caller's data.
func DecodeHeader(header string) (*Payment, error) {
	if len(header) > MaxHeaderLength {
		return nil, refuse("X-PAYMENT: longer than %d characters", MaxHeaderLength)
	}
	raw, err := decodeBase64(strings.TrimSpace(header))
	if err != nil {
		return nil, refuse("X-PAYMENT: not valid base64")
	}
	var w wirePayload
	if err := json.Unmarshal(raw, &w); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return nil, refuse("X-PAYMENT field %s: must be of type %s", te.Field, jsonKind(te.Type.Kind().String()))
		}
		if errors.As(err, &te) {
			return nil, refuse("X-PAYMENT: not a JSON object")
		}
		return nil, refuse("X-PAYMENT: not valid JSON")
	}
	missing := func(f string) error { return refuse("X-PAYMENT: missing field %s", f) }
	switch {
	case w.X402Version == nil:
		return nil, missing("x402Version")
	case w.Scheme == nil:
		return nil, missing("scheme")
	case w.Network == nil:
		return nil, missing("network")
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
	p := &Payment{Payload: PaymentPayload{
		X402Version: *w.X402Version, Scheme: *w.Scheme, Network: *w.Network,
		Payload: ExactPayload{Signature: *w.Payload.Signature, Authorization: Authorization{
			From: *a.From, To: *a.To, Value: *a.Value, ValidAfter: *a.ValidAfter, ValidBefore: *a.ValidBefore, Nonce: *a.Nonce,
		}},
	}}
	return p, p.parseFields()
}

// parseFields checks the formats of the authorization and signature and fills the typed fields.
func (p *Payment) parseFields() error {
	a := p.Payload.Payload.Authorization
	bad := func(field, want string) error {
		return refuse("X-PAYMENT field payload.%s: want %s", field, want)
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
