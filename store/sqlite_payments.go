package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/switchboard/switchboard/gen/litedb"
)

// ClaimPayment relies on the primary key: SQLite has one writer at a time, and INSERT ... ON CONFLICT DO NOTHING
// affects no row when the nonce is already there, so of two concurrent claims exactly one inserts.
func (s *sqliteStore) ClaimPayment(ctx context.Context, p Payment) error {
	if err := validatePayment(p); err != nil {
		return err
	}
	n, err := s.q.ClaimPayment(ctx, s.db, litedb.ClaimPaymentParams{
		Nonce: p.Nonce, Payer: p.Payer, Network: p.Network, Asset: p.Asset, Amount: p.Amount,
		ValidBefore: normTime(p.ValidBefore), ClaimedAt: normTime(p.ClaimedAt),
	})
	if err != nil {
		return fmt.Errorf("claiming payment nonce %s: %w", p.Nonce, err)
	}
	if n == 0 {
		return ErrNonceUsed
	}
	return nil
}

func (s *sqliteStore) ReleasePayment(ctx context.Context, nonce string) error {
	n, err := s.q.ReleasePayment(ctx, s.db, nonce)
	if err != nil {
		return fmt.Errorf("releasing payment nonce %s: %w", nonce, err)
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

func (s *sqliteStore) FinishPayment(ctx context.Context, nonce string, state PaymentState, tx *string, at time.Time) error {
	if err := validateFinish(nonce, state, at); err != nil {
		return err
	}
	t := normTime(at)
	n, err := s.q.FinishPayment(ctx, s.db, litedb.FinishPaymentParams{State: string(state), TxHash: tx, FinishedAt: &t, Nonce: nonce})
	if err != nil {
		return fmt.Errorf("recording payment %s as %s: %w", nonce, state, err)
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

func (s *sqliteStore) GetPayment(ctx context.Context, nonce string) (Payment, error) {
	row, err := s.q.GetPayment(ctx, s.db, nonce)
	if errors.Is(err, sql.ErrNoRows) {
		return Payment{}, ErrNotFound
	}
	if err != nil {
		return Payment{}, fmt.Errorf("reading payment %s: %w", nonce, err)
	}
	return paymentRow(row).payment(), nil
}
