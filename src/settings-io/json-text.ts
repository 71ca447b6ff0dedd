/** Reading JSON files as people write them: their layout, and syntax errors with a line and column. */

export interface JsonTextStyle {
  /** One level of indentation: spaces or a tab. Empty for a single-line (compact) file. */
  indent: string;
  eol: '\n' | '\r\n';
  finalNewline: boolean;
}

export function detectJsonStyle(text: string): JsonTextStyle {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const finalNewline = text.length === 0 || /\r?\n$/.test(text);
  const body = text.trim();
  if (body.length > 0 && !body.includes('\n')) return { indent: '', eol, finalNewline };
  const match = /\n([ \t]+)\S/.exec(text);
  let indent = match ? match[1]! : '  ';
  if (indent.startsWith('\t')) indent = '\t';
  else if (indent.length > 8) indent = '  ';
  return { indent, eol, finalNewline };
}

/** A new file holding one property, in the given style (2 spaces and a final newline by default). */
export function newJsonObjectText(key: string, value: unknown, style: JsonTextStyle): string {
  const text = JSON.stringify({ [key]: value }, null, style.indent || undefined)
    .split('\n')
    .join(style.eol);
  return style.finalNewline ? text + style.eol : text;
}

export interface JsonParseFailure {
  message: string;
  line?: number;
  column?: number;
}

/**
 * The offset of the first JSON syntax error (Node 20's JSON.parse does not always say where).
 * Returns undefined when the text is valid JSON.
 */
export function findJsonErrorOffset(text: string): number | undefined {
  let i = 0;
  const fail = (): never => {
    throw i;
  };
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const literal = (word: string) => {
    for (const ch of word) {
      if (text[i] !== ch) fail();
      i++;
    }
  };
  const string = () => {
    i++;
    while (i < text.length && text[i] !== '"') {
      const code = text.charCodeAt(i);
      if (code < 0x20) fail();
      if (text[i] === '\\') {
        i++;
        if (text[i] === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) fail();
          i += 4;
        } else if (!'"\\/bfnrt'.includes(text[i] ?? 'x')) fail();
      }
      i++;
    }
    if (text[i] !== '"') fail();
    i++;
  };
  const number = () => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
    if (!match || match[0] === '' || match[0] === '-') fail();
    i += match![0].length;
  };
  const value = (): void => {
    ws();
    const ch = text[i];
    if (ch === '{') {
      i++;
      ws();
      if (text[i] === '}') return void i++;
      for (;;) {
        ws();
        if (text[i] !== '"') fail();
        string();
        ws();
        if (text[i] !== ':') fail();
        i++;
        value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === '}') return void i++;
        else fail();
      }
    }
    if (ch === '[') {
      i++;
      ws();
      if (text[i] === ']') return void i++;
      for (;;) {
        value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === ']') return void i++;
        else fail();
      }
    }
    if (ch === '"') return string();
    if (ch === 't') return literal('true');
    if (ch === 'f') return literal('false');
    if (ch === 'n') return literal('null');
    if (ch === '-' || (ch !== undefined && ch >= '0' && ch <= '9')) return number();
    fail();
  };
  try {
    value();
    ws();
    if (i < text.length) fail();
    return undefined;
  } catch (offset) {
    if (typeof offset === 'number') return offset;
    throw offset;
  }
}

/** JSON.parse with a line and column on failure; a leading byte-order mark is skipped. */
export function parseJsonText(
  text: string,
): { ok: true; value: unknown } | { ok: false; error: JsonParseFailure } {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  try {
    return { ok: true, value: JSON.parse(body) };
  } catch (error) {
    const message = (error as Error).message.replace(/\s+/g, ' ');
    const offset = findJsonErrorOffset(body);
    if (offset === undefined) return { ok: false, error: { message } };
    const before = body.slice(0, offset);
    const line = before.split('\n').length;
    const column = offset - before.lastIndexOf('\n');
    return { ok: false, error: { message, line, column } };
  }
}
