-- (a) the service's real call: one push of 100 new keys into the hot partition (id 1), as the
-- stateless service sends a 100-item request for a partition it knows (p_verified -1: no cache)
SELECT count(*) FROM exactly.push_segment(1, -1, NULL,
  (SELECT array_agg(decode(md5(random()::text), 'hex')) FROM generate_series(1, 100)),
  array_fill(true, ARRAY[100]),
  (SELECT array_agg(gen_random_uuid()) FROM generate_series(1, 100)),
  (SELECT array_agg('c-' || g || '-' || gen_random_uuid()) FROM generate_series(1, 100) g),
  array_fill('{"order":1,"total":12.5,"currency":"EUR"}'::bytea, ARRAY[100]),
  array_fill(NULL::text, ARRAY[100]), array_fill(NULL::text, ARRAY[100]), array_fill(NULL::text, ARRAY[100]),
  p_digests => array_fill('\x99914b932bd37a50b983c5e7c90ae93b'::bytea, ARRAY[100]));
