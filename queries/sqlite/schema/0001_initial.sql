-- +goose Up
-- One row per status-page fetch. outcome 'failed' means no observation was made (timeout, DNS, TLS, 5xx, a body
-- that does not parse): it is never an outage. Times are stored as UTC text (modernc _time_format=sqlite).
CREATE TABLE checks (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    provider_id      TEXT NOT NULL,
    checked_at       DATETIME NOT NULL,
    outcome          TEXT NOT NULL CHECK (outcome IN ('operational', 'degraded', 'outage', 'failed')),
    failure_kind     TEXT,
    response_time_ms REAL,
    http_status      INTEGER,
    detail           TEXT
);
CREATE INDEX checks_provider_time ON checks (provider_id, checked_at DESC);
CREATE INDEX checks_time ON checks (checked_at);

-- Attestations and handoffs. Only SHA-256 hashes of submitted text are stored, never the text.
CREATE TABLE trust_records (
    id           TEXT PRIMARY KEY,
    kind         TEXT NOT NULL CHECK (kind IN ('attestation', 'handoff')),
    created_at   DATETIME NOT NULL,
    provider_id  TEXT,
    model        TEXT,
    payload_hash TEXT,
    agent_id     TEXT,
    from_agent   TEXT,
    to_agent     TEXT,
    task_id      TEXT,
    context_hash TEXT
);

-- +goose Down
DROP TABLE trust_records;
DROP TABLE checks;
