package dev.exactly.transaction;

import dev.exactly.problem.Problem;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/** Answers a rolled-back transaction with its 409 problem+json. */
public class TransactionMappers {

    /** 409 with the operation and item at fault. */
    @ServerExceptionMapper
    public Response conflict(TransactionConflict c) {
        return Response.status(409).type(Problem.MEDIA_TYPE).entity(c.problem()).build();
    }
}
