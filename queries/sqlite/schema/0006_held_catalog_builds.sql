-- +goose Up
-- A catalog build that moves too much is held (issue 34): stored, not served, until an operator approves or rejects
-- it (switchboard catalogs approve|reject <digest>). state is installed, held, rejected or superseded (a held build
-- a newer build replaced); replicas load the newest installed build only, so an approval in the store is what
-- every replica follows. hold is the gate's counts (JSON), pending the events a held build will announce once
-- approved (JSON), summary the one catalog.changed outbox event sent instead of them when there are many (JSON,
-- NULL: each event goes out), probation the models kept out of rankings until a second source or a date (JSON).
ALTER TABLE catalog_builds ADD COLUMN state TEXT NOT NULL DEFAULT 'installed';
ALTER TABLE catalog_builds ADD COLUMN hold TEXT NOT NULL DEFAULT '{}';
ALTER TABLE catalog_builds ADD COLUMN pending TEXT NOT NULL DEFAULT '[]';
ALTER TABLE catalog_builds ADD COLUMN summary TEXT;
ALTER TABLE catalog_builds ADD COLUMN probation TEXT NOT NULL DEFAULT '{}';
ALTER TABLE catalog_builds ADD COLUMN decided_at DATETIME;

-- +goose Down
ALTER TABLE catalog_builds DROP COLUMN decided_at;
ALTER TABLE catalog_builds DROP COLUMN probation;
ALTER TABLE catalog_builds DROP COLUMN summary;
ALTER TABLE catalog_builds DROP COLUMN pending;
ALTER TABLE catalog_builds DROP COLUMN hold;
ALTER TABLE catalog_builds DROP COLUMN state;
