-- Delivery in the Lambda shape (dev.exactly.destination.Dispatcher#drain): a function runs only
-- while it is invoked, so delivery runs in invocations ("drains") that end at a deadline.
--
-- delivery_drains: when the last drain of a queue was asked for (an asynchronous invocation after a
-- push, webhook or transaction stored messages in it). A push asks for another only when none was
-- asked for in the last exactly.delivery.drain-debounce-ms; a drain that finds nothing more to do
-- clears its queue's row, then looks once more, so a message stored while it ran is never left to
-- the schedule.
CREATE TABLE exactly.delivery_drains (
    queue       text        PRIMARY KEY,
    invoked_at  timestamptz NOT NULL
);

-- A partition a destination's drain had to leave before its deadline, in the middle of a leased
-- batch (a retry's backoff, or an attempt, would outlast the invocation): the drain keeps the pop
-- lease (extended past due_at) and records where it stopped; a later drain resumes there under the
-- same lease, so the message keeps its attempt count and the partition its order, and the lease
-- never expires for it (which would count as one of the group's deliveries).
--   next_offset: the first offset of the batch not yet settled; attempt: its next attempt's number;
--   due_at: when that attempt is due; claimed_until: a drain resuming it holds it until then.
CREATE TABLE exactly.destination_parked (
    destination    text        NOT NULL,
    partition_id   bigint      NOT NULL,
    lease_id       uuid        NOT NULL,
    next_offset    bigint      NOT NULL,
    attempt        integer     NOT NULL,
    due_at         timestamptz NOT NULL,
    claimed_until  timestamptz,
    PRIMARY KEY (destination, partition_id)
);
