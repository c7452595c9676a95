package store

import (
	"context"
	"errors"
	"regexp"
	"time"
)

// ErrNonceUsed is returned by ClaimPayment when the payment's nonce was claimed before, whatever became of it.
var ErrNonceUsed = errors.New("payment nonce already used")

// PaymentState is where one x402 payment is in its life.
type PaymentState string

// The states of a payment. A claim whose settlement was never attempted is deleted (ReleasePayment) rather
// than given a state: its signed authorization may then be presented again.
const (
	// PaymentClaimed: a request holds the nonce and has not finished (or died before settling; it stays held).
	PaymentClaimed PaymentState = "claimed"
	// PaymentSettled: the facilitator settled the transfer; the data was served once.
	PaymentSettled PaymentState = "settled"
	// PaymentFailed: settlement was attempted and failed or its outcome is unknown; the nonce is spent for good.
	PaymentFailed PaymentState = "failed"
)

// Payment is one x402 payment, keyed by its EIP-3009 nonce. Addresses and the nonce are lower-case hex.
type Payment struct {
	Nonce       string // 0x + 64 hex
	Payer       string // authorization.from, 0x + 40 hex
	Network     string // x402 network name, e.g. base
	Asset       string // token contract, 0x + 40 hex
	Amount      string // authorized value in the asset's smallest unit, decimal
	ValidBefore time.Time
	State       PaymentState
	ClaimedAt   time.Time
	FinishedAt  *time.Time
	Transaction *string // settlement transaction hash, when settled
}

// PaymentStore remembers x402 payment nonces so that one signed payment is served at most once, across
// concurrent requests and replicas. Implemented in store/sqlite_payments.go and store/postgres_payments.go.
type PaymentStore interface {
	// ClaimPayment records p's nonce in state claimed, atomically: of two concurrent claims of one nonce exactly
	// one succeeds; the other, and every later one, gets ErrNonceUsed.
	ClaimPayment(ctx context.Context, p Payment) error
	// ReleasePayment deletes a claim still in state claimed, so its authorization may be presented again. It
	// never touches a settled or failed payment: then, or when there is no such nonce, it returns ErrNotFound.
	ReleasePayment(ctx context.Context, nonce string) error
	// FinishPayment moves a claimed payment to settled or failed, with the settlement transaction if known.
	// It returns ErrNotFound when the nonce is not in state claimed.
	FinishPayment(ctx context.Context, nonce string, state PaymentState, tx *string, at time.Time) error
	// GetPayment returns the payment with that nonce, or ErrNotFound.
	GetPayment(ctx context.Context, nonce string) (Payment, error)
}

var (
	nonceRe   = regexp.MustCompile(`^0x[0-9a-f]{64}$`)
	addressRe = regexp.MustCompile(`^0x[0-9a-f]{40}$`)
	amountRe  = regexp.MustCompile(`^[0-9]{1,78}$`)
)

func validatePayment(p Payment) error {
	switch {
	case !nonceRe.MatchString(p.Nonce):
		return errorf("payment nonce %q: want 0x and 64 lower-case hex digits", p.Nonce)
	case !addressRe.MatchString(p.Payer):
		return errorf("payment payer %q: want 0x and 40 lower-case hex digits", p.Payer)
	case !addressRe.MatchString(p.Asset):
		return errorf("payment asset %q: want 0x and 40 lower-case hex digits", p.Asset)
	case p.Network == "":
		return errorf("payment without network")
	case !amountRe.MatchString(p.Amount):
		return errorf("payment amount %q: want a decimal integer", p.Amount)
	case p.ValidBefore.IsZero() || p.ClaimedAt.IsZero():
		return errorf("payment needs valid_before and claimed_at")
	}
	return nil
}

func validateFinish(nonce string, state PaymentState, at time.Time) error {
	if !nonceRe.MatchString(nonce) {
		return errorf("payment nonce %q: want 0x and 64 lower-case hex digits", nonce)
	}
	if state != PaymentSettled && state != PaymentFailed {
		return errorf("payment can only finish as settled or failed, not %q", state)
	}
	if at.IsZero() {
		return errorf("payment finish without a time")
	}
	return nil
}

// paymentRow has the fields of both engines' sqlc Payment model (see rows.go).
type paymentRow struct {
	Nonce       string
	Payer       string
	Network     string
	Asset       string
	Amount      string
	ValidBefore time.Time
	State       string
	ClaimedAt   time.Time
	FinishedAt  *time.Time
	TxHash      *string
}

func (r paymentRow) payment() Payment {
	return Payment{
		Nonce: r.Nonce, Payer: r.Payer, Network: r.Network, Asset: r.Asset, Amount: r.Amount,
		ValidBefore: r.ValidBefore.UTC(), State: PaymentState(r.State), ClaimedAt: r.ClaimedAt.UTC(),
		FinishedAt: normPtrTime(r.FinishedAt), Transaction: r.TxHash,
	}
}
