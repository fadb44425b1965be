package dev.exactly.webhook.signature;

import dev.exactly.problem.ApiProblem;
import java.util.List;

/**
 * A delivery whose signature is missing, malformed, outside the time tolerance or does not
 * match: answered 401 problem+json (type /problems/invalid-signature), and nothing is written.
 */
public class InvalidSignature extends ApiProblem {

    /** @param detail what is wrong, naming the header; never the expected signature */
    public InvalidSignature(String detail) {
        super(401, "invalid-signature", "Invalid signature", detail, List.of());
    }
}
