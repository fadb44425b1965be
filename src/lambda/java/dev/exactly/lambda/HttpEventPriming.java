package dev.exactly.lambda;

import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPEvent;
import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPResponse;
import io.quarkus.amazon.lambda.http.LambdaHttpHandler;
import java.util.Map;
import org.jboss.logging.Logger;

/**
 * The HTTP event path run in process before a SnapStart checkpoint, after {@code HotPathPriming}:
 * API Gateway (HTTP API, payload 2.0) events of a push, handled by Quarkus' Lambda HTTP handler as
 * an invocation is (the event turned into a request on Vert.x' in-memory channel, the router, the
 * API key check, the problem+json answer, the answer turned into the response event). The events
 * carry a key that is not the function's, so each is refused with 401 before its body is read:
 * nothing reaches the database. Run only by {@link SnapStartHooks}, never in an on-demand start.
 */
final class HttpEventPriming {

    private static final Logger LOG = Logger.getLogger(HttpEventPriming.class);
    private static final String BODY = "{\"items\":[{\"queue\":\"priming\",\"transactionId\":\"t-1\",\"payload\":{\"n\":1}}]}";

    private HttpEventPriming() {
    }

    /**
     * Handles {@code rounds} refused push events.
     *
     * @return how many were answered 401 (all of them, unless the handler changed)
     */
    static int prime(int rounds) {
        long start = System.nanoTime();
        LambdaHttpHandler handler = new LambdaHttpHandler();
        int refused = 0;
        for (int i = 0; i < rounds; i++) {
            APIGatewayV2HTTPResponse response = handler.handleRequest(event(), null);
            if (response.getStatusCode() == 401) {
                refused++;
            }
        }
        LOG.infof("SnapStart: before checkpoint, %d HTTP events of the push path (refused: %d) in %d ms",
                rounds, refused, (System.nanoTime() - start) / 1_000_000);
        return refused;
    }

    /** A push event as API Gateway sends it, with a key that is not the function's. */
    private static APIGatewayV2HTTPEvent event() {
        APIGatewayV2HTTPEvent.RequestContext.Http http = new APIGatewayV2HTTPEvent.RequestContext.Http();
        http.setMethod("POST");
        http.setPath("/api/v1/push");
        http.setProtocol("HTTP/1.1");
        http.setSourceIp("127.0.0.1");
        http.setUserAgent("priming");
        APIGatewayV2HTTPEvent.RequestContext context = new APIGatewayV2HTTPEvent.RequestContext();
        context.setHttp(http);
        context.setRequestId("priming");
        context.setStage("$default");
        context.setTimeEpoch(System.currentTimeMillis());
        APIGatewayV2HTTPEvent event = new APIGatewayV2HTTPEvent();
        event.setVersion("2.0");
        event.setRouteKey("$default");
        event.setRawPath("/api/v1/push");
        event.setRawQueryString("");
        event.setHeaders(Map.of("content-type", "application/json", "authorization", "Bearer not-the-function-s-key",
                "host", "localhost"));
        event.setBody(BODY);
        event.setIsBase64Encoded(false);
        event.setRequestContext(context);
        return event;
    }
}
