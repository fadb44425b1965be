package dev.exactly.reliability;

/**
 * A fault a soak or a fault test injects while clients run.
 *
 * @param name   for the report, e.g. "restart database"
 * @param action what it does; returns when the fault is over (e.g. the database is back)
 */
record Fault(String name, Action action) {

    /** The fault's action. */
    interface Action {
        /** Injects the fault. */
        void inject() throws Exception;
    }
}
