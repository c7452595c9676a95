-- +goose Up
-- Webhooks that cannot be turned against anyone (issue 34).
-- callback_host: the lower-case host name of callback_url, without port: the key of the per-host cap on live
--   subscriptions and of the worker's delivery lanes (round-robin, at most a few in flight per host). Rows made
--   before this migration get host:port, read off the URL here.
-- creator: an opaque key of the client that created the subscription (a hash, never the address itself), for the
--   per-client creation quota.
-- manage_token_hash: hex SHA-256 of the token DELETE needs; the token itself is shown once, at creation.
-- verified_at: when the callback echoed the verification challenge; events are fanned out to verified
--   subscriptions only. Rows made before this migration were receiving events already and count as verified.
-- verify_attempts, verify_next_at: the verification handshake's schedule (verify_next_at doubles as its lease).
ALTER TABLE webhook_subscriptions ADD COLUMN callback_host TEXT NOT NULL DEFAULT '';
ALTER TABLE webhook_subscriptions ADD COLUMN creator TEXT;
ALTER TABLE webhook_subscriptions ADD COLUMN manage_token_hash TEXT;
ALTER TABLE webhook_subscriptions ADD COLUMN verified_at DATETIME;
ALTER TABLE webhook_subscriptions ADD COLUMN verify_attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE webhook_subscriptions ADD COLUMN verify_next_at DATETIME;
UPDATE webhook_subscriptions SET verified_at = created_at,
    callback_host = lower(CASE WHEN instr(substr(callback_url, instr(callback_url, '://') + 3), '/') > 0
        THEN substr(substr(callback_url, instr(callback_url, '://') + 3), 1, instr(substr(callback_url, instr(callback_url, '://') + 3), '/') - 1)
        ELSE substr(callback_url, instr(callback_url, '://') + 3) END);
CREATE INDEX webhook_subscriptions_host ON webhook_subscriptions (callback_host) WHERE status = 'active';
CREATE INDEX webhook_subscriptions_creator ON webhook_subscriptions (creator, created_at) WHERE creator IS NOT NULL;
CREATE INDEX webhook_subscriptions_unverified ON webhook_subscriptions (verify_next_at) WHERE status = 'active' AND verified_at IS NULL;

-- priority orders due deliveries: 0 for status events, 1 for catalog events, so a burst of catalog changes never
-- holds a provider.down back.
ALTER TABLE webhook_deliveries ADD COLUMN priority INTEGER NOT NULL DEFAULT 0;
CREATE INDEX webhook_deliveries_due_priority ON webhook_deliveries (priority, next_attempt_at, id) WHERE status = 'pending';
DROP INDEX webhook_deliveries_due;

-- +goose Down
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at, id) WHERE status = 'pending';
DROP INDEX webhook_deliveries_due_priority;
ALTER TABLE webhook_deliveries DROP COLUMN priority;
DROP INDEX webhook_subscriptions_unverified;
DROP INDEX webhook_subscriptions_creator;
DROP INDEX webhook_subscriptions_host;
ALTER TABLE webhook_subscriptions DROP COLUMN verify_next_at;
ALTER TABLE webhook_subscriptions DROP COLUMN verify_attempts;
ALTER TABLE webhook_subscriptions DROP COLUMN verified_at;
ALTER TABLE webhook_subscriptions DROP COLUMN manage_token_hash;
ALTER TABLE webhook_subscriptions DROP COLUMN creator;
ALTER TABLE webhook_subscriptions DROP COLUMN callback_host;
