package dev.exactly.destination;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The destinations of the application's configuration ({@code exactly.destinations.<name>.*}),
 * checked at start-up by the rules a runtime PUT follows, and the address guard of
 * {@code exactly.delivery.allowed-hosts}. A broken setting stops the start with a message naming
 * its key (never quoting a secret), as does an environment variable under
 * {@code EXACTLY_DESTINATIONS_} that sets no option of a configured destination (SmallRye Config
 * would ignore it without a word).
 */
@ApplicationScoped
public class ConfiguredDestinations {

    private final Map<String, Destination> byName;
    private final AddressGuard guard;

    /** Constructor injection; checks every setting and the process's environment variables. */
    @Inject
    public ConfiguredDestinations(DestinationsConfig config, DeliveryConfig delivery) {
        this(config, delivery, System.getenv());
    }

    /** Checks every setting, and the variables of {@code environment} (see {@link #strayVariables}). */
    ConfiguredDestinations(DestinationsConfig config, DeliveryConfig delivery, Map<String, String> environment) {
        try {
            this.guard = new AddressGuard(delivery.allowedHosts().orElse(List.of()));
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("exactly.delivery.allowed-hosts: " + e.getMessage(), e);
        }
        Map<String, Destination> found = new TreeMap<>();
        List<String> broken = new ArrayList<>();
        config.all().forEach((name, c) -> {
            String key = "exactly.destinations." + name + ".";
            DestinationRules.name(name, (f, why) -> broken.add(key.substring(0, key.length() - 1) + " (the name) " + why));
            boolean eventbridge = DestinationRules.EVENTBRIDGE.equals(c.type());
            Destination.Aws aws = new Destination.Aws(c.queueUrl().orElse(null),
                    c.eventBus().orElse(eventbridge ? DestinationRules.DEFAULT_EVENT_BUS : null),
                    c.eventSource().orElse(eventbridge ? DestinationRules.DEFAULT_SOURCE : null),
                    c.detailType().orElse(eventbridge ? DestinationRules.DEFAULT_DETAIL_TYPE : null),
                    c.region().orElse(null), c.endpoint().orElse(null));
            String url = c.url().orElse(null);
            int before = broken.size();
            Boolean ordered = ordered(c.ordered());
            if (ordered == null) {
                broken.add(key + "ordered must be true or false");
            }
            DestinationRules.check(c.queue(), c.type(), url, c.signingSecret().orElse(null), c.timeoutMs(),
                    c.maxAttempts(), c.backoffMs(), c.backoffCapMs(), aws, guard,
                    (f, why) -> broken.add(key + keyOf(f) + " " + inKeys(why)));
            if (broken.size() == before) {
                found.put(name, new Destination(name, c.queue(), c.type(), url == null ? null : URI.create(url),
                        c.signingSecret().orElse(null), c.timeoutMs(), c.maxAttempts(), c.backoffMs(), c.backoffCapMs(), true,
                        DestinationRules.HTTP.equals(c.type()) ? null : aws, ordered));
            }
        });
        List<String> stray = strayVariables(environment.keySet(), config.all().keySet());
        if (!stray.isEmpty()) {
            broken.add(strayMessage(stray, config.all().keySet()));
        }
        if (!broken.isEmpty()) {
            throw new IllegalStateException("destinations: " + String.join("; ", broken));
        }
        this.byName = Collections.unmodifiableMap(found);
    }

    /** The options of a destination as configuration keys ({@code queue}, {@code max-attempts}, ...), sorted. */
    static final Set<String> OPTIONS = options();

    private static Set<String> options() {
        Set<String> options = new TreeSet<>();
        for (Method m : DestinationsConfig.Destination.class.getDeclaredMethods()) {
            if (m.getParameterCount() == 0 && !m.isSynthetic() && !Modifier.isStatic(m.getModifiers())) {
                options.add(m.getName().replaceAll("([a-z])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT));
            }
        }
        return Collections.unmodifiableSet(options);
    }

    /**
     * The environment variables under {@code EXACTLY_DESTINATIONS_} (in any letter case, any
     * character but a letter or digit read as {@code _}) that set no option of the destinations
     * {@code names}. The forms SmallRye Config applies, as measured on its version in use:
     * {@code EXACTLY_DESTINATIONS_<NAME>_<OPTION>}, the key upper-cased with every character but
     * a letter or digit written {@code _}; for a name without a dot also
     * {@code EXACTLY_DESTINATIONS__<NAME>__<OPTION>} (the name quoted); for a name with a dot only
     * the quoted form (SmallRye Config ignores the other).
     *
     * @param variables the names of the environment variables
     * @param names the configured destinations' names
     * @return the stray variables, sorted; empty when none
     */
    static List<String> strayVariables(Set<String> variables, Set<String> names) {
        Set<String> known = new HashSet<>();
        for (String name : names) {
            for (String option : OPTIONS) {
                known.add(envName("exactly.destinations.\"" + name + "\"." + option));
                if (name.indexOf('.') < 0) {
                    known.add(envName("exactly.destinations." + name + "." + option));
                }
            }
        }
        List<String> stray = new ArrayList<>();
        for (String variable : new TreeSet<>(variables)) {
            String env = envName(variable);
            if (env.startsWith("EXACTLY_DESTINATIONS_") && !known.contains(env)) {
                stray.add(variable);
            }
        }
        return stray;
    }

    /** @return the start-up error for the variables {@code stray} (not empty), saying what was expected */
    static String strayMessage(List<String> stray, Set<String> names) {
        return "the environment variable" + (stray.size() == 1 ? " " : "s ") + String.join(", ", stray)
                + (stray.size() == 1 ? " sets" : " set") + " no option of a configured destination ("
                + (names.isEmpty() ? "none is configured" : "configured: " + String.join(", ", new TreeSet<>(names)))
                + "): expected EXACTLY_DESTINATIONS_<NAME>_<OPTION>, <OPTION> one of "
                + String.join(", ", OPTIONS.stream().map(ConfiguredDestinations::envName).toList())
                + "; a variable gives a name in lower case, a name with '.' between double underscores"
                + " (EXACTLY_DESTINATIONS__ORDERS_EU__QUEUE names orders.eu), and cannot give one with '-', '_'"
                + " or ':' (define its queue by a system property or in application.properties; its other options"
                + " may then come from variables, e.g. EXACTLY_DESTINATIONS_ORDERS_EU_MAX_ATTEMPTS for orders-eu)"
                + " (docs/configuration.md)";
    }

    /** A configuration key as an environment variable's name: upper case, every other character than a letter or digit as {@code _}. */
    static String envName(String key) {
        StringBuilder b = new StringBuilder(key.length());
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            b.append((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    ? Character.toUpperCase(c) : '_');
        }
        return b.toString();
    }

    /** A field of the API's body as its configuration key's last part: {@code backoffCapMs} is {@code backoff-cap-ms}. */
    static String keyOf(String field) {
        return field.replaceAll("([a-z])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }

    /** A rule's reason with the other fields it names written as configuration keys ("not below backoff-ms"). */
    static String inKeys(String why) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile(
                "\\b(signingSecret|queueUrl|eventBus|eventSource|detailType|timeoutMs|maxAttempts|backoffMs|backoffCapMs)\\b").matcher(why);
        StringBuilder b = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(b, keyOf(m.group(1)));
        }
        return m.appendTail(b).toString();
    }

    /** @return true or false for those words (any case), null for any other value */
    static Boolean ordered(String value) {
        String v = value.strip();
        return v.equalsIgnoreCase("true") ? Boolean.TRUE : v.equalsIgnoreCase("false") ? Boolean.FALSE : null;
    }

    /** @return the configured destinations by name */
    public Map<String, Destination> all() {
        return byName;
    }

    /** @return the guard of exactly.delivery.allowed-hosts */
    public AddressGuard guard() {
        return guard;
    }
}
