package x402_test

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/switchboard/switchboard/x402"
	"github.com/switchboard/switchboard/x402/x402test"
)

// checkFixture is a configuration on base-sepolia, its requirements, a payer and a fixed "now".
type checkFixture struct {
	cfg   x402.Config
	req   x402.Requirements
	payer *x402test.Payer
	now   time.Time
}

func newCheckFixture(t *testing.T) checkFixture {
	cfg := x402test.Config(t, "http://127.0.0.1:9")
	return checkFixture{cfg: cfg, req: cfg.Requirements("http://sb.test/api/v1/health/premium", "test"),
		payer: x402test.NewPayer(t), now: time.Unix(1_900_000_000, 0)}
}

// check decodes and checks a header, as the service does.
func (f checkFixture) check(header string) error {
	p, err := x402.Decode(x402.XPayment(header))
	if err != nil {
		return err
	}
	return f.cfg.Check(p, f.now)
}

// signed returns a correctly signed payload after edit changed its authorization (and before signing).
func (f checkFixture) signed(t *testing.T, edit func(a *x402.Authorization, d *x402test.Domain)) x402.PaymentPayload {
	a := f.payer.Authorization(f.req, f.now)
	d := x402test.DomainOf(f.req)
	if edit != nil {
		edit(&a, &d)
	}
	return x402.PaymentPayload{X402Version: 1, Scheme: "exact", Network: f.req.Network,
		Payload: x402.ExactPayload{Signature: f.payer.Sign(t, a, d), Authorization: a}}
}

func TestCheckAccepts(t *testing.T) {
	f := newCheckFixture(t)
	for name, edit := range map[string]func(a *x402.Authorization, d *x402test.Domain){
		"as clients sign it":  nil,
		"more than the price": func(a *x402.Authorization, _ *x402test.Domain) { a.Value = "1001" },
		"valid from now":      func(a *x402.Authorization, _ *x402test.Domain) { a.ValidAfter = "1900000000" },
		"valid one more second": func(a *x402.Authorization, _ *x402test.Domain) {
			a.ValidBefore = "1900000001"
		},
		"lower-case addresses": func(a *x402.Authorization, _ *x402test.Domain) {
			a.From, a.To = strings.ToLower(a.From), strings.ToLower(a.To)
		},
	} {
		if err := f.check(x402test.Header(t, f.signed(t, edit))); err != nil {
			t.Errorf("%s: refused: %v", name, err)
		}
	}
	// Unpadded and URL-safe base64 are read too.
	h := x402test.Header(t, f.signed(t, nil))
	raw, _ := base64.StdEncoding.DecodeString(h)
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.URLEncoding} {
		if err := f.check(enc.EncodeToString(raw)); err != nil {
			t.Errorf("base64 variant refused: %v", err)
		}
	}
}

func TestCheckRefuses(t *testing.T) {
	f := newCheckFixture(t)
	other := x402test.NewPayer(t)
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	withSig := func(p x402.PaymentPayload, sig []byte) x402.PaymentPayload {
		p.Payload.Signature = "0x" + hex.EncodeToString(sig)
		return p
	}
	good := f.signed(t, nil)
	goodSig, _ := hex.DecodeString(good.Payload.Signature[2:])
	setV := func(v byte) []byte {
		s := append([]byte(nil), goodSig...)
		s[64] = v
		return s
	}
	edited := func(edit func(p *x402.PaymentPayload)) string {
		p := good
		edit(&p)
		return x402test.Header(t, p)
	}

	cases := []struct {
		name, header, want string
	}{
		{"bad base64", "not*base64!", "not valid base64"},
		{"bad JSON", b64(`{"x402Version":1,`), "not valid JSON"},
		{"JSON array", b64(`[1,2]`), "not a JSON object"},
		{"version as text", b64(`{"x402Version":"1"}`), "field x402Version: must be of type number"},
		{"missing version", b64(`{"scheme":"exact"}`), "missing field x402Version"},
		{"missing payload", b64(`{"x402Version":1,"scheme":"exact","network":"base-sepolia"}`), "missing field payload"},
		{"missing nonce", b64(strings.Replace(string(mustJSON(t, good)), `"nonce":`, `"nonce_":`, 1)), "missing field payload.authorization.nonce"},
		{"wrong version", edited(func(p *x402.PaymentPayload) { p.X402Version = 2 }), "X-PAYMENT carries x402 v1 payments"},
		{"unknown version", edited(func(p *x402.PaymentPayload) { p.X402Version = 7 }), "x402Version 7 is not supported"},
		{"wrong scheme", edited(func(p *x402.PaymentPayload) { p.Scheme = "upto" }), "scheme is not supported"},
		{"wrong network", edited(func(p *x402.PaymentPayload) { p.Network = "base" }), "network does not match"},
		{"wrong asset", x402test.Header(t, f.signed(t, func(_ *x402.Authorization, d *x402test.Domain) {
			d.Contract = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
		})), "was not made by payload.authorization.from"},
		{"wrong chain", x402test.Header(t, f.signed(t, func(_ *x402.Authorization, d *x402test.Domain) { d.ChainID = 8453 })),
			"was not made by payload.authorization.from"},
		{"wrong domain name", x402test.Header(t, f.signed(t, func(_ *x402.Authorization, d *x402test.Domain) { d.Name = "USD Coin" })),
			"was not made by payload.authorization.from"},
		{"wrong pay-to", x402test.Header(t, f.signed(t, func(a *x402.Authorization, _ *x402test.Domain) { a.To = other.Address.Hex() })),
			"payload.authorization.to is not the payee"},
		{"too little value", x402test.Header(t, f.signed(t, func(a *x402.Authorization, _ *x402test.Domain) { a.Value = "999" })),
			"below the price"},
		{"expired", x402test.Header(t, f.signed(t, func(a *x402.Authorization, _ *x402test.Domain) { a.ValidBefore = "1900000000" })),
			"expired"},
		{"not yet valid", x402test.Header(t, f.signed(t, func(a *x402.Authorization, _ *x402test.Domain) { a.ValidAfter = "1900000001" })),
			"not valid yet"},
		{"forged signature", x402test.Header(t, withSig(good, other.SignBytes(t, good.Payload.Authorization, x402test.DomainOf(f.req)))),
			"was not made by payload.authorization.from"},
		{"value raised after signing", edited(func(p *x402.PaymentPayload) { p.Payload.Authorization.Value = "2000" }),
			"was not made by payload.authorization.from"},
		{"high-s signature", x402test.Header(t, withSig(good, x402test.HighS(goodSig))), "upper half of the curve order"},
		{"v = 0", x402test.Header(t, withSig(good, setV(goodSig[64]-27))), "v must be 27 or 28"},
		{"v = 29", x402test.Header(t, withSig(good, setV(29))), "v must be 27 or 28"},
		{"smart-wallet signature", x402test.Header(t, withSig(good, append(append([]byte(nil), goodSig...), 1, 2, 3))),
			"65-byte signature"},
		{"bad from", edited(func(p *x402.PaymentPayload) { p.Payload.Authorization.From = "0x1234" }), "payload.authorization.from: want an address"},
		{"value with exponent", edited(func(p *x402.PaymentPayload) { p.Payload.Authorization.Value = "1e3" }), "payload.authorization.value: want a decimal integer"},
		{"value over uint256", edited(func(p *x402.PaymentPayload) {
			p.Payload.Authorization.Value = new(big.Int).Lsh(big.NewInt(1), 256).String()
		}), "payload.authorization.value: want a uint256"},
		{"short nonce", edited(func(p *x402.PaymentPayload) { p.Payload.Authorization.Nonce = "0x1234" }), "payload.authorization.nonce: want 32 bytes"},
	}
	for _, tc := range cases {
		err := f.check(tc.header)
		var pe *x402.PaymentError
		if !errors.As(err, &pe) || pe.Status != 402 || !strings.Contains(pe.Reason, tc.want) {
			t.Errorf("%s: %v, want a 402 saying %q", tc.name, err, tc.want)
		}
	}
	// The untouched payment passes: the refusals above are each caused by their one change.
	if err := f.check(x402test.Header(t, good)); err != nil {
		t.Fatalf("the unchanged payment is refused: %v", err)
	}
}

func mustJSON(t *testing.T, p x402.PaymentPayload) []byte {
	h := x402test.Header(t, p)
	b, err := base64.StdEncoding.DecodeString(h)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRecoverSigner checks recovery against keys generated here, and that the high-s twin refused by
// RecoverSigner is otherwise a genuine signature of the same key (so its refusal is the malleability rule).
func TestRecoverSigner(t *testing.T) {
	for range 20 {
		p := x402test.NewPayer(t)
		digest := crypto.Keccak256([]byte(p.Address.Hex()))
		sig, err := crypto.Sign(digest, p.Key)
		if err != nil {
			t.Fatal(err)
		}
		sig[64] += 27
		got, err := x402.RecoverSigner(digest, sig)
		if err != nil || got != p.Address {
			t.Fatalf("RecoverSigner = %s, %v; want %s", got.Hex(), err, p.Address.Hex())
		}
		twin := x402test.HighS(sig)
		twin[64] -= 27
		pub, err := crypto.SigToPub(digest, twin)
		if err != nil || crypto.PubkeyToAddress(*pub) != p.Address {
			t.Fatalf("the high-s twin does not recover the same key: %v", err)
		}
		twin[64] += 27
		if _, err := x402.RecoverSigner(digest, twin); err == nil {
			t.Fatal("high-s signature accepted")
		}
	}
}

// TestTransferDigest checks the digest against one built independently from the authorization's strings.
func TestTransferDigest(t *testing.T) {
	f := newCheckFixture(t)
	pl := f.signed(t, nil)
	p, err := x402.Decode(x402.XPayment(x402test.Header(t, pl)))
	if err != nil {
		t.Fatal(err)
	}
	got, err := x402.TransferDigest(f.cfg.Domain(), p)
	if err != nil {
		t.Fatal(err)
	}
	if want := x402test.Digest(t, pl.Payload.Authorization, x402test.DomainOf(f.req)); hex.EncodeToString(got) != hex.EncodeToString(want) {
		t.Errorf("digest %x, want %x", got, want)
	}
}
