import { mergeSelections, WILDCARD, type FieldSelection } from './field-selection.js';

/** Longest `fields` value accepted; real selections of this API are a few dozen characters. */
export const MAX_FIELDS_LENGTH = 2048;

/** Deepest `(` nesting accepted. Bounds the parser's recursion, so `((((...` cannot overflow the stack. */
export const MAX_FIELDS_DEPTH = 8;

/** A `fields` value that does not follow the grammar; the message says where and why. */
export class FieldsSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FieldsSyntaxError';
  }
}

const NAME_CHAR = /[A-Za-z0-9_$.-]/;

/**
 * Parses a `fields` value (spec section 4.3):
 *
 * ```text
 * selection := item ("," item)*
 * item      := path [ "(" selection ")" ]
 * path      := name ("/" name)*
 * name      := [A-Za-z0-9_$.-]+ | "*"
 * ```
 *
 * `a(b)` means `a/b`; spaces around names and punctuation are allowed. The
 * parser is a recursive descent whose depth is bounded by MAX_FIELDS_DEPTH,
 * and it runs in time linear in the input (merging aside), so hostile
 * selections are refused quickly.
 */
export function parseFields(text: string): FieldSelection {
  if (text.length > MAX_FIELDS_LENGTH) {
    throw new FieldsSyntaxError(`the selection is longer than ${MAX_FIELDS_LENGTH} characters`);
  }
  const parser = new Parser(text);
  const selection = parser.selection(0);
  parser.skipSpaces();
  if (!parser.atEnd()) throw parser.error(`unexpected ${JSON.stringify(parser.peek())}`);
  return selection;
}

class Parser {
  readonly #text: string;
  #pos = 0;

  constructor(text: string) {
    this.#text = text;
  }

  selection(depth: number): FieldSelection {
    let result: FieldSelection = this.item(depth);
    this.skipSpaces();
    while (this.peek() === ',') {
      this.#pos++;
      result = mergeSelections(result, this.item(depth));
      this.skipSpaces();
    }
    return result;
  }

  /** `a/b/c(sub)` -> {a: {b: {c: sub}}}, built inside out. */
  item(depth: number): FieldSelection {
    const path = [this.name()];
    this.skipSpaces();
    while (this.peek() === '/') {
      this.#pos++;
      path.push(this.name());
      this.skipSpaces();
    }
    let leaf: FieldSelection | true = true;
    if (this.peek() === '(') {
      if (depth + 1 > MAX_FIELDS_DEPTH)
        throw this.error(`sub-selections are nested deeper than ${MAX_FIELDS_DEPTH} levels`);
      this.#pos++;
      this.skipSpaces();
      if (this.peek() === ')') throw this.error('empty sub-selection "()"');
      leaf = this.selection(depth + 1);
      this.skipSpaces();
      if (this.peek() !== ')')
        throw this.error(this.atEnd() ? 'missing ")"' : `expected ")" but found ${JSON.stringify(this.peek())}`);
      this.#pos++;
    }
    let node: FieldSelection | true = leaf;
    for (let i = path.length - 1; i >= 0; i--) node = new Map([[path[i] as string, node]]);
    return node as FieldSelection;
  }

  name(): string {
    this.skipSpaces();
    if (this.peek() === WILDCARD) {
      this.#pos++;
      return WILDCARD;
    }
    const start = this.#pos;
    while (!this.atEnd() && NAME_CHAR.test(this.peek())) this.#pos++;
    if (this.#pos === start) {
      throw this.error(
        this.atEnd()
          ? 'a field name is missing at the end'
          : `expected a field name but found ${JSON.stringify(this.peek())}`,
      );
    }
    return this.#text.slice(start, this.#pos);
  }

  skipSpaces(): void {
    while (this.#text[this.#pos] === ' ') this.#pos++;
  }

  peek(): string {
    return this.#text[this.#pos] ?? '';
  }

  atEnd(): boolean {
    return this.#pos >= this.#text.length;
  }

  error(problem: string): FieldsSyntaxError {
    return new FieldsSyntaxError(`${problem} at position ${this.#pos + 1}`);
  }
}
