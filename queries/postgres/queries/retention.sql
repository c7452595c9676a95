-- Retention of what clients leave behind. Kept apart from webhooks.sql: the webhook worker never runs these.

-- name: DeleteDeactivatedSubscriptionsBefore :execrows
-- Subscriptions deactivated before the cut-off, the oldest first, at most max_rows of them; their deliveries go
-- with them (ON DELETE CASCADE).
DELETE FROM webhook_subscriptions WHERE id IN (
    SELECT old.id FROM webhook_subscriptions old
    WHERE old.status = 'deactivated' AND old.deactivated_at < sqlc.arg(before)
    ORDER BY old.deactivated_at LIMIT sqlc.arg(max_rows)
);
