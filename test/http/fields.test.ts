import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyFields } from '../../src/http/fields/apply-fields.js';
import { checkFields } from '../../src/http/fields/check-fields.js';
import type { FieldSelection } from '../../src/http/fields/field-selection.js';
import { formatFields } from '../../src/http/fields/format-fields.js';
import { FieldsSyntaxError, MAX_FIELDS_DEPTH, parseFields } from '../../src/http/fields/parse-fields.js';
import { RESPONSE_SHAPES } from '../../src/http/response-shapes.js';

/** A selection as a plain object, for readable assertions. */
function plain(selection: FieldSelection): unknown {
  return Object.fromEntries([...selection].map(([k, v]) => [k, v === true ? true : plain(v)]));
}

/** Selections in canonical form: every key once, `true` or a non-empty sub-selection. */
function selectionArbitrary(depth: number): fc.Arbitrary<FieldSelection> {
  const name = fc.oneof(
    fc.constantFrom('*', 'a', 'b', 'items', 'id', 'retry_count'),
    fc.stringMatching(/^[A-Za-z0-9_$.-]{1,6}$/),
  );
  const value: fc.Arbitrary<FieldSelection | true> =
    depth <= 0 ? fc.constant(true) : fc.oneof(fc.constant(true), selectionArbitrary(depth - 1));
  return fc
    .uniqueArray(fc.tuple(name, value), { minLength: 1, maxLength: 4, selector: ([k]) => k })
    .map((entries) => new Map(entries));
}

/** True when `part` is `whole` with some object fields left out (arrays keep their length). */
function isPartOf(part: unknown, whole: unknown): boolean {
  if (Array.isArray(whole))
    return Array.isArray(part) && part.length === whole.length && part.every((p, i) => isPartOf(p, whole[i]));
  if (whole !== null && typeof whole === 'object') {
    if (part === null || typeof part !== 'object' || Array.isArray(part)) return false;
    return Object.entries(part).every(
      ([k, v]) => Object.hasOwn(whole, k) && isPartOf(v, (whole as Record<string, unknown>)[k]),
    );
  }
  return Object.is(part, whole);
}

describe('parseFields', () => {
  it('reads every form of the grammar', () => {
    expect(plain(parseFields('kind,items'))).toEqual({ kind: true, items: true });
    expect(plain(parseFields('a/b/c'))).toEqual({ a: { b: { c: true } } });
    expect(plain(parseFields('a(b,c/d)'))).toEqual({ a: { b: true, c: { d: true } } });
    expect(plain(parseFields('a(b)'))).toEqual(plain(parseFields('a/b')));
    expect(plain(parseFields('a/*/b'))).toEqual({ a: { '*': { b: true } } });
    expect(plain(parseFields('*'))).toEqual({ '*': true });
    expect(plain(parseFields(' items( id , tag ) , kind '))).toEqual({ items: { id: true, tag: true }, kind: true });
  });

  it('merges repeated paths, whole fields winning over parts', () => {
    expect(plain(parseFields('a/b,a/c'))).toEqual({ a: { b: true, c: true } });
    expect(plain(parseFields('a/b,a'))).toEqual({ a: true });
    expect(plain(parseFields('a,a(b)'))).toEqual({ a: true });
  });

  it.each([
    ['', 'a field name is missing'],
    ['a,,b', 'expected a field name but found ","'],
    ['a(', 'a field name is missing'],
    ['a(b', 'missing ")"'],
    ['a)', 'unexpected ")"'],
    ['a()', 'empty sub-selection'],
    ['a/', 'a field name is missing'],
    ['a b', 'unexpected "b"'],
    ['a%2Cb', 'unexpected "%"'],
    ['a(b))', 'unexpected ")"'],
  ])('refuses %j with a message naming the problem', (text, problem) => {
    expect(() => parseFields(text)).toThrow(FieldsSyntaxError);
    expect(() => parseFields(text)).toThrow(problem);
  });

  it('refuses deep nesting and long input quickly, without overflowing the stack', () => {
    const deep = `${'a('.repeat(10_000)}b${')'.repeat(10_000)}`;
    const start = Date.now();
    expect(() => parseFields(deep)).toThrow(FieldsSyntaxError);
    expect(() => parseFields(`${'a('.repeat(MAX_FIELDS_DEPTH + 1)}b${')'.repeat(MAX_FIELDS_DEPTH + 1)}`)).toThrow(
      `deeper than ${MAX_FIELDS_DEPTH}`,
    );
    expect(() => parseFields(`${'a('.repeat(MAX_FIELDS_DEPTH)}b${')'.repeat(MAX_FIELDS_DEPTH)}`)).not.toThrow();
    expect(() => parseFields('a,'.repeat(1024) + 'b')).toThrow('longer than');
    // Linear work takes milliseconds; a quadratic parse of these 20,000 characters would take
    // seconds. The bound leaves room for a busy machine (100 ms did not).
    expect(Date.now() - start).toBeLessThan(2_000);
  });

  it('round-trips: parse(format(selection)) is the selection (property)', () => {
    fc.assert(
      fc.property(selectionArbitrary(4), (selection) => {
        expect(plain(parseFields(formatFields(selection)))).toEqual(plain(selection));
      }),
      { numRuns: 500 },
    );
  });

  it('never throws anything but FieldsSyntaxError on arbitrary text (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 60, unit: fc.constantFrom('a', 'b', '(', ')', ',', '/', '*', ' ', '%', '"') }),
        (text) => {
          try {
            parseFields(text);
          } catch (error) {
            expect(error).toBeInstanceOf(FieldsSyntaxError);
          }
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('applyFields', () => {
  const task = { kind: 'taskqueues#task', id: 't1', tag: 'x', retry_count: 1 };
  const queue = {
    kind: 'taskqueues#taskqueue',
    id: 'q',
    acl: { adminEmails: ['a@x'], consumerEmails: [], producerEmails: ['p@x'] },
  };

  it('keeps the selected fields and their parents', () => {
    expect(applyFields(queue, parseFields('acl/adminEmails'))).toEqual({ acl: { adminEmails: ['a@x'] } });
    expect(applyFields(queue, parseFields('id,acl'))).toEqual({ id: 'q', acl: queue.acl });
  });

  it('applies a selection to each element of an array', () => {
    const list = { kind: 'taskqueues#tasks', items: [task, { ...task, id: 't2', tag: undefined }] };
    expect(applyFields(list, parseFields('items(id,tag)'))).toEqual({ items: [{ id: 't1', tag: 'x' }, { id: 't2' }] });
    expect(applyFields(list, parseFields('items/id'))).toEqual({ items: [{ id: 't1' }, { id: 't2' }] });
    expect(applyFields({ items: [] }, parseFields('items/id'))).toEqual({ items: [] });
  });

  it('expands the wildcard to every child', () => {
    expect(applyFields(queue, parseFields('*'))).toEqual(queue);
    expect(applyFields({ a: { x: 1, y: 2 }, b: { x: 3 } }, parseFields('*/x'))).toEqual({ a: { x: 1 }, b: { x: 3 } });
    expect(applyFields({ a: { x: 1, y: 2 } }, parseFields('*/x,a/y'))).toEqual({ a: { x: 1, y: 2 } });
  });

  const json = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.integer(),
      fc.string({ maxLength: 3 }),
      fc.boolean(),
      fc.constant(null),
      tie('object'),
      tie('array'),
    ),
    object: fc.dictionary(fc.constantFrom('a', 'b', 'items', 'id', '*x'), tie('value'), { maxKeys: 4 }),
    array: fc.array(tie('value'), { maxLength: 3 }),
  }));

  it('never adds anything, and is idempotent (property)', () => {
    fc.assert(
      fc.property(json.object, selectionArbitrary(3), (value, selection) => {
        const once = applyFields(value, selection);
        expect(isPartOf(once, value)).toBe(true);
        expect(applyFields(once, selection)).toEqual(once);
      }),
      { numRuns: 1000 },
    );
  });

  it('selects everything with `*` (property)', () => {
    fc.assert(
      fc.property(json.object, (value) => {
        expect(applyFields(value, parseFields('*'))).toEqual(value);
      }),
    );
  });
});

describe('checkFields', () => {
  it('accepts selections of real response fields', () => {
    expect(() =>
      checkFields(parseFields('kind,items(id,payloadBase64,retry_count)'), RESPONSE_SHAPES.leasedTasks),
    ).not.toThrow();
    expect(() =>
      checkFields(parseFields('acl/adminEmails,stats(totalTasks)'), RESPONSE_SHAPES.taskQueue),
    ).not.toThrow();
    expect(() => checkFields(parseFields('*/totalTasks'), RESPONSE_SHAPES.taskQueue)).not.toThrow();
    expect(() => checkFields(parseFields('nextPageToken,items/id'), RESPONSE_SHAPES.listedTasks)).not.toThrow();
  });

  it('names the field that does not exist, or that has no children', () => {
    expect(() => checkFields(parseFields('itmes'), RESPONSE_SHAPES.leasedTasks)).toThrow(
      '"itmes" is not a field of the response',
    );
    expect(() => checkFields(parseFields('items/nope'), RESPONSE_SHAPES.leasedTasks)).toThrow(
      '"items/nope" is not a field',
    );
    expect(() => checkFields(parseFields('data/items'), RESPONSE_SHAPES.leasedTasks)).toThrow('"data"');
    expect(() => checkFields(parseFields('kind/x'), RESPONSE_SHAPES.task)).toThrow('"kind" has no fields to select');
    expect(() => checkFields(parseFields('nextPageToken'), RESPONSE_SHAPES.leasedTasks)).toThrow('nextPageToken');
  });

  it('refuses the names every JavaScript object inherits', () => {
    for (const name of ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf']) {
      expect(() => checkFields(parseFields(name), RESPONSE_SHAPES.task)).toThrow(`"${name}" is not a field`);
      expect(() => checkFields(parseFields(`items/${name}`), RESPONSE_SHAPES.leasedTasks)).toThrow(
        `"items/${name}" is not a field`,
      );
      expect(() => checkFields(parseFields(`*/${name}`), RESPONSE_SHAPES.taskQueue)).toThrow(FieldsSyntaxError);
    }
  });
});
