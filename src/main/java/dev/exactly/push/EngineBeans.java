package dev.exactly.push;

import dev.exactly.engine.DedupCache;
import dev.exactly.engine.PushEngine;
import dev.exactly.engine.PushStore;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;

/** Wires the engine (which knows nothing of CDI) to this application's pool and config. */
@ApplicationScoped
public class EngineBeans {

    /** The push engine of this instance. */
    @Produces
    @ApplicationScoped
    public PushEngine pushEngine(Pool pool) {
        return new PushEngine(new PushStore(pool), DedupCache.DISABLED);
    }
}
