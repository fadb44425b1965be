-- one push of one new key into the hot partition, as the store sends it for a known partition
SELECT count(*) FROM exactly.push_segment(1, -1, NULL, ARRAY[decode(md5(random()::text), 'hex')], ARRAY[true],
  ARRAY[gen_random_uuid()], ARRAY[random()::text], ARRAY['{}'::bytea], ARRAY['application/json'],
  ARRAY[NULL::text], ARRAY[NULL::text], p_digests => ARRAY['\x99914b932bd37a50b983c5e7c90ae93b'::bytea]);
