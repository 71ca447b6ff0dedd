/**
 * A streaming JSON scanner over bytes, for events hookd cannot or will not hold whole: it never recurses,
 * takes its input in chunks of any size (a split escape, UTF-8 sequence or literal is fine), works on a
 * truncated prefix, and keeps memory bounded whatever it is fed.
 *
 * It always reports the top-level keys of a root object, each with how often it occurred and, for a
 * short string value, the value: "which event and which tool" when the rest cannot be read. A key
 * counts only at depth 1, found by tracking strings, escapes and nesting, so a string value holding
 * `"hook_event_name":"Stop"` (a Write of a file that contains it) is content, never a key.
 *
 * With `build`, it also builds a bounded copy of the value (hookd's own copy of an event too large to
 * parse whole): strings over `maxString` bytes are cut with a marker, containers nested deeper than
 * `maxDepth` become a marker (as parse.ts clamps), and once `budget` bytes are kept, nothing more is
 * built below the root (the root object still gets each later key, with its short string value or a
 * marker). On valid JSON within those limits the copy equals JSON.parse's result.
 */

export interface TopField {
  /** How often the key occurred at depth 1. */
  count: number;
  /** The value, when the last occurrence was a whole string of at most TOP_STRING_MAX bytes. */
  value?: string;
}

export interface ScanResult {
  /** complete: one JSON value and only whitespace after it; truncated: the input ended inside it. */
  state: 'complete' | 'truncated' | 'invalid';
  /** What was wrong, for `invalid`. */
  error?: string;
  /** Bytes consumed (for `invalid`: the offset of the offending byte). */
  offset: number;
  /** What the root value is (`none` before its first byte). */
  root: 'object' | 'array' | 'scalar' | 'none';
  /** The root object's keys (at most MAX_TOP_KEYS distinct ones). */
  top: Map<string, TopField>;
  /** With `build`: the copy of the value, as far as it was read. */
  value?: unknown;
  /** With `build`: a string was cut, or values were left out once the budget was spent. */
  cut: boolean;
  /** With `build`: containers deeper than `maxDepth` were replaced by the marker. */
  tooDeep: boolean;
}

export interface ScanOptions {
  build?: boolean;
  /** Bytes (escaped, as in the JSON text) kept of one string in the copy. */
  maxString?: number;
  /** Bytes the copy may hold in all (strings, keys, and a small cost per value). */
  budget?: number;
  /** Containers nested deeper than this become `tooDeepMarker` in the copy. */
  maxDepth?: number;
  tooDeepMarker?: string;
}

/** A top-level string value longer than this is counted but not kept (names and ids are short). */
export const TOP_STRING_MAX = 4096;
/** Distinct top-level keys remembered (an agent's event has a few dozen). */
export const MAX_TOP_KEYS = 256;
/** Deeper nesting is refused (the kind of each level is remembered: a byte each). */
export const MAX_DEPTH = 1 << 20;
/** Kept of a number's text (a longer one becomes a marker in the copy). */
const MAX_NUMBER_TEXT = 1024;
/** What a value left out of the copy becomes, once the budget is spent. */
export const LEFT_OUT = '[left out: hookd keeps a bounded copy of this event]';
/** What one kept value costs in the budget besides its text. */
const VALUE_COST = 16;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;
const BOM = [0xef, 0xbb, 0xbf];

const KIND_OBJECT = 1;
const KIND_ARRAY = 2;

// Where the scanner is in the grammar.
const S_START = 0; // before the root value (a BOM may come first)
const S_VALUE = 1; // a value must come (after `:` or `,` in an array)
const S_VALUE_OR_END = 2; // after `[`
const S_KEY_OR_END = 3; // after `{`
const S_KEY = 4; // after `,` in an object
const S_COLON = 5;
const S_COMMA_OR_END = 6;
const S_DONE = 7; // the root value is complete
const S_STRING = 8;
const S_ESCAPE = 9;
const S_UNICODE = 10;
const S_NUMBER = 11;
const S_LITERAL = 12;
const S_INVALID = 13;

// Number sub-states (JSON's grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?).
const N_MINUS = 0;
const N_ZERO = 1;
const N_INT = 2;
const N_DOT = 3;
const N_FRAC = 4;
const N_E = 5;
const N_E_SIGN = 6;
const N_EXP = 7;

const LITERALS: Record<number, { text: Buffer; value: unknown }> = {
  0x74: { text: Buffer.from('true'), value: true },
  0x66: { text: Buffer.from('false'), value: false },
  0x6e: { text: Buffer.from('null'), value: null },
};

const isDigit = (b: number): boolean => b >= 0x30 && b <= 0x39;
const isSpace = (b: number): boolean => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
/** The bytes that may follow a backslash in a string (`u` then takes four hex digits). */
const ESCAPES = new Uint8Array(256);
for (const b of [QUOTE, BACKSLASH, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74, 0x75]) ESCAPES[b] = 1;
const HEX = new Uint8Array(256);
for (const c of '0123456789abcdefABCDEF') HEX[c.charCodeAt(0)] = 1;

/** A container being built: the copy, and the key its next value goes under. */
interface Frame {
  container: Record<string, unknown> | unknown[] | undefined;
  key: string | undefined;
}

/** Sets a key as JSON.parse does: `__proto__` is an own property, never the prototype. */
function setKey(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
}

export class JsonScanner {
  private readonly build: boolean;
  private readonly maxString: number;
  private readonly maxDepth: number;
  private readonly tooDeepMarker: string;
  private budget: number;

  private state = S_START;
  private bomSeen = 0;
  private offset = 0;
  private error: string | undefined;
  private root: ScanResult['root'] = 'none';
  private readonly top = new Map<string, TopField>();

  /** Nesting: its depth, and the kind ({ or [) of each level. */
  private depth = 0;
  private kinds = new Uint8Array(64);

  // The string being read: whether it is a key, the raw (escaped) bytes kept of it, its whole length.
  private stringIsKey = false;
  private stringParts: Buffer[] = [];
  private stringKept = 0;
  private stringTotal = 0;
  private stringLimit = 0;
  private stringFull = true;
  private stringEscaped = false;
  private escapeText: number[] = [];
  private unicodeLeft = 0;

  private numberState = N_MINUS;
  private numberText = '';
  private literal: { text: Buffer; value: unknown } | undefined;
  private literalAt = 0;

  // The copy.
  private readonly frames: Frame[] = [];
  private value: unknown = undefined;
  private cut = false;
  private tooDeep = false;
  /** The depth-1 key whose value is being read (undefined when not tracked). */
  private topKey: string | undefined;

  constructor(options: ScanOptions = {}) {
    this.build = options.build ?? false;
    this.maxString = options.maxString ?? 1024 * 1024;
    this.budget = options.budget ?? 8 * 1024 * 1024;
    this.maxDepth = options.maxDepth ?? 128;
    this.tooDeepMarker = options.tooDeepMarker ?? '[nested too deep]';
  }

  /** Feeds the next bytes. Once the input is invalid, the rest is ignored. */
  push(chunk: Uint8Array): void {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
    let i = 0;
    const n = buf.length;
    while (i < n && this.state !== S_INVALID) {
      switch (this.state) {
        case S_STRING:
          i = this.inString(buf, i);
          break;
        case S_ESCAPE:
        case S_UNICODE:
          i = this.inEscape(buf, i);
          break;
        case S_NUMBER:
          i = this.inNumber(buf, i);
          break;
        case S_LITERAL:
          i = this.inLiteral(buf, i);
          break;
        default:
          i = this.structural(buf, i);
      }
    }
    this.offset += i;
  }

  /** Ends the input: what was read, and whether it was one whole JSON value. */
  end(): ScanResult {
    if (this.state === S_NUMBER && this.depth === 0) this.endNumber();
    const state = this.state === S_INVALID ? 'invalid' : this.state === S_DONE ? 'complete' : 'truncated';
    const result: ScanResult = {
      state,
      offset: this.offset,
      root: this.root,
      top: this.top,
      cut: this.cut,
      tooDeep: this.tooDeep,
    };
    if (this.error !== undefined) result.error = this.error;
    if (this.build) result.value = this.value;
    return result;
  }

  /** Stops at byte `at` of the current chunk: the input is not JSON. */
  private fail(at: number, what: string): number {
    this.state = S_INVALID;
    this.error = `${what} at byte ${this.offset + at}`;
    return at;
  }

  /** Whitespace, punctuation and the first byte of a value. */
  private structural(buf: Buffer, start: number): number {
    let i = start;
    const n = buf.length;
    if (this.state === S_START && this.offset + i < 3) {
      // An optional UTF-8 byte order mark, possibly split across chunks.
      while (i < n && this.bomSeen < 3 && this.offset + i === this.bomSeen && buf[i] === BOM[this.bomSeen]) {
        this.bomSeen++;
        i++;
      }
      if (i === n) return i;
      if (this.bomSeen > 0 && this.bomSeen < 3) return this.fail(i, 'a broken byte order mark');
    }
    while (i < n) {
      const b = buf[i]!;
      if (isSpace(b)) {
        i++;
        continue;
      }
      switch (this.state) {
        case S_DONE:
          return this.fail(i, 'data after the JSON value');
        case S_COLON:
          if (b !== COLON) return this.fail(i, 'expected ":"');
          this.state = S_VALUE;
          i++;
          continue;
        case S_COMMA_OR_END:
          if (b === COMMA) {
            this.state = this.kindAt(this.depth) === KIND_OBJECT ? S_KEY : S_VALUE;
            i++;
            continue;
          }
          return this.close(buf, i);
        case S_KEY_OR_END:
        case S_KEY:
          if (b === QUOTE) return this.startString(i + 1, true);
          if (b === CLOSE_BRACE && this.state === S_KEY_OR_END) return this.close(buf, i);
          return this.fail(i, 'expected a key');
        case S_VALUE_OR_END:
          if (b === CLOSE_BRACKET) return this.close(buf, i);
          return this.startValue(buf, i);
        default:
          return this.startValue(buf, i);
      }
    }
    return i;
  }

  private kindAt(level: number): number {
    return this.kinds[level]!;
  }

  private startValue(buf: Buffer, i: number): number {
    const b = buf[i]!;
    if (this.depth === 0) this.root = b === OPEN_BRACE ? 'object' : b === OPEN_BRACKET ? 'array' : 'scalar';
    if (b === QUOTE) return this.startString(i + 1, false);
    if (b === OPEN_BRACE || b === OPEN_BRACKET) {
      if (this.depth >= MAX_DEPTH) return this.fail(i, `nested more than ${MAX_DEPTH} levels`);
      this.open(b === OPEN_BRACE ? KIND_OBJECT : KIND_ARRAY);
      this.state = b === OPEN_BRACE ? S_KEY_OR_END : S_VALUE_OR_END;
      return i + 1;
    }
    if (b === 0x2d || isDigit(b)) {
      this.state = S_NUMBER;
      this.numberState = b === 0x2d ? N_MINUS : b === 0x30 ? N_ZERO : N_INT;
      this.numberText = String.fromCharCode(b);
      return i + 1;
    }
    const literal = LITERALS[b];
    if (literal) {
      this.state = S_LITERAL;
      this.literal = literal;
      this.literalAt = 1;
      return i + 1;
    }
    return this.fail(i, 'expected a value');
  }

  private open(kind: number): void {
    this.depth++;
    if (this.depth >= this.kinds.length) {
      const grown = new Uint8Array(Math.min(this.kinds.length * 2, MAX_DEPTH + 1));
      grown.set(this.kinds);
      this.kinds = grown;
    }
    this.kinds[this.depth] = kind;
    if (!this.build) return;
    // The copy: a new container where its parent is built, within the depth and the budget.
    const parent = this.frames[this.frames.length - 1];
    let container: Frame['container'];
    if (this.depth === 1) {
      container = kind === KIND_OBJECT ? {} : [];
      this.value = container;
    } else if (parent?.container !== undefined) {
      if (this.depth > this.maxDepth) {
        this.tooDeep = true;
        this.attach(this.tooDeepMarker, this.tooDeepMarker.length);
      } else if (this.budget > 0) {
        container = kind === KIND_OBJECT ? {} : [];
        this.attach(container, 0);
      } else {
        this.cut = true;
        if (this.depth === 2) this.attach(LEFT_OUT, 0);
      }
    }
    this.frames.push({ container, key: undefined });
  }

  private close(buf: Buffer, i: number): number {
    const b = buf[i]!;
    const want = this.kindAt(this.depth);
    if (b !== CLOSE_BRACE && b !== CLOSE_BRACKET)
      return this.fail(i, 'expected "," or the end of a container');
    if (want !== 0 && want !== (b === CLOSE_BRACE ? KIND_OBJECT : KIND_ARRAY))
      return this.fail(i, `a stray "${String.fromCharCode(b)}"`);
    this.depth--;
    if (this.build) this.frames.pop();
    this.afterValue(undefined);
    return i + 1;
  }

  /** A value ended (`top`: its text, for a short whole string): back to its container, or done. */
  private afterValue(top: string | undefined): void {
    if (this.depth === 1) {
      this.noteTop(top);
      this.topKey = undefined;
    }
    this.state = this.depth === 0 ? S_DONE : S_COMMA_OR_END;
  }

  /** Puts a value into the container being built, under its key in an object. */
  private attach(value: unknown, cost: number): void {
    const frame = this.frames[this.frames.length - 1];
    if (!frame?.container) return;
    this.budget -= cost + VALUE_COST;
    if (Array.isArray(frame.container)) frame.container.push(value);
    else if (frame.key !== undefined) setKey(frame.container, frame.key, value);
  }

  private startString(i: number, isKey: boolean): number {
    this.state = S_STRING;
    this.stringIsKey = isKey;
    this.stringParts = [];
    this.stringKept = 0;
    this.stringTotal = 0;
    this.stringFull = true;
    this.stringEscaped = false;
    this.stringLimit = this.captureLimit(isKey);
    return i;
  }

  /** How many bytes of this string to keep: enough for the copy, or for the top-level fields. */
  private captureLimit(isKey: boolean): number {
    const frame = this.frames[this.frames.length - 1];
    const building =
      this.build &&
      (this.depth === 0 || (frame?.container !== undefined && (this.budget > 0 || this.depth === 1)));
    const atTop = this.depth === 1 && this.kindAt(1) === KIND_OBJECT;
    let limit = 0;
    if (building) limit = isKey ? Math.min(this.maxString, TOP_STRING_MAX) : this.maxString;
    if (building && this.budget <= 0) limit = isKey ? TOP_STRING_MAX : 0;
    if (atTop && (isKey || this.topKey !== undefined)) limit = Math.max(limit, TOP_STRING_MAX);
    return limit;
  }

  /** Keeps the raw bytes [from, to) of the string (whole escapes, starting at an escape boundary). */
  private keep(buf: Buffer, from: number, to: number): void {
    const len = to - from;
    this.stringTotal += len;
    if (!this.stringFull || len === 0) return;
    const room = this.stringLimit - this.stringKept;
    if (len <= room) {
      this.stringParts.push(buf.subarray(from, to));
      this.stringKept += len;
      return;
    }
    // Cut before an escape that would not fit whole, then at a UTF-8 character boundary.
    let end = from + room;
    for (let i = from; i < end; i++) {
      if (buf[i] !== BACKSLASH) continue;
      const length = buf[i + 1] === 0x75 ? 6 : 2;
      if (i + length > end) end = i;
      else i += length - 1;
    }
    while (end > from && (buf[end]! & 0xc0) === 0x80) end--;
    if (end > from) this.stringParts.push(buf.subarray(from, end));
    this.stringKept += end - from;
    this.stringFull = false;
  }

  /** The inside of a string; an escape split across chunks is read by inEscape. */
  private inString(buf: Buffer, start: number): number {
    let i = start;
    const n = buf.length;
    let b = 0;
    while (i < n) {
      b = buf[i]!;
      if (b === BACKSLASH) {
        // A whole escape in this chunk is read here; a split one by inEscape.
        if (i + 1 >= n) break;
        const e = buf[i + 1]!;
        if (!ESCAPES[e]) return this.fail(i + 1, 'a bad escape in a string');
        this.stringEscaped = true;
        if (e !== 0x75) {
          i += 2;
          continue;
        }
        if (i + 5 >= n) break;
        for (let h = i + 2; h < i + 6; h++)
          if (!HEX[buf[h]!]) return this.fail(h, 'a bad \\u escape in a string');
        i += 6;
        continue;
      }
      if (b === QUOTE || b < 0x20) break;
      i++;
    }
    this.keep(buf, start, i);
    if (i === n) return i;
    if (b === QUOTE) {
      this.endString();
      return i + 1;
    }
    if (b !== BACKSLASH) return this.fail(i, 'a control character in a string');
    this.state = S_ESCAPE;
    this.stringEscaped = true;
    this.escapeText = [BACKSLASH];
    return i + 1;
  }

  private inEscape(buf: Buffer, start: number): number {
    let i = start;
    const n = buf.length;
    while (i < n) {
      const b = buf[i]!;
      if (this.state === S_ESCAPE) {
        if (!ESCAPES[b]) return this.fail(i, 'a bad escape in a string');
        this.escapeText.push(b);
        i++;
        if (b === 0x75) {
          this.state = S_UNICODE;
          this.unicodeLeft = 4;
          continue;
        }
      } else {
        if (!HEX[b]) return this.fail(i, 'a bad \\u escape in a string');
        this.escapeText.push(b);
        i++;
        if (--this.unicodeLeft > 0) continue;
      }
      // The escape is whole: kept only whole.
      const text = Buffer.from(this.escapeText);
      if (this.stringFull && this.stringKept + text.length > this.stringLimit) this.stringFull = false;
      this.keep(text, 0, text.length);
      this.state = S_STRING;
      return i;
    }
    return i;
  }

  private stringText(): string {
    const raw = this.stringParts.length === 1 ? this.stringParts[0]! : Buffer.concat(this.stringParts);
    this.stringParts = [];
    if (!this.stringEscaped) return raw.toString('utf8');
    return JSON.parse(`"${raw.toString('utf8')}"`) as string;
  }

  private endString(): void {
    const whole = this.stringFull;
    const kept = this.stringLimit > 0 ? this.stringText() : '';
    const cost = this.stringKept;
    const text = whole ? kept : `${kept}… (${this.stringTotal} bytes, cut)`;
    if (this.stringIsKey) {
      this.state = S_COLON;
      if (this.depth === 1 && this.kindAt(1) === KIND_OBJECT) this.topKey = whole ? kept : undefined;
      if (this.build) {
        const frame = this.frames[this.frames.length - 1];
        if (frame) frame.key = text;
        if (!whole) this.cut = true;
        this.budget -= cost;
      }
      return;
    }
    if (!whole && this.build) this.cut = true;
    if (this.build) this.attachScalar(text, cost);
    this.afterValue(whole && this.stringTotal <= TOP_STRING_MAX ? kept : undefined);
  }

  /** Counts a top-level key (its value kept when a short whole string). */
  private noteTop(value: string | undefined): void {
    if (this.topKey === undefined || this.kindAt(1) !== KIND_OBJECT) return;
    let field = this.top.get(this.topKey);
    if (!field) {
      if (this.top.size >= MAX_TOP_KEYS) return;
      field = { count: 0 };
      this.top.set(this.topKey, field);
    }
    field.count++;
    if (value !== undefined) field.value = value;
    else delete field.value;
  }

  /** A scalar into the copy; past the budget, only the root object's short strings still go in. */
  private attachScalar(value: unknown, cost: number): void {
    if (this.depth === 0) {
      this.value = value;
      return;
    }
    const frame = this.frames[this.frames.length - 1];
    if (!frame?.container) return;
    if (this.budget <= 0) {
      this.cut = true;
      if (this.depth !== 1) return;
      const short = typeof value !== 'string' || value.length <= TOP_STRING_MAX;
      value = short ? value : LEFT_OUT;
    }
    this.attach(value, cost);
  }

  private inNumber(buf: Buffer, start: number): number {
    let i = start;
    const n = buf.length;
    while (i < n) {
      const b = buf[i]!;
      const digit = isDigit(b);
      let next = -1;
      switch (this.numberState) {
        case N_MINUS:
          if (digit) next = b === 0x30 ? N_ZERO : N_INT;
          break;
        case N_ZERO:
        case N_INT:
          if (digit && this.numberState === N_INT) next = N_INT;
          else if (b === 0x2e) next = N_DOT;
          else if (b === 0x65 || b === 0x45) next = N_E;
          break;
        case N_DOT:
          if (digit) next = N_FRAC;
          break;
        case N_FRAC:
          if (digit) next = N_FRAC;
          else if (b === 0x65 || b === 0x45) next = N_E;
          break;
        case N_E:
          if (digit) next = N_EXP;
          else if (b === 0x2b || b === 0x2d) next = N_E_SIGN;
          break;
        case N_E_SIGN:
        case N_EXP:
          if (digit) next = N_EXP;
          break;
      }
      if (next === -1) {
        if (!this.numberComplete()) return this.fail(i, 'a broken number');
        if (digit) return this.fail(i, 'a broken number');
        this.endNumber();
        return i;
      }
      this.numberState = next;
      if (this.numberText.length <= MAX_NUMBER_TEXT) this.numberText += String.fromCharCode(b);
      i++;
    }
    return i;
  }

  private numberComplete(): boolean {
    const s = this.numberState;
    return s === N_ZERO || s === N_INT || s === N_FRAC || s === N_EXP;
  }

  private endNumber(): void {
    if (!this.numberComplete()) {
      this.state = S_NUMBER; // the input ended inside the number: truncated
      return;
    }
    const text = this.numberText;
    const value =
      text.length > MAX_NUMBER_TEXT
        ? `[a number of more than ${MAX_NUMBER_TEXT} characters, cut]`
        : Number(text);
    if (typeof value === 'string' && this.build) this.cut = true;
    if (this.build) this.attachScalar(value, Math.min(text.length, MAX_NUMBER_TEXT));
    this.afterValue(undefined);
  }

  private inLiteral(buf: Buffer, start: number): number {
    let i = start;
    const literal = this.literal!;
    while (i < buf.length) {
      if (buf[i] !== literal.text[this.literalAt]) return this.fail(i, 'a broken literal');
      i++;
      if (++this.literalAt === literal.text.length) {
        if (this.build) this.attachScalar(literal.value, 0);
        this.afterValue(undefined);
        return i;
      }
    }
    return i;
  }
}

/** Scans a whole buffer (or a prefix of an event) in one call. */
export function scanJson(bytes: Uint8Array, options: ScanOptions = {}): ScanResult {
  const scanner = new JsonScanner(options);
  scanner.push(bytes);
  return scanner.end();
}

/**
 * A top-level field's string value when the scan settles it: the key occurred exactly once at depth 1 and
 * its value was a whole short string.
 */
export function topString(scan: Pick<ScanResult, 'top'>, key: string): string | undefined {
  const field = scan.top.get(key);
  return field && field.count === 1 ? field.value : undefined;
}
