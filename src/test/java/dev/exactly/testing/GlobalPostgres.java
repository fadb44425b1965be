package dev.exactly.testing;

import io.quarkus.test.common.QuarkusTestResource;

/** Registers {@link PostgresResource} for every @QuarkusTest in the module. */
@QuarkusTestResource(PostgresResource.class)
public final class GlobalPostgres {

    private GlobalPostgres() {
    }
}
