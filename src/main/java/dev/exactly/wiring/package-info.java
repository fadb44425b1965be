/**
 * CDI wiring of the engine (which knows nothing of CDI, config or meters): the one
 * {@link dev.exactly.engine.PushEngine} every entry point pushes through, built on this
 * application's pool and configuration, and its Micrometer meters.
 */
package dev.exactly.wiring;
