-- name: InsertTrustRecord :exec
INSERT INTO trust_records (id, kind, created_at, provider_id, model, payload_hash, agent_id, from_agent, to_agent, task_id, context_hash)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?);

-- name: GetTrustRecord :one
SELECT id, kind, created_at, provider_id, model, payload_hash, agent_id, from_agent, to_agent, task_id, context_hash
FROM trust_records
WHERE id = ?;
