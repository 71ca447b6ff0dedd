import { describe, expect, it } from 'vitest';
import {
  detectJsonStyle,
  findJsonErrorOffset,
  newJsonObjectText,
  parseJsonText,
} from '../../../src/settings-io/json-text.js';

describe('detectJsonStyle', () => {
  it('finds 2 spaces, 4 spaces, tabs, compact files, CRLF and the final newline', () => {
    expect(detectJsonStyle('{\n  "a": 1\n}\n')).toEqual({ indent: '  ', eol: '\n', finalNewline: true });
    expect(detectJsonStyle('{\n    "a": 1\n}')).toEqual({ indent: '    ', eol: '\n', finalNewline: false });
    expect(detectJsonStyle('{\n\t"a": 1\n}\n').indent).toBe('\t');
    expect(detectJsonStyle('{"a":1}').indent).toBe('');
    expect(detectJsonStyle('{\r\n  "a": 1\r\n}\r\n')).toEqual({
      indent: '  ',
      eol: '\r\n',
      finalNewline: true,
    });
  });
});

describe('newJsonObjectText / parseJsonText', () => {
  it('writes a new file with 2 spaces and a final newline', () => {
    expect(newJsonObjectText('hooks', {}, { indent: '  ', eol: '\n', finalNewline: true })).toBe(
      '{\n  "hooks": {}\n}\n',
    );
  });

  it('reports the line and column of a syntax error', () => {
    const result = parseJsonText('{\n  "a": 1,\n  "b": oops\n}');
    expect(result.ok).toBe(false);
    if (!result.ok) expect([result.error.line, result.error.column]).toEqual([3, 8]);
  });

  it('skips a byte-order mark', () => {
    expect(parseJsonText('\uFEFF{"a":1}')).toEqual({ ok: true, value: { a: 1 } });
  });
});

describe('findJsonErrorOffset', () => {
  it('agrees with JSON.parse on what is valid', () => {
    const samples = ['{}', '[1, -2.5e3, "a\\u00e9\\n", true, false, null]', '{"a":{"b":[]}}', ' 1 ', '"x"'];
    for (const text of samples) expect(findJsonErrorOffset(text), text).toBeUndefined();
    const broken = [
      '{',
      '{"a":}',
      '[1,]',
      '{"a" 1}',
      'tru',
      '{"a":1,}',
      '"\\x"',
      '01',
      '{} x',
      "{'a':1}",
      '"a\nb"',
    ];
    for (const text of broken) {
      expect(() => JSON.parse(text)).toThrow();
      expect(findJsonErrorOffset(text), text).toBeTypeOf('number');
    }
  });

  it('points at the first bad character', () => {
    expect(findJsonErrorOffset('{"a":}')).toBe(5);
    expect(findJsonErrorOffset('[1,2,]')).toBe(5);
    expect(findJsonErrorOffset('{"a": 1} x')).toBe(9);
  });
});
