package dev.exactly.bench;

/**
 * One measured run: a scenario driven against one design (SQL level) or one service mode (HTTP).
 *
 * @param level            "sql" (in-process calls of a bundle function) or "http" (the service)
 * @param target           SQL level: exactly, naive, scan or plain; HTTP: the service mode
 * @param scenario         the scenario
 * @param result           throughput and latency
 * @param dbMsPerCall      database time per push call in ms (see {@link #dbSource}), or NaN
 * @param dbSource         how dbMsPerCall was measured
 * @param sqlCallsPerRequest SQL calls the service made per HTTP request (HTTP level), or NaN
 * @param prefillSeconds   seconds the window pre-fill took (0 when none)
 */
public record Measurement(String level, String target, Scenario scenario, LoadResult result, double dbMsPerCall,
                          String dbSource, double sqlCallsPerRequest, double prefillSeconds) {
}
