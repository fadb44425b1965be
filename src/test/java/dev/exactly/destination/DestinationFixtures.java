package dev.exactly.destination;

import static dev.exactly.testing.Api.api;
import static org.junit.jupiter.api.Assertions.fail;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import io.restassured.path.json.JsonPath;
import io.vertx.mutiny.sqlclient.Pool;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * What the destination test classes share: a loopback receiver and a handler that notes each
 * request and answers one status, fresh names, the creation of a destination, its deletion, a push of
 * one message, a pause and a resume, a pop under a destination's group, a queue's destinations as GET
 * answers them, waiting for a condition, and deleting every destination after a test so that none
 * keeps delivering (or retrying) while other test classes run.
 */
final class DestinationFixtures {

    private DestinationFixtures() {
    }

    /**
     * Starts a receiver on 127.0.0.2 (the address the test profile's allowed hosts admit; loopback,
     * so refused without that allowance) on an ephemeral port.
     *
     * @param threads how many requests it answers at once
     * @param handler answers every request, whatever its path
     * @return the started server; stop it with {@link #stopReceiver}
     */
    static HttpServer startReceiver(int threads, HttpHandler handler) throws IOException {
        return startReceiver(0, threads, handler);
    }

    /**
     * {@link #startReceiver(int, HttpHandler)} on a given port, e.g. that of a receiver stopped
     * before, to bring it back.
     *
     * @param port the port; 0 for an ephemeral one
     */
    static HttpServer startReceiver(int port, int threads, HttpHandler handler) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.2", port), 100);
        server.createContext("/", handler);
        server.setExecutor(Executors.newFixedThreadPool(threads));
        server.start();
        return server;
    }

    /** The URL of {@code path} (e.g. "/hook", or "" for the root) on a receiver of {@link #startReceiver}. */
    static String receiverUrl(HttpServer server, String path) {
        return "http://127.0.0.2:" + server.getAddress().getPort() + path;
    }

    /** Stops a receiver of {@link #startReceiver} at once, and its threads. */
    static void stopReceiver(HttpServer server) {
        server.stop(0);
        ((ExecutorService) server.getExecutor()).shutdownNow();
    }

    /**
     * A receiver's handler that reads each request's body, hands the request to {@code seen}, and
     * answers {@code status} without a body.
     */
    static HttpHandler answering(int status, Consumer<HttpExchange> seen) {
        return ex -> {
            ex.getRequestBody().readAllBytes();
            seen.accept(ex);
            ex.sendResponseHeaders(status, -1);
            ex.close();
        };
    }

    /** {@code prefix} with 8 random hex digits: a queue or destination name no other test uses. */
    static String fresh(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /**
     * Creates the queue's destination through the API, expecting 201.
     *
     * @param settings the PUT's JSON body
     */
    static void create(String queue, String name, String settings) {
        api().body(settings).put("/api/v1/queues/" + queue + "/destinations/" + name).then().statusCode(201);
    }

    /**
     * Pushes one message (payload: a JSON value) and expects 200.
     *
     * @return its messageId
     */
    static String push(String queue, String partition, String txn, String payload) {
        return api().body("{\"items\":[{\"queue\":\"" + queue + "\",\"partition\":\"" + partition + "\",\"transactionId\":\"" + txn
                        + "\",\"payload\":" + payload + "}]}")
                .post("/api/v1/push").then().statusCode(200).extract().path("results[0].messageId");
    }

    /** Pauses the queue's destination through the API, expecting 204. */
    static void pause(String queue, String name) {
        api().post("/api/v1/queues/" + queue + "/destinations/" + name + "/pause").then().statusCode(204);
    }

    /** Resumes the queue's destination through the API, expecting 204. */
    static void resume(String queue, String name) {
        api().post("/api/v1/queues/" + queue + "/destinations/" + name + "/resume").then().statusCode(204);
    }

    /**
     * Leases the destination's messages under its consumer group through the pop API, as another
     * instance of it would (batch 10), expecting 200.
     *
     * @param leaseSeconds the lease's length, in seconds
     * @return the answer
     */
    static JsonPath popAsDestination(String queue, String name, int leaseSeconds) {
        return api().body("{\"queue\":\"" + queue + "\",\"consumerGroup\":\"" + Destination.GROUP_PREFIX + name
                        + "\",\"batch\":10,\"leaseSeconds\":" + leaseSeconds + "}")
                .post("/api/v1/pop").then().statusCode(200).extract().jsonPath();
    }

    /** GET /api/v1/queues/{queue}/destinations, expecting 200. */
    static JsonPath destinations(String queue) {
        return api().get("/api/v1/queues/" + queue + "/destinations").then().statusCode(200).extract().jsonPath();
    }

    /** Waits up to 60 s, polling every 20 ms, for {@code done}; fails naming {@code what}. */
    static void await(String what, BooleanSupplier done) throws InterruptedException {
        await(what, Duration.ofSeconds(60), done);
    }

    /**
     * Waits up to {@code within}, polling every 20 ms, for {@code done}; fails naming {@code what}
     * (where the bound is what a test checks: "arrived within 5 s").
     */
    static void await(String what, Duration within, BooleanSupplier done) throws InterruptedException {
        long end = System.nanoTime() + within.toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > end) {
                fail("not within " + within.toSeconds() + " s: " + what);
            }
            Thread.sleep(20);
        }
    }

    /** Deletes the queue's destination through the API, expecting 204. */
    static void delete(String queue, String name) {
        api().delete("/api/v1/queues/" + queue + "/destinations/" + name).then().statusCode(204);
    }

    /** Deletes every destination through the API (204 each). */
    static void deleteAll(Pool pool) {
        for (var row : pool.query("SELECT name, queue FROM exactly.destinations").executeAndAwait()) {
            delete(row.getString("queue"), row.getString("name"));
        }
    }
}
