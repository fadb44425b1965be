-- bench/floor: one queue, partition 'hot' (id 1), and 1,000 committed keys for the duplicate workload.
SELECT count(*) FROM exactly.push_bundle(ARRAY['floor'], ARRAY['hot'], ARRAY[-1]::bigint[], ARRAY[1000],
  (SELECT array_agg(decode(md5('dup-' || g), 'hex') ORDER BY g) FROM generate_series(1, 1000) g),
  (SELECT array_agg(true) FROM generate_series(1, 1000) g),
  (SELECT array_agg(gen_random_uuid()) FROM generate_series(1, 1000) g),
  (SELECT array_agg('dup-' || g ORDER BY g) FROM generate_series(1, 1000) g),
  (SELECT array_agg('{}'::bytea) FROM generate_series(1, 1000) g),
  (SELECT array_agg('application/json'::text) FROM generate_series(1, 1000) g),
  (SELECT array_agg(NULL::text) FROM generate_series(1, 1000) g),
  (SELECT array_agg(NULL::text) FROM generate_series(1, 1000) g),
  p_digests => (SELECT array_agg('\x99914b932bd37a50b983c5e7c90ae93b'::bytea) FROM generate_series(1, 1000) g));
-- the anchor's own table: a partition row to lock and a hash table to probe and insert into
CREATE TABLE IF NOT EXISTS public.anchor_partitions (id bigint PRIMARY KEY, last_offset bigint NOT NULL);
CREATE TABLE IF NOT EXISTS public.anchor_hashes (partition_id bigint, hash bytea, "offset" bigint,
                                                 PRIMARY KEY (partition_id, hash, "offset"));
-- (partition 1 for the anchor, 1 to 16 for anchor-spread)
INSERT INTO public.anchor_partitions SELECT g, -1 FROM generate_series(1, 16) g ON CONFLICT DO NOTHING;
-- the 1,000 partitions of the spread workload
SELECT exactly.ensure_partitions((SELECT array_agg('floor'::text) FROM generate_series(0, 999)),
                                 (SELECT array_agg('s' || g) FROM generate_series(0, 999) g));
