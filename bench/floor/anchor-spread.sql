-- the floor over 16 partitions, client c always into partition 1 + c mod 16 (fresh-spread's load
-- on the anchor's statement): the database's own gain from spreading, on this machine
\set p 1 + :client_id % 16
WITH h AS (SELECT decode(md5(random()::text), 'hex') AS h),
     lk AS (SELECT p.last_offset FROM public.anchor_partitions p WHERE p.id = :p FOR UPDATE),
     probe AS (SELECT 1 FROM public.anchor_hashes x, h WHERE x.partition_id = :p AND x.hash = h.h LIMIT 1),
     up AS (UPDATE public.anchor_partitions p SET last_offset = lk.last_offset + 1 FROM lk
            WHERE p.id = :p AND NOT EXISTS (SELECT 1 FROM probe) RETURNING p.last_offset)
INSERT INTO public.anchor_hashes SELECT :p, h.h, up.last_offset FROM h, up;
