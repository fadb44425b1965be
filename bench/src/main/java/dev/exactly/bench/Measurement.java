package dev.exactly.bench;

/**
 * One measured run: a scenario driven against one design (SQL level) or one service mode (HTTP).
 *
 * @param level            "sql" (in-process calls of a bundle function) or "http" (the service)
 * @param target           SQL level: exactly, naive, scan or plain; HTTP: the service mode
 * @param scenario         the scenario
 * @param result           throughput and latency, all rounds merged
 * @param roundMsgsPerSecond msgs/s of each round, in round order
 * @param dbMsPerCall      database time per push call in ms (see {@link #dbSource}), or NaN
 * @param dbSource         how dbMsPerCall was measured
 * @param sqlCallsPerRequest SQL calls the service made per HTTP request (HTTP level), or NaN
 * @param prefillSeconds   seconds the window pre-fill took (0 when none)
 * @param walBytesPerMsg   WAL bytes written per pushed item (pg_stat_wal, SQL level), or NaN
 * @param walFpiPerMsg     WAL full-page images per pushed item (pg_stat_wal, SQL level), or NaN
 */
public record Measurement(String level, String target, Scenario scenario, LoadResult result,
                          double[] roundMsgsPerSecond, double dbMsPerCall,
                          String dbSource, double sqlCallsPerRequest, double prefillSeconds, double walBytesPerMsg,
                          double walFpiPerMsg) {
}
