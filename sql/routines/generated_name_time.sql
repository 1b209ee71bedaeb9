-- GENERATED from the generated name form (src/store/sql-api/generated-name-sql.ts) by `npm run generate:sql-api`: do not edit by hand.

CREATE OR REPLACE FUNCTION generated_name_time(name text) RETURNS timestamptz
LANGUAGE plpgsql IMMUTABLE STRICT
AS $$
DECLARE
  b bytea;
  h bigint;
BEGIN
  IF length(name) <> 24 OR name !~ '^[A-Za-z0-9_-]{24}$' THEN
    RETURN NULL;
  END IF;
  b := decode(translate(name, '-_', '+/'), 'base64');
  h := ((((((((((((((((((((((((((((2052178142::int8 # get_byte(b, 0)) * 16777619 & 4294967295) # get_byte(b, 1)) * 16777619 & 4294967295) # get_byte(b, 2)) * 16777619 & 4294967295) # get_byte(b, 3)) * 16777619 & 4294967295) # get_byte(b, 4)) * 16777619 & 4294967295) # get_byte(b, 5)) * 16777619 & 4294967295) # get_byte(b, 6)) * 16777619 & 4294967295) # get_byte(b, 7)) * 16777619 & 4294967295) # get_byte(b, 8)) * 16777619 & 4294967295) # get_byte(b, 9)) * 16777619 & 4294967295) # get_byte(b, 10)) * 16777619 & 4294967295) # get_byte(b, 11)) * 16777619 & 4294967295) # get_byte(b, 12)) * 16777619 & 4294967295) # get_byte(b, 13)) * 16777619 & 4294967295);
  h := h # (h >> 16);
  h := ((h * 51819 + (((h * 34283) & 65535) << 16)) & 4294967295);
  h := h # (h >> 13);
  h := ((h * 44597 + (((h * 49842) & 65535) << 16)) & 4294967295);
  h := h # (h >> 16);
  IF ((get_byte(b, 14)::bigint << 24) | (get_byte(b, 15) << 16) | (get_byte(b, 16) << 8) | get_byte(b, 17)) <> h THEN
    RETURN NULL;
  END IF;
  RETURN timestamptz 'epoch' + ((get_byte(b, 0)::bigint << 40)
         | (get_byte(b, 1)::bigint << 32)
         | (get_byte(b, 2)::bigint << 24)
         | (get_byte(b, 3)::bigint << 16)
         | (get_byte(b, 4)::bigint << 8)
         | get_byte(b, 5)) * interval '1 millisecond';
END
$$;

-- Nobody but the owner calls it unless granted (docs/sql-api.md, roles).
REVOKE ALL ON FUNCTION generated_name_time(text) FROM PUBLIC;
