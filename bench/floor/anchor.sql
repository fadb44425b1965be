-- the floor: lock the partition row, probe the hash, insert, as one statement
WITH h AS (SELECT decode(md5(random()::text), 'hex') AS h),
     lk AS (SELECT p.last_offset FROM public.anchor_partitions p WHERE p.id = 1 FOR UPDATE),
     probe AS (SELECT 1 FROM public.anchor_hashes x, h WHERE x.partition_id = 1 AND x.hash = h.h LIMIT 1),
     up AS (UPDATE public.anchor_partitions p SET last_offset = lk.last_offset + 1 FROM lk
            WHERE p.id = 1 AND NOT EXISTS (SELECT 1 FROM probe) RETURNING p.last_offset)
INSERT INTO public.anchor_hashes SELECT 1, h.h, up.last_offset FROM h, up;
