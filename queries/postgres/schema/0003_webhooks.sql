-- +goose Up
-- Webhook subscriptions. events and providers are JSON arrays of plain identifiers (providers NULL = all
-- providers); metadata is the caller's JSON as given (NULL = none). The secret is kept because every delivery is
-- signed with it; it is never returned by a read. Delivery statistics live on the row the status read returns.
CREATE TABLE webhook_subscriptions (
    id                   TEXT PRIMARY KEY,
    callback_url         TEXT NOT NULL,
    events               TEXT NOT NULL,
    providers            TEXT,
    secret               TEXT,
    metadata             TEXT,
    status               TEXT NOT NULL CHECK (status IN ('active', 'deactivated')),
    deactivated_reason   TEXT CHECK (deactivated_reason IN ('unsubscribed', 'expired', 'delivery_failures', 'gone')),
    deactivated_at       TIMESTAMPTZ,
    created_at           TIMESTAMPTZ NOT NULL,
    expires_at           TIMESTAMPTZ,
    fire_count           BIGINT NOT NULL DEFAULT 0,
    fail_count           BIGINT NOT NULL DEFAULT 0,
    consecutive_failures BIGINT NOT NULL DEFAULT 0,
    last_error           TEXT,
    last_delivery_at     TIMESTAMPTZ
);
CREATE INDEX webhook_subscriptions_active ON webhook_subscriptions (created_at) WHERE status = 'active';
CREATE INDEX webhook_subscriptions_expiry ON webhook_subscriptions (expires_at) WHERE status = 'active' AND expires_at IS NOT NULL;

-- One row per (subscription, outbox event): the unique key makes fanning an event out twice harmless. A row is
-- pending until it is delivered, given up (failed) or its subscription is deactivated (cancelled). locked_until is
-- the lease of the worker that claimed it: a worker that dies mid-delivery leaves a lease that simply runs out.
CREATE TABLE webhook_deliveries (
    id              BIGSERIAL PRIMARY KEY,
    subscription_id TEXT NOT NULL REFERENCES webhook_subscriptions (id) ON DELETE CASCADE,
    event_id        BIGINT NOT NULL REFERENCES outbox (id) ON DELETE CASCADE,
    status          TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed', 'cancelled')),
    attempts        BIGINT NOT NULL DEFAULT 0,
    next_attempt_at TIMESTAMPTZ NOT NULL,
    locked_until    TIMESTAMPTZ,
    last_attempt_at TIMESTAMPTZ,
    last_error      TEXT,
    last_status     BIGINT,
    created_at      TIMESTAMPTZ NOT NULL,
    finished_at     TIMESTAMPTZ,
    UNIQUE (subscription_id, event_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at, id) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_finished ON webhook_deliveries (finished_at) WHERE status <> 'pending';

-- The fan-out cursor: every outbox event with an ID up to last_event_id has been fanned out. Events above it that
-- were fanned out already are listed in webhook_fanned_events until the cursor passes them.
CREATE TABLE webhook_cursor (
    name          TEXT PRIMARY KEY,
    last_event_id BIGINT NOT NULL
);
INSERT INTO webhook_cursor (name, last_event_id) VALUES ('outbox', 0);

CREATE TABLE webhook_fanned_events (
    event_id  BIGINT PRIMARY KEY,
    fanned_at TIMESTAMPTZ NOT NULL
);

-- +goose Down
DROP TABLE webhook_fanned_events;
DROP TABLE webhook_cursor;
DROP TABLE webhook_deliveries;
DROP TABLE webhook_subscriptions;
