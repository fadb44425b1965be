-- Destinations: Exactly delivers every message stored in a queue to each of the queue's
-- destinations (dev.exactly.destination). A destination is read as a consumer group of its
-- queue, named "destination:<name>", so its cursor, leases and lag are those of
-- exactly.consumer_cursors and exactly.deliveries (sql/R__consume.sql).
--
-- destinations holds the destinations defined through the API (those of the application's
-- configuration live there and are not stored). Its signing_secret is the Standard Webhooks key
-- (whsec_...), kept in the user's own database like every payload.
CREATE TABLE exactly.destinations (
    name            text        PRIMARY KEY,
    queue           text        NOT NULL,
    type            text        NOT NULL,
    url             text        NOT NULL,
    signing_secret  text,
    timeout_ms      integer     NOT NULL,
    max_attempts    integer     NOT NULL,
    backoff_ms      integer     NOT NULL,
    backoff_cap_ms  integer     NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- The delivery figures of every destination, configured or defined through the API: added to by
-- each delivering instance after each batch. The row's creation marks the destination's start: its
-- cursors then begin after each partition's last offset, so it receives what is stored from then
-- on (dev.exactly.destination.DestinationRepository#start).
CREATE TABLE exactly.destination_state (
    name             text        PRIMARY KEY,
    queue            text        NOT NULL,
    delivered        bigint      NOT NULL DEFAULT 0,
    failed_attempts  bigint      NOT NULL DEFAULT 0,
    -- paused: no instance delivers to it (messages wait in the queue) until it is resumed
    paused           boolean     NOT NULL DEFAULT false,
    last_error       text,
    last_error_at    timestamptz,
    started_at       timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- The messages a destination gave up on after its last attempt: dead-lettered for that destination
-- alone (its consumer group moved on; the other destinations and consumer groups are untouched).
-- The message itself stays in its queue (until retention purges it); a redrive sends it again,
-- with its original messageId, to this destination only, and deletes the row once delivered.
--   redrive_requested_at: set by a redrive, cleared when its attempts are used up again;
--   claimed_until: an instance sending the redriven message holds it until then.
CREATE TABLE exactly.destination_dead_letters (
    destination          text        NOT NULL,
    partition_id         bigint      NOT NULL,
    "offset"             bigint      NOT NULL,
    message_id           uuid        NOT NULL,
    attempts             integer     NOT NULL,
    error                text,
    dead_lettered_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
    redrive_requested_at timestamptz,
    claimed_until        timestamptz,
    PRIMARY KEY (destination, partition_id, "offset")
);
CREATE INDEX destination_dead_letters_redrive ON exactly.destination_dead_letters (destination, redrive_requested_at)
    WHERE redrive_requested_at IS NOT NULL;
