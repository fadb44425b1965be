package dev.exactly.destination;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithParentName;
import java.util.Map;
import java.util.Optional;

/**
 * Destinations defined in the application's configuration, under
 * {@code exactly.destinations.<name>.*} (SmallRye Config). Each one receives every message stored
 * in its queue. Checked at start-up by {@link DestinationRules}: a wrong setting stops the service
 * with a message naming the key. A runtime PUT on one of these names answers 409.
 */
@ConfigMapping(prefix = "exactly.destinations")
public interface DestinationsConfig {

    /** The destinations by name: 1 to 200 characters of [A-Za-z0-9._:-]. */
    @WithParentName
    Map<String, Destination> all();

    /** One configured destination. */
    interface Destination {

        /** The queue whose messages it receives. Required. */
        String queue();

        /** The kind of destination: {@code http}, {@code sqs} or {@code eventbridge}. */
        @WithDefault("http")
        String type();

        /** http: the URL messages are POSTed to (http or https). Required for http. */
        Optional<String> url();

        /**
         * http: the Standard Webhooks signing secret, {@code whsec_} followed by the base64 key.
         * Absent: requests are not signed.
         */
        Optional<String> signingSecret();

        /** sqs: the queue's URL; a name ending with {@code .fifo} is a FIFO queue. Required for sqs. */
        Optional<String> queueUrl();

        /** eventbridge: the event bus's name or ARN; absent: {@code default}. */
        Optional<String> eventBus();

        /** eventbridge: the events' Source (1 to 256 characters, not {@code aws.…}); absent: {@code exactly}. */
        Optional<String> eventSource();

        /** eventbridge: the events' DetailType (1 to 128 characters); absent: {@code exactly.message}. */
        Optional<String> detailType();

        /**
         * sqs, eventbridge: the AWS region; absent: the queue URL's or the bus ARN's region, else
         * the AWS SDK's default (AWS_REGION).
         */
        Optional<String> region();

        /**
         * sqs, eventbridge: the service endpoint (scheme, host and port) instead of AWS's regional
         * one, e.g. a VPC interface endpoint's name; checked against the address rules of
         * {@code exactly.delivery.allowed-hosts} like an http destination's URL.
         */
        Optional<String> endpoint();

        /** How long one attempt may take, connection included, in milliseconds (1 to 60000). */
        @WithDefault("10000")
        int timeoutMs();

        /** Attempts per message before it is dead-lettered for this destination (1 to 100). */
        @WithDefault("10")
        int maxAttempts();

        /** The backoff before the second attempt, in milliseconds; it doubles per attempt (1 to 3600000). */
        @WithDefault("1000")
        int backoffMs();

        /** The longest backoff between two attempts, in milliseconds (1 to 3600000). */
        @WithDefault("300000")
        int backoffCapMs();

        /**
         * {@code true}: a partition's messages are sent one at a time, in offset order; {@code false}:
         * the messages of a leased batch are sent at once, each retried on its own. Read as text and
         * checked by {@link ConfiguredDestinations} (any other word stops the start naming the key),
         * since SmallRye Config would read any word but true, yes, on, 1 as false.
         */
        @WithDefault("true")
        String ordered();
    }
}
