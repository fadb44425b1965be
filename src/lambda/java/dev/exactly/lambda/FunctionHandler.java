package dev.exactly.lambda;

import com.amazonaws.services.lambda.runtime.Context;
import io.quarkus.amazon.lambda.runtime.QuarkusStreamHandler;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The function's handler (infra/terraform names {@code dev.exactly.lambda.FunctionHandler::handleRequest}):
 * Quarkus' stream handler, with a start-up failure reported by its real cause. Quarkus wraps
 * every initialisation failure as "Quarkus manual initialization failed", and the Lambda runtime
 * sends only the outermost message to {@code /runtime/init/error}; this handler rethrows it with
 * the messages of the whole cause chain (e.g. the config key at fault, or the secret that could
 * not be read), so the init error in the Lambda console and logs names what to fix.
 *
 * <p>Deliberately not a {@code RequestStreamHandler} implementation: the Lambda runtime loads a
 * handler by method name and signature (InputStream, OutputStream, Context), and Quarkus' Lambda
 * extension accepts no second implementation next to its own.
 */
public final class FunctionHandler {

    private final QuarkusStreamHandler quarkus;

    /**
     * Starts the application (Quarkus' initialisation, before any invocation and before a
     * SnapStart snapshot).
     *
     * @throws IllegalStateException when it cannot start, with the messages of every cause
     */
    public FunctionHandler() {
        try {
            quarkus = new QuarkusStreamHandler();
        } catch (RuntimeException | Error e) {
            throw new IllegalStateException(describe(e), e);
        }
    }

    /**
     * One invocation: an API Gateway HTTP API (payload format 2.0) event in, its response out.
     *
     * @param input   the event JSON
     * @param output  where the response JSON goes
     * @param context the invocation's context
     * @throws IOException when the event cannot be read or the response written
     */
    public void handleRequest(InputStream input, OutputStream output, Context context) throws IOException {
        quarkus.handleRequest(input, output, context);
    }

    /** @return the distinct messages of a throwable and its causes, outermost first, joined by ": " */
    static String describe(Throwable t) {
        List<String> parts = new ArrayList<>();
        Set<Throwable> seen = new HashSet<>();
        for (Throwable c = t; c != null && seen.add(c); c = c.getCause()) {
            String m = c.getMessage() == null ? c.getClass().getName() : c.getMessage();
            if (parts.isEmpty() || !parts.get(parts.size() - 1).contains(m)) {
                parts.add(m);
            }
        }
        return String.join(": ", parts);
    }
}
