package dev.exactly.server;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;

/**
 * The service instance that owns an embedded data directory: an operating-system file lock
 * ({@link FileChannel#tryLock()}, an fcntl lock on Linux) on {@code <data-dir>.lock} next to the
 * directory, held for the owner's lifetime. The lock file also records the owner's PID and start
 * time, for the message another instance gets.
 *
 * <p>The operating system releases the lock when the owning process ends, however it ends
 * ({@code kill -9} included), and a child process does not inherit it: a PostgreSQL that outlived
 * its service holds no lock. So a free lock means that no live service owns the directory (a
 * PostgreSQL still running on it is a left-over and may be stopped), and a held lock means that
 * another live instance does (its PostgreSQL must not be touched).
 */
final class DataDirectoryOwner implements AutoCloseable {

    private final FileChannel channel;
    private final FileLock lock;
    private final Path file;

    private DataDirectoryOwner(FileChannel channel, FileLock lock, Path file) {
        this.channel = channel;
        this.lock = lock;
        this.file = file;
    }

    /**
     * Takes ownership of {@code dataDir} for this process, until {@link #close()} or the end of
     * the process.
     *
     * @param dataDir the embedded data directory (absolute, normalised)
     * @return the held ownership
     * @throws DataDirectoryInUseException when another live instance owns it
     * @throws IOException                 when the lock file cannot be opened or written
     */
    static DataDirectoryOwner claim(Path dataDir) throws IOException {
        Path file = lockFile(dataDir);
        Files.createDirectories(file.getParent());
        FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
        FileLock lock;
        try {
            lock = channel.tryLock();
        } catch (OverlappingFileLockException sameJvm) {
            lock = null;
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
        if (lock == null) {
            String owner = describeOwner(channel);
            channel.close();
            throw new DataDirectoryInUseException(dataDir, owner);
        }
        try {
            String record = "pid=" + ProcessHandle.current().pid() + "\nstarted=" + Instant.now() + "\n";
            channel.truncate(0);
            channel.write(ByteBuffer.wrap(record.getBytes(StandardCharsets.UTF_8)), 0);
            channel.force(true);
        } catch (IOException e) {
            lock.release();
            channel.close();
            throw e;
        }
        return new DataDirectoryOwner(channel, lock, file);
    }

    /** {@code <data-dir>.lock}, a sibling of the data directory (initdb wants the directory itself empty). */
    static Path lockFile(Path dataDir) {
        return dataDir.resolveSibling(dataDir.getFileName() + ".lock");
    }

    /** "PID 123, started 2026-…Z" from the owner's record, or "PID unknown" while it is being written. */
    private static String describeOwner(FileChannel channel) {
        try {
            ByteBuffer b = ByteBuffer.allocate(256);
            channel.read(b, 0);
            String pid = "unknown";
            String started = null;
            for (String line : new String(b.array(), 0, b.position(), StandardCharsets.UTF_8).split("\n")) {
                if (line.startsWith("pid=")) {
                    pid = line.substring(4).trim();
                } else if (line.startsWith("started=")) {
                    started = line.substring(8).trim();
                }
            }
            return "PID " + pid + (started == null ? "" : ", started " + started);
        } catch (IOException e) {
            return "PID unknown";
        }
    }

    /** The lock file. */
    Path file() {
        return file;
    }

    /** Gives ownership up (the record stays; a free lock is what says nobody owns the directory). */
    @Override
    public void close() throws IOException {
        try {
            if (lock.isValid()) {
                lock.release();
            }
        } finally {
            channel.close();
        }
    }

    /** Another live service instance owns the data directory; this one must not start on it. */
    static final class DataDirectoryInUseException extends IllegalStateException {

        DataDirectoryInUseException(Path dataDir, String owner) {
            super("Another Exactly instance (" + owner + ") is running on the embedded PostgreSQL data directory "
                    + dataDir + "; it was left untouched. Stop that instance first, or start this one with another "
                    + "data directory (exactly.embedded.data-dir, e.g. -Dexactly.embedded.data-dir=.exactly2/pgdata, "
                    + "and another quarkus.http.port) or with a datasource (QUARKUS_DATASOURCE_REACTIVE_URL).");
        }
    }
}
