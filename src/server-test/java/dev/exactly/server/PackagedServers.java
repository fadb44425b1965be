package dev.exactly.server;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The packaged servers one test starts ({@link PackagedServer#onDatabase}), each stopped after the
 * test, whatever its outcome. A JUnit extension: a test class declares it as a
 * {@code @RegisterExtension} field.
 */
public final class PackagedServers implements AfterEachCallback {

    private final List<PackagedServer> started = new CopyOnWriteArrayList<>();

    /**
     * Starts one as {@link PackagedServer#onDatabase} does; it is stopped after the test.
     *
     * @return the server, listening
     */
    public PackagedServer onDatabase(String folderPrefix, String db, String apiKey,
                                     Function<Path, Map<String, String>> extra) throws Exception {
        PackagedServer s = PackagedServer.onDatabase(folderPrefix, db, apiKey, extra);
        started.add(s);
        return s;
    }

    /** Stops every server the test started. */
    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        for (PackagedServer s : started) {
            s.stop();
        }
        started.clear();
    }
}
