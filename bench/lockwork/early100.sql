-- (early) the service's call as it is sent now: the push of (a) with p_release, which commits
-- before its WAL flush and frees the partition's lock, then exactly.flush_wal() as a transaction
-- of its own, after which the service answers (sql/R__push.sql, "Commit before the WAL flush")
SELECT count(*) FROM exactly.push_segment(1, -1, NULL,
  (SELECT array_agg(decode(md5(random()::text), 'hex')) FROM generate_series(1, 100)),
  array_fill(true, ARRAY[100]),
  (SELECT array_agg(gen_random_uuid()) FROM generate_series(1, 100)),
  (SELECT array_agg('c-' || g || '-' || gen_random_uuid()) FROM generate_series(1, 100) g),
  array_fill('{"order":1,"total":12.5,"currency":"EUR"}'::bytea, ARRAY[100]),
  array_fill(NULL::text, ARRAY[100]), array_fill(NULL::text, ARRAY[100]), array_fill(NULL::text, ARRAY[100]),
  p_digests => array_fill('\x99914b932bd37a50b983c5e7c90ae93b'::bytea, ARRAY[100]), p_release => true);
SELECT exactly.flush_wal();
