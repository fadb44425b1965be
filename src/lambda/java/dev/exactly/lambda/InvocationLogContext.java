package dev.exactly.lambda;

import com.amazonaws.services.lambda.runtime.Context;
import dev.exactly.http.LogContext;
import io.quarkus.vertx.http.runtime.QuarkusHttpHeaders;
import io.vertx.ext.web.Router;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.MDC;

/**
 * Puts the invocation's AWS request id in the logging context of the HTTP request Quarkus makes
 * of it ({@link LogContext#AWS_REQUEST_ID}), so that every line logged while the request is served,
 * on whichever thread, names the invocation. Quarkus' Lambda HTTP handler attaches the Lambda
 * {@link Context} to the request's headers object ({@link QuarkusHttpHeaders#getContextObjects()},
 * the same place its own {@code @Context} producers read it from); the MDC of a request lives on
 * the request's Vert.x context, not on the handler's thread, which {@link FunctionHandler} covers.
 * Being the first route, it also tells {@link AnswerGuard} that the request reached the application.
 */
@ApplicationScoped
public class InvocationLogContext {

    /** Runs before every other route (the API key check and the resources included). */
    static final int ORDER = Integer.MIN_VALUE + 100;

    void route(@Observes Router router) {
        router.route().order(ORDER).handler(rc -> {
            if (rc.request().headers() instanceof QuarkusHttpHeaders h
                    && h.getContextObjects().get(Context.class) instanceof Context c && c.getAwsRequestId() != null) {
                MDC.put(LogContext.AWS_REQUEST_ID, c.getAwsRequestId());
                AnswerGuard.arrived(c.getAwsRequestId());
            }
            rc.next();
        });
    }
}
