package dev.exactly.lambda;

import dev.exactly.push.HotPathPriming;
import io.quarkus.runtime.StartupEvent;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.enterprise.inject.spi.BeanManager;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import org.jboss.logging.Logger;

/**
 * SnapStart runtime hooks (CRaC "Resource": beforeCheckpoint, afterRestore). Before the checkpoint
 * the push path is run in memory ({@link HotPathPriming}: the classes, JSON, validation, the engine,
 * the SQL client's codecs; no database), then as HTTP events refused for their key
 * ({@link HttpEventPriming}: the Lambda HTTP handler, Vert.x, the router, the key check), so that
 * the first pushes after a restore run warm. The
 * Lambda shape opens no database connection while it initialises, so a snapshot holds no socket;
 * before the checkpoint this hook also states how many pooled database connections are open (0 expected; a
 * connection in the snapshot would be dead after a restore, and the closed-connection retry would
 * have to replace it), and after the restore it states that the instance resumed.
 *
 * <p>Registered with the Lambda runtime interface client's own CRaC context
 * ({@code com.amazonaws.services.lambda.crac.Core}, which the client runs around
 * {@code /runtime/restore/next}) when that class is present, through a dynamic proxy because the
 * class comes with the runtime, not with the package; otherwise with {@code org.crac} (a JDK with
 * CRaC). Elsewhere nothing is registered.
 */
@ApplicationScoped
public class SnapStartHooks {

    private static final Logger LOG = Logger.getLogger(SnapStartHooks.class);
    private static final String LAMBDA_CORE = "com.amazonaws.services.lambda.crac.Core";
    private static final String LAMBDA_RESOURCE = "com.amazonaws.services.lambda.crac.Resource";

    private final BeanManager beans;
    private final HotPathPriming priming;
    /** The registered hook: the Lambda runtime's context holds its resources weakly (a WeakHashMap). */
    private Object registered;

    /** Constructor injection (the pool is looked up, never created, so starting connects nothing). */
    public SnapStartHooks(BeanManager beans, HotPathPriming priming) {
        this.beans = beans;
        this.priming = priming;
    }

    void register(@Observes StartupEvent event) {
        if (!"snap-start".equals(System.getenv("AWS_LAMBDA_INITIALIZATION_TYPE"))) {
            return;
        }
        try {
            ClassLoader system = ClassLoader.getSystemClassLoader();
            Class<?> core = Class.forName(LAMBDA_CORE, true, system);
            Class<?> resource = Class.forName(LAMBDA_RESOURCE, true, system);
            Object context = core.getMethod("getGlobalContext").invoke(null);
            Object hook = Proxy.newProxyInstance(system, new Class<?>[] {resource}, new Hook());
            context.getClass().getMethod("register", resource).invoke(context, hook);
            registered = hook;
            LOG.info("SnapStart: hooks registered with the Lambda runtime");
        } catch (ClassNotFoundException e) {
            org.crac.Resource hook = new org.crac.Resource() {
                @Override
                public void beforeCheckpoint(org.crac.Context<? extends org.crac.Resource> context) {
                    checkpoint();
                }

                @Override
                public void afterRestore(org.crac.Context<? extends org.crac.Resource> context) {
                    restored();
                }
            };
            org.crac.Core.getGlobalContext().register(hook);
            registered = hook;
            LOG.info("SnapStart: hooks registered with org.crac");
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("SnapStart: cannot register the runtime hooks: " + e, e);
        }
    }

    /** Before the snapshot: primes the push path, then reports the pooled database connections (none expected). */
    void checkpoint() {
        try {
            priming.prime(true, "SnapStart: before checkpoint");
            HttpEventPriming.prime(Math.max(1, priming.rounds() / 5));
        } catch (RuntimeException e) {
            // a snapshot without priming still serves: its first pushes are slower
            LOG.warnf(e, "SnapStart: before checkpoint, priming the push path failed");
        }
        int open;
        try {
            open = openConnections();
        } catch (RuntimeException e) {
            LOG.warnf("SnapStart: before checkpoint, cannot count the database connections: %s", e.toString());
            return;
        }
        if (open == 0) {
            LOG.info("SnapStart: before checkpoint, no database connection open");
        } else {
            LOG.warnf("SnapStart: before checkpoint, %d database connections open; they will be replaced after the restore", open);
        }
    }

    /** The connections of every database pool created so far (a pool not yet created has none; none is created here). */
    private int openConnections() {
        java.util.Set<io.vertx.sqlclient.Pool> pools = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (Bean<?> bean : beans.getBeans(Pool.class, jakarta.enterprise.inject.Any.Literal.INSTANCE)) {
            if (beans.getContext(bean.getScope()).get(bean) instanceof Pool p) {
                pools.add(p.getDelegate());
            }
        }
        return pools.stream().mapToInt(io.vertx.sqlclient.Pool::size).sum();
    }

    /** After the restore: the pool connects on the first request. */
    void restored() {
        LOG.info("SnapStart: after restore, the database pool connects on the first request");
    }

    /** The runtime's Resource interface, answered by name. */
    private final class Hook implements InvocationHandler {
        @Override
        public Object invoke(Object proxy, Method method, Object[] args) {
            switch (method.getName()) {
                case "beforeCheckpoint" -> checkpoint();
                case "afterRestore" -> restored();
                case "hashCode" -> {
                    return System.identityHashCode(proxy);
                }
                case "equals" -> {
                    return proxy == args[0];
                }
                case "toString" -> {
                    return "SnapStartHooks";
                }
                default -> {
                    // nothing else is called
                }
            }
            return null;
        }
    }
}
