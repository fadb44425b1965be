package dev.exactly.testing;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.DeleteMessageRequest;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.ReceiveMessageRequest;

/**
 * moto's server (moto_server, the server mode of the Python AWS mock library moto), a real
 * SQS-compatible server started in a process of its own on a loopback address and an ephemeral
 * port. The tests that use it are skipped where it is not installed, with {@link #ABSENT}.
 */
public final class MotoServer implements AutoCloseable {

    /** Why a test that needs moto_server is skipped without it, and how to run it. */
    public static final String ABSENT = "skipped: no moto_server on the PATH; to run these tests, install moto's server mode "
            + "(pip install 'moto[server]', moto 5)";

    private final Process process;
    private final String endpoint;

    private MotoServer(Process process, String endpoint) {
        this.process = process;
        this.endpoint = endpoint;
    }

    /**
     * Starts moto_server on {@code host} and waits up to 60 s for it to accept connections.
     *
     * @param host a loopback address, e.g. "127.0.0.2"
     * @return the running server
     * @throws IOException when moto_server cannot be started (not on the PATH)
     * @throws IllegalStateException when it started but did not listen within 60 s (with its log)
     */
    public static MotoServer start(String host) throws IOException, InterruptedException {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName(host))) {
            port = s.getLocalPort();
        }
        File log = File.createTempFile("moto-server", ".log");
        Process process = new ProcessBuilder("moto_server", "-H", host, "-p", Integer.toString(port))
                .redirectErrorStream(true).redirectOutput(log).start();
        MotoServer server = new MotoServer(process, "http://" + host + ":" + port);
        long end = System.nanoTime() + 60_000_000_000L;
        while (true) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(host, port), 500);
                return server;
            } catch (IOException e) {
                if (!process.isAlive() || System.nanoTime() > end) {
                    server.close();
                    throw new IllegalStateException("moto_server did not start: " + Files.readString(log.toPath()));
                }
                Thread.sleep(100);
            }
        }
    }

    /** The server's URL: scheme, host and port, e.g. {@code http://127.0.0.2:40123}. */
    public String endpoint() {
        return endpoint;
    }

    /** An SQS client of the AWS SDK v2 on this server in {@code region}, with any credentials (moto takes all). */
    public SqsClient sqs(Region region) {
        return SqsClient.builder().region(region).endpointOverride(URI.create(endpoint))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("AKIDEXACTLYTEST", "x")))
                .httpClient(UrlConnectionHttpClient.create()).build();
    }

    /**
     * Creates an SQS queue through {@code sqs}.
     *
     * @param name its name; a FIFO queue gets ".fifo" appended, without content-based deduplication
     * @return its queue URL
     */
    public static String createQueue(SqsClient sqs, String name, boolean fifo) {
        Map<QueueAttributeName, String> attributes = fifo
                ? Map.of(QueueAttributeName.FIFO_QUEUE, "true", QueueAttributeName.CONTENT_BASED_DEDUPLICATION, "false")
                : Map.of();
        return sqs.createQueue(b -> b.queueName(fifo ? name + ".fifo" : name).attributes(attributes)).queueUrl();
    }

    /**
     * Receives (and deletes) messages from a queue, with all their attributes, until {@code n}
     * arrived, then for 1 s more, so that anything extra shows.
     *
     * @throws AssertionError if fewer than {@code n} arrived within 60 s
     */
    public static List<Message> receive(SqsClient sqs, String queueUrl, int n) {
        List<Message> got = new ArrayList<>();
        long end = System.nanoTime() + 60_000_000_000L;
        long quietUntil = Long.MAX_VALUE;
        while (System.nanoTime() < Math.min(end, quietUntil)) {
            List<Message> batch = sqs.receiveMessage(ReceiveMessageRequest.builder().queueUrl(queueUrl).maxNumberOfMessages(10)
                    .waitTimeSeconds(1).messageAttributeNames("All")
                    .messageSystemAttributeNames(MessageSystemAttributeName.ALL).build()).messages();
            for (Message m : batch) {
                got.add(m);
                sqs.deleteMessage(DeleteMessageRequest.builder().queueUrl(queueUrl).receiptHandle(m.receiptHandle()).build());
            }
            if (got.size() >= n && quietUntil == Long.MAX_VALUE) {
                quietUntil = System.nanoTime() + 1_000_000_000L;
            }
        }
        if (got.size() < n) {
            throw new AssertionError("only " + got.size() + " of " + n + " messages within 60 s");
        }
        return got;
    }

    /** The String (or Number) value of a message attribute; null if absent. */
    public static String attr(Message m, String name) {
        MessageAttributeValue v = m.messageAttributes().get(name);
        return v == null ? null : v.stringValue();
    }

    /** Stops the server and its child processes, and waits for it to end. */
    @Override
    public void close() throws InterruptedException {
        process.descendants().forEach(ProcessHandle::destroy);
        process.destroy();
        process.waitFor();
    }
}
