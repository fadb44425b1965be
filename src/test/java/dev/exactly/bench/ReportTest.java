package dev.exactly.bench;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The shape of the BENCHMARKS.md that bench/run writes: targets first, findings linked, not copied. */
class ReportTest {

    @Test
    void theReportLinksTheFindingsAndCondensesTheCacheReadingsPerMode() {
        Suite s = new Suite(Map.of());
        s.modeStatus.put("cache", "measured");
        s.modeStatus.put("cache+fusion", "measured");
        s.cacheBytesPerHash.put("cache, after n1-p1 (round 1)", new double[] {24.4, 67_346});
        s.cacheBytesPerHash.put("cache, after occ1e5 (round 3)", new double[] {17.3, 3_204_029});
        s.cacheBytesPerHash.put("cache, after occ1e3 (round 3)", new double[] {17.3, 3_099_429});
        s.cacheBytesPerHash.put("cache+fusion, after n1-p1 (round 1)", new double[] {19.0, 111_449});
        s.cacheBytesPerHash.put("cache+fusion, after occ1e5 (round 3)", new double[] {17.2, 4_367_751});

        String md = new Report(s).markdown();

        assertTrue(md.contains("## Targets\n"), md);
        assertTrue(md.contains("### The push path"), md);
        assertTrue(md.contains("## What bounds each figure"), md);
        assertTrue(md.contains("| cache | 3 | 24.4 | 67,346 | 17.3 | 3,204,029 |"), md);
        assertTrue(md.contains("| cache+fusion | 2 | 19.0 | 111,449 | 17.2 | 4,367,751 |"), md);
        assertTrue(md.contains("[bench/findings.md](bench/findings.md)"), md);
        assertTrue(md.contains("[bench/reliability.md](bench/reliability.md)"), md);
        assertFalse(md.contains("## Findings"), "the findings are linked, not copied");
        assertFalse(md.contains("### 1. "), "no finding is copied in");
        assertFalse(md.toLowerCase().contains("issue"), "targets are named by what they are");
    }
}
