-- one request of 100 new keys spread over 100 of 1,000 partitions (by name: a multi-partition bundle)
SELECT count(*) FROM exactly.push_bundle(
  (SELECT array_agg('floor'::text) FROM generate_series(1, 100)),
  (SELECT array_agg('s' || p ORDER BY p) FROM (SELECT DISTINCT p FROM (SELECT (random() * 999)::int AS p FROM generate_series(1, 400)) r LIMIT 100) d),
  (SELECT array_agg(-1::bigint) FROM generate_series(1, 100)),
  (SELECT array_agg(1) FROM generate_series(1, 100)),
  (SELECT array_agg(decode(md5(random()::text), 'hex')) FROM generate_series(1, 100)),
  (SELECT array_agg(true) FROM generate_series(1, 100)),
  (SELECT array_agg(gen_random_uuid()) FROM generate_series(1, 100)),
  (SELECT array_agg(random()::text) FROM generate_series(1, 100)),
  (SELECT array_agg('{}'::bytea) FROM generate_series(1, 100)),
  (SELECT array_agg('application/json'::text) FROM generate_series(1, 100)),
  (SELECT array_agg(NULL::text) FROM generate_series(1, 100)),
  (SELECT array_agg(NULL::text) FROM generate_series(1, 100)),
  p_digests => (SELECT array_agg('\x99914b932bd37a50b983c5e7c90ae93b'::bytea) FROM generate_series(1, 100)));
