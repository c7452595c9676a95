-- name: InsertWebhookSubscription :exec
INSERT INTO webhook_subscriptions (id, callback_url, events, providers, secret, metadata, status, created_at, expires_at,
    callback_host, creator, manage_token_hash, verified_at, verify_next_at)
VALUES ($1, $2, $3, $4, $5, $6, 'active', $7, $8, $9, $10, $11, $12, $13);

-- name: LockWebhookSubscriptionCreation :exec
-- Creations take turns (until the transaction ends), so two at once cannot both pass a cap with one place left.
SELECT pg_advisory_xact_lock(sqlc.arg(key)::bigint);

-- name: CountWebhookSubscriptionsByCreator :one
-- Deactivated ones count too: creating and deleting in a loop must not get round the quota.
SELECT count(*) FROM webhook_subscriptions WHERE creator = sqlc.arg(creator)::text AND created_at > sqlc.arg(since)::timestamptz;

-- name: CountLiveWebhookSubscriptionsForHost :one
SELECT count(*) FROM webhook_subscriptions WHERE status = 'active' AND callback_host = sqlc.arg(callback_host)::text;

-- name: CountLiveWebhookSubscriptions :one
SELECT count(*) FROM webhook_subscriptions WHERE status = 'active';

-- name: ClaimWebhookVerifications :many
-- Subscriptions whose verification handshake is due, at most one per creator (so that one client's many
-- subscriptions to receivers that never answer cannot hold other clients' handshakes back) and none of the hosts
-- the worker excludes (busy or behind an open breaker); verify_next_at is moved to the lease's end, so a worker
-- that dies mid-handshake leaves a subscription that comes due again. SKIP LOCKED lets replicas claim side by side.
WITH scan AS (
    SELECT s.id, COALESCE(s.creator, s.id) AS creator_key, s.verify_next_at FROM webhook_subscriptions s
    WHERE s.status = 'active' AND s.verified_at IS NULL AND s.verify_next_at <= sqlc.arg(now)::timestamptz
      AND (s.expires_at IS NULL OR s.expires_at > sqlc.arg(now)::timestamptz)
      AND NOT (s.callback_host = ANY(sqlc.arg(exclude_hosts)::text[]))
    ORDER BY s.verify_next_at, s.id
    LIMIT sqlc.arg(scan_rows)
), ranked AS (
    SELECT scan.id, scan.verify_next_at, ROW_NUMBER() OVER (PARTITION BY scan.creator_key ORDER BY scan.verify_next_at, scan.id) AS rn
    FROM scan
), picked AS (
    SELECT ranked.id FROM ranked WHERE ranked.rn = 1 ORDER BY ranked.verify_next_at, ranked.id LIMIT sqlc.arg(max_rows)
), locked AS (
    SELECT s.id FROM webhook_subscriptions s
    WHERE s.id = ANY(ARRAY(SELECT picked.id FROM picked)) AND s.status = 'active' AND s.verified_at IS NULL
      AND s.verify_next_at <= sqlc.arg(now)::timestamptz
    FOR UPDATE SKIP LOCKED
)
UPDATE webhook_subscriptions SET verify_next_at = sqlc.arg(lease_until)::timestamptz
WHERE webhook_subscriptions.id = ANY(ARRAY(SELECT locked.id FROM locked))
RETURNING webhook_subscriptions.id, webhook_subscriptions.callback_url, webhook_subscriptions.callback_host,
    webhook_subscriptions.secret, webhook_subscriptions.verify_attempts;

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
SELECT * FROM webhook_subscriptions WHERE id = $1;

-- name: DeactivateWebhookSubscription :execrows
-- Only an active subscription changes: a deactivated one keeps its first reason.
UPDATE webhook_subscriptions SET status = 'deactivated', deactivated_reason = sqlc.arg(reason), deactivated_at = sqlc.arg(at)
WHERE id = sqlc.arg(id) AND status = 'active';

-- name: ExpireWebhookSubscriptions :many
UPDATE webhook_subscriptions SET status = 'deactivated', deactivated_reason = 'expired', deactivated_at = expires_at
WHERE id IN (
    SELECT s.id FROM webhook_subscriptions s
    WHERE s.status = 'active' AND s.expires_at IS NOT NULL AND s.expires_at <= sqlc.arg(now)
    LIMIT sqlc.arg(max_rows)
    FOR UPDATE SKIP LOCKED)
RETURNING id;

-- name: CancelWebhookDeliveries :execrows
UPDATE webhook_deliveries SET status = 'cancelled', finished_at = sqlc.arg(at), locked_until = NULL
WHERE status = 'pending' AND subscription_id = ANY(sqlc.arg(subscription_ids)::text[]);

-- name: LockWebhookCursor :many
-- The fan-out runs on one replica at a time: whoever holds the cursor row. The others skip instead of waiting.
SELECT last_event_id FROM webhook_cursor WHERE name = 'outbox' FOR UPDATE SKIP LOCKED;

-- name: SetWebhookCursor :exec
UPDATE webhook_cursor SET last_event_id = $1 WHERE name = 'outbox';

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
SELECT s.id, sqlc.arg(event_id)::bigint, 'pending', 0, sqlc.arg(now)::timestamptz, sqlc.arg(now)::timestamptz, sqlc.arg(priority)::bigint
FROM webhook_subscriptions s
WHERE s.status = 'active' AND s.verified_at IS NOT NULL
  AND (s.expires_at IS NULL OR s.expires_at > sqlc.arg(now)::timestamptz)
  AND s.created_at <= sqlc.arg(event_created_at)::timestamptz
  AND strpos(s.events, sqlc.arg(event_needle)::text) > 0
  AND (s.providers IS NULL OR strpos(s.providers, sqlc.arg(provider_needle)::text) > 0)
ON CONFLICT (subscription_id, event_id) DO NOTHING;

-- name: MarkWebhookEventFanned :exec
INSERT INTO webhook_fanned_events (event_id, fanned_at) VALUES ($1, $2) ON CONFLICT (event_id) DO NOTHING;

-- name: FannedWebhookEventsAfter :many
SELECT event_id, fanned_at FROM webhook_fanned_events WHERE event_id > sqlc.arg(after_id) ORDER BY event_id LIMIT sqlc.arg(max_rows);

-- name: DeleteFannedWebhookEvents :exec
DELETE FROM webhook_fanned_events WHERE event_id <= $1;

-- name: ClaimWebhookDeliveries :many
-- Due deliveries of active, unexpired subscriptions that no worker holds, at most per_host per callback host and
-- none for the hosts the worker excludes (at their in-flight bound or behind an open breaker): status events
-- before catalog events, then oldest due first, then round-robin over hosts (each host's first delivery before
-- any host's second). The scan reads the priority index in order and stops after scan_rows. SKIP LOCKED lets
-- replicas claim side by side without waiting on or taking each other's rows; the lease (locked_until) keeps the
-- others off a claimed row while it is being sent, after this transaction has ended. IDs go through arrays so
-- each step is an index lookup.
WITH scan AS (
    SELECT d.id, d.priority, d.next_attempt_at, s.callback_host
    FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
    WHERE d.status = 'pending' AND d.next_attempt_at <= sqlc.arg(now)::timestamptz
      AND (d.locked_until IS NULL OR d.locked_until <= sqlc.arg(now)::timestamptz)
      AND s.status = 'active' AND (s.expires_at IS NULL OR s.expires_at > sqlc.arg(now)::timestamptz)
      AND NOT (s.callback_host = ANY(sqlc.arg(exclude_hosts)::text[]))
    ORDER BY d.priority, d.next_attempt_at, d.id
    LIMIT sqlc.arg(scan_rows)
), ranked AS (
    SELECT scan.id, scan.priority, scan.next_attempt_at,
           ROW_NUMBER() OVER (PARTITION BY scan.callback_host ORDER BY scan.priority, scan.next_attempt_at, scan.id) AS rn
    FROM scan
), picked AS (
    SELECT ranked.id FROM ranked WHERE ranked.rn <= sqlc.arg(per_host)::bigint
    ORDER BY ranked.priority, ranked.rn, ranked.next_attempt_at, ranked.id
    LIMIT sqlc.arg(max_rows)
), locked AS (
    SELECT d.id FROM webhook_deliveries d
    WHERE d.id = ANY(ARRAY(SELECT picked.id FROM picked)) AND d.status = 'pending'
      AND (d.locked_until IS NULL OR d.locked_until <= sqlc.arg(now)::timestamptz)
    FOR UPDATE SKIP LOCKED
), claimed AS (
    UPDATE webhook_deliveries SET locked_until = sqlc.arg(locked_until)::timestamptz
    WHERE webhook_deliveries.id = ANY(ARRAY(SELECT locked.id FROM locked))
    RETURNING webhook_deliveries.id, webhook_deliveries.subscription_id, webhook_deliveries.event_id, webhook_deliveries.attempts
)
SELECT c.id, c.subscription_id, c.event_id, c.attempts, s.callback_url, s.secret, s.callback_host,
       o.event_type, o.provider_id, o.payload, o.created_at AS event_created_at
FROM claimed c
JOIN webhook_subscriptions s ON s.id = c.subscription_id
JOIN outbox o ON o.id = c.event_id;

-- name: MarkWebhookDeliveryFailed :exec
-- A delivery cancelled while it was in flight stays cancelled.
UPDATE webhook_deliveries
SET status = CASE WHEN status = 'pending' THEN sqlc.arg(status)::text ELSE status END,
    attempts = attempts + 1, last_attempt_at = sqlc.arg(at), next_attempt_at = sqlc.arg(next_attempt_at),
    finished_at = sqlc.narg(finished_at), locked_until = NULL, last_error = sqlc.arg(last_error),
    last_status = sqlc.narg(last_status)
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

-- name: MarkWebhookDeliveriesSucceeded :exec
-- Many successes in one statement: a batch of outcomes is one round trip, not two per delivery.
UPDATE webhook_deliveries d
SET status = 'delivered', attempts = d.attempts + 1, last_attempt_at = u.at, finished_at = u.at,
    locked_until = NULL, last_error = NULL, last_status = u.last_status
FROM (SELECT unnest(sqlc.arg(ids)::bigint[]) AS id, unnest(sqlc.arg(ats)::timestamptz[]) AS at,
             unnest(sqlc.arg(statuses)::bigint[]) AS last_status) u
WHERE d.id = u.id;

-- name: CountWebhookSuccesses :exec
-- ids are distinct: the caller sums the successes of each subscription into counts.
UPDATE webhook_subscriptions s
SET fire_count = s.fire_count + u.n, consecutive_failures = 0, last_delivery_at = u.at
FROM (SELECT unnest(sqlc.arg(ids)::text[]) AS id, unnest(sqlc.arg(counts)::bigint[]) AS n,
             unnest(sqlc.arg(ats)::timestamptz[]) AS at) u
WHERE s.id = u.id;

-- name: PlainWebhookSecrets :many
-- Secrets stored as given (before an operator key was set), to be sealed.
SELECT id, secret FROM webhook_subscriptions
WHERE secret IS NOT NULL AND secret NOT LIKE 'enc:v1:%'
ORDER BY id
LIMIT sqlc.arg(max_rows);

-- name: ReplaceWebhookSecret :execrows
UPDATE webhook_subscriptions SET secret = sqlc.arg(sealed) WHERE id = sqlc.arg(id) AND secret = sqlc.arg(plain);
