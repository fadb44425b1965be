package dev.exactly.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.problem.Problem;
import io.quarkus.runtime.annotations.RegisterForReflection;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import java.io.IOException;
import java.lang.annotation.Annotation;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.lang.reflect.WildcardType;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;
import org.junit.jupiter.api.Test;

/**
 * Every wire type carries {@code @RegisterForReflection} where it is declared (the native build's
 * closed world: Quarkus REST registers an endpoint's declared types, not those behind a Uni, inside
 * a Response or nested in records): the production classes are scanned (everything under
 * dev.exactly but the engine, which has no JSON types) and every record is either registered or
 * named below as not a wire type, so a new record has to be classified. Records reachable from an
 * endpoint's or an exception mapper's declared return type or body parameter, and records inside
 * registered ones, must be registered.
 */
class ReflectionRegistrationTest {

    /** Records that Jackson never writes: database rows, parsed commands, configuration, internals. */
    private static final Set<String> NOT_WIRE = Set.of(
            "dev.exactly.destination.Dispatcher$Lookup",         // an instance's memory of whether a queue has a destination
            "dev.exactly.destination.DestinationRepository$DeadLetter", // a row with its cursor; its entry is the wire type
            "dev.exactly.destination.DestinationRepository$Holder", // a row: what holds a name on another queue; read by the dispatcher
            "dev.exactly.consume.ConsumeRepository$Extension",    // a row and a flag; written as PopLease
            "dev.exactly.consume.ConsumeRepository$StoredBatch",  // a pop's messages and what it saw due; read by the dispatcher
            "dev.exactly.duplicate.DuplicateCountRepository$WindowCount", // a row; written as QueueStats.Duplicates
            "dev.exactly.duplicate.DuplicateCountRepository$HourCount", // a row; written as DuplicateSeries.Hour
            "dev.exactly.message.MessageRepository$Keyed",        // a row; written as MessageView
            "dev.exactly.message.MessageRepository$Delivery",     // a row; written as MessageDeliveries.Group
            "dev.exactly.queue.QueueStatsRepository$OverviewRow", // a row; written as QueueOverview
            "dev.exactly.redrive.RedriveRepository$Listed",       // a row; written as DeadLetterPage
            "dev.exactly.http.RouteBodyLimit$Limit",              // a route's body limit (configuration)
            "dev.exactly.message.StoredMessage",                  // a row; written as MessageView
            "dev.exactly.message.PayloadWire",                    // a payload's two fields, inside MessageView / PoppedMessage
            "dev.exactly.queue.QueueRepository$StoredQueue",      // a row; written as QueueView
            "dev.exactly.queue.QueueRepository$Change",           // a pair of rows
            "dev.exactly.queue.QueueStatsRepository$QueueSize",   // a row; written as QueueListResponse.Entry
            "dev.exactly.queue.QueueStatsRepository$GroupLag",    // a row; written as QueueStats.Group
            "dev.exactly.redrive.DeadLetterCopy",                 // a row; written as RedriveResult
            "dev.exactly.retention.RetentionRepository$Step",     // one purge step's row
            "dev.exactly.task.StoredTask",                        // a row; written as TaskView
            "dev.exactly.task.TaskRepository$TaskPage",                // rows; written as TaskListResponse
            "dev.exactly.task.NewTask",                           // a parsed task
            "dev.exactly.task.Enqueued",                          // a row; written as EnqueueResult
            "dev.exactly.task.LeasedChange",                      // a row and a refusal
            "dev.exactly.task.ClaimCommand",                      // a parsed claim
            "dev.exactly.transaction.TransactionOperation$Push",  // a parsed operation
            "dev.exactly.transaction.TransactionOperation$Ack",   // a parsed operation
            "dev.exactly.webhook.WebhookSource",                  // configuration
            "dev.exactly.webhook.DedupWindow",                    // configuration
            "dev.exactly.webhook.WebhookMetrics$Meters",          // a source's counters
            "dev.exactly.webhook.WebhookFigures$SourceCounts",    // a row; written as WebhookSourceFigures
            "dev.exactly.webhook.WebhookFigures$HourCounts",      // a row; written as WebhookSourceFigures
            "dev.exactly.webhook.replay.RecordedDelivery",        // a delivery file's line (read as a tree)
            "dev.exactly.http.AllowedMethods$Route",              // a route template, for Allow
            "dev.exactly.webhook.signature.TimestampedHmacList$Format", // a signature scheme's spelling
            "dev.exactly.server.PostmasterWatch$Status",          // the watch's state, read by its health check
            "dev.exactly.consume.LeasedMessage",                  // a row; sent by a destination as its bytes
            "dev.exactly.destination.AddressGuard$Range",         // an allowed CIDR range (configuration)
            "dev.exactly.destination.Destination",                // configuration or a row; written as DestinationView
            "dev.exactly.destination.DestinationRepository$Figures", // a row; written as DestinationView.State
            "dev.exactly.destination.DestinationRepository$Redrive", // a row
            "dev.exactly.destination.DestinationRepository$CompletedAck", // a batch's lean ack, in process
            "dev.exactly.destination.DestinationRepository$AckResult", // a row
            "dev.exactly.destination.AckCoalescer$Pending",       // a submission waiting for its statement
            "dev.exactly.destination.DestinationRepository$Stored",  // a row; sent by a destination as its bytes
            "dev.exactly.destination.Destination$Aws",            // configuration or a row; written as DestinationView
            "dev.exactly.destination.DrainRepository$Message",    // a row of a parked partition
            "dev.exactly.destination.DrainRepository$Parked",     // a row
            "dev.exactly.destination.Sender$Outgoing",            // a message to a destination
            "dev.exactly.destination.Sender$Result",              // a destination's answer
            "dev.exactly.queue.QueueStatsRepository$DestinationFigures"); // a row; written as QueueStats.Destination

    private static final List<Class<? extends Annotation>> ENDPOINT =
            List.of(GET.class, POST.class, PUT.class, PATCH.class, DELETE.class, Path.class);

    private static Set<String> registered() throws Exception {
        Set<String> out = new TreeSet<>();
        for (Class<?> c : productionClasses()) {
            if (c.isAnnotationPresent(RegisterForReflection.class)) {
                out.add(c.getName());
            }
        }
        return out;
    }

    /** Every production class outside the engine, from the directory Problem was loaded from. */
    private static List<Class<?>> productionClasses() throws IOException, URISyntaxException, ClassNotFoundException {
        java.nio.file.Path root = Paths.get(Problem.class.getProtectionDomain().getCodeSource()
                .getLocation().toURI());
        assertTrue(Files.isDirectory(root.resolve("dev/exactly")), "production classes under " + root);
        List<String> names = new ArrayList<>();
        try (Stream<java.nio.file.Path> files = Files.walk(root.resolve("dev/exactly"))) {
            files.map(f -> root.relativize(f).toString().replace('\\', '/'))
                    .filter(n -> n.endsWith(".class") && !n.startsWith("dev/exactly/engine/"))
                    .forEach(n -> names.add(n.substring(0, n.length() - ".class".length()).replace('/', '.')));
        }
        List<Class<?>> out = new ArrayList<>();
        for (String n : names) {
            out.add(Class.forName(n, false, Problem.class.getClassLoader()));
        }
        return out;
    }

    /** Adds the records a declared type can carry: type arguments, arrays and record components. */
    private static void reach(Type t, Set<String> out) {
        if (t instanceof ParameterizedType p) {
            reach(p.getRawType(), out);
            for (Type a : p.getActualTypeArguments()) {
                reach(a, out);
            }
        } else if (t instanceof GenericArrayType g) {
            reach(g.getGenericComponentType(), out);
        } else if (t instanceof WildcardType w) {
            for (Type u : w.getUpperBounds()) {
                reach(u, out);
            }
        } else if (t instanceof Class<?> c) {
            if (c.isArray()) {
                reach(c.getComponentType(), out);
            } else if (c.isRecord() && out.add(c.getName())) {
                for (RecordComponent rc : c.getRecordComponents()) {
                    reach(rc.getGenericType(), out);
                }
            }
        }
    }

    private static boolean endpointOrMapper(Method m) {
        if (m.isAnnotationPresent(ServerExceptionMapper.class)) {
            return true;
        }
        return m.getDeclaringClass().isAnnotationPresent(Path.class)
                && ENDPOINT.stream().anyMatch(m::isAnnotationPresent);
    }

    @Test
    void everyRecordOfTheWirePackagesIsRegisteredOrNamedAsNotAWireType() throws Exception {
        Set<String> registered = registered();
        Set<String> unclassified = new TreeSet<>();
        Set<String> both = new TreeSet<>();
        for (Class<?> c : productionClasses()) {
            if (!c.isRecord()) {
                continue;
            }
            boolean wire = registered.contains(c.getName());
            boolean notWire = NOT_WIRE.contains(c.getName());
            if (!wire && !notWire) {
                unclassified.add(c.getName());
            }
            if (wire && notWire) {
                both.add(c.getName());
            }
        }
        assertEquals(Set.of(), unclassified, "annotate each @RegisterForReflection if Jackson reads or writes it, else add it to NOT_WIRE");
        assertEquals(Set.of(), both, "registered and named as not a wire type");
    }

    @Test
    void everyRecordAnEndpointOrExceptionMapperDeclaresIsRegistered() throws Exception {
        Set<String> reached = new TreeSet<>();
        int methods = 0;
        for (Class<?> c : productionClasses()) {
            for (Method m : c.getDeclaredMethods()) {
                if (endpointOrMapper(m)) {
                    methods++;
                    reach(m.getGenericReturnType(), reached);
                    for (Type body : m.getGenericParameterTypes()) {
                        reach(body, reached); // a body record (path and query parameters are strings)
                    }
                }
            }
        }
        assertTrue(methods >= 10, "endpoints and mappers found: " + methods);
        assertTrue(reached.contains("dev.exactly.push.PushResponse"), "the scan sees through Uni: " + reached);
        assertTrue(reached.contains("dev.exactly.push.PushRequest$Item"), "the scan sees the bodies: " + reached);
        reached.removeAll(registered());
        assertEquals(Set.of(), reached, "declared by an endpoint or mapper but not registered");
    }

    @Test
    void theRecordsInsideARegisteredRecordAreRegistered() throws Exception {
        Set<String> reached = new TreeSet<>();
        for (String n : registered()) {
            Class<?> c = Class.forName(n, false, Problem.class.getClassLoader());
            assertTrue(c.isRecord(), c + " is a record");
            reach(c, reached);
        }
        reached.removeAll(registered());
        assertEquals(Set.of(), reached, "nested in a registered record but not registered");
    }

    @Test
    void everyTypeNamedAsNotAWireTypeStillExistsAsARecord() throws Exception {
        for (String n : NOT_WIRE) {
            Class<?> c = Class.forName(n, false, Problem.class.getClassLoader());
            assertTrue(c.isRecord(), n);
        }
    }
}
