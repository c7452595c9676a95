-- name: GetProviderStates :many
SELECT provider_id, last_status, last_observed_at, open_incident_id FROM provider_state ORDER BY provider_id;

-- name: UpsertProviderState :exec
INSERT INTO provider_state (provider_id, last_status, last_observed_at, open_incident_id)
VALUES (?, ?, ?, ?)
ON CONFLICT (provider_id) DO UPDATE
SET last_status = excluded.last_status, last_observed_at = excluded.last_observed_at, open_incident_id = excluded.open_incident_id;

-- name: InsertStatusChange :exec
INSERT INTO status_changes (provider_id, changed_at, from_status, to_status, check_id) VALUES (?, ?, ?, ?, ?);

-- name: StatusChangesSince :many
SELECT id, provider_id, changed_at, from_status, to_status, check_id FROM status_changes
WHERE changed_at >= sqlc.arg(since)
ORDER BY changed_at DESC, id DESC
LIMIT sqlc.arg(max_rows);

-- name: InsertIncident :exec
INSERT INTO incidents (id, provider_id, severity, started_at, ended_at, description) VALUES (?, ?, ?, ?, ?, ?);

-- name: UpdateIncident :exec
UPDATE incidents SET severity = sqlc.arg(severity), ended_at = sqlc.arg(ended_at), description = sqlc.arg(description) WHERE id = sqlc.arg(id);

-- name: GetIncident :one
SELECT id, provider_id, severity, started_at, ended_at, description FROM incidents WHERE id = ?;

-- name: IncidentsSince :many
-- Incidents that started at or after since, or were still open then.
SELECT id, provider_id, severity, started_at, ended_at, description FROM incidents
WHERE started_at >= sqlc.arg(since) OR ended_at IS NULL OR ended_at >= sqlc.arg(since)
ORDER BY started_at DESC, id DESC
LIMIT sqlc.arg(max_rows);

-- name: InsertOutboxEvent :exec
INSERT INTO outbox (event_type, provider_id, payload, created_at, check_id) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (check_id, event_type) DO NOTHING;

-- name: OutboxAfter :many
SELECT id, event_type, provider_id, payload, created_at, check_id FROM outbox
WHERE id > sqlc.arg(after_id)
ORDER BY id
LIMIT sqlc.arg(max_rows);

-- name: DailyCheckCounts :many
-- Observed checks per provider and UTC day since a time: the uptime history's raw material.
SELECT provider_id,
       CAST(substr(checked_at, 1, 10) AS TEXT) AS day,
       CAST(sum(CASE WHEN outcome <> 'failed' THEN 1 ELSE 0 END) AS INTEGER) AS observed,
       CAST(sum(CASE WHEN outcome = 'outage' THEN 1 ELSE 0 END) AS INTEGER) AS outages,
       CAST(sum(CASE WHEN outcome = 'degraded' THEN 1 ELSE 0 END) AS INTEGER) AS degraded
FROM checks
WHERE checked_at >= sqlc.arg(since)
GROUP BY provider_id, day
ORDER BY provider_id, day;
