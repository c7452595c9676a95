-- name: ClaimPayment :execrows
-- One row or none: 0 rows affected means the nonce was already there, whatever its state.
INSERT INTO payments (nonce, payer, network, asset, amount, valid_before, state, claimed_at)
VALUES (sqlc.arg(nonce), sqlc.arg(payer), sqlc.arg(network), sqlc.arg(asset), sqlc.arg(amount), sqlc.arg(valid_before), 'claimed', sqlc.arg(claimed_at))
ON CONFLICT (nonce) DO NOTHING;

-- name: ReleasePayment :execrows
-- Only a claim whose settlement was never attempted can be given back.
DELETE FROM payments WHERE nonce = sqlc.arg(nonce) AND state = 'claimed';

-- name: FinishPayment :execrows
UPDATE payments
SET state = sqlc.arg(state), tx_hash = sqlc.narg(tx_hash), finished_at = sqlc.arg(finished_at)
WHERE nonce = sqlc.arg(nonce) AND state = 'claimed';

-- name: GetPayment :one
SELECT nonce, payer, network, asset, amount, valid_before, state, claimed_at, finished_at, tx_hash
FROM payments
WHERE nonce = sqlc.arg(nonce);
