package dev.exactly.queue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.exactly.http.ErrorPath;
import dev.exactly.http.JsonRequest;
import dev.exactly.http.JsonTree;
import dev.exactly.problem.ApiProblem;
import dev.exactly.problem.FieldError;
import dev.exactly.naming.Names;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads the queue-options bodies with the tree half of the request-reading toolkit
 * ({@link JsonTree}): configure {@code {"queue","options"}} and patch {@code {"options"}}, where
 * options is {@code {"<option>": integer or name, …}} ({@link QueueOption}). Every bad field is named;
 * nothing is written when there is any. options is required in both: a configure without it would
 * silently return every option to its default (a full replace), and a patch without it would change
 * nothing; {@code "options":{}} says either on purpose.
 */
public final class QueueRequests {

    /**
     * A configure body.
     *
     * @param queue   the queue to create or replace the options of
     * @param options the options given; an omitted one returns to its default
     */
    public record Configure(String queue, Map<QueueOption, Integer> options) {
    }

    private static final Set<String> CONFIGURE_FIELDS = Set.of("queue", "options");
    private static final Set<String> PATCH_FIELDS = Set.of("options");

    private QueueRequests() {
    }

    /**
     * @param body UTF-8 JSON {@code {"queue","options"}}
     * @return the queue and its options
     * @throws ApiProblem 400 naming every bad field
     */
    public static Configure configure(byte[] body) {
        return JsonTree.read(body, (root, errors) -> {
            String name = null;
            JsonNode q = root.get("queue");
            if (q == null || !q.isTextual()) {
                errors.add(ErrorPath.ROOT.error("queue", "is required and must be a string"));
            } else {
                name = q.textValue();
                JsonRequest.check(errors, ErrorPath.ROOT, "queue", Names.checkName(name));
            }
            JsonTree.unknownFields(root, CONFIGURE_FIELDS, ErrorPath.ROOT, errors);
            return new Configure(name, options(root.get("options"),
                    "is required: an object of options ({} returns every option to its default)", errors));
        });
    }

    /**
     * @param body UTF-8 JSON {@code {"options"}}
     * @return the options to merge in
     * @throws ApiProblem 400 naming every bad field
     */
    public static Map<QueueOption, Integer> patch(byte[] body) {
        return JsonTree.read(body, (root, errors) -> {
            JsonTree.unknownFields(root, PATCH_FIELDS, ErrorPath.ROOT, errors);
            return options(root.get("options"), "is required: an object of the options to change", errors);
        });
    }

    /**
     * Checks a listing's query parameters.
     *
     * @param limit   the page size asked for, or null for 100
     * @param after   the previous page's cursor (a queue name), or null
     * @param maxPage the largest page
     * @return the page size
     * @throws ApiProblem 400 for a limit outside 1 to maxPage or an after that is not a queue name
     */
    public static int pageSize(String limit, String after, int maxPage) {
        int size = 100;
        if (limit != null) {
            try {
                size = Integer.parseInt(limit);
            } catch (NumberFormatException e) {
                size = 0;
            }
            if (size < 1 || size > maxPage) {
                throw ApiProblem.invalid(null, "limit", "must be a whole number from 1 to " + maxPage);
            }
        }
        if (after != null && Names.checkName(after) != null) {
            throw ApiProblem.invalid(null, "after", "must be the next cursor of an earlier page");
        }
        return size;
    }

    private static Map<QueueOption, Integer> options(JsonNode node, String whenMissing, List<FieldError> errors) {
        Map<QueueOption, Integer> out = new EnumMap<>(QueueOption.class);
        if (node == null || node.isNull()) {
            errors.add(ErrorPath.ROOT.error("options", whenMissing));
            return out;
        }
        if (!node.isObject()) {
            errors.add(ErrorPath.ROOT.error("options", "must be an object"));
            return out;
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            QueueOption o = QueueOption.byWire(e.getKey());
            String field = "options." + e.getKey();
            JsonNode v = e.getValue();
            if (o == null) {
                errors.add(ErrorPath.ROOT.error(field, "unknown option"));
            } else if (o.named()) {
                if (v.isTextual() && o.names().contains(v.textValue())) {
                    out.put(o, o.indexOf(v.textValue()));
                } else {
                    errors.add(ErrorPath.ROOT.error(field, "must be one of " + String.join(", ", quoted(o.names()))));
                }
            } else if (!v.isIntegralNumber()) {
                errors.add(ErrorPath.ROOT.error(field, "must be an integer"));
            } else if (!v.canConvertToInt()) {
                // beyond an int: the option's own range when it has one (spreadPartitions: 0, or 2 to 1024)
                String own = o.check(v.bigIntegerValue().signum() < 0 ? Integer.MIN_VALUE : Integer.MAX_VALUE);
                errors.add(ErrorPath.ROOT.error(field,
                        own != null ? own : "must be an integer from " + o.min() + " to " + Integer.MAX_VALUE));
            } else if (o.check(v.intValue()) != null) {
                errors.add(ErrorPath.ROOT.error(field, o.check(v.intValue())));
            } else {
                out.put(o, v.intValue());
            }
        }
        return out;
    }

    private static List<String> quoted(List<String> names) {
        return names.stream().map(n -> "\"" + n + "\"").toList();
    }
}
