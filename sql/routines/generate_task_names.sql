-- GENERATED from the generated name form (src/store/sql-api/generated-name-sql.ts) by `npm run generate:sql-api`: do not edit by hand.

CREATE OR REPLACE FUNCTION generate_task_names(n integer) RETURNS text[]
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  tb  bytea := substring(int8send(floor(extract(epoch from clock_timestamp()) * 1000)::int8) from 3 for 6);
  u   bytea := uuid_send(gen_random_uuid());
  k   bigint;
  ht  bigint;
  h   bigint;
  r   bytea;
  out text[] := '{}';
BEGIN
  k := (get_byte(u, 0)::bigint << 56) | (get_byte(u, 1)::bigint << 48) | (get_byte(u, 2)::bigint << 40) | (get_byte(u, 3)::bigint << 32)
     | (get_byte(u, 4)::bigint << 24) | (get_byte(u, 5)::bigint << 16) | (get_byte(u, 10)::bigint << 8) | get_byte(u, 11)::bigint;
  ht := ((((((((((((2052178142::int8 # get_byte(tb, 0)) * 16777619 & 4294967295) # get_byte(tb, 1)) * 16777619 & 4294967295) # get_byte(tb, 2)) * 16777619 & 4294967295) # get_byte(tb, 3)) * 16777619 & 4294967295) # get_byte(tb, 4)) * 16777619 & 4294967295) # get_byte(tb, 5)) * 16777619 & 4294967295);
  FOR i IN 1..coalesce(n, 0) LOOP
    r := int8send(k # i);
    h := ((((((((((((((((ht # get_byte(r, 0)) * 16777619 & 4294967295) # get_byte(r, 1)) * 16777619 & 4294967295) # get_byte(r, 2)) * 16777619 & 4294967295) # get_byte(r, 3)) * 16777619 & 4294967295) # get_byte(r, 4)) * 16777619 & 4294967295) # get_byte(r, 5)) * 16777619 & 4294967295) # get_byte(r, 6)) * 16777619 & 4294967295) # get_byte(r, 7)) * 16777619 & 4294967295);
    h := h # (h >> 16);
    h := ((h * 51819 + (((h * 34283) & 65535) << 16)) & 4294967295);
    h := h # (h >> 13);
    h := ((h * 44597 + (((h * 49842) & 65535) << 16)) & 4294967295);
    h := h # (h >> 16);
    out[i] := translate(encode(tb || r || substring(int8send(h) from 5 for 4), 'base64'), '+/', '-_');
  END LOOP;
  RETURN out;
END
$$;
REVOKE ALL ON FUNCTION generate_task_names(integer) FROM PUBLIC;
