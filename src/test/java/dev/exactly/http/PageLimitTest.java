package dev.exactly.http;

import static dev.exactly.testing.Api.api;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.exactly.http.QueryParametersTest.Endpoint;
import io.quarkus.test.junit.QuarkusTest;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link PageLimit}'s rule on every listing that carries it, found by walking the application's
 * resource classes ({@link QueryParametersTest#endpoints()}): 1 to 1000 with leading zeros pass the
 * check (the answer is then the listing's, 200 or a 404 for a queue the test did not create), and
 * anything else is a 400 problem naming {@code limit} with the rule as its message.
 */
@QuarkusTest
class PageLimitTest {

    @Test
    void everyPagedListingTakesOneToAThousandAndRefusesTheRest() throws Exception {
        List<Endpoint> listings = QueryParametersTest.endpoints().stream().filter(e -> !e.pageLimits().isEmpty()).toList();
        assertEquals(List.of("/api/v1/overview", "/api/v1/queues", "/api/v1/queues/{queue}/dead-letters",
                        "/api/v1/queues/{queue}/destinations/{name}/dead-letters"),
                listings.stream().map(Endpoint::template).sorted().toList(), "the listings that carry the rule");
        for (Endpoint e : listings) {
            assertEquals(List.of("limit"), e.pageLimits(), e.toString());
            for (String ok : List.of("1", "1000", "0007", "999")) {
                int status = api().get(e.url() + "?limit=" + ok).statusCode();
                assertNotEquals(400, status, e.url() + "?limit=" + ok);
            }
            for (String bad : List.of("0", "000", "1001", "10000", "-1", "+5", "1.0", "x", "1e3", "%201")) {
                api().get(e.url() + "?limit=" + bad).then().statusCode(400).contentType("application/problem+json")
                        .body("errors[0].field", equalTo("limit"))
                        .body("errors[0].message", equalTo("must be a whole number from 1 to 1000"));
            }
        }
    }
}
