package dev.exactly.server;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A test's stand-in for one service instance, run as a JVM of its own: starts the embedded
 * database on the data directory given as argument, prints {@code READY <url> <postmaster-pid>},
 * and runs until its standard input closes, then stops the database. When the database cannot
 * start it prints {@code REFUSED <message>} and exits with status 3.
 */
public final class EmbeddedDatabaseProcess {

    private EmbeddedDatabaseProcess() {
    }

    /**
     * @param args the data directory
     * @throws IOException when standard input cannot be read
     */
    public static void main(String[] args) throws IOException {
        EmbeddedDatabase db;
        try {
            db = EmbeddedDatabase.start(Path.of(args[0]), 0);
        } catch (Exception e) {
            System.out.println("REFUSED " + e.getMessage());
            System.out.flush();
            System.exit(3);
            return;
        }
        try (db) {
            System.out.println("READY " + db.url() + " " + Long.parseLong(java.nio.file.Files.readAllLines(
                    db.dataDir().resolve("postmaster.pid")).get(0).trim()));
            System.out.flush();
            while (System.in.read() >= 0) {
                // until the test closes our standard input
            }
        }
        System.exit(0);
    }
}
