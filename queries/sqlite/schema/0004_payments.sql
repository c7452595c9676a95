-- +goose Up
-- x402 payments, one row per EIP-3009 authorization nonce ever accepted for checking. The primary key is what makes
-- a payment single-use: a request claims its nonce with an INSERT before the facilitator is asked anything, so two
-- requests carrying the same payment cannot both pass (the second insert conflicts).
--   claimed  the nonce is held by a request in flight (or one that died before settling: it stays held, safe);
--   settled  the facilitator settled the transfer and the data was served (tx_hash set);
--   failed   settlement was attempted and failed or its outcome is unknown: the nonce is never usable again.
-- A claim that ends before settlement was attempted (facilitator refused, unreachable, data not computed) is deleted,
-- so the same signed authorization may be retried. Addresses and the nonce are stored as lower-case hex.
CREATE TABLE payments (
    nonce        TEXT PRIMARY KEY,
    payer        TEXT NOT NULL,
    network      TEXT NOT NULL,
    asset        TEXT NOT NULL,
    amount       TEXT NOT NULL,
    valid_before DATETIME NOT NULL,
    state        TEXT NOT NULL CHECK (state IN ('claimed', 'settled', 'failed')),
    claimed_at   DATETIME NOT NULL,
    finished_at  DATETIME,
    tx_hash      TEXT
);
CREATE INDEX payments_payer ON payments (payer);

-- +goose Down
DROP TABLE payments;
