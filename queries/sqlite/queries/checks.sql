-- name: InsertCheck :one
INSERT INTO checks (provider_id, checked_at, outcome, failure_kind, response_time_ms, http_status, detail)
VALUES (?, ?, ?, ?, ?, ?, ?)
RETURNING id;

-- name: LatestCheckPerProvider :many
-- A full index scan: used once at start to rebuild the in-memory latest-status view, never per request.
SELECT c.id, c.provider_id, c.checked_at, c.outcome, c.failure_kind, c.response_time_ms, c.http_status, c.detail
FROM checks c
WHERE c.id = (
    SELECT c2.id FROM checks c2
    WHERE c2.provider_id = c.provider_id
    ORDER BY c2.checked_at DESC, c2.id DESC
    LIMIT 1
)
ORDER BY c.provider_id;

-- name: ChecksSince :many
-- Newest first, bounded by the caller's limit.
SELECT id, provider_id, checked_at, outcome, failure_kind, response_time_ms, http_status, detail
FROM checks
WHERE provider_id = sqlc.arg(provider_id) AND checked_at >= sqlc.arg(since)
ORDER BY checked_at DESC, id DESC
LIMIT sqlc.arg(max_rows);

-- name: DeleteChecksBefore :execrows
DELETE FROM checks WHERE checked_at < sqlc.arg(before);
