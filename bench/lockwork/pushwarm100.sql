-- (a) as the server shape sends it with a warm cache: the same push, its watermark vouching for every
-- committed offset (p_verified above them all, for any window), so the probe under the lock is skipped
SELECT count(*) FROM exactly.push_segment(1, 9223372036854775807, 2147483647,
  (SELECT array_agg(decode(md5(random()::text), 'hex')) FROM generate_series(1, 100)),
  array_fill(true, ARRAY[100]),
  (SELECT array_agg(gen_random_uuid()) FROM generate_series(1, 100)),
  (SELECT array_agg('c-' || g || '-' || gen_random_uuid()) FROM generate_series(1, 100) g),
  array_fill('{"order":1,"total":12.5,"currency":"EUR"}'::bytea, ARRAY[100]),
  array_fill(NULL::text, ARRAY[100]), array_fill(NULL::text, ARRAY[100]), array_fill(NULL::text, ARRAY[100]),
  p_digests => array_fill('\x99914b932bd37a50b983c5e7c90ae93b'::bytea, ARRAY[100]));
