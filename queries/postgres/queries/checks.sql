-- name: InsertCheck :one
INSERT INTO checks (provider_id, checked_at, outcome, failure_kind, response_time_ms, http_status, detail)
VALUES ($1, $2, $3, $4, $5, $6, $7)
RETURNING id;

-- name: LatestCheckPerProvider :many
-- A full index scan: used once at start to rebuild the in-memory latest-status view, never per request.
SELECT DISTINCT ON (provider_id) id, provider_id, checked_at, outcome, failure_kind, response_time_ms, http_status, detail
FROM checks
ORDER BY provider_id, checked_at DESC, id DESC;

-- name: ChecksSince :many
-- Newest first, bounded by the caller's limit.
SELECT id, provider_id, checked_at, outcome, failure_kind, response_time_ms, http_status, detail
FROM checks
WHERE provider_id = sqlc.arg(provider_id) AND checked_at >= sqlc.arg(since)
ORDER BY checked_at DESC, id DESC
LIMIT sqlc.arg(max_rows);

-- name: DeleteChecksBefore :execrows
DELETE FROM checks WHERE checked_at < sqlc.arg(before);
