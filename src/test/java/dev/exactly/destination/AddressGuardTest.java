package dev.exactly.destination;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The SSRF guard: each kind of address a destination may not reach by default, in IPv4, IPv6 and
 * IPv4-in-IPv6 forms, by literal and by a name that resolves to it; and the operator's allowance.
 */
class AddressGuardTest {

    private static InetAddress ip(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    /** A guard whose names resolve as the map says (no DNS). */
    private static AddressGuard guard(List<String> allowed, Map<String, String> names) {
        return new AddressGuard(allowed, h -> names.containsKey(h) ? new InetAddress[] {ip(names.get(h))}
                : h.matches("[0-9.]+|.*:.*") ? new InetAddress[] {ip(h)} : new InetAddress[0]);
    }

    @Test
    void everyRefusedKindIsRefused() {
        Map<String, String> refused = Map.ofEntries(
                Map.entry("127.0.0.1", "loopback"), Map.entry("127.255.0.9", "loopback"), Map.entry("::1", "loopback"),
                Map.entry("169.254.169.254", "link-local"), Map.entry("fe80::1", "link-local"),
                Map.entry("fd00:ec2::254", "unique-local"), Map.entry("fc00::5", "unique-local"),
                Map.entry("10.1.2.3", "private"), Map.entry("172.16.0.1", "private"), Map.entry("172.31.255.255", "private"),
                Map.entry("192.168.1.1", "private"), Map.entry("100.64.0.1", "shared"), Map.entry("100.127.255.254", "shared"),
                Map.entry("0.0.0.0", "unspecified"), Map.entry("0.1.2.3", "unspecified"), Map.entry("::", "unspecified"),
                Map.entry("::ffff:127.0.0.1", "loopback"), Map.entry("::ffff:169.254.169.254", "link-local"),
                Map.entry("::ffff:10.0.0.1", "private"), Map.entry("::ffff:100.64.1.1", "shared"),
                Map.entry("::127.0.0.1", "loopback"), Map.entry("64:ff9b::a9fe:a9fe", "link-local"),
                Map.entry("::ffff:0:7f00:1", "loopback"), Map.entry("::ffff:0:a9fe:a9fe", "link-local"),
                Map.entry("2002:a9fe:a9fe::", "link-local"), Map.entry("2002:7f00:1::1", "loopback"),
                Map.entry("2001:0:4136:e378:8000:63bf:80ff:fffe", "loopback"),
                Map.entry("64:ff9b:1::a9fe:a9fe", "local-use NAT64"), Map.entry("64:ff9b:1:fffe::1", "local-use NAT64"),
                Map.entry("224.0.0.1", "multicast"), Map.entry("255.255.255.255", "reserved"),
                Map.entry("192.0.0.192", "IETF protocol assignments"), Map.entry("192.0.0.9", "IETF protocol assignments"),
                Map.entry("192.0.2.1", "documentation"), Map.entry("198.51.100.1", "documentation"),
                Map.entry("203.0.113.1", "documentation"), Map.entry("2001:db8::1", "documentation"),
                Map.entry("3fff:fff::1", "documentation"), Map.entry("198.18.0.1", "benchmarking"),
                Map.entry("198.19.255.254", "benchmarking"), Map.entry("2001:2::1", "benchmarking"),
                Map.entry("100::1", "discard-only"), Map.entry("::ffff:198.18.0.1", "benchmarking"));
        refused.forEach((literal, kind) -> {
            String why = AddressGuard.refusedKind(ip(literal));
            assertNotNull(why, literal);
            assertTrue(why.startsWith(kind), literal + ": " + why);
        });
        AddressGuard none = guard(List.of(), Map.of());
        refused.keySet().forEach(literal -> {
            assertNotNull(none.refusedLiteral(literal.contains(":") ? "[" + literal + "]" : literal), literal);
            assertThrows(AddressGuard.RefusedAddressException.class, () -> none.resolve(literal), literal);
        });
    }

    @Test
    void publicAddressesPass() throws Exception {
        for (String literal : List.of("93.184.215.14", "172.32.0.1", "100.128.0.1", "11.0.0.1", "2606:2800:21f:cb07::1",
                "192.0.1.1", "192.0.3.1", "198.17.255.1", "198.20.0.1", "198.51.101.1", "203.0.112.1", "2001:db9::1",
                "4000::1", "2001:3::1", "3fff:1000::1", "3ffe::1", "100:0:0:1::1",
                "::ffff:93.184.215.14", "2002:5db8:d70e::1", "::ffff:0:5db8:d70e", "2001:0:4136:e378:8000:63bf:a247:28f1")) {
            assertNull(AddressGuard.refusedKind(ip(literal)), literal);
        }
        assertEquals(ip("93.184.215.14"), guard(List.of(), Map.of("example.test", "93.184.215.14")).resolve("example.test"));
    }

    @Test
    void aNameThatResolvesToARefusedAddressIsRefused() {
        AddressGuard g = guard(List.of(), Map.of("localhost", "127.0.0.1", "metadata.test", "169.254.169.254",
                "v6.test", "fd00:ec2::254", "mapped.test", "::ffff:10.0.0.1"));
        for (String name : List.of("localhost", "metadata.test", "v6.test", "mapped.test")) {
            var e = assertThrows(AddressGuard.RefusedAddressException.class, () -> g.resolve(name), name);
            assertTrue(e.getMessage().contains("exactly.delivery.allowed-hosts"), e.getMessage());
        }
        assertNull(g.refusedLiteral("localhost"), "a name is checked once resolved, at delivery");
        assertThrows(AddressGuard.RefusedAddressException.class, () -> g.resolve("nowhere.test"));
    }

    @Test
    void theRealResolverRefusesLocalhost() {
        var e = assertThrows(AddressGuard.RefusedAddressException.class, () -> new AddressGuard(List.of()).resolve("localhost"));
        assertTrue(e.getMessage().contains("loopback"), e.getMessage());
    }

    @Test
    void allowedHostsLetNamesAndRangesThrough() throws Exception {
        AddressGuard g = guard(List.of("hooks.internal", "10.1.0.0/16", "127.0.0.2", "fd00::/8"),
                Map.of("hooks.internal", "10.9.9.9", "other.internal", "10.9.9.9", "in-range", "10.1.200.3"));
        assertEquals(ip("10.9.9.9"), g.resolve("hooks.internal"));
        assertEquals(ip("10.1.200.3"), g.resolve("in-range"));
        assertEquals(ip("127.0.0.2"), g.resolve("127.0.0.2"));
        assertEquals(ip("fd00:ec2::254"), g.resolve("fd00:ec2::254"));
        assertThrows(AddressGuard.RefusedAddressException.class, () -> g.resolve("other.internal"));
        assertThrows(AddressGuard.RefusedAddressException.class, () -> g.resolve("127.0.0.1"));
        assertThrows(AddressGuard.RefusedAddressException.class, () -> g.resolve("10.2.0.1"));
        assertNull(g.refusedLiteral("10.1.0.1"));
        assertNotNull(g.refusedLiteral("10.2.0.1"));
        assertThrows(IllegalArgumentException.class, () -> new AddressGuard(List.of("10.0.0.0/33")));
        assertThrows(IllegalArgumentException.class, () -> new AddressGuard(List.of("10.0.0.0/x")));
    }
}
