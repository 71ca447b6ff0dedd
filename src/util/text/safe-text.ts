// Import-free: the hook path uses it (src/util/printable.ts).
/**
 * Text from outside hookd made safe to print on a terminal. Event data, a command's output, a log
 * record, a path or a session id may hold escape sequences: an OSC 52 write to the clipboard, a window
 * title, a clear screen, a cursor move that hides a line. Every human output of the CLI shows such text
 * through these functions; `--json` output goes through formatJson (terminal/output.ts).
 *
 * Unsafe, and shown escaped instead: the C0 controls (ESC starts every escape sequence, BEL ends an OSC
 * one, CR rewrites the line), DEL, the C1 controls U+0080-U+009F (CSI and OSC as one character, for
 * terminals that take them), and the bidirectional marks, overrides and isolates, which change the order
 * in which the rest of a line reads.
 */

const C0 = '\\u0000-\\u001f';
const C0_BUT_NEWLINE = '\\u0000-\\u0009\\u000b-\\u001f';
/** DEL, C1, and the bidirectional marks, overrides and isolates. */
const BEYOND_C0 = '\\u007f-\\u009f\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069';
const UNSAFE = new RegExp(`[${C0}${BEYOND_C0}]`, 'g');
/** The same without the newline: for text that is several lines by design. */
const UNSAFE_IN_LINES = new RegExp(`[${C0_BUT_NEWLINE}${BEYOND_C0}]`, 'g');
/** What JSON.stringify leaves as it is (it escapes the C0 controls itself). */
export const UNSAFE_IN_JSON = new RegExp(`[${BEYOND_C0}]`, 'g');

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** `\x1b`, `\x07`, `\x9b`, `\r`, `\u202e`: how an unsafe character is shown. */
function escaped(char: string): string {
  const named = NAMED[char];
  if (named) return named;
  const code = char.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** One line of text for a terminal: every unsafe character, newlines too, shown escaped. */
export function safeText(value: unknown): string {
  return String(value).replace(UNSAFE, escaped);
}

/** Text that is several lines by design (a command's stderr): its newlines kept, all else as safeText. */
export function safeLines(value: unknown): string {
  return String(value).replace(UNSAFE_IN_LINES, escaped);
}

function isPlainObject(value: object): value is Record<string, unknown> {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * A copy of plain data (as a report or a daemon's answer is) with every string, and every property
 * name, made one safe line by safeText: for a formatter that prints many fields of it. Anything that is
 * not a plain object, an array or a string is kept as it is.
 */
export function safeData<T>(value: T): T {
  if (typeof value === 'string') return safeText(value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => safeData(item)) as T;
  if (value !== null && typeof value === 'object' && isPlainObject(value)) {
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value))
      // defineProperty: a `__proto__` key of parsed data stays a property, never the copy's prototype.
      Object.defineProperty(copy, safeText(key), {
        value: safeData(item),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return copy as T;
  }
  return value;
}
