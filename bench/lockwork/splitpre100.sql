-- bench/lockwork/instructions: the split variant's work before the lock alone (its 100 payload rows)
INSERT INTO exactly.payloads (message_id, partition_id, transaction_id, payload, content_type, headers, trace_id, created_at)
SELECT i.mid, 1, i.tx, '{"order":1,"total":12.5,"currency":"EUR"}'::bytea, NULL, NULL, NULL, clock_timestamp()
FROM unnest((SELECT array_agg(gen_random_uuid()) FROM generate_series(1, 100)),
            (SELECT array_agg('c-' || g || '-' || gen_random_uuid()) FROM generate_series(1, 100) g)) AS i(mid, tx);
