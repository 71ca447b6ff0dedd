import { describe, expect, it } from 'vitest';
import { formatJson, formatJsonLine, formatTable } from '../../../src/terminal/output.js';
import { safeData, safeLines, safeText } from '../../../src/util/text/safe-text.js';

const OSC52 = '\u001b]52;c;ZWNobyBwd25lZA==\u0007';

describe('safeText', () => {
  it('shows ESC, BEL, CR, LF, TAB, DEL, C1 and bidi controls escaped', () => {
    expect(safeText(`a${OSC52}b`)).toBe(String.raw`a\x1b]52;c;ZWNobyBwd25lZA==\x07b`);
    expect(safeText('1\r2\n3\t4\u007f5\u009b6\u0085')).toBe(String.raw`1\r2\n3\t4\x7f5\x9b6\x85`);
    expect(safeText('abc\u202edcba\u2066x\u2069\u200f')).toBe(String.raw`abc\u202edcba\u2066x\u2069\u200f`);
    expect(safeText('\u0000')).toBe(String.raw`\x00`);
  });

  it('leaves printable text, accents, emoji and our own marks alone', () => {
    for (const text of ['plain text', 'café ✓ ✗ ⊘ ↳ …', '日本語 🚀', 'C:\\path\\x1b (a literal backslash)'])
      expect(safeText(text)).toBe(text);
    expect(safeText(42)).toBe('42');
  });

  it('is idempotent: what it returns has nothing left to escape', () => {
    const once = safeText(`x${OSC52}\r\n\u009b`);
    expect(safeText(once)).toBe(once);
  });
});

describe('safeLines', () => {
  it('keeps newlines and escapes every other control, CR included', () => {
    expect(safeLines(`one\r\ntwo ${OSC52}\nthree`)).toBe(
      String.raw`one\r` + '\n' + String.raw`two \x1b]52;c;ZWNobyBwd25lZA==\x07` + '\nthree',
    );
  });
});

describe('safeData', () => {
  it('escapes every string and property name of plain data, and keeps the rest', () => {
    const data = { id: `s${OSC52}`, n: 3, ok: true, none: null, list: ['\r', { [`k\u001b`]: 'v\u0007' }] };
    expect(safeData(data)).toEqual({
      id: String.raw`s\x1b]52;c;ZWNobyBwd25lZA==\x07`,
      n: 3,
      ok: true,
      none: null,
      list: [String.raw`\r`, { [String.raw`k\x1b`]: String.raw`v\x07` }],
    });
    expect(data.id).toBe(`s${OSC52}`);
  });

  it('keeps a __proto__ key of parsed data as a property, never as the prototype', () => {
    const parsed = JSON.parse('{"__proto__": {"polluted": "\\u001b"}}') as Record<string, unknown>;
    const copy = safeData(parsed);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(copy, '__proto__')?.value).toEqual({ polluted: String.raw`\x1b` });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('leaves class instances and functions as they are', () => {
    const when = new Date(0);
    const fn = () => 1;
    const copy = safeData({ when, fn });
    expect(copy.when).toBe(when);
    expect(copy.fn).toBe(fn);
  });
});

describe('formatJson and formatJsonLine', () => {
  it('escape what JSON.stringify leaves raw (DEL, C1, bidi), and stay the same JSON value', () => {
    const value = { t: `a${OSC52}\u007f\u009b\u202e\r` };
    for (const text of [formatJson(value), formatJsonLine(value)]) {
      // eslint-disable-next-line no-control-regex
      expect(text.trimEnd()).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
      expect(JSON.parse(text)).toEqual(value);
    }
    expect(formatJsonLine(value)).toBe(
      `${String.raw`{"t":"a\u001b]52;c;ZWNobyBwd25lZA==\u0007\u007f\u009b\u202e\r"}`}\n`,
    );
  });
});

describe('formatTable', () => {
  it('escapes cells, folds white space, and paints with the column colour after cutting', () => {
    const rows = [{ id: `s1${OSC52}`, note: 'two\nlines\there', bad: true }];
    const columns = [
      { header: 'ID', value: (r: (typeof rows)[number]) => r.id, max: 12 },
      { header: 'NOTE', value: (r: (typeof rows)[number]) => r.note, color: () => 'red' as const },
    ];
    expect(formatTable(rows, columns)).toBe(`ID            NOTE\ns1\\x1b]52;c…  two lines here\n`);
    expect(formatTable(rows, columns, { color: true })).toBe(
      `ID            NOTE\ns1\\x1b]52;c…  \u001b[31mtwo lines here\u001b[0m\n`,
    );
  });
});
