-- bench/lockwork/instructions' baseline: the arguments of push100.sql computed, no push
SELECT cardinality(a) + cardinality(b) + cardinality(c) + cardinality(d) FROM (SELECT
  (SELECT array_agg(decode(md5(random()::text), 'hex')) FROM generate_series(1, 100)) AS a,
  (SELECT array_agg(gen_random_uuid()) FROM generate_series(1, 100)) AS b,
  (SELECT array_agg('c-' || g || '-' || gen_random_uuid()) FROM generate_series(1, 100) g) AS c,
  array_fill('{"order":1,"total":12.5,"currency":"EUR"}'::bytea, ARRAY[100]) AS d) x;
