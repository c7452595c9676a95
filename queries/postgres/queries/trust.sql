-- name: InsertTrustRecord :exec
INSERT INTO trust_records (id, kind, created_at, provider_id, model, payload_hash, agent_id, from_agent, to_agent, task_id, context_hash, creator)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12);

-- name: GetTrustRecord :one
SELECT id, kind, created_at, provider_id, model, payload_hash, agent_id, from_agent, to_agent, task_id, context_hash
FROM trust_records
WHERE id = $1;

-- name: CountTrustRecordsByCreator :one
SELECT count(*) FROM trust_records WHERE creator = sqlc.arg(creator) AND created_at >= sqlc.arg(since);

-- name: DeleteTrustRecordsBefore :execrows
-- The oldest first, at most limit of them: one statement never holds the database for long.
DELETE FROM trust_records WHERE id IN (
    SELECT old.id FROM trust_records old WHERE old.created_at < sqlc.arg(before) ORDER BY old.created_at LIMIT sqlc.arg(max_rows)
);
