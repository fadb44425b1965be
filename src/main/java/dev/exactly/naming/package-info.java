/**
 * The rules for what a producer names: queue and partition names, and opaque keys (the
 * idempotency key {@code transactionId}, a trace id), shared by every adapter that takes them
 * (push, tasks, transactions, consume, queues, redrive, webhooks).
 */
package dev.exactly.naming;
