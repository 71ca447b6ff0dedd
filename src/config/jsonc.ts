/**
 * hookd's config file is JSON with comments and trailing commas, as the agents' settings files are:
 * `// line` and `/* block *\/` comments, and a comma after the last member of an object or array.
 * This small reader turns such text into plain JSON of the same length (each comment and trailing comma
 * becomes spaces, line breaks kept), so JSON.parse does the parsing and its error positions, lines and
 * columns still point into the file as written. Dependency-free: the config is read on the hook path
 * (dist/validate.cjs), which loads no package.
 */

/** A comment that is never closed: where it starts. */
export class JsoncError extends SyntaxError {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
    this.name = 'JsoncError';
  }
}

const SPACE = 0x20;
const NEWLINE = 0x0a;
const RETURN = 0x0d;

/**
 * The text as plain JSON: comments and trailing commas blanked, a leading byte-order mark too. Strings
 * are left exactly as they are (a `//` inside one is text). Throws JsoncError for an unclosed comment.
 */
export function jsoncToJson(text: string): string {
  const out = new Uint16Array(text.length);
  // The last character that was neither white space nor part of a comment (for trailing commas), and
  // where a comma is pending: blanked when the next such character closes an object or array.
  let last = '';
  let pendingComma = -1;
  let i = 0;
  const blank = (from: number, to: number) => {
    for (let k = from; k < to; k++) {
      const code = text.charCodeAt(k);
      out[k] = code === NEWLINE || code === RETURN ? code : SPACE;
    }
  };
  if (text.charCodeAt(0) === 0xfeff) {
    out[0] = SPACE;
    i = 1;
  }
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '"') {
      const start = i;
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
      i = Math.min(i + 1, text.length);
      for (let k = start; k < i; k++) out[k] = text.charCodeAt(k);
      last = '"';
      pendingComma = -1;
      continue;
    }
    if (ch === '/' && text[i + 1] === '/') {
      const end = text.indexOf('\n', i);
      const stop = end === -1 ? text.length : end;
      blank(i, stop);
      i = stop;
      continue;
    }
    if (ch === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      if (end === -1) throw new JsoncError('a /* comment is not closed', i);
      blank(i, end + 2);
      i = end + 2;
      continue;
    }
    out[i] = text.charCodeAt(i);
    if (ch !== ' ' && ch !== '\t' && ch !== '\n' && ch !== '\r') {
      if ((ch === '}' || ch === ']') && pendingComma !== -1) out[pendingComma] = SPACE;
      // A comma right after a value may be a trailing one; after `{`, `[` or another comma it is an error
      // JSON.parse reports.
      pendingComma = ch === ',' && last !== '{' && last !== '[' && last !== ',' ? i : -1;
      last = ch;
    }
    i++;
  }
  return Buffer.from(out.buffer, out.byteOffset, out.byteLength).toString('utf16le');
}

/** Parses config text: JSON with comments and trailing commas. Throws SyntaxError (JsoncError for comments). */
export function parseJsonc(text: string): unknown {
  return JSON.parse(jsoncToJson(text));
}
