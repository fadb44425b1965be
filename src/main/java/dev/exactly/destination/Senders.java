package dev.exactly.destination;

import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * The sender of each destination type: {@code http} ({@link HttpSender}), {@code sqs}
 * ({@link SqsSender}) and {@code eventbridge} ({@link EventBridgeSender}). The AWS senders and their
 * SDK clients are made when a destination of theirs first sends.
 */
final class Senders implements Sender {

    private final HttpSender http;
    private final AddressGuard guard;
    private AwsClients aws;
    private SqsSender sqs;
    private EventBridgeSender eventBridge;

    Senders(HttpSender http, AddressGuard guard) {
        this.http = http;
        this.guard = guard;
    }

    @Override
    public void forget(String destination) {
        http.forget(destination);
    }

    @Override
    public Result send(Destination d, Outgoing m, int attempt) {
        return switch (d.type()) {
            case DestinationRules.HTTP -> http.send(d, m, attempt);
            case DestinationRules.SQS -> sqs().send(d, m, attempt);
            case DestinationRules.EVENTBRIDGE -> eventBridge().send(d, m, attempt);
            default -> Result.refused("no sender for destination type '" + d.type() + "'");
        };
    }

    private synchronized SqsSender sqs() {
        if (sqs == null) {
            sqs = new SqsSender(aws(), guard);
        }
        return sqs;
    }

    private synchronized EventBridgeSender eventBridge() {
        if (eventBridge == null) {
            eventBridge = new EventBridgeSender(aws(), guard);
        }
        return eventBridge;
    }

    private synchronized AwsClients aws() {
        if (aws == null) {
            aws = new AwsClients();
        }
        return aws;
    }

    /**
     * The check of an AWS destination's endpoint override at each attempt: its host is resolved
     * and each address checked as an http destination's is (the SDK's connection then resolves the
     * name again, through the JVM's address cache).
     *
     * @return null when there is no override or it may be reached, else why not
     */
    static String refusedEndpoint(Destination.Aws a, AddressGuard guard) {
        if (a.endpoint() == null) {
            return null;
        }
        try {
            guard.resolve(java.net.URI.create(a.endpoint()).getHost());
            return null;
        } catch (AddressGuard.RefusedAddressException e) {
            return "endpoint: " + e.getMessage();
        }
    }

    /** A call of the AWS SDK. */
    interface AwsCall {
        void run();
    }

    /**
     * Makes one AWS SDK call as an attempt.
     *
     * @return delivered when it returned; else a failed attempt whose error names the service's
     *         status and error code, the timeout, or the client's failure
     */
    static Result call(String service, Destination d, AwsCall call) {
        try {
            call.run();
            return new Result(true, 200, null, null);
        } catch (ApiCallTimeoutException | ApiCallAttemptTimeoutException e) {
            return new Result(false, 0, null, "no answer from " + service + " within " + d.timeoutMs() + " ms (timeoutMs)");
        } catch (AwsServiceException e) {
            String code = e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
            String message = e.awsErrorDetails() == null ? e.getMessage() : e.awsErrorDetails().errorMessage();
            return new Result(false, e.statusCode(), null, service + " answered HTTP " + e.statusCode()
                    + (code == null ? "" : " " + code) + (message == null ? "" : ": " + message));
        } catch (SdkException | IllegalArgumentException e) {
            return new Result(false, 0, null, service + " request failed: " + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + e.getMessage()));
        }
    }

    @Override
    public synchronized void close() {
        http.close();
        if (aws != null) {
            aws.close();
        }
    }
}
