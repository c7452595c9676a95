-- name: InsertWebhookSubscription :exec
INSERT INTO webhook_subscriptions (id, callback_url, events, providers, secret, metadata, status, created_at, expires_at,
    callback_host, creator, manage_token_hash, verified_at, verify_next_at)
VALUES (?, ?, ?, ?, ?, ?, 'active', ?, ?, ?, ?, ?, ?, ?);

-- name: CountWebhookSubscriptionsByCreator :one
-- Deactivated ones count too: creating and deleting in a loop must not get round the quota.
SELECT count(*) FROM webhook_subscriptions WHERE creator = sqlc.arg(creator) AND created_at > sqlc.arg(since);

-- name: CountLiveWebhookSubscriptionsForHost :one
SELECT count(*) FROM webhook_subscriptions WHERE status = 'active' AND callback_host = sqlc.arg(callback_host);

-- name: CountLiveWebhookSubscriptions :one
SELECT count(*) FROM webhook_subscriptions WHERE status = 'active';

-- name: DueWebhookVerifications :many
-- Subscriptions whose verification handshake is due, oldest due first, none of the hosts the worker excludes
-- (busy or behind an open breaker). The caller keeps one per creator, so that one client's many subscriptions
-- to receivers that never answer cannot hold other clients' handshakes back, and leases them in the same
-- transaction.
SELECT s.id, s.callback_host, s.verify_next_at, COALESCE(s.creator, s.id) AS creator_key FROM webhook_subscriptions s
WHERE s.status = 'active' AND s.verified_at IS NULL AND s.verify_next_at <= sqlc.arg(now)
  AND (s.expires_at IS NULL OR s.expires_at > sqlc.arg(now))
  AND s.callback_host NOT IN (SELECT value FROM json_each(sqlc.arg(exclude_hosts)))
ORDER BY s.verify_next_at, s.id
LIMIT sqlc.arg(scan_rows);

-- name: LeaseWebhookVerifications :many
-- verify_next_at moves to the lease's end: a worker that dies mid-handshake leaves a subscription that comes due
-- again then.
UPDATE webhook_subscriptions SET verify_next_at = sqlc.arg(lease_until)
WHERE id IN (sqlc.slice(ids))
RETURNING id, callback_url, callback_host, secret, verify_attempts;

-- name: MarkWebhookVerified :execrows
UPDATE webhook_subscriptions SET verified_at = sqlc.arg(at), verify_attempts = verify_attempts + 1, verify_next_at = NULL,
    last_error = NULL
WHERE id = sqlc.arg(id) AND status = 'active' AND verified_at IS NULL;

-- name: MarkWebhookVerifyFailed :execrows
-- next_at NULL ends the handshake: the caller deactivates the subscription.
UPDATE webhook_subscriptions SET verify_attempts = verify_attempts + 1, verify_next_at = sqlc.narg(next_at),
    last_error = sqlc.arg(last_error)
WHERE id = sqlc.arg(id) AND status = 'active' AND verified_at IS NULL;

-- name: GetWebhookSubscription :one
SELECT * FROM webhook_subscriptions WHERE id = ?;

-- name: DeactivateWebhookSubscription :execrows
-- Only an active subscription changes: a deactivated one keeps its first reason.
UPDATE webhook_subscriptions SET status = 'deactivated', deactivated_reason = sqlc.arg(reason), deactivated_at = sqlc.arg(at)
WHERE id = sqlc.arg(id) AND status = 'active';

-- name: ExpireWebhookSubscriptions :many
UPDATE webhook_subscriptions SET status = 'deactivated', deactivated_reason = 'expired', deactivated_at = expires_at
WHERE id IN (
    SELECT s.id FROM webhook_subscriptions s
    WHERE s.status = 'active' AND s.expires_at IS NOT NULL AND s.expires_at <= sqlc.arg(now)
    LIMIT sqlc.arg(max_rows))
RETURNING id;

-- name: CancelWebhookDeliveries :execrows
UPDATE webhook_deliveries SET status = 'cancelled', finished_at = sqlc.arg(at), locked_until = NULL
WHERE status = 'pending' AND subscription_id IN (sqlc.slice(subscription_ids));

-- name: GetWebhookCursor :one
SELECT last_event_id FROM webhook_cursor WHERE name = 'outbox';

-- name: SetWebhookCursor :exec
UPDATE webhook_cursor SET last_event_id = ? WHERE name = 'outbox';

-- name: UnfannedOutboxEvents :many
-- Events above the cursor not fanned out yet, oldest first.
SELECT o.id, o.event_type, o.provider_id, o.payload, o.created_at, o.check_id FROM outbox o
WHERE o.id > sqlc.arg(after_id) AND NOT EXISTS (SELECT 1 FROM webhook_fanned_events f WHERE f.event_id = o.id)
ORDER BY o.id
LIMIT sqlc.arg(max_rows);

-- name: InsertWebhookDeliveries :execrows
-- One pending delivery for every active, verified, unexpired subscription that existed when the event happened and
-- whose filters match it. events and providers are JSON arrays of plain identifiers (no quotes or escapes in
-- them), so looking for the quoted value is an exact element match.
INSERT INTO webhook_deliveries (subscription_id, event_id, status, attempts, next_attempt_at, created_at, priority)
SELECT s.id, sqlc.arg(event_id), 'pending', 0, sqlc.arg(now), sqlc.arg(now), sqlc.arg(priority)
FROM webhook_subscriptions s
WHERE s.status = 'active' AND s.verified_at IS NOT NULL
  AND (s.expires_at IS NULL OR s.expires_at > sqlc.arg(now))
  AND s.created_at <= sqlc.arg(event_created_at)
  AND instr(s.events, CAST(sqlc.arg(event_needle) AS TEXT)) > 0
  AND (s.providers IS NULL OR instr(s.providers, CAST(sqlc.arg(provider_needle) AS TEXT)) > 0)
ON CONFLICT (subscription_id, event_id) DO NOTHING;

-- name: MarkWebhookEventFanned :exec
INSERT INTO webhook_fanned_events (event_id, fanned_at) VALUES (?, ?) ON CONFLICT (event_id) DO NOTHING;

-- name: FannedWebhookEventsAfter :many
SELECT event_id, fanned_at FROM webhook_fanned_events WHERE event_id > sqlc.arg(after_id) ORDER BY event_id LIMIT sqlc.arg(max_rows);

-- name: DeleteFannedWebhookEvents :exec
DELETE FROM webhook_fanned_events WHERE event_id <= ?;

-- name: DueWebhookDeliveries :many
-- Due deliveries of active, unexpired subscriptions that no worker holds and whose host the worker does not
-- exclude (at its in-flight bound or behind an open breaker): status events before catalog events, then oldest
-- due first. The scan reads the priority index in order and stops after scan_rows; the caller picks round-robin
-- over hosts from it and leases its picks in the same transaction (SQLite has one writer: the transaction is the
-- lock).
SELECT d.id, d.priority, d.next_attempt_at, s.callback_host
FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
WHERE d.status = 'pending' AND d.next_attempt_at <= sqlc.arg(now)
  AND (d.locked_until IS NULL OR d.locked_until <= sqlc.arg(now))
  AND s.status = 'active' AND (s.expires_at IS NULL OR s.expires_at > sqlc.arg(now))
  AND s.callback_host NOT IN (SELECT value FROM json_each(sqlc.arg(exclude_hosts)))
ORDER BY d.priority, d.next_attempt_at, d.id
LIMIT sqlc.arg(scan_rows);

-- name: LeaseWebhookDeliveries :exec
UPDATE webhook_deliveries SET locked_until = sqlc.arg(locked_until) WHERE id IN (sqlc.slice(ids));

-- name: WebhookSendsByID :many
SELECT d.id, d.subscription_id, d.event_id, d.attempts, s.callback_url, s.secret, s.callback_host,
       o.event_type, o.provider_id, o.payload, o.created_at AS event_created_at
FROM webhook_deliveries d
JOIN webhook_subscriptions s ON s.id = d.subscription_id
JOIN outbox o ON o.id = d.event_id
WHERE d.id IN (sqlc.slice(ids))
ORDER BY d.id;

-- name: MarkWebhookDeliverySucceeded :exec
UPDATE webhook_deliveries
SET status = 'delivered', attempts = attempts + 1, last_attempt_at = sqlc.arg(at), finished_at = sqlc.arg(at),
    locked_until = NULL, last_error = NULL, last_status = sqlc.arg(last_status)
WHERE id = sqlc.arg(id);

-- name: MarkWebhookDeliveryFailed :exec
-- A delivery cancelled while it was in flight stays cancelled.
UPDATE webhook_deliveries
SET status = CASE WHEN status = 'pending' THEN sqlc.arg(status) ELSE status END,
    attempts = attempts + 1, last_attempt_at = sqlc.arg(at), next_attempt_at = sqlc.arg(next_attempt_at),
    finished_at = sqlc.narg(finished_at), locked_until = NULL, last_error = sqlc.arg(last_error),
    last_status = sqlc.narg(last_status)
WHERE id = sqlc.arg(id);

-- name: CountWebhookSuccess :exec
UPDATE webhook_subscriptions SET fire_count = fire_count + sqlc.arg(n), consecutive_failures = 0, last_delivery_at = sqlc.arg(at)
WHERE id = sqlc.arg(id);

-- name: CountWebhookFailure :one
UPDATE webhook_subscriptions
SET fail_count = fail_count + 1, consecutive_failures = consecutive_failures + 1, last_error = sqlc.arg(last_error),
    last_delivery_at = sqlc.arg(at)
WHERE id = sqlc.arg(id)
RETURNING consecutive_failures, status;

-- name: ListWebhookDeliveries :many
SELECT * FROM webhook_deliveries WHERE subscription_id = sqlc.arg(subscription_id) ORDER BY id LIMIT sqlc.arg(max_rows);

-- name: PruneWebhookDeliveries :execrows
DELETE FROM webhook_deliveries WHERE id IN (
    SELECT p.id FROM webhook_deliveries p WHERE p.status <> 'pending' AND p.finished_at < sqlc.arg(before) LIMIT sqlc.arg(max_rows));

-- name: PlainWebhookSecrets :many
-- Secrets stored as given (before an operator key was set), to be sealed.
SELECT id, secret FROM webhook_subscriptions
WHERE secret IS NOT NULL AND secret NOT LIKE 'enc:v1:%'
ORDER BY id
LIMIT sqlc.arg(max_rows);

-- name: ReplaceWebhookSecret :execrows
UPDATE webhook_subscriptions SET secret = sqlc.arg(sealed) WHERE id = sqlc.arg(id) AND secret = sqlc.arg(plain);
