-- +goose Up
-- Quotas and retention for what clients create (issue 34).
-- creator: an opaque key of the client that made the record (a hash, never the address), for the per-client
--   creation quota; NULL for records made before this migration or in process.
ALTER TABLE trust_records ADD COLUMN creator TEXT;
CREATE INDEX trust_records_creator ON trust_records (creator, created_at) WHERE creator IS NOT NULL;
-- Retention deletes the oldest records first, in bounded batches.
CREATE INDEX trust_records_created ON trust_records (created_at);
CREATE INDEX webhook_subscriptions_deactivated ON webhook_subscriptions (deactivated_at) WHERE status = 'deactivated';

-- +goose Down
DROP INDEX webhook_subscriptions_deactivated;
DROP INDEX trust_records_created;
DROP INDEX trust_records_creator;
ALTER TABLE trust_records DROP COLUMN creator;
