package dev.exactly.auth;

import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;

/** Ends a refused request's answer without reading the rest of its body. */
final class Refusals {

    private Refusals() {
    }

    /**
     * Ends the answer (status and headers already set) with {@code body}. When the request's body
     * has not all arrived, the answer says {@code Connection: close} and the connection is closed
     * once it is written, so the server neither waits for nor reads the rest.
     *
     * @param rc   the refused request
     * @param body the problem document
     */
    static void end(RoutingContext rc, String body) {
        if (rc.request().isEnded()) {
            rc.response().end(body);
            return;
        }
        rc.response().putHeader(HttpHeaders.CONNECTION, "close");
        rc.response().end(body).onComplete(written -> {
            HttpConnection connection = rc.request().connection();
            if (connection != null && !rc.request().isEnded()) {
                connection.close();
            }
        });
    }
}
