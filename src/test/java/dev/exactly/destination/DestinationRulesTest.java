package dev.exactly.destination;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The rules of a destination's settings that need no server: a URL's port, its host's form, the
 * signing secret's base64, and the wording of the guard's and the dispatcher's messages.
 */
class DestinationRulesTest {

    /** @return the fields the rules refuse with their reasons, as "field: why" */
    private static List<String> broken(String type, String url, String secret, Destination.Aws aws) {
        List<String> out = new ArrayList<>();
        DestinationRules.check(null, type, url, secret, null, null, null, null, aws, null, (f, why) -> out.add(f + ": " + why));
        return out;
    }

    @Test
    void aPortOutsideOneTo65535IsRefusedNamingTheRange() {
        for (String url : List.of("http://127.0.0.1:99999/hook", "http://127.0.0.1:0/hook", "http://127.0.0.1:-1/",
                "https://example.com:65536/", "http://example.com:99999999999/", "http://[2001:db8::1]:70000/",
                "http://example.com:8o/")) {
            String why = DestinationRules.url(url, null);
            assertTrue(why != null && why.contains("port from 1 to 65535"), url + " -> " + why);
        }
        for (String url : List.of("http://example.com:1/", "https://example.com:65535/", "http://example.com/",
                "http://[2001:db8::1]/", "http://[2001:db8::1]:8080/", "http://user@example.com:8080/x")) {
            String why = DestinationRules.url(url, null);
            assertTrue(why == null || !why.contains("port"), url + " -> " + why);
        }
        // the AWS types' URLs follow the same rule, each naming its own field
        List<String> sqs = broken("sqs", null, null,
                new Destination.Aws("https://sqs.us-east-1.amazonaws.com:99999/123456789012/q", null, null, null, null,
                        "http://127.0.0.2:0"));
        assertEquals(2, sqs.size(), sqs.toString());
        assertTrue(sqs.get(0).startsWith("queueUrl: must have a port from 1 to 65535"), sqs.toString());
        assertTrue(sqs.get(1).startsWith("endpoint: must have a port from 1 to 65535"), sqs.toString());
        List<String> eb = broken("eventbridge", null, null, new Destination.Aws(null, null, null, null, null, "https://h:65536"));
        assertEquals(List.of("endpoint: must have a port from 1 to 65535, or none (80 for http, 443 for https)"), eb);
    }

    @Test
    void aHostJavaCannotReadIsRefusedSayingWhatAHostMustBe() {
        String idn = DestinationRules.url("http://bücher.example/", null);
        assertTrue(idn.contains("ASCII host name") && idn.contains("punycode") && idn.contains("xn--bcher-kva.example"), idn);
        String underscore = DestinationRules.url("http://my_host.example/", null);
        assertTrue(underscore.contains("ASCII host name") && underscore.contains("IP literal"), underscore);
        assertNull(DestinationRules.url("http://xn--bcher-kva.example/", null));
    }

    @Test
    void aSecretMustBeCanonicalPaddedBase64() {
        String unpadded = "whsec_tAxzQS0vg3psOSLPV+jK/zsAZVAez9m3jQPz3SPGCw8";
        String why = DestinationRules.secret(unpadded);
        assertTrue(why != null && why.contains("= padding"), why);
        assertEquals(List.of("signingSecret: " + why), broken("http", "https://example.com/", unpadded, null));
        assertNull(DestinationRules.secret(unpadded + "="));
        // the same key with stray low bits in its last character: Java decodes it, other decoders refuse it
        assertTrue(DestinationRules.secret("whsec_tAxzQS0vg3psOSLPV+jK/zsAZVAez9m3jQPz3SPGCw9=").contains("= padding"));
        assertTrue(DestinationRules.secret("whsec_not*base64").contains("not base64"));
        assertNull(DestinationRules.secret(DestinationTest.SECRET));
    }

    @Test
    void aConfiguredDestinationFollowsTheSameRulesNamingItsKey() {
        DeliveryConfig delivery = (DeliveryConfig) java.lang.reflect.Proxy.newProxyInstance(DeliveryConfig.class.getClassLoader(),
                new Class<?>[] {DeliveryConfig.class}, (proxy, method, args) -> {
                    if (method.getName().equals("allowedHosts")) {
                        return java.util.Optional.empty();
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
        java.util.Map<String, DestinationsConfig.Destination> all = java.util.Map.of(
                "big", new ConfiguredDestinationsTest.Keys("orders", "http", java.util.Map.of("url", "http://example.com:99999/hook",
                        "signing-secret", "whsec_tAxzQS0vg3psOSLPV+jK/zsAZVAez9m3jQPz3SPGCw8")),
                "zero", new ConfiguredDestinationsTest.Keys("orders", "sqs", java.util.Map.of("queue-url",
                        "https://sqs.eu-west-1.amazonaws.com/123456789012/o", "endpoint", "http://example.com:0")));
        IllegalStateException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                () -> new ConfiguredDestinations(() -> all, delivery));
        String m = e.getMessage();
        assertTrue(m.contains("exactly.destinations.big.url must have a port from 1 to 65535"), m);
        assertTrue(m.contains("exactly.destinations.big.signing-secret must be whsec_ followed by standard base64"), m);
        assertTrue(m.contains("exactly.destinations.zero.endpoint must have a port from 1 to 65535"), m);
    }

    @Test
    void messagesUseTheRightArticleAndNumber() {
        assertEquals("a unique-local", AddressGuard.article("unique-local"));
        assertEquals("an unspecified (0.0.0.0/8)", AddressGuard.article("unspecified (0.0.0.0/8)"));
        assertEquals("a loopback", AddressGuard.article("loopback"));
        assertEquals("an IETF protocol assignments (192.0.0.0/24)", AddressGuard.article("IETF protocol assignments (192.0.0.0/24)"));
        String literal = new AddressGuard(List.of(), h -> new java.net.InetAddress[0]).refusedLiteral("[fd00::1]");
        assertTrue(literal.contains(", a unique-local address"), literal);
        assertEquals("1 attempt", Dispatcher.attemptCount(1));
        assertEquals("2 attempts", Dispatcher.attemptCount(2));
    }
}
