-- one push of one committed key (a retry): the push API's call for a single-item request
\set k random(1, 1000)
SELECT count(*) FROM exactly.push_bundle(ARRAY['floor'], ARRAY['hot'], ARRAY[-1]::bigint[], ARRAY[1],
  ARRAY[decode(md5('dup-' || :k), 'hex')], ARRAY[true], ARRAY[gen_random_uuid()], ARRAY['dup-' || :k],
  ARRAY['{}'::bytea], ARRAY['application/json'], ARRAY[NULL::text], ARRAY[NULL::text],
  p_digests => ARRAY['\x99914b932bd37a50b983c5e7c90ae93b'::bytea]);
