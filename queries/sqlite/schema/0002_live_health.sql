-- +goose Up
-- The status state machine's memory: the last observed status of each provider and its open incident, so that a
-- restart resumes exactly where the last check left off.
CREATE TABLE provider_state (
    provider_id      TEXT PRIMARY KEY,
    last_status      TEXT NOT NULL CHECK (last_status IN ('operational', 'degraded', 'outage')),
    last_observed_at DATETIME NOT NULL,
    open_incident_id TEXT
);

-- The status changelog: one row per change between observed statuses.
CREATE TABLE status_changes (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    provider_id TEXT NOT NULL,
    changed_at  DATETIME NOT NULL,
    from_status TEXT NOT NULL,
    to_status   TEXT NOT NULL,
    check_id    INTEGER NOT NULL REFERENCES checks (id) ON DELETE CASCADE
);
CREATE INDEX status_changes_time ON status_changes (changed_at);

-- Incidents: maximal runs of consecutive non-operational observations; severity is the worst seen.
CREATE TABLE incidents (
    id          TEXT PRIMARY KEY,
    provider_id TEXT NOT NULL,
    severity    TEXT NOT NULL CHECK (severity IN ('degraded', 'outage')),
    started_at  DATETIME NOT NULL,
    ended_at    DATETIME,
    description TEXT NOT NULL
);
CREATE INDEX incidents_started ON incidents (started_at);
CREATE INDEX incidents_open ON incidents (provider_id) WHERE ended_at IS NULL;

-- The durable outbox of status events, written in the same transaction as the check that caused them. The
-- webhook worker delivers from it. (check_id, event_type) makes a replayed check unable to emit twice.
CREATE TABLE outbox (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    event_type  TEXT NOT NULL,
    provider_id TEXT NOT NULL,
    payload     TEXT NOT NULL,
    created_at  DATETIME NOT NULL,
    check_id    INTEGER NOT NULL,
    UNIQUE (check_id, event_type)
);

-- +goose Down
DROP TABLE outbox;
DROP TABLE incidents;
DROP TABLE status_changes;
DROP TABLE provider_state;
