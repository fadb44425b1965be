package dev.exactly.destination;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** AWS destinations in the configuration: their keys, defaults, and a start-up error naming the key. */
class ConfiguredDestinationsTest {

    /** One destination's keys, as SmallRye Config would map them (absent: empty). */
    record Keys(String queue, String type, Map<String, String> v) implements DestinationsConfig.Destination {
        private Optional<String> o(String k) {
            return Optional.ofNullable(v.get(k));
        }

        @Override public Optional<String> url() { return o("url"); }
        @Override public Optional<String> signingSecret() { return o("signing-secret"); }
        @Override public Optional<String> queueUrl() { return o("queue-url"); }
        @Override public Optional<String> eventBus() { return o("event-bus"); }
        @Override public Optional<String> eventSource() { return o("event-source"); }
        @Override public Optional<String> detailType() { return o("detail-type"); }
        @Override public Optional<String> region() { return o("region"); }
        @Override public Optional<String> endpoint() { return o("endpoint"); }
        @Override public int timeoutMs() { return 10_000; }
        @Override public int maxAttempts() { return 10; }
        @Override public int backoffMs() { return 1_000; }
        @Override public int backoffCapMs() { return 300_000; }
        @Override public String ordered() { return v.getOrDefault("ordered", "true"); }
    }

    private static ConfiguredDestinations configured(Map<String, DestinationsConfig.Destination> all) {
        return configured(all, Map.of());
    }

    private static ConfiguredDestinations configured(Map<String, DestinationsConfig.Destination> all, Map<String, String> env) {
        // a proxy, not a class of the test: the application (Quarkus) would take a class for a bean
        DeliveryConfig delivery = (DeliveryConfig) java.lang.reflect.Proxy.newProxyInstance(DeliveryConfig.class.getClassLoader(),
                new Class<?>[] {DeliveryConfig.class}, (proxy, method, args) -> {
                    if (method.getName().equals("allowedHosts")) {
                        return Optional.empty();
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
        return new ConfiguredDestinations(() -> all, delivery, env);
    }

    @Test
    void awsDestinationsTakeTheirKeysAndDefaults() {
        Map<String, DestinationsConfig.Destination> all = new HashMap<>();
        all.put("fifo", new Keys("orders", "sqs", Map.of("queue-url", "https://sqs.eu-west-1.amazonaws.com/123456789012/o.fifo")));
        all.put("bus", new Keys("orders", "eventbridge", Map.of("region", "eu-west-1", "ordered", "false")));
        Map<String, Destination> got = configured(all).all();
        Destination fifo = got.get("fifo");
        assertNull(fifo.url());
        assertEquals("https://sqs.eu-west-1.amazonaws.com/123456789012/o.fifo", fifo.aws().queueUrl());
        assertTrue(DestinationRules.fifo(fifo.aws().queueUrl()));
        assertTrue(fifo.ordered(), "ordered by default");
        assertEquals("eu-west-1", AwsClients.sqsRegion(fifo.aws().queueUrl()), "the region of the queue URL");
        Destination bus = got.get("bus");
        assertEquals("default", bus.aws().eventBus());
        assertEquals("exactly", bus.aws().source());
        assertEquals("exactly.message", bus.aws().detailType());
        assertEquals("eu-west-1", bus.aws().region());
        assertEquals(false, bus.ordered());
        assertEquals("us-east-2", AwsClients.busRegion("arn:aws:events:us-east-2:123456789012:event-bus/orders"));
    }

    /**
     * {@code ordered=maybe} read through SmallRye Config (which would read it as false) stops the
     * start naming the key, as the API refuses it; {@code FALSE} and {@code true} are read.
     */
    @Test
    void anOrderedThatIsNeitherTrueNorFalseStopsTheStart() {
        java.util.function.Function<String, ConfiguredDestinations> start = ordered -> {
            io.smallrye.config.SmallRyeConfig config = new io.smallrye.config.SmallRyeConfigBuilder()
                    .withMapping(DestinationsConfig.class)
                    .withSources(new io.smallrye.config.PropertiesConfigSource(Map.of(
                            "exactly.destinations.hook.queue", "orders",
                            "exactly.destinations.hook.url", "https://example.com/hook",
                            "exactly.destinations.hook.ordered", ordered), "test", 500))
                    .build();
            return configured(config.getConfigMapping(DestinationsConfig.class).all());
        };
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> start.apply("maybe"));
        assertTrue(e.getMessage().contains("exactly.destinations.hook.ordered must be true or false"), e.getMessage());
        assertEquals(false, start.apply("FALSE").all().get("hook").ordered());
        assertEquals(true, start.apply("true").all().get("hook").ordered());
    }

    @Test
    void aBrokenKeyStopsTheStartNamingIt() {
        Map<String, DestinationsConfig.Destination> all = new HashMap<>();
        all.put("q", new Keys("orders", "sqs", Map.of()));
        all.put("b", new Keys("orders", "eventbridge", Map.of("event-source", "aws.evil", "endpoint", "http://169.254.169.254")));
        all.put("h", new Keys("orders", "http", Map.of("url", "https://example.com/h", "queue-url", "https://example.com/1/q")));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> configured(all));
        String m = e.getMessage();
        assertTrue(m.contains("exactly.destinations.q.queue-url is required for an sqs destination"), m);
        assertTrue(m.contains("exactly.destinations.b.event-source must not start with 'aws.'"), m);
        assertTrue(m.contains("exactly.destinations.b.endpoint names 169.254.169.254, a link-local address"), m);
        assertTrue(m.contains("exactly.destinations.h.queue-url applies to sqs destinations only"), m);
    }

    /** A refusal names the other settings it mentions by their keys too, not by the API's field names. */
    @Test
    void aRefusalNamesTheOtherSettingsByTheirKeys() {
        io.smallrye.config.SmallRyeConfig config = new io.smallrye.config.SmallRyeConfigBuilder()
                .withMapping(DestinationsConfig.class)
                .withSources(new io.smallrye.config.PropertiesConfigSource(Map.of(
                        "exactly.destinations.b1.queue", "orders",
                        "exactly.destinations.b1.url", "https://user:pw@example.com/hook",
                        "exactly.destinations.b1.backoff-ms", "5000",
                        "exactly.destinations.b1.backoff-cap-ms", "1000"), "test", 500))
                .build();
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> configured(config.getConfigMapping(DestinationsConfig.class).all()));
        String m = e.getMessage();
        assertTrue(m.contains("exactly.destinations.b1.backoff-cap-ms must not be below backoff-ms (5000)"), m);
        assertTrue(m.contains("or sign with signing-secret)"), m);
        for (String field : List.of("backoffMs", "signingSecret")) {
            assertFalse(m.contains(field), m);
        }
    }

    /**
     * Variables under EXACTLY_DESTINATIONS_ that set no option of a configured destination are
     * named, all in one message; the forms SmallRye Config applies pass, other variables are not looked at.
     */
    @Test
    void strayDestinationVariablesAreNamed() {
        List<String> none = ConfiguredDestinations.strayVariables(
                Set.of("EXACTLY_DESTINATIONS_ORDERS_FIFO_URL", "EXACTLY_DESTINATIONS_ORDERS_FIFO_QUEUE", "PATH"), Set.of());
        assertEquals(List.of("EXACTLY_DESTINATIONS_ORDERS_FIFO_QUEUE", "EXACTLY_DESTINATIONS_ORDERS_FIFO_URL"), none);
        String m = ConfiguredDestinations.strayMessage(none, Set.of());
        assertTrue(m.startsWith("the environment variables EXACTLY_DESTINATIONS_ORDERS_FIFO_QUEUE, EXACTLY_DESTINATIONS_ORDERS_FIFO_URL"
                + " set no option of a configured destination (none is configured): expected EXACTLY_DESTINATIONS_<NAME>_<OPTION>,"
                + " <OPTION> one of BACKOFF_CAP_MS, BACKOFF_MS, DETAIL_TYPE, ENDPOINT, EVENT_BUS, EVENT_SOURCE,"
                + " MAX_ATTEMPTS, ORDERED, QUEUE, QUEUE_URL, REGION, SIGNING_SECRET, TIMEOUT_MS, TYPE, URL;"), m);

        Set<String> names = Set.of("orders", "a.b", "orders-fifo");
        List<String> typos = ConfiguredDestinations.strayVariables(Set.of("EXACTLY_DESTINATIONS_ORDERS_QUEUE",
                "EXACTLY_DESTINATIONS_ORDERS_MAX_ATTEMTPS", "exactly_destinations_typo_max_attempts", "EXACTLY_DESTINATIONS_A_B_QUEUE",
                "EXACTLY_DESTINATIONS__A_B__URL", "EXACTLY_DESTINATIONS_ORDERS_FIFO_MAX_ATTEMPTS", "exactly.destinations.orders.url",
                "EXACTLY_DESTINATIONS__ORDERS__TYPE", "EXACTLY_DESTINATIONS", "EXACTLY_DESTINATION_ORDERS_URL"), names);
        assertEquals(List.of("EXACTLY_DESTINATIONS_A_B_QUEUE", "EXACTLY_DESTINATIONS_ORDERS_MAX_ATTEMTPS",
                "exactly_destinations_typo_max_attempts"), typos);
        m = ConfiguredDestinations.strayMessage(typos.subList(1, 2), names);
        assertTrue(m.startsWith("the environment variable EXACTLY_DESTINATIONS_ORDERS_MAX_ATTEMTPS sets no option of a"
                + " configured destination (configured: a.b, orders, orders-fifo)"), m);
    }

    /**
     * Through SmallRye Config's environment source: a variable it ignores stops the start naming
     * it, the forms it applies start and take effect (a dotted name quoted; a name with '-' defined
     * by a property, its other options from variables).
     */
    @Test
    void destinationVariablesThatSmallRyeIgnoresStopTheStart() {
        java.util.function.BiFunction<Map<String, String>, Map<String, String>, ConfiguredDestinations> start = (env, props) -> {
            io.smallrye.config.SmallRyeConfig config = new io.smallrye.config.SmallRyeConfigBuilder()
                    .withMapping(DestinationsConfig.class)
                    .withSources(new io.smallrye.config.EnvConfigSource(env, 300),
                            new io.smallrye.config.PropertiesConfigSource(props, "test", 250))
                    .build();
            return configured(config.getConfigMapping(DestinationsConfig.class).all(), env);
        };
        Map<String, String> fifo = Map.of("EXACTLY_DESTINATIONS_ORDERS_FIFO_QUEUE", "orders",
                "EXACTLY_DESTINATIONS_ORDERS_FIFO_URL", "https://example.com/hook");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> start.apply(fifo, Map.of()));
        assertTrue(e.getMessage().contains("the environment variables EXACTLY_DESTINATIONS_ORDERS_FIFO_QUEUE, EXACTLY_DESTINATIONS_ORDERS_FIFO_URL"
                + " set no option of a configured destination (none is configured)"), e.getMessage());

        Map<String, String> dotted = new HashMap<>(Map.of("EXACTLY_DESTINATIONS__ORDERS_FIFO__QUEUE", "orders",
                "EXACTLY_DESTINATIONS__ORDERS_FIFO__URL", "https://example.com/hook",
                "EXACTLY_DESTINATIONS__ORDERS_FIFO__MAX_ATTEMPTS", "3"));
        assertEquals(3, start.apply(dotted, Map.of()).all().get("orders.fifo").maxAttempts());
        dotted.put("EXACTLY_DESTINATIONS_ORDERS_FIFO_BACKOFF_MS", "5");
        e = assertThrows(IllegalStateException.class, () -> start.apply(dotted, Map.of()));
        assertTrue(e.getMessage().contains("the environment variable EXACTLY_DESTINATIONS_ORDERS_FIFO_BACKOFF_MS sets no option"
                + " of a configured destination (configured: orders.fifo)"), e.getMessage());

        Destination dashed = start.apply(Map.of("EXACTLY_DESTINATIONS_ORDERS_FIFO_MAX_ATTEMPTS", "4"),
                Map.of("exactly.destinations.orders-fifo.queue", "orders",
                        "exactly.destinations.orders-fifo.url", "https://example.com/hook")).all().get("orders-fifo");
        assertEquals(4, dashed.maxAttempts());
    }
}
