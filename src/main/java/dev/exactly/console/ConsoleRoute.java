package dev.exactly.console;

import io.vertx.ext.web.Router;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/**
 * The console's address: {@code /console} redirects to {@code /console/}, where the static page
 * shell is served (META-INF/resources/console; public, holds no data). The page reads the HTTP
 * API with the operator's key; nothing here reads or writes data.
 */
@ApplicationScoped
public class ConsoleRoute {

    void register(@Observes Router router) {
        // the router matches /console/ here too (it ignores a trailing slash): that one is the page
        router.get("/console").handler(rc -> {
            if (rc.request().path().equals("/console")) {
                rc.redirect("/console/");
            } else {
                rc.next();
            }
        });
    }
}
