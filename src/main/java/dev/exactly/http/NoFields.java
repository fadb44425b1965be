package dev.exactly.http;

import io.quarkus.runtime.annotations.RegisterForReflection;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * The body of a call that takes no fields (the admin calls): none at all, or {@code {}}; any field
 * is refused as unknown, as every other body refuses a field it does not know.
 */
@RegisterForReflection
@Schema(name = "NoFieldsRecord", ref = "NoFields") // its schema, in META-INF/openapi.yaml
public record NoFields() {
}
