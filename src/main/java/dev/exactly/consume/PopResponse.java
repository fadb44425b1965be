package dev.exactly.consume;

import io.quarkus.runtime.annotations.RegisterForReflection;
import java.util.List;

/**
 * The answer to a pop: the leased partition's messages in offset order, or none.
 *
 * @param messages the delivered messages (all under one lease on one partition), possibly empty
 */
@RegisterForReflection
public record PopResponse(List<PoppedMessage> messages) {
}
