package dev.exactly.destination;

import jakarta.enterprise.context.ApplicationScoped;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The destinations of the application's configuration ({@code exactly.destinations.<name>.*}),
 * checked at start-up by the rules a runtime PUT follows, and the address guard of
 * {@code exactly.delivery.allowed-hosts}. A broken setting stops the start with a message naming
 * its key (never quoting a secret).
 */
@ApplicationScoped
public class ConfiguredDestinations {

    private final Map<String, Destination> byName;
    private final AddressGuard guard;

    /** Constructor injection; checks every setting. */
    public ConfiguredDestinations(DestinationsConfig config, DeliveryConfig delivery) {
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
                    (f, why) -> broken.add(key + f.replaceAll("([a-z])([A-Z])", "$1-$2").toLowerCase() + " " + why));
            if (broken.size() == before) {
                found.put(name, new Destination(name, c.queue(), c.type(), url == null ? null : URI.create(url),
                        c.signingSecret().orElse(null), c.timeoutMs(), c.maxAttempts(), c.backoffMs(), c.backoffCapMs(), true,
                        DestinationRules.HTTP.equals(c.type()) ? null : aws, ordered));
            }
        });
        if (!broken.isEmpty()) {
            throw new IllegalStateException("destinations: " + String.join("; ", broken));
        }
        this.byName = Collections.unmodifiableMap(found);
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
