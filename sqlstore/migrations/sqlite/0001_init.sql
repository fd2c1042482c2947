-- durasim schema, version 1 (SQLite).
-- INTEGER PRIMARY KEY is the rowid: assigned when the caller passes NULL,
-- and back to 1 once the table is emptied (Reset relies on that).
-- uint64 values (hashes, fences) are stored as the int64 with the same bits.
-- Times are model nanoseconds (INTEGER), not timestamps: the simulator owns
-- the clock.

CREATE TABLE durasim_schema (
    version INTEGER NOT NULL
);

CREATE TABLE jobs (
    id            INTEGER PRIMARY KEY,
    tenant        TEXT     NOT NULL,
    document      TEXT     NOT NULL,
    version       INTEGER  NOT NULL,
    idem_key      TEXT     NOT NULL UNIQUE,
    payload_hash  INTEGER   NOT NULL,
    state         TEXT     NOT NULL CHECK (state IN ('pending', 'leased', 'retry_wait', 'succeeded', 'dead', 'cancelled')),
    attempt       INTEGER  NOT NULL DEFAULT 0,
    max_attempts  INTEGER  NOT NULL,
    stage         INTEGER NOT NULL DEFAULT 0,
    fence         INTEGER   NOT NULL DEFAULT 0,
    holder        TEXT     NOT NULL DEFAULT '',
    visible_at    INTEGER   NOT NULL,
    lease_until   INTEGER   NOT NULL DEFAULT 0,
    -- ready_at is when LeaseNext may take the job: visible_at while it
    -- waits, lease_until while it is leased (the model's ready heap key).
    ready_at      INTEGER   NOT NULL,
    deadline_at   INTEGER   NOT NULL,
    last_code     TEXT     NOT NULL DEFAULT '',
    redrive_count INTEGER  NOT NULL DEFAULT 0,
    origin        INTEGER   NOT NULL DEFAULT 0,
    created_at    INTEGER   NOT NULL
);

-- LeaseNext scans this index in (ready_at, id) order; terminal jobs are
-- not in it, so it stays as small as the live queue.
CREATE INDEX jobs_ready ON jobs (ready_at, id) WHERE state IN ('pending', 'retry_wait', 'leased');

-- One row: the global fence (no gaps, like the model's).
CREATE TABLE fence_counter (
    id    INTEGER PRIMARY KEY CHECK (id = 1),
    value INTEGER   NOT NULL
);
INSERT INTO fence_counter (id, value) VALUES (1, 0);

CREATE TABLE results (
    idem_key     TEXT     NOT NULL,
    stage        INTEGER NOT NULL,
    tenant       TEXT     NOT NULL,
    job          INTEGER   NOT NULL,
    payload_hash INTEGER   NOT NULL,
    value        INTEGER   NOT NULL,
    event_id     INTEGER   NOT NULL,
    PRIMARY KEY (idem_key, stage)
);

CREATE TABLE outbox (
    event_id     INTEGER PRIMARY KEY,
    idem_key     TEXT     NOT NULL,
    stage        INTEGER NOT NULL,
    tenant       TEXT     NOT NULL,
    job          INTEGER   NOT NULL,
    committed_at INTEGER   NOT NULL,
    published    INTEGER  NOT NULL DEFAULT 0 CHECK (published IN (0, 1)),
    published_at INTEGER   NOT NULL DEFAULT 0
);
CREATE INDEX outbox_unpublished ON outbox (event_id) WHERE NOT published;

CREATE TABLE broker (
    msg_id       INTEGER PRIMARY KEY,
    event_id     INTEGER  NOT NULL,
    published_at INTEGER  NOT NULL,
    deliveries   INTEGER NOT NULL DEFAULT 0,
    acked        INTEGER NOT NULL DEFAULT 0 CHECK (acked IN (0, 1))
);

CREATE TABLE ledger (
    event_id INTEGER PRIMARY KEY,
    at       INTEGER NOT NULL
);

-- id keeps the order effects were applied in; event_id UNIQUE backs the
-- ledger: an effect can never be applied twice, even by a buggy caller.
CREATE TABLE effects (
    id       INTEGER PRIMARY KEY,
    event_id INTEGER   NOT NULL UNIQUE,
    idem_key TEXT     NOT NULL,
    stage    INTEGER NOT NULL,
    tenant   TEXT     NOT NULL,
    job      INTEGER   NOT NULL,
    at       INTEGER   NOT NULL
);

-- Codes only: never document text or raw error messages.
CREATE TABLE dlq (
    job           INTEGER PRIMARY KEY,
    tenant        TEXT    NOT NULL,
    reason        TEXT    NOT NULL,
    attempts      INTEGER NOT NULL,
    redrive_count INTEGER NOT NULL DEFAULT 0,
    at            INTEGER  NOT NULL
);

CREATE TABLE audit (
    id       INTEGER PRIMARY KEY,
    at       INTEGER NOT NULL,
    operator TEXT   NOT NULL,
    action   TEXT   NOT NULL,
    job      INTEGER NOT NULL,
    new_job  INTEGER NOT NULL
);
