package dev.exactly.consume;

import java.util.List;

/**
 * The answer to a pop: the leased partition's messages in offset order, or none.
 *
 * @param messages the delivered messages (all under one lease on one partition), possibly empty
 */
public record PopResponse(List<PoppedMessage> messages) {
}
