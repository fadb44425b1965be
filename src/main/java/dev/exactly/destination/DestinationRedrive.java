package dev.exactly.destination;

import io.quarkus.runtime.annotations.RegisterForReflection;
import java.util.List;
import java.util.UUID;

/**
 * The answer to a destination's redrive.
 *
 * @param redriven  the messageIds of the dead letters to be sent again (to this destination alone)
 * @param remaining dead letters of the destination that no redrive has asked for yet
 */
@RegisterForReflection
public record DestinationRedrive(List<UUID> redriven, long remaining) {
}
