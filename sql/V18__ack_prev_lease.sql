-- An ack by transactionId that names no partition (on a queue that does not spread by key) is
-- resolved in the partition whose cursor holds the lease it names (exactly.ack_partition_name,
-- sql/R__consume.sql), or held it last: an ack repeated after its lease was released is a replay
-- there, as it is when it names the partition. The current lease has its index
-- (consumer_cursors_lease, V2); this one serves the last released lease.
CREATE INDEX consumer_cursors_prev_lease ON exactly.consumer_cursors (prev_lease_id)
    WHERE prev_lease_id IS NOT NULL;
