package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/switchboard/switchboard/gen/pgdb"
)

// ClaimPayment relies on the primary key: INSERT ... ON CONFLICT DO NOTHING waits for a concurrent insert of the
// same nonce to commit and then affects no row, so of two concurrent claims, even on two replicas, exactly one inserts.
func (s *postgresStore) ClaimPayment(ctx context.Context, p Payment) error {
	if err := validatePayment(p); err != nil {
		return err
	}
	n, err := s.q.ClaimPayment(ctx, s.pool, pgdb.ClaimPaymentParams{
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

func (s *postgresStore) ReleasePayment(ctx context.Context, nonce string) error {
	n, err := s.q.ReleasePayment(ctx, s.pool, nonce)
	if err != nil {
		return fmt.Errorf("releasing payment nonce %s: %w", nonce, err)
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

func (s *postgresStore) FinishPayment(ctx context.Context, nonce string, state PaymentState, tx *string, at time.Time) error {
	if err := validateFinish(nonce, state, at); err != nil {
		return err
	}
	t := normTime(at)
	n, err := s.q.FinishPayment(ctx, s.pool, pgdb.FinishPaymentParams{State: string(state), TxHash: tx, FinishedAt: &t, Nonce: nonce})
	if err != nil {
		return fmt.Errorf("recording payment %s as %s: %w", nonce, state, err)
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

func (s *postgresStore) GetPayment(ctx context.Context, nonce string) (Payment, error) {
	row, err := s.q.GetPayment(ctx, s.pool, nonce)
	if errors.Is(err, pgx.ErrNoRows) {
		return Payment{}, ErrNotFound
	}
	if err != nil {
		return Payment{}, fmt.Errorf("reading payment %s: %w", nonce, err)
	}
	return paymentRow(row).payment(), nil
}
