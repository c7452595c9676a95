-- name: InsertCatalogBuild :one
INSERT INTO catalog_builds (digest, base, files, events, created_at) VALUES ($1, $2, $3, $4, $5)
RETURNING id;

-- name: PruneCatalogBuilds :exec
-- Keeps the newest builds only: the service reads the latest, the one before is kept for an operator to compare.
DELETE FROM catalog_builds WHERE id NOT IN (SELECT id FROM catalog_builds ORDER BY id DESC LIMIT 2);

-- name: LatestCatalogBuildHead :one
-- The newest build without its files: replicas look at it every minute and fetch the files only when it is new.
SELECT id, digest, base, events, created_at FROM catalog_builds ORDER BY id DESC LIMIT 1;

-- name: GetCatalogBuild :one
SELECT id, digest, base, files, events, created_at FROM catalog_builds WHERE id = $1;

-- name: InsertCatalogEvent :one
INSERT INTO catalog_events (build_id, event_type, provider_id, model_id, payload, created_at) VALUES ($1, $2, $3, $4, $5, $6)
RETURNING id;

-- name: CatalogEventsSince :many
SELECT id, build_id, event_type, provider_id, model_id, payload, created_at FROM catalog_events
WHERE created_at >= sqlc.arg(since)
ORDER BY created_at DESC, id DESC
LIMIT sqlc.arg(max_rows);

-- name: DeleteCatalogEventsBefore :execrows
DELETE FROM catalog_events WHERE created_at < $1;
