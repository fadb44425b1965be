package dev.exactly.http;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.exc.InputCoercionException;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.InvalidNullException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import dev.exactly.problem.ApiProblem;
import dev.exactly.problem.FieldError;
import dev.exactly.problem.Problem;
import io.quarkus.hibernate.validator.runtime.jaxrs.ResteasyReactiveViolationException;
import jakarta.validation.ConstraintViolation;
import jakarta.validation.Path;
import jakarta.ws.rs.core.Response;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * Turns what binding (Jackson, {@link JsonBodyReader}) and validating (Hibernate Validator) refused
 * into the 400 problem (RFC 9457) of the API, naming each field as the request names it: an item of
 * an {@link IndexedItems} body by its index and its own field ({@code errors[].index} 3, field
 * {@code type}; the detail writes {@code tasks[3].type}), any other value by its path from the body
 * ({@code operations[1].items[0].queue}, {@code messageIds[2]}), a path or query parameter by its
 * name. At most {@value #MAX_ERRORS} errors are listed, by index, then field.
 */
public class RequestProblems {

    /** The most errors one problem lists. */
    static final int MAX_ERRORS = 50;

    /** Every broken constraint of a resource method's parameters (or of a body validated alone), as one 400. */
    @ServerExceptionMapper
    public Response violations(ResteasyReactiveViolationException e) {
        Class<?> body = null;
        List<FieldError> errors = new ArrayList<>();
        for (ConstraintViolation<?> v : e.getConstraintViolations()) {
            List<Object> at = new ArrayList<>();
            String parameter = null;
            for (Path.Node n : v.getPropertyPath()) {
                switch (n.getKind()) {
                    case PARAMETER -> parameter = n.getName();
                    case PROPERTY, BEAN, CONTAINER_ELEMENT -> {
                        if (n.isInIterable() && n.getIndex() != null) {
                            at.add(n.getIndex());
                        }
                        if (n.getKind() == jakarta.validation.ElementKind.PROPERTY) {
                            at.add(n.getName());
                        }
                    }
                    default -> { }
                }
            }
            if (at.isEmpty()) {
                errors.add(new FieldError(null, parameter, v.getMessage()));
            } else {
                body = v.getExecutableParameters() == null ? v.getRootBeanClass() : bodyOf(v.getExecutableParameters());
                errors.add(error(body, at, v.getMessage()));
            }
        }
        errors.sort(Comparator.comparing((FieldError f) -> f.index() == null ? -1 : f.index())
                .thenComparing(FieldError::field, Comparator.nullsFirst(Comparator.naturalOrder())));
        ApiProblem p = invalid(body, errors.subList(0, Math.min(errors.size(), MAX_ERRORS)));
        return Response.status(p.status()).type(Problem.MEDIA_TYPE).entity(p.toProblem()).build();
    }

    /**
     * The 400 for a body Jackson could not bind to {@code body}.
     *
     * @param body the record the body was bound to
     * @param e    what Jackson threw
     * @return the problem to throw
     */
    static ApiProblem of(Class<?> body, JacksonException e) {
        List<Object> at = new LinkedList<>();
        if (e instanceof JsonMappingException m) {
            m.getPath().forEach(r -> at.add(r.getFieldName() != null ? r.getFieldName() : (Object) r.getIndex()));
        }
        StreamReadException read = cause(e, StreamReadException.class);
        if (read instanceof InputCoercionException c) {
            String bounds = boundsOf(body, at);
            if (bounds != null) {
                return invalid(body, List.of(error(body, at, bounds)));
            }
            boolean isLong = c.getTargetType() == Long.class || c.getTargetType() == long.class;
            return invalid(body, List.of(error(body, at, "must be an integer from " + (isLong ? Long.MIN_VALUE : Integer.MIN_VALUE)
                    + " to " + (isLong ? Long.MAX_VALUE : Integer.MAX_VALUE))));
        }
        if (read != null && read.getOriginalMessage().startsWith("Duplicate field '") && read.getProcessor() != null) {
            // the parser's own path: a payload, bound as raw bytes, has none of its own in Jackson's
            return invalid(body, List.of(error(body, pathOf(read.getProcessor().getParsingContext()), parserMessage(read))));
        }
        if (read != null) {
            return ApiProblem.invalid(null, null, "malformed JSON: " + parserMessage(read));
        }
        if (cause(e, StreamConstraintsException.class) != null) {
            return ApiProblem.invalid(null, null, "the body is beyond a read limit: nesting deeper than "
                    + JsonBodyReader.MAX_DEPTH + " levels, or a number of more than " + JsonBodyReader.MAX_NUMBER_LENGTH
                    + " characters");
        }
        String why = e instanceof UnrecognizedPropertyException ? "unknown field"
                : e instanceof InvalidNullException ? "must not be null"
                : e instanceof MismatchedInputException m ? expected(m.getTargetType())
                : e.getOriginalMessage().lines().findFirst().orElse("invalid");
        return at.isEmpty() ? ApiProblem.invalid(null, null, "the body " + why) : invalid(body, List.of(error(body, at, why)));
    }

    /**
     * The range a number field declares ({@link Bounds}, or {@code @Min} and {@code @Max} on its
     * accessor), in the words of its check: "must be between 1 and 100"; with only one of
     * {@code @Min} and {@code @Max}, the other bound is the integer type's ("must be an integer from
     * 0 to 9223372036854775807").
     *
     * @param body the record the body was bound to
     * @param at   the field's path from the body ({@code [maxAttempts]}, {@code [items, 2, batch]})
     * @return the message, or null when the field declares no range
     */
    static String boundsOf(Class<?> body, List<Object> at) {
        Class<?> type = body;
        java.lang.reflect.Type generic = body;
        java.lang.reflect.RecordComponent leaf = null;
        for (Object part : at) {
            if (part instanceof Integer) {
                if (generic instanceof java.lang.reflect.ParameterizedType p && p.getActualTypeArguments().length == 1
                        && p.getActualTypeArguments()[0] instanceof Class<?> element) {
                    type = element;
                    generic = element;
                    leaf = null;
                    continue;
                }
                return null;
            }
            if (type == null || !type.isRecord()) {
                return null;
            }
            leaf = Arrays.stream(type.getRecordComponents()).filter(rc -> rc.getName().equals(part)).findFirst().orElse(null);
            if (leaf == null) {
                return null;
            }
            type = leaf.getType();
            generic = leaf.getGenericType();
        }
        if (leaf == null) {
            return null;
        }
        Bounds b = leaf.getAnnotation(Bounds.class);
        if (b != null) {
            return "must be between " + b.min() + " and " + b.max();
        }
        jakarta.validation.constraints.Min min = leaf.getAccessor().getAnnotation(jakarta.validation.constraints.Min.class);
        jakarta.validation.constraints.Max max = leaf.getAccessor().getAnnotation(jakarta.validation.constraints.Max.class);
        if (min != null && max != null) {
            return "must be between " + min.value() + " and " + max.value();
        }
        if (min == null && max == null) {
            return null;
        }
        // one bound of the field's own, the other the integer type's
        boolean isLong = type == Long.class || type == long.class;
        return "must be an integer from " + (min != null ? min.value() : isLong ? Long.MIN_VALUE : Integer.MIN_VALUE)
                + " to " + (max != null ? max.value() : isLong ? Long.MAX_VALUE : Integer.MAX_VALUE);
    }

    /** What a value of the type must be, in the API's words. */
    static String expected(Class<?> type) {
        if (type == null) {
            return "has the wrong type";
        } else if (CharSequence.class.isAssignableFrom(type)) {
            return "must be a string";
        } else if (type == Integer.class || type == int.class || type == Long.class || type == long.class
                || type == java.math.BigInteger.class) {
            return "must be an integer";
        } else if (type == Boolean.class || type == boolean.class) {
            return "must be true or false";
        } else if (type == UUID.class) {
            return "must be a UUID";
        } else if (Collection.class.isAssignableFrom(type) || type.isArray()) {
            return "must be an array";
        } else if (type.isEnum()) {
            return "must be one of " + Arrays.stream(type.getEnumConstants())
                    .map(c -> JsonBodyReader.MAPPER.convertValue(c, String.class)).collect(Collectors.joining(", "));
        }
        return "must be a JSON object";
    }

    /**
     * One error at a path from the body: {@code [tasks, 3, type]} is item 3's {@code type} in an
     * {@link IndexedItems} body, else the field {@code tasks[3].type}.
     */
    static FieldError error(Class<?> body, List<Object> at, String message) {
        int from = 0;
        Integer index = null;
        if (body != null && body.isAnnotationPresent(IndexedItems.class) && at.size() >= 2 && at.get(1) instanceof Integer i) {
            index = i;
            from = 2;
        }
        StringBuilder field = new StringBuilder();
        for (Object part : at.subList(from, at.size())) {
            if (part instanceof Integer i) {
                field.append('[').append(i).append(']');
            } else {
                field.append(field.length() > 0 ? "." : "").append(part);
            }
        }
        return new FieldError(index, field.length() == 0 ? null : field.toString(), message);
    }

    private static ApiProblem invalid(Class<?> body, List<FieldError> errors) {
        String items = body == null || !body.isAnnotationPresent(IndexedItems.class) ? null
                : Arrays.stream(body.getRecordComponents()).filter(c -> List.class.isAssignableFrom(c.getType()))
                        .findFirst().map(java.lang.reflect.RecordComponent::getName).orElse(null);
        return ApiProblem.invalid(items, errors);
    }

    /** Where a parser stands, from the body's root: {@code [items, 0, payload, x]}. */
    private static List<Object> pathOf(JsonStreamContext at) {
        LinkedList<Object> path = new LinkedList<>();
        for (JsonStreamContext c = at; c != null && !c.inRoot(); c = c.getParent()) {
            if (c.inArray()) {
                path.addFirst(c.getCurrentIndex());
            } else if (c.getCurrentName() != null) {
                path.addFirst(c.getCurrentName());
            }
        }
        return path;
    }

    /** The parser's complaint, first line, where it stood: e.g. "Unexpected end-of-input (at byte 12)". */
    /**
     * The parser's message in JSON's terms: its first line, without the parser's own options that
     * would allow what JSON does not (": enable `JsonReadFeature.…` to allow", "(not recognized as
     * one since Feature '…' not enabled for parser)"), with the byte where it stopped.
     */
    private static String parserMessage(StreamReadException e) {
        String m = e.getOriginalMessage().lines().findFirst().orElse("");
        int cut = m.indexOf(" (start marker at ");
        m = (cut < 0 ? m : m.substring(0, cut)).replaceAll(":? ?enable `[^`]*` to allow", "")
                .replaceAll(" ?\\(not recognized as one since Feature '[^']*' not enabled for parser\\)", "")
                .replace("maybe a (non-standard) comment?", "JSON has no comments");
        return m
                + (e.getLocation() == null || e.getLocation().getByteOffset() < 0 ? "" : " (at byte " + e.getLocation().getByteOffset() + ")");
    }

    private static <T extends Throwable> T cause(Throwable t, Class<T> type) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (type.isInstance(c)) {
                return type.cast(c);
            }
        }
        return null;
    }

    private static Class<?> bodyOf(Object[] parameters) {
        return Arrays.stream(parameters).filter(p -> p instanceof Record).findFirst().map(Object::getClass).orElse(null);
    }
}
