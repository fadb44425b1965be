package dev.exactly.duplicate;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** How often this instance writes its count of the duplicates it answered, under {@code exactly.duplicate-counts.}. */
@ConfigMapping(prefix = "exactly.duplicate-counts")
public interface DuplicateCountConfig {

    /**
     * Interval between writes of the in-memory counts to the database (a Quarkus duration). The
     * stats lag the answers by up to this much; a Lambda instance also writes them on its next
     * invocation, at most once a second.
     */
    @WithDefault("5s")
    String flushEvery();
}
