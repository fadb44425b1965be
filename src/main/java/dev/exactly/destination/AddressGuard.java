package dev.exactly.destination;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Keeps destinations from reaching what Exactly itself can reach (server-side request forgery):
 * an address is refused when it is unspecified (0.0.0.0/8, ::), loopback, link-local
 * (169.254.0.0/16, which holds the instance metadata address, fe80::/10), private (10/8,
 * 172.16/12, 192.168/16, fec0::/10), shared (100.64.0.0/10), unique-local (fc00::/7, which holds
 * fd00:ec2::254), multicast or broadcast, or in one of these blocks of IANA's IPv4 and IPv6
 * Special-Purpose Address Registries (RFC 6890; 192.0.0.0/24 whole, its two anycast addresses too): IETF
 * protocol assignments 192.0.0.0/24, documentation (192.0.2.0/24, 198.51.100.0/24,
 * 203.0.113.0/24, 2001:db8::/32, 3fff::/20), benchmarking (198.18.0.0/15, 2001:2::/48) and
 * discard-only 100::/64; and so is an IPv6 form that carries such an IPv4 address
 * (IPv4-mapped ::ffff:a.b.c.d, IPv4-compatible ::a.b.c.d, IPv4-translated ::ffff:0:a.b.c.d of
 * RFC 6145, NAT64 64:ff9b::a.b.c.d of RFC 6052, 6to4 2002:aabb:ccdd::/48 of RFC 3056, and a Teredo
 * address's client, RFC 4380), and the local-use NAT64 prefix 64:ff9b:1::/48 (RFC 8215), whose
 * IPv4 placement is the operator's choice. The operator's
 * {@code exactly.delivery.allowed-hosts} lets named hosts (whatever they resolve to) and CIDR ranges
 * through. Delivery resolves the host, checks every address, and connects to the address it
 * checked ({@link #resolve}), so a name that changes its answer between check and connection
 * cannot slip through.
 */
public final class AddressGuard {

    /** A destination's host refused, with why. */
    public static final class RefusedAddressException extends Exception {
        /** @param message why, naming the host and address */
        public RefusedAddressException(String message) {
            super(message);
        }
    }

    private record Range(byte[] network, int bits) {
        boolean contains(byte[] a) {
            if (a.length != network.length) {
                return false;
            }
            int full = bits / 8;
            for (int i = 0; i < full; i++) {
                if (a[i] != network[i]) {
                    return false;
                }
            }
            int rest = bits % 8;
            if (rest == 0) {
                return true;
            }
            int mask = (0xff << (8 - rest)) & 0xff;
            return (a[full] & mask) == (network[full] & mask);
        }
    }

    private final Set<String> allowedNames = new TreeSet<>();
    private final List<Range> allowedRanges = new ArrayList<>();
    private final Function<String, InetAddress[]> resolver;

    /**
     * @param allowed host names or CIDR ranges (an address alone is its own /32 or /128)
     * @throws IllegalArgumentException for a CIDR range that does not parse
     */
    public AddressGuard(List<String> allowed) {
        this(allowed, AddressGuard::lookup);
    }

    /** With another resolver (tests). */
    AddressGuard(List<String> allowed, Function<String, InetAddress[]> resolver) {
        this.resolver = resolver;
        for (String entry : allowed) {
            String e = entry.strip().toLowerCase(Locale.ROOT);
            if (e.isEmpty()) {
                continue;
            }
            int slash = e.indexOf('/');
            String host = slash < 0 ? e : e.substring(0, slash);
            if (slash < 0 && !isLiteral(host)) {
                allowedNames.add(host);
                continue;
            }
            InetAddress a = literal(host);
            if (a == null) {
                throw new IllegalArgumentException("'" + entry + "' is neither a host name nor a CIDR range");
            }
            int max = a.getAddress().length * 8;
            int bits;
            try {
                bits = slash < 0 ? max : Integer.parseInt(e.substring(slash + 1));
            } catch (NumberFormatException x) {
                throw new IllegalArgumentException("'" + entry + "': the prefix length is not a number");
            }
            if (bits < 0 || bits > max) {
                throw new IllegalArgumentException("'" + entry + "': the prefix length must be 0 to " + max);
            }
            allowedRanges.add(new Range(a.getAddress(), bits));
        }
    }

    private static InetAddress[] lookup(String host) {
        try {
            return InetAddress.getAllByName(host);
        } catch (UnknownHostException e) {
            return new InetAddress[0];
        }
    }

    /**
     * Resolves a destination's host and returns the first address it may connect to.
     *
     * @param host the URL's host (an IPv6 literal with or without brackets)
     * @return the address to connect to
     * @throws RefusedAddressException when the name does not resolve, or each of its addresses is refused
     */
    public InetAddress resolve(String host) throws RefusedAddressException {
        String h = bare(host);
        InetAddress[] found = resolver.apply(h);
        if (found.length == 0) {
            throw new RefusedAddressException("host '" + h + "' does not resolve");
        }
        if (allowedNames.contains(h.toLowerCase(Locale.ROOT))) {
            return found[0];
        }
        String why = null;
        for (InetAddress a : found) {
            String kind = refusedKind(a);
            if (kind == null || allowed(a)) {
                return a;
            }
            if (why == null) {
                why = "host '" + h + "' resolves to " + a.getHostAddress() + ", " + article(kind) + " address, which a destination "
                        + "may not reach unless exactly.delivery.allowed-hosts allows it";
            }
        }
        throw new RefusedAddressException(why);
    }

    /**
     * The check of a URL's host at configuration: an address literal that is refused (a name is
     * checked once resolved, at delivery).
     *
     * @return null when the host is a name or an address a destination may reach, else why not
     */
    public String refusedLiteral(String host) {
        String h = bare(host);
        if (!isLiteral(h) || allowedNames.contains(h.toLowerCase(Locale.ROOT))) {
            return null;
        }
        InetAddress a = literal(h);
        if (a == null) {
            return "names a host that is neither a name nor an address";
        }
        String kind = refusedKind(a);
        if (kind == null || allowed(a)) {
            return null;
        }
        return "names " + a.getHostAddress() + ", " + article(kind) + " address, which a destination may not reach unless "
                + "exactly.delivery.allowed-hosts allows it";
    }

    private boolean allowed(InetAddress a) {
        byte[] b = a.getAddress();
        for (Range r : allowedRanges) {
            if (r.contains(b)) {
                return true;
            }
        }
        return false;
    }

    /**
     * @return why a destination may not reach {@code a} by default ("loopback", "private", …), or
     *         null when it may
     */
    public static String refusedKind(InetAddress a) {
        if (a instanceof Inet6Address v6) {
            byte[] b = v6.getAddress();
            byte[] embedded = embeddedIpv4(b);
            if (embedded != null) {
                String kind = ipv4Kind(embedded);
                return kind == null ? null : kind + " (IPv4 in IPv6)";
            }
            if ((b[0] & 0xff) == 0x00 && (b[1] & 0xff) == 0x64 && (b[2] & 0xff) == 0xff && (b[3] & 0xff) == 0x9b
                    && b[4] == 0 && b[5] == 1) {
                return "local-use NAT64 (64:ff9b:1::/48)";
            }
            if (v6.isAnyLocalAddress()) {
                return "unspecified";
            }
            if (v6.isLoopbackAddress()) {
                return "loopback";
            }
            if (v6.isLinkLocalAddress()) {
                return "link-local";
            }
            if (v6.isSiteLocalAddress()) {
                return "private (site-local)";
            }
            if ((b[0] & 0xfe) == 0xfc) {
                return "unique-local";
            }
            if ((b[0] & 0xff) == 0xff) {
                return "multicast";
            }
            if (((b[0] & 0xff) == 0x20 && (b[1] & 0xff) == 0x01 && (b[2] & 0xff) == 0x0d && (b[3] & 0xff) == 0xb8)
                    || ((b[0] & 0xff) == 0x3f && (b[1] & 0xff) == 0xff && (b[2] & 0xf0) == 0)) {
                return "documentation (2001:db8::/32, 3fff::/20)";
            }
            if ((b[0] & 0xff) == 0x20 && (b[1] & 0xff) == 0x01 && b[2] == 0 && b[3] == 2 && b[4] == 0 && b[5] == 0) {
                return "benchmarking (2001:2::/48)";
            }
            if ((b[0] & 0xff) == 0x01 && b[1] == 0 && allZero(b, 2, 8)) {
                return "discard-only (100::/64)";
            }
            return null;
        }
        return ipv4Kind(((Inet4Address) a).getAddress());
    }

    /**
     * @return the kind with its indefinite article, by its first sound: "a loopback", "an
     *         unspecified (0.0.0.0/8)", "an IETF protocol assignments (192.0.0.0/24)", "a
     *         unique-local" ("uni" sounds as "you")
     */
    static String article(String kind) {
        boolean vowelSound = "aeiouAEIOU".indexOf(kind.charAt(0)) >= 0 && !kind.startsWith("uni");
        return (vowelSound ? "an " : "a ") + kind;
    }

    private static String ipv4Kind(byte[] b) {
        int o0 = b[0] & 0xff;
        int o1 = b[1] & 0xff;
        if (o0 == 0) {
            return "unspecified (0.0.0.0/8)";
        }
        if (o0 == 127) {
            return "loopback";
        }
        if (o0 == 169 && o1 == 254) {
            return "link-local";
        }
        if (o0 == 10 || (o0 == 172 && (o1 & 0xf0) == 16) || (o0 == 192 && o1 == 168)) {
            return "private";
        }
        if (o0 == 100 && (o1 & 0xc0) == 64) {
            return "shared (100.64.0.0/10)";
        }
        if (o0 >= 224) {
            return o0 < 240 ? "multicast" : "reserved or broadcast";
        }
        int o2 = b[2] & 0xff;
        if (o0 == 192 && o1 == 0 && o2 == 0) {
            return "IETF protocol assignments (192.0.0.0/24)";
        }
        if ((o0 == 192 && o1 == 0 && o2 == 2) || (o0 == 198 && o1 == 51 && o2 == 100) || (o0 == 203 && o1 == 0 && o2 == 113)) {
            return "documentation (192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24)";
        }
        if (o0 == 198 && (o1 & 0xfe) == 18) {
            return "benchmarking (198.18.0.0/15)";
        }
        return null;
    }

    /**
     * The IPv4 address an IPv6 address carries: IPv4-mapped, IPv4-compatible, IPv4-translated
     * (::ffff:0:0/96), NAT64 (64:ff9b::/96), 6to4 (2002::/16, the next 32 bits) or a Teredo client
     * (2001::/32, the last 32 bits inverted); else null.
     */
    private static byte[] embeddedIpv4(byte[] b) {
        if ((b[0] & 0xff) == 0x20 && (b[1] & 0xff) == 0x02) {
            return new byte[] {b[2], b[3], b[4], b[5]};
        }
        if ((b[0] & 0xff) == 0x20 && (b[1] & 0xff) == 0x01 && b[2] == 0 && b[3] == 0) {
            return new byte[] {(byte) ~b[12], (byte) ~b[13], (byte) ~b[14], (byte) ~b[15]};
        }
        if (allZero(b, 0, 8) && (b[8] & 0xff) == 0xff && (b[9] & 0xff) == 0xff && b[10] == 0 && b[11] == 0) {
            return new byte[] {b[12], b[13], b[14], b[15]};
        }
        boolean zero80 = true;
        for (int i = 0; i < 10; i++) {
            zero80 &= b[i] == 0;
        }
        boolean mapped = zero80 && (b[10] & 0xff) == 0xff && (b[11] & 0xff) == 0xff;
        boolean compatible = zero80 && b[10] == 0 && b[11] == 0 && !(allZero(b, 12, 15) && (b[15] == 0 || b[15] == 1));
        boolean nat64 = (b[0] & 0xff) == 0x00 && (b[1] & 0xff) == 0x64 && (b[2] & 0xff) == 0xff && (b[3] & 0xff) == 0x9b
                && allZero(b, 4, 12);
        if (!mapped && !compatible && !nat64) {
            return null;
        }
        return new byte[] {b[12], b[13], b[14], b[15]};
    }

    private static boolean allZero(byte[] b, int from, int to) {
        for (int i = from; i < to; i++) {
            if (b[i] != 0) {
                return false;
            }
        }
        return true;
    }

    private static String bare(String host) {
        return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    }

    private static boolean isLiteral(String host) {
        return host.contains(":") || host.matches("[0-9.]+");
    }

    /** An address literal parsed without any name lookup; null when it is not one. */
    private static InetAddress literal(String host) {
        if (!isLiteral(host)) {
            return null;
        }
        try {
            return InetAddress.getByName(host); // a literal: no lookup
        } catch (UnknownHostException e) {
            return null;
        }
    }
}
