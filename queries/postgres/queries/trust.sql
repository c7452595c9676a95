-- name: InsertTrustRecord :exec
INSERT INTO trust_records (id, kind, created_at, provider_id, model, payload_hash, agent_id, from_agent, to_agent, task_id, context_hash)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11);

-- name: GetTrustRecord :one
SELECT id, kind, created_at, provider_id, model, payload_hash, agent_id, from_agent, to_agent, task_id, context_hash
FROM trust_records
WHERE id = $1;
