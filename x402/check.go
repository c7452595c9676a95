package x402

import (
	"errors"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// Check verifies locally everything about a decoded payment that needs no chain or facilitator: protocol version,
// scheme, network, payee, amount, time window (validAfter <= now < validBefore) and the EIP-712 signature, which
// must recover authorization.from for this configuration's domain (asset contract, chain ID, name, version).
// A v2 payment also names the requirements it accepted: they must be the ones offered (scheme, network, amount,
// asset, payee). In v1 the asset is not a field of the payload: a payment signed for another token or another
// chain fails the signature check. Single use of the nonce is the store's part (Service.Serve). The checks are
// the same for both versions. Errors are *PaymentError.
func (c Config) Check(p *Payment, now time.Time) error {
	pl := p.Payload
	switch pl.X402Version {
	case Version1:
		switch {
		case pl.Scheme != SchemeExact:
			return refuse("scheme is not supported: want %s", SchemeExact)
		case pl.Network != c.Network.Name:
			return refuse("network does not match: want %s", c.Network.Name)
		}
	case Version2:
		a := pl.Accepted
		switch {
		case a == nil:
			return refuse("accepted is missing")
		case a.Scheme != SchemeExact:
			return refuse("accepted.scheme is not supported: want %s", SchemeExact)
		case a.Network != c.Network.CAIP2:
			return refuse("accepted.network does not match: want %s", c.Network.CAIP2)
		case !sameAddress(a.Asset, c.Asset):
			return refuse("accepted.asset does not match: want %s", c.Asset.Hex())
		case !sameAddress(a.PayTo, c.PayTo):
			return refuse("accepted.payTo is not the payee: want %s", c.PayTo.Hex())
		case a.Amount != c.Price.String():
			return refuse("accepted.amount does not match the price: want %s", c.Price)
		}
	default:
		return refuse("x402Version %d is not supported: want %d or %d", pl.X402Version, Version2, Version1)
	}
	switch {
	case p.To != c.PayTo:
		return refuse("payload.authorization.to is not the payee: want %s", c.PayTo.Hex())
	case p.Value.Cmp(c.Price) < 0:
		return refuse("payload.authorization.value is below the price: want at least %s", c.Price)
	}
	unix := big.NewInt(now.Unix())
	if p.ValidAfter.Cmp(unix) > 0 {
		return refuse("payment is not valid yet (validAfter is in the future)")
	}
	if p.ValidBefore.Cmp(unix) <= 0 {
		return refuse("payment has expired (validBefore has passed)")
	}
	digest, err := TransferDigest(c.Domain(), p)
	if err != nil {
		// The fields were checked by Decode; this cannot come from the caller's data.
		return err
	}
	signer, err := RecoverSigner(digest, p.Signature)
	switch {
	case errors.Is(err, errSigV), errors.Is(err, errSigHighS), errors.Is(err, errSigRange), errors.Is(err, errSigLength):
		return refuse("payload.signature: %v", err)
	case err != nil:
		return refuse("payload.signature: cannot be recovered")
	case signer != p.From:
		return refuse("payload.signature was not made by payload.authorization.from for %s on %s (wrong key, asset or network)",
			c.Asset.Hex(), c.Network.Name)
	}
	return nil
}

// sameAddress compares a payload's address field with a, ignoring case (clients may or may not checksum).
func sameAddress(s string, a common.Address) bool {
	return addressFieldRe.MatchString(s) && common.HexToAddress(s) == a
}
