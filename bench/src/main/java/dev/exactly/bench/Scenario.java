package dev.exactly.bench;

/**
 * One cell of the benchmark matrix.
 *
 * @param id               short id used in queue names and tables, e.g. "n100-p1"
 * @param title            what it shows, for the report
 * @param itemsPerRequest  items per request
 * @param partitions       partitions the items spread over
 * @param duplicateRatio   fraction of items repeating a stored transactionId
 * @param occupancy        hashes pre-filled into the partition's window before the run (0 = none)
 * @param windowSeconds    the queue's dedupWindowSeconds (0 turns the probe off)
 * @param concurrency      requests in flight
 */
public record Scenario(String id, String title, int itemsPerRequest, int partitions, double duplicateRatio,
                       int occupancy, int windowSeconds, int concurrency) {

    /** The workload for a queue. */
    public Workload workload(String queue) {
        return Workload.of(queue, itemsPerRequest, partitions, duplicateRatio);
    }
}
