package dev.exactly.lambda;

import com.amazonaws.services.lambda.runtime.Context;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * The benchmark's stand-in for src/lambda/java's AnswerGuard with the guard bypassed: the same
 * members the package's other classes use, and a {@link #handle} that runs the dispatch on the
 * invocation's own thread, as the handler did before the guard. bench/lambda-warm/run compiles it
 * against the package's classes and puts it, in place of the real one, into a copy of
 * target/function.zip (the "unguarded" package); it is in no source root of the build.
 */
final class AnswerGuard {

    /** What handles one event: Quarkus' stream handler. */
    @FunctionalInterface
    interface Dispatch {
        /**
         * Handles one event.
         *
         * @param input   the event JSON
         * @param output  where the response JSON goes
         * @param context the invocation's context (may be null)
         * @throws IOException when the event cannot be read or the response written
         */
        void handle(InputStream input, OutputStream output, Context context) throws IOException;
    }

    private final Dispatch dispatch;

    /**
     * @param dispatch           what handles the event
     * @param arrivalWaitMillis  ignored
     * @param answerWithinMillis ignored
     */
    AnswerGuard(Dispatch dispatch, long arrivalWaitMillis, long answerWithinMillis) {
        this.dispatch = dispatch;
    }

    /** Ignored: nothing waits for the request's arrival. */
    static void arrived(String awsRequestId) {
    }

    /**
     * Dispatches the event on the calling thread.
     *
     * @throws IOException when the dispatch fails so
     */
    void handle(byte[] event, OutputStream output, Context context) throws IOException {
        dispatch.handle(new ByteArrayInputStream(event), output, context);
    }
}
