package dev.exactly.webhook.key;

import dev.exactly.problem.ApiProblem;
import dev.exactly.problem.FieldError;
import java.util.List;

/** A delivery without its source's deduplication key: 400 invalid-request naming the field, nothing written. */
public final class MissingKey extends ApiProblem {

    /** @param field the header or JSON Pointer the key is read from */
    public MissingKey(String field) {
        super(400, "invalid-request", "Invalid request", field + ": is required: it is this source's deduplication key",
                List.of(new FieldError(null, field, "is required: it is this source's deduplication key")));
    }
}
