import { GENERATED_NAME_FORM as FORM, GENERATED_NAME_LENGTH } from '../core/generated-name.js';

/**
 * The generated name's form in SQL, written from its one definition
 * (GENERATED_NAME_FORM in src/core/generated-name.ts): the check of a
 * name's bytes and the time it carries, for the functions of the SQL API
 * (sql-api-functions.ts). All arithmetic is int8:
 * a 32-bit product is split so that no intermediate leaves it.
 */

const CHECKED_BYTES = FORM.timeBytes + FORM.randomBytes;
const MASK32 = 4294967295;

/** `h * k` modulo 2^32, with `k` in 16-bit halves (h < 2^32, so each product stays under 2^48). */
function mulMod32(h: string, k: number): string {
  return `((${h} * ${k & 0xffff} + (((${h} * ${k >>> 16}) & 65535) << 16)) & ${MASK32})`;
}

/** FNV-1a with the form's seed over the checked bytes of `bytes` (a column or variable: it is read once per byte). */
function fnv(bytes: string): string {
  let h = `${FORM.checkSeed}::int8`;
  for (let i = 0; i < CHECKED_BYTES; i++) h = `((${h} # get_byte(${bytes}, ${i})) * ${FORM.fnvPrime} & ${MASK32})`;
  return h;
}

/** The fmix32 steps after FNV, as `[expression of h]`, each reading h twice (hence one variable or subquery per step). */
const FMIX_STEPS: readonly ((h: string) => string)[] = [
  (h) => `${h} # (${h} >> 16)`,
  (h) => mulMod32(h, FORM.fmix1),
  (h) => `${h} # (${h} >> 13)`,
  (h) => mulMod32(h, FORM.fmix2),
  (h) => `${h} # (${h} >> 16)`,
];

/** PL/pgSQL statements that leave the check of `bytes` in the bigint variable `h`. */
function checkStatements(bytes: string, indent: string): string {
  const steps = [`h := ${fnv(bytes)};`, ...FMIX_STEPS.map((step) => `h := ${step('h')};`)];
  return steps.map((line) => indent + line).join('\n');
}

/** The check stored in bytes 14-17 of `b`, as a bigint. */
function storedCheck(b: string): string {
  return `((get_byte(${b}, ${CHECKED_BYTES})::bigint << 24) | (get_byte(${b}, ${CHECKED_BYTES + 1}) << 16) | (get_byte(${b}, ${CHECKED_BYTES + 2}) << 8) | get_byte(${b}, ${CHECKED_BYTES + 3}))`;
}

/** The time in the first bytes of `b`, big-endian milliseconds. */
function storedTime(b: string): string {
  const parts = Array.from({ length: FORM.timeBytes }, (_, i) => {
    const shift = 8 * (FORM.timeBytes - 1 - i);
    return shift === 0 ? `get_byte(${b}, ${i})` : `(get_byte(${b}, ${i})::bigint << ${shift})`;
  });
  return parts.join('\n         | ');
}

/** generated_name_check(bytes): the keyed check of a name's first bytes (0015, 0017). */
export function generatedNameCheckFunction(): string {
  return `CREATE OR REPLACE FUNCTION generated_name_check(bytes bytea) RETURNS bigint
LANGUAGE plpgsql IMMUTABLE STRICT
AS $$
DECLARE
  h bigint;
BEGIN
${checkStatements('bytes', '  ')}
  RETURN h;
END
$$;
`;
}

/** generated_name_time(name): the time a name in the form was made, or NULL (0015, 0017). */
export function generatedNameTimeFunction(): string {
  return `CREATE OR REPLACE FUNCTION generated_name_time(name text) RETURNS timestamptz
LANGUAGE plpgsql IMMUTABLE STRICT
AS $$
DECLARE
  b bytea;
  h bigint;
BEGIN
  IF length(name) <> ${GENERATED_NAME_LENGTH} OR name !~ '^[A-Za-z0-9_-]{${GENERATED_NAME_LENGTH}}$' THEN
    RETURN NULL;
  END IF;
  b := decode(translate(name, '-_', '+/'), 'base64');
${checkStatements('b', '  ')}
  IF ${storedCheck('b')} <> h THEN
    RETURN NULL;
  END IF;
  RETURN timestamptz 'epoch' + (${storedTime('b')}) * interval '1 millisecond';
END
$$;
`;
}
