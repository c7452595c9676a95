package x402

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

// Domain is the EIP-712 domain of the token contract that executes the transfer.
type Domain struct {
	Name              string // extra.name of the requirements (the contract's name())
	Version           string // extra.version
	ChainID           int64
	VerifyingContract common.Address // the asset
}

// Domain returns the EIP-712 domain signatures must be made for under this configuration.
func (c Config) Domain() Domain {
	return Domain{Name: c.AssetName, Version: c.AssetVersion, ChainID: c.Network.ChainID, VerifyingContract: c.Asset}
}

// eip3009Types are the EIP-712 types of EIP-3009's TransferWithAuthorization, with the standard domain type.
var eip3009Types = apitypes.Types{
	"EIP712Domain": {
		{Name: "name", Type: "string"},
		{Name: "version", Type: "string"},
		{Name: "chainId", Type: "uint256"},
		{Name: "verifyingContract", Type: "address"},
	},
	"TransferWithAuthorization": {
		{Name: "from", Type: "address"},
		{Name: "to", Type: "address"},
		{Name: "value", Type: "uint256"},
		{Name: "validAfter", Type: "uint256"},
		{Name: "validBefore", Type: "uint256"},
		{Name: "nonce", Type: "bytes32"},
	},
}

// TransferDigest returns the EIP-712 digest (keccak256 of 0x1901 ‖ domainSeparator ‖ hashStruct(message)) that
// the payer signs for the payment's authorization under domain d.
func TransferDigest(d Domain, p *Payment) ([]byte, error) {
	td := apitypes.TypedData{
		Types:       eip3009Types,
		PrimaryType: "TransferWithAuthorization",
		Domain: apitypes.TypedDataDomain{
			Name: d.Name, Version: d.Version, ChainId: math.NewHexOrDecimal256(d.ChainID),
			VerifyingContract: d.VerifyingContract.Hex(),
		},
		Message: apitypes.TypedDataMessage{
			"from":        p.From.Hex(),
			"to":          p.To.Hex(),
			"value":       new(big.Int).Set(p.Value),
			"validAfter":  new(big.Int).Set(p.ValidAfter),
			"validBefore": new(big.Int).Set(p.ValidBefore),
			"nonce":       p.Nonce[:],
		},
	}
	digest, _, err := apitypes.TypedDataAndHash(td)
	if err != nil {
		return nil, fmt.Errorf("hashing the EIP-712 TransferWithAuthorization: %w", err)
	}
	return digest, nil
}

// Signature problems, told apart so the caller learns which rule the signature broke.
var (
	errSigLength = errors.New("signature is not 65 bytes")
	errSigV      = errors.New("signature v must be 27 or 28")
	errSigHighS  = errors.New("signature s is in the upper half of the curve order (malleable signature)")
	errSigRange  = errors.New("signature r or s is out of range")
)

// secp256k1N and its half bound the signature values (go-ethereum keeps its own copies unexported).
var (
	secp256k1N     = crypto.S256().Params().N
	secp256k1HalfN = new(big.Int).Rsh(secp256k1N, 1)
)

// RecoverSigner returns the address whose key made sig (r ‖ s ‖ v) over digest. It accepts only what the token
// contract's ecrecover accepts, so that a payment passing here cannot fail on chain for its form: v is 27 or 28
// (0 and 1 are refused), and s lies in the lower half of the curve order (EIP-2: the other, malleable twin of a
// signature is refused).
func RecoverSigner(digest, sig []byte) (common.Address, error) {
	if len(sig) != 65 {
		return common.Address{}, errSigLength
	}
	v := sig[64]
	if v != 27 && v != 28 {
		return common.Address{}, errSigV
	}
	r, s := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:64])
	if s.Cmp(secp256k1HalfN) > 0 {
		return common.Address{}, errSigHighS
	}
	if !crypto.ValidateSignatureValues(v-27, r, s, true) {
		return common.Address{}, errSigRange
	}
	rsv := make([]byte, 65)
	copy(rsv, sig)
	rsv[64] = v - 27 // go-ethereum's recovery id
	pub, err := crypto.SigToPub(digest, rsv)
	if err != nil {
		return common.Address{}, fmt.Errorf("recovering the signer: %w", err)
	}
	return crypto.PubkeyToAddress(*pub), nil
}
