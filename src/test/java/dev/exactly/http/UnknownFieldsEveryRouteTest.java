package dev.exactly.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.testing.Api;
import dev.exactly.testing.RawHttp;
import dev.exactly.testing.RouteCatalog;
import dev.exactly.testing.RouteCatalog.Route;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

/**
 * Every API route that takes a body refuses a field it does not know, before it looks at anything
 * else: a JSON object with one unknown member, sent with the API key to each POST, PUT and PATCH
 * route the application deployed ({@link RouteCatalog}, read from the application, no list kept
 * here), answers 400 problem+json. A route that ignored its body would answer 404 here (its path
 * parameters name nothing) or 2xx. Only the webhook receiver is left out: it takes a provider's
 * raw body by design (docs/webhooks.md).
 */
@QuarkusTest
class UnknownFieldsEveryRouteTest {

    private static final byte[] UNKNOWN = "{\"zzNoSuchField\":1}".getBytes(StandardCharsets.UTF_8);

    @Inject
    BeanManager beans;

    @Test
    void everyRouteTakingABodyRefusesAnUnknownField() throws Exception {
        int port = ConfigProvider.getConfig().getValue("quarkus.http.test-port", Integer.class);
        List<String> failures = new ArrayList<>();
        int sent = 0;
        for (Route route : RouteCatalog.jaxRs(beans)) {
            if (!Set.of("POST", "PUT", "PATCH").contains(route.method()) || route.template().startsWith("/webhooks/")) {
                continue;
            }
            RawHttp.Answer a = RawHttp.send(port, route.method(), route.sample(),
                    Map.of("Authorization", "Bearer " + Api.TEST_API_KEY, "Content-Type", "application/json"), UNKNOWN);
            sent++;
            String type = a.header("Content-Type");
            if (a.status() != 400 || type == null || !type.startsWith("application/problem+json")) {
                failures.add(route + " -> " + a.status() + " " + type + " " + a.body());
            }
        }
        assertTrue(sent > 15, "routes sent: " + sent);
        assertEquals(List.of(), failures);
    }
}
