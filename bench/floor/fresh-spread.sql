-- one push of one new key into one of 16 partitions (client c always into the same one), as the
-- store sends a spread queue's single messages: no shared lock, so the database's CPU is the bound
\set p 2 + :client_id % 16
SELECT count(*) FROM exactly.push_segment(:p, -1, NULL, ARRAY[decode(md5(random()::text), 'hex')], ARRAY[true],
  ARRAY[gen_random_uuid()], ARRAY[random()::text], ARRAY['{}'::bytea], ARRAY['application/json'],
  ARRAY[NULL::text], ARRAY[NULL::text], p_digests => ARRAY['\x99914b932bd37a50b983c5e7c90ae93b'::bytea]);
