package dev.exactly.http;

import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.OASFilter;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.Operation;
import org.eclipse.microprofile.openapi.models.media.Content;
import org.eclipse.microprofile.openapi.models.media.MediaType;
import org.eclipse.microprofile.openapi.models.media.Schema;
import org.eclipse.microprofile.openapi.models.responses.APIResponse;
import org.eclipse.microprofile.openapi.models.responses.APIResponses;

/**
 * Completes the OpenAPI document (MicroProfile OpenAPI filter, {@code mp.openapi.filter}): each
 * request record names its schema in {@code META-INF/openapi.yaml} ({@code @Schema(ref)}), which this
 * filter offers as the route's application/json body (any Content-Type is read as JSON); it declares
 * the problem+json answers every route can give (RFC 9457), and puts the bearer API key on every
 * route under /api. A record without such a schema is described by the scanner from its components
 * and constraints.
 */
public class OpenApiDocument implements OASFilter {

    private static final String LEASE_CONFLICT = "A lease, ack or transaction conflict; nothing was changed";
    private static final String SPREAD_CHANGE_REFUSED = "/problems/spread-change-refused: spreadPartitions may change "
            + "only while no partition of the queue holds a transaction hash (a full replace that omits it would reset "
            + "it to 0); nothing was changed";

    private static final String DESTINATION_CONFLICT = "/problems/destination-conflict: the name is a configured "
            + "destination's (change it in the configuration) or another queue's destination's; nothing was changed";

    /**
     * Routes whose answer can be 409, with what it means there: a lease or transaction conflict,
     * an unresolved ack, or a refused spreadPartitions change.
     */
    static final Map<String, String> CONFLICTS = Map.ofEntries(
            Map.entry("POST /api/v1/ack", LEASE_CONFLICT),
            Map.entry("POST /api/v1/pop/extend", LEASE_CONFLICT),
            Map.entry("POST /api/v1/transaction", LEASE_CONFLICT),
            Map.entry("POST /api/v1/tasks/{id}/complete", LEASE_CONFLICT),
            Map.entry("POST /api/v1/tasks/{id}/fail", LEASE_CONFLICT),
            Map.entry("POST /api/v1/tasks/{id}/extend", LEASE_CONFLICT),
            Map.entry("DELETE /api/v1/tasks/{id}", LEASE_CONFLICT),
            Map.entry("POST /api/v1/configure", SPREAD_CHANGE_REFUSED),
            Map.entry("PATCH /api/v1/queues/{queue}", SPREAD_CHANGE_REFUSED),
            Map.entry("PUT /api/v1/queues/{queue}/destinations/{name}", DESTINATION_CONFLICT),
            Map.entry("DELETE /api/v1/queues/{queue}/destinations/{name}", DESTINATION_CONFLICT));

    /**
     * Routes whose answer can be 422: an idempotency key repeated with another payload in a queue
     * whose payloadMismatch option is "reject".
     */
    static final List<String> PAYLOAD_MISMATCHES = List.of("POST /api/v1/push", "POST /api/v1/transaction",
            "POST /webhooks/{source}");

    /**
     * Routes with a path parameter that never answer 404: they create what the path names (PATCH
     * merges into a queue, creating it; PUT creates or replaces a destination). Every other route
     * with one answers 404 when what it names does not exist.
     */
    static final List<String> CREATING = List.of("PATCH /api/v1/queues/{queue}", "PUT /api/v1/queues/{queue}/destinations/{name}");

    private static final String SECURITY = "apiKey";

    /** The component that stands for "any JSON value" in META-INF/openapi.yaml and the wire records. */
    static final String ANY_JSON = "AnyJson";

    @Override
    public void filterOpenAPI(OpenAPI api) {
        inlineAnyJson(api);
        if (api.getPaths() == null) {
            return;
        }
        // operation ids are the Java method names (operation-id-strategy METHOD); the methods
        // several resources share (get, list) name theirs in @Operation (getQueue, listTask),
        // so that every id is unique, as OpenAPI requires and client generators rely on
        Map<String, Schema> schemas = api.getComponents() == null ? Map.of() : api.getComponents().getSchemas();
        api.getPaths().getPathItems().forEach((path, item) -> item.getOperations().forEach((method, op) ->
                complete(method + " " + path, path, op, schemas)));
        // a request record's own component only names its schema ({@code @Schema(ref)}): the bodies name that schema
        if (schemas != null) {
            schemas.keySet().stream().filter(n -> schemas.get(n).getRef() != null).toList()
                    .forEach(api.getComponents()::removeSchema);
        }
    }

    /**
     * Replaces every reference to {@link #ANY_JSON} by an untyped schema, the way OpenAPI 3.0 says
     * "any value" (a named component would make generators invent a wrapper class).
     */
    private static void inlineAnyJson(OpenAPI api) {
        if (api.getComponents() == null || api.getComponents().getSchemas() == null) {
            return;
        }
        Schema any = api.getComponents().getSchemas().get(ANY_JSON);
        if (any == null) {
            return;
        }
        Map<String, Schema> schemas = new java.util.LinkedHashMap<>(api.getComponents().getSchemas());
        schemas.remove(ANY_JSON);
        for (Schema schema : schemas.values()) {
            if (schema.getProperties() == null) {
                continue;
            }
            Map<String, Schema> properties = new java.util.LinkedHashMap<>(schema.getProperties());
            properties.replaceAll((name, property) -> property.getRef() != null
                    && property.getRef().endsWith("/" + ANY_JSON)
                    ? OASFactory.createSchema().description(any.getDescription()) : property);
            schema.setProperties(properties);
        }
        api.getComponents().setSchemas(schemas);
    }

    private void complete(String route, String path, Operation op, Map<String, Schema> schemas) {
        boolean hasBody = op.getRequestBody() != null;
        Schema body = hasBody && op.getRequestBody().getContent() != null ? op.getRequestBody().getContent().getMediaTypes()
                .values().stream().map(MediaType::getSchema).filter(s -> s != null && s.getRef() != null).findFirst().orElse(null) : null;
        if (body != null) { // a request record's schema (its @Schema ref), read whatever the Content-Type says
            Schema named = schemas == null ? null : schemas.get(body.getRef().substring(body.getRef().lastIndexOf('/') + 1));
            String ref = named != null && named.getRef() != null ? named.getRef() : body.getRef();
            op.setRequestBody(OASFactory.createRequestBody().required(!ref.endsWith("/NoFields"))
                    .content(json("application/json", ref)));
        }
        boolean underApi = path.startsWith("/api/");
        if (underApi) {
            op.addSecurityRequirement(OASFactory.createSecurityRequirement().addScheme(SECURITY));
        }
        APIResponses responses = op.getResponses();
        problem(responses, "400", "Bad input: malformed JSON, an unknown or invalid field or query parameter; nothing was written");
        if (underApi) {
            problem(responses, "401", "No valid API key");
        }
        if (path.contains("{") && !CREATING.contains(route)) {
            problem(responses, "404", "No such resource");
        }
        if (CONFLICTS.containsKey(route)) {
            problem(responses, "409", CONFLICTS.get(route));
        }
        if (PAYLOAD_MISMATCHES.contains(route)) {
            problem(responses, "422", "A transactionId (or webhook key) already stored with another payload, in a "
                    + "queue whose payloadMismatch option is reject; nothing was written for it");
        }
        if (hasBody) {
            problem(responses, "413", "The body is over the route's limit");
            problem(responses, "415", "A Content-Encoding other than identity");
        }
        problem(responses, "503", "The database is away or timed out, or the server is stopping; retrying the same request is safe "
                + "(Retry-After)");
    }

    private static void problem(APIResponses responses, String status, String description) {
        APIResponse existing = responses.getAPIResponse(status);
        APIResponse r = existing != null ? existing : OASFactory.createAPIResponse();
        if (r.getDescription() == null || r.getDescription().isBlank() || r.getDescription().equals("Bad Request")) {
            // the validator's generic 400 says less than the API's own
            r.description(description);
        }
        r.content(json("application/problem+json", "Problem"));
        responses.addAPIResponse(status, r);
    }

    private static Content json(String mediaType, String schema) {
        MediaType m = OASFactory.createMediaType().schema(OASFactory.createSchema().ref(schema));
        return OASFactory.createContent().addMediaType(mediaType, m);
    }
}
