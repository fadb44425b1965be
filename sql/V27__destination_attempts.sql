-- The attempts made so far at a message a destination has not settled, once one of them failed
-- (dev.exactly.destination.Dispatcher): written at each failed attempt that is retried, deleted
-- with the ack of the message's delivery or dead letter. A batch leased again (after a pause, a
-- restart, an expired lease) goes on counting from there: Exactly-Attempt and maxAttempts continue
-- across leases instead of restarting at the number of times the message was leased.
CREATE TABLE exactly.destination_attempts (
    destination   text    NOT NULL,
    partition_id  bigint  NOT NULL,
    "offset"      bigint  NOT NULL,
    attempts      integer NOT NULL,
    PRIMARY KEY (destination, partition_id, "offset")
);
