-- The probe must be a primary-key descent per hash, whatever the statistics say.
--
-- txn_hashes_offset (partition_id, "offset") serves retention's purge walk and the warm cache's
-- full hydration. The probe's plans are generic and kept per connection; a plan made while the
-- table's statistics called it empty could pick this index (partition_id = $1, "offset" > $2,
-- hash filtered), which walks the partition's whole window once per probed hash: 100-item pushes
-- into a partition holding 20,000 hashes read ~2,000,000 index tuples instead of ~100.
--
-- As a partial index on "offset" >= 0 (every offset is, offsets start at 0) it holds the same
-- rows, but the planner may use it only for a query that states "offset" >= 0 itself. The
-- purge walk and the hydration do; the probe (whose bound is a parameter) cannot, so the
-- primary key is its only index, by construction rather than by cost estimate.
DROP INDEX exactly.txn_hashes_offset;
CREATE INDEX txn_hashes_offset ON exactly.txn_hashes (partition_id, "offset") WHERE "offset" >= 0;
