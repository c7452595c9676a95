// Package x402test has what tests of paid routes need: payers whose keys are generated in the test and who sign
// EIP-3009 authorizations with go-ethereum's EIP-712 hashing, and a facilitator on loopback that records the
// calls it gets and answers as the test says.
package x402test

import (
	"crypto/ecdsa"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"

	"github.com/switchboard/switchboard/config"
	"github.com/switchboard/switchboard/netguard"
	"github.com/switchboard/switchboard/x402"
)

// ChainIDs of the networks tests pay on; written out here rather than read from package x402, so that a wrong
// chain ID there fails the tests.
var ChainIDs = map[string]int64{"base": 8453, "base-sepolia": 84532, "eip155:8453": 8453, "eip155:84532": 84532}

// Payer holds a key generated in the test.
type Payer struct {
	Key     *ecdsa.PrivateKey
	Address common.Address
}

// NewPayer generates a fresh key.
func NewPayer(t testing.TB) *Payer {
	t.Helper()
	k, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return &Payer{Key: k, Address: crypto.PubkeyToAddress(k.PublicKey)}
}

// Domain is an EIP-712 domain to sign under.
type Domain struct {
	Name, Version string
	ChainID       int64
	Contract      string
}

// DomainOf is the domain a client derives from the requirements, as x402 clients do.
func DomainOf(req x402.Requirements) Domain {
	return Domain{Name: req.Extra.Name, Version: req.Extra.Version, ChainID: ChainIDs[req.Network], Contract: req.Asset}
}

// Authorization is what an x402 client signs for req at now: the full amount to payTo, valid from ten minutes
// ago until now + maxTimeoutSeconds, with a random nonce.
func (p *Payer) Authorization(req x402.Requirements, now time.Time) x402.Authorization {
	return x402.Authorization{
		From: p.Address.Hex(), To: req.PayTo, Value: req.Price(),
		ValidAfter:  big.NewInt(now.Add(-10 * time.Minute).Unix()).String(),
		ValidBefore: big.NewInt(now.Unix() + int64(req.MaxTimeoutSeconds)).String(),
		Nonce:       RandomNonce(),
	}
}

// RandomNonce returns 32 random bytes as 0x-prefixed hex.
func RandomNonce() string {
	b := make([]byte, 32)
	rand.Read(b)
	return "0x" + hex.EncodeToString(b)
}

// Digest is the EIP-712 digest of a TransferWithAuthorization, built from the authorization's strings.
func Digest(t testing.TB, a x402.Authorization, d Domain) []byte {
	t.Helper()
	td := apitypes.TypedData{
		Types: apitypes.Types{
			"EIP712Domain": {{Name: "name", Type: "string"}, {Name: "version", Type: "string"},
				{Name: "chainId", Type: "uint256"}, {Name: "verifyingContract", Type: "address"}},
			"TransferWithAuthorization": {{Name: "from", Type: "address"}, {Name: "to", Type: "address"},
				{Name: "value", Type: "uint256"}, {Name: "validAfter", Type: "uint256"},
				{Name: "validBefore", Type: "uint256"}, {Name: "nonce", Type: "bytes32"}},
		},
		PrimaryType: "TransferWithAuthorization",
		Domain: apitypes.TypedDataDomain{Name: d.Name, Version: d.Version, ChainId: math.NewHexOrDecimal256(d.ChainID),
			VerifyingContract: d.Contract},
		Message: apitypes.TypedDataMessage{"from": a.From, "to": a.To, "value": a.Value, "validAfter": a.ValidAfter,
			"validBefore": a.ValidBefore, "nonce": a.Nonce},
	}
	digest, _, err := apitypes.TypedDataAndHash(td)
	if err != nil {
		t.Fatalf("hashing typed data: %v", err)
	}
	return digest
}

// SignBytes signs a under d and returns r ‖ s ‖ v with v = 27 or 28, as wallets do.
func (p *Payer) SignBytes(t testing.TB, a x402.Authorization, d Domain) []byte {
	t.Helper()
	sig, err := crypto.Sign(Digest(t, a, d), p.Key)
	if err != nil {
		t.Fatal(err)
	}
	sig[64] += 27
	return sig
}

// Sign is SignBytes as 0x-prefixed hex.
func (p *Payer) Sign(t testing.TB, a x402.Authorization, d Domain) string {
	return "0x" + hex.EncodeToString(p.SignBytes(t, a, d))
}

// Payload is a complete, correctly signed x402 v1 payment for req (v1 requirements) at now.
func (p *Payer) Payload(t testing.TB, req x402.Requirements, now time.Time) x402.PaymentPayload {
	a := p.Authorization(req, now)
	return x402.PaymentPayload{X402Version: 1, Scheme: req.Scheme, Network: req.Network,
		Payload: x402.ExactPayload{Signature: p.Sign(t, a, DomainOf(req)), Authorization: a}}
}

// PayloadV2 is a complete, correctly signed x402 v2 payment for req (v2 requirements) at now, accepting req as
// it was offered and echoing resource.
func (p *Payer) PayloadV2(t testing.TB, req x402.Requirements, resource *x402.ResourceInfo, now time.Time) x402.PaymentPayload {
	a := p.Authorization(req, now)
	accepted := req
	return x402.PaymentPayload{X402Version: 2, Resource: resource, Accepted: &accepted,
		Payload: x402.ExactPayload{Signature: p.Sign(t, a, DomainOf(req)), Authorization: a}}
}

// Header encodes v (a payload, or anything else) as an X-PAYMENT header: base64 of its JSON.
func Header(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b)
}

// HighS turns a signature into its malleable twin: s' = n - s with the recovery bit flipped. It recovers the
// same address, and token contracts refuse it.
func HighS(sig []byte) []byte {
	n := crypto.S256().Params().N
	out := append([]byte(nil), sig...)
	s := new(big.Int).SetBytes(sig[32:64])
	new(big.Int).Sub(n, s).FillBytes(out[32:64])
	if v := out[64]; v >= 27 {
		out[64] = 27 + ((v - 27) ^ 1) // 27 <-> 28
	} else {
		out[64] = v ^ 1 // 0 <-> 1
	}
	return out
}

// Loopback is the outbound guard that lets a facilitator client reach the stand-in (the service's
// SWITCHBOARD_OUTBOUND_ALLOW_LOOPBACK).
var Loopback = netguard.Options{AllowLoopback: true}

// Config is a payment setup for tests on base-sepolia with a fresh payee, paying at facilitator.
func Config(t testing.TB, facilitator string) x402.Config {
	t.Helper()
	cfg, err := x402.ParseSettings(config.X402Settings{
		PayTo: NewPayer(t).Address.Hex(), Network: "base-sepolia", FacilitatorURL: facilitator, PriceUSD: "0.001",
	})
	if err != nil {
		t.Fatal(err)
	}
	cfg.FacilitatorTimeout = 2 * time.Second
	cfg.Outbound = Loopback // the facilitator stand-in is on loopback
	return cfg
}

// Call is one request the facilitator received.
type Call struct {
	Op  string // verify or settle
	Req x402.FacilitatorRequest
}

// Answer is how the facilitator answers one call: status and JSON body, after Delay.
type Answer struct {
	Status int
	Body   any
	Delay  time.Duration
}

// Facilitator is an x402 facilitator on loopback. By default it finds every payment valid and settles it with
// a random transaction hash; OnVerify and OnSettle change that.
type Facilitator struct {
	URL string

	mu       sync.Mutex
	calls    []Call
	onVerify func(x402.FacilitatorRequest) Answer
	onSettle func(x402.FacilitatorRequest) Answer
}

// NewFacilitator starts a facilitator, stopped when the test ends.
func NewFacilitator(t testing.TB) *Facilitator {
	f := &Facilitator{}
	srv := httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(srv.Close)
	f.URL = srv.URL
	return f
}

// DeadURL is a loopback address where nothing listens: connections are refused.
func DeadURL(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

// OnVerify sets the answer to /verify.
func (f *Facilitator) OnVerify(h func(x402.FacilitatorRequest) Answer) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.onVerify = h
}

// OnSettle sets the answer to /settle.
func (f *Facilitator) OnSettle(h func(x402.FacilitatorRequest) Answer) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.onSettle = h
}

// Calls returns the calls received so far.
func (f *Facilitator) Calls() []Call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Call(nil), f.calls...)
}

// Count returns how many calls of op were received.
func (f *Facilitator) Count(op string) int {
	n := 0
	for _, c := range f.Calls() {
		if c.Op == op {
			n++
		}
	}
	return n
}

// Valid is the default /verify answer.
func Valid(req x402.FacilitatorRequest) Answer {
	return Answer{Status: 200, Body: map[string]any{"isValid": true, "payer": req.PaymentPayload.Payload.Authorization.From}}
}

// Settled is the default /settle answer: success with a random transaction hash.
func Settled(req x402.FacilitatorRequest) Answer {
	return Answer{Status: 200, Body: map[string]any{"success": true, "transaction": RandomNonce(),
		"network": req.PaymentRequirements.Network, "payer": req.PaymentPayload.Payload.Authorization.From}}
}

func (f *Facilitator) serve(w http.ResponseWriter, r *http.Request) {
	var op string
	switch r.URL.Path {
	case "/verify":
		op = "verify"
	case "/settle":
		op = "settle"
	default:
		http.NotFound(w, r)
		return
	}
	var req x402.FacilitatorRequest
	if r.Method != http.MethodPost || json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&req) != nil {
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"isValid":false,"invalidReason":"invalid_payload"}`))
		return
	}
	f.mu.Lock()
	f.calls = append(f.calls, Call{Op: op, Req: req})
	h := map[string]func(x402.FacilitatorRequest) Answer{"verify": f.onVerify, "settle": f.onSettle}[op]
	f.mu.Unlock()
	if h == nil {
		h = map[string]func(x402.FacilitatorRequest) Answer{"verify": Valid, "settle": Settled}[op]
	}
	a := h(req)
	if a.Delay > 0 {
		select {
		case <-time.After(a.Delay):
		case <-r.Context().Done():
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(a.Status)
	json.NewEncoder(w).Encode(a.Body)
}
