-- +goose Up
-- Catalog builds made by the run-time refresh: every catalog file, as a gzip-compressed JSON object (name -> file).
-- base is the digest of the embedded catalogs the build started from: a binary with other embedded catalogs (an
-- upgrade) ignores builds made by another. Only the newest few are kept.
CREATE TABLE catalog_builds (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    digest     TEXT NOT NULL,
    base       TEXT NOT NULL,
    files      BLOB NOT NULL,
    events     INTEGER NOT NULL,
    created_at DATETIME NOT NULL
);

-- The change feed: what a refresh changed (catalog.price_changed, catalog.model_added, catalog.model_deprecated,
-- catalog.model_sunset). Each event is also queued in the outbox for webhook subscribers, with check_id set to the
-- negated event ID: the outbox's (check_id, event_type) key was made for status checks, and a negative ID can never
-- be a check's.
CREATE TABLE catalog_events (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    build_id    INTEGER NOT NULL,
    event_type  TEXT NOT NULL,
    provider_id TEXT NOT NULL,
    model_id    TEXT NOT NULL,
    payload     TEXT NOT NULL,
    created_at  DATETIME NOT NULL
);
CREATE INDEX catalog_events_created ON catalog_events (created_at, id);

-- +goose Down
DROP TABLE catalog_events;
DROP TABLE catalog_builds;
