package dev.exactly.push;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.http.RawJson;
import jakarta.validation.Validation;
import jakarta.validation.Validator;
import jakarta.validation.metadata.BeanDescriptor;
import jakarta.validation.metadata.ConstraintDescriptor;
import jakarta.validation.metadata.ContainerElementTypeDescriptor;
import jakarta.validation.metadata.PropertyDescriptor;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import org.hibernate.validator.messageinterpolation.ParameterMessageInterpolator;
import org.junit.jupiter.api.Test;

/**
 * {@link PushRequest#valid()} is true exactly when Hibernate Validator finds no violation: on
 * generated bodies whose every field is drawn from valid and broken values, and by the list of
 * the constraints the validator reads off the two records (a constraint added there fails this
 * test until {@code valid()} checks it too).
 */
class PushRequestValidTest {

    private static final Validator VALIDATOR = Validation.byDefaultProvider().configure()
            .messageInterpolator(new ParameterMessageInterpolator()).buildValidatorFactory().getValidator();

    private static final String[] NAMES = {null, "", "orders", "o.r-d_e:r9", ".", "..", "...", "a b", "q/1", "é",
        "x".repeat(255), "x".repeat(256)};
    private static final String[] KEYS = {null, "", "t-1", "a\u0000b", "\uD800", "x\uDC00", "\uD83D\uDE00",
        "x".repeat(256), "x".repeat(257), "é".repeat(128), "é".repeat(129), "\u20AC".repeat(85), "\u20AC".repeat(86)};
    private static final RawJson[] PAYLOADS = {null, RawJson.NULL, json("{}"), json("1"), json("\"null\""),
        json("[null]")};

    private static RawJson json(String s) {
        return new RawJson(s.getBytes(StandardCharsets.UTF_8));
    }

    private static Map<String, String> headers(Random r) {
        switch (r.nextInt(11)) {
            case 0, 1, 2 -> {
                return null;
            }
            case 3 -> {
                return Map.of();
            }
            case 4 -> {
                return Map.of("tenant", "acme", "region", "eu-west-1");
            }
            case 5 -> {
                return Map.of(List.of("X-Exactly-Kind", "bad name", "", "n".repeat(65), "ok").get(r.nextInt(5)), "v");
            }
            case 6 -> {
                Map<String, String> m = new HashMap<>();
                m.put("a", null);
                return m;
            }
            case 7 -> {
                return Map.of("a", List.of("", "x\u0000", "\uD800", "v".repeat(1024), "v".repeat(1025)).get(r.nextInt(5)));
            }
            case 8 -> {
                Map<String, String> m = new LinkedHashMap<>();
                for (int i = 0; i < 32 + r.nextInt(2); i++) {
                    m.put("h" + i, "v");
                }
                return m;
            }
            case 9 -> {
                Map<String, String> m = new LinkedHashMap<>();
                for (int i = 0; i < 8 + r.nextInt(2); i++) {
                    m.put("h" + i, "v".repeat(1022));
                }
                return m;
            }
            default -> {
                return Map.of("payload", "x");
            }
        }
    }

    private static <T> T pick(Random r, T[] values, int validBias) {
        // half the draws from the values that are valid for most fields, so that many bodies are valid
        return r.nextInt(100) < validBias ? values[2 + r.nextInt(2)] : values[r.nextInt(values.length)];
    }

    private static PushRequest.Item item(Random r) {
        String queue = r.nextInt(100) < 85 ? "orders" : NAMES[r.nextInt(NAMES.length)];
        return new PushRequest.Item(queue, r.nextBoolean() ? null : pick(r, NAMES, 60), pick(r, KEYS, 70),
                r.nextInt(100) < 85 ? json("{\"n\":1}") : PAYLOADS[r.nextInt(PAYLOADS.length)],
                r.nextBoolean() ? null : pick(r, KEYS, 70), headers(r));
    }

    @Test
    void validIsTrueExactlyWhenTheValidatorFindsNothing() {
        Random r = new Random(41);
        int valid = 0;
        int bodies = 20_000;
        for (int i = 0; i < bodies; i++) {
            List<PushRequest.Item> items;
            int shape = r.nextInt(20);
            if (shape == 0) {
                items = null;
            } else if (shape == 1) {
                items = List.of();
            } else {
                items = new ArrayList<>();
                int n = 1 + r.nextInt(shape < 10 ? 1 : 4);
                for (int k = 0; k < n; k++) {
                    items.add(r.nextInt(60) == 0 ? null : item(r));
                }
            }
            PushRequest body = new PushRequest(items);
            boolean none = VALIDATOR.validate(body).isEmpty();
            assertEquals(none, body.valid(), () -> "valid() disagrees with the validator on " + body);
            valid += none ? 1 : 0;
        }
        // both answers were drawn often enough to mean something
        assertTrue(valid > bodies / 10 && valid < bodies * 9 / 10, "valid bodies: " + valid);
    }

    @Test
    void theConstraintsValidCheckAreAllTheValidatorReads() {
        assertEquals("items: NotNull, Size; items<element>: NotNull, cascaded",
                constraints(VALIDATOR.getConstraintsForClass(PushRequest.class)));
        assertEquals("<class>: Checked; partition: Name; payload: NotNull; queue: Name, NotNull; traceId: Key; "
                        + "transactionId: Key",
                constraints(VALIDATOR.getConstraintsForClass(PushRequest.Item.class)));
    }

    /** Every constraint and cascade of a bean, by property (and container element), sorted. */
    private static String constraints(BeanDescriptor bean) {
        TreeSet<String> out = new TreeSet<>();
        if (!bean.getConstraintDescriptors().isEmpty()) {
            out.add("<class>: " + names(bean.getConstraintDescriptors(), false));
        }
        for (PropertyDescriptor p : bean.getConstrainedProperties()) {
            out.add(p.getPropertyName() + ": " + names(p.getConstraintDescriptors(), p.isCascaded()));
            for (ContainerElementTypeDescriptor e : p.getConstrainedContainerElementTypes()) {
                out.add(p.getPropertyName() + "<element>: " + names(e.getConstraintDescriptors(), e.isCascaded()));
            }
        }
        return String.join("; ", out);
    }

    private static String names(java.util.Set<ConstraintDescriptor<?>> descriptors, boolean cascaded) {
        TreeSet<String> n = new TreeSet<>();
        descriptors.forEach(d -> n.add(d.getAnnotation().annotationType().getSimpleName()));
        List<String> out = new ArrayList<>(n);
        if (cascaded) {
            out.add("cascaded");
        }
        return String.join(", ", out);
    }
}
