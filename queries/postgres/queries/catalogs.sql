-- name: InsertCatalogBuild :one
INSERT INTO catalog_builds (digest, base, files, events, created_at, state, hold, pending, summary, probation)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
RETURNING id;

-- name: PruneCatalogBuilds :exec
-- Keeps the newest builds only: the service reads the newest installed one, the one before is kept for an operator
-- to compare; a held build stays until it is decided; a few decided ones stay so that the same build is not held
-- again after a reject.
DELETE FROM catalog_builds
WHERE (state = 'installed' AND id NOT IN (SELECT id FROM catalog_builds WHERE state = 'installed' ORDER BY id DESC LIMIT 2))
   OR (state IN ('rejected', 'superseded') AND id NOT IN (SELECT id FROM catalog_builds WHERE state IN ('rejected', 'superseded') ORDER BY id DESC LIMIT 4));

-- name: SupersedeHeldCatalogBuilds :exec
-- A newer build replaces any held one: at most one build waits for an operator.
UPDATE catalog_builds SET state = 'superseded', decided_at = $1 WHERE state = 'held';

-- name: LatestCatalogBuildHead :one
-- The newest installed build without its files: replicas look at it every minute and fetch the files only when it
-- is new.
SELECT id, digest, base, events, created_at, probation FROM catalog_builds WHERE state = 'installed' ORDER BY id DESC LIMIT 1;

-- name: HeldCatalogBuildHead :one
SELECT id, digest, base, events, created_at, hold FROM catalog_builds WHERE state = 'held' ORDER BY id DESC LIMIT 1;

-- name: CatalogBuildByDigest :one
-- The newest build of a digest, whatever its state, without its files.
SELECT id, digest, base, events, created_at, state, hold, pending, summary FROM catalog_builds WHERE digest = $1 ORDER BY id DESC LIMIT 1 FOR UPDATE;

-- name: SetCatalogBuildState :exec
UPDATE catalog_builds SET state = $1, decided_at = $2 WHERE id = $3;

-- name: GetCatalogBuild :one
SELECT id, digest, base, files, events, created_at, state, probation FROM catalog_builds WHERE id = $1;

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
