package dev.exactly.console;

import static dev.exactly.testing.Api.anonymous;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.not;

import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

/**
 * The console's page shell is public and static: the page, its script and style, and the chart
 * library (a web jar, served without its version by the locator) answer without a key, and hold
 * no data; the API routes the page reads still need the key.
 */
@QuarkusTest
class ConsoleShellTest {

    @Test
    void theShellAndItsLibrariesAreServedWithoutAKey() {
        anonymous().get("/console/").then().statusCode(200).contentType(containsString("text/html"))
                .body(containsString("Enter your API key"), containsString("/webjars/uplot/dist/uPlot.iife.min.js"),
                        not(containsString("http://")), not(containsString("https://")));
        anonymous().get("/console/console.js").then().statusCode(200).body(containsString("sessionStorage"));
        anonymous().get("/console/console.css").then().statusCode(200);
        anonymous().get("/webjars/uplot/dist/uPlot.iife.min.js").then().statusCode(200).body(containsString("uPlot"));
        anonymous().get("/webjars/uplot/dist/uPlot.min.css").then().statusCode(200);
    }

    @Test
    void theDataNeedsTheKey() {
        anonymous().get("/api/v1/overview").then().statusCode(401);
        anonymous().get("/api/v1/queues/x/dead-letters").then().statusCode(401);
        anonymous().get("/console/../api/v1/overview").then().statusCode(401);
    }
}
