package dev.exactly.http;

import dev.exactly.message.MessageView;
import dev.exactly.problem.FieldError;
import dev.exactly.problem.Problem;
import dev.exactly.push.PushResponse;
import dev.exactly.push.PushResult;
import dev.exactly.queue.QueueView;
import dev.exactly.schema.SchemaMigrator;
import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * Registers the JSON types Jackson writes for reflection in a native image (GraalVM closed world,
 * the `native` Maven profile). Quarkus REST registers an endpoint's declared return type itself,
 * but not types behind a {@code Uni}, inside a {@code Response} entity or nested in records. A
 * new wire type belongs in this list. No effect on the JVM.
 */
@RegisterForReflection(targets = {
        PushResponse.class, PushResult.class,
        Problem.class, FieldError.class,
        QueueView.class, QueueView.Reset.class,
        MessageView.class,
        SchemaMigrator.Outcome.class,
})
public final class NativeReflection {

    private NativeReflection() {
    }
}
