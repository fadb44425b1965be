package dev.exactly.transaction;

import dev.exactly.problem.Problem;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/** Answers a rolled-back transaction with its problem+json (409, or 422 for a payload mismatch). */
public class TransactionMappers {

    /** The problem's status (409 or 422) with the operation and item at fault. */
    @ServerExceptionMapper
    public Response conflict(TransactionConflict c) {
        return Response.status(c.problem().status()).type(Problem.MEDIA_TYPE).entity(c.problem()).build();
    }
}
