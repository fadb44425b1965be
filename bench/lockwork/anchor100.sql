-- (b) the anchor for 100 items: lock the partition row, probe 100 hashes, insert 100 hash rows
SELECT public.anchor_push((SELECT array_agg(decode(md5(random()::text), 'hex')) FROM generate_series(1, 100)));
