import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsoncError, jsoncToJson, parseJsonc } from '../../../src/config/jsonc.js';
import { validateConfigText } from '../../../src/config/validate.js';

describe("hookd's config reader: JSON with comments and trailing commas", () => {
  it('reads line and block comments and trailing commas, as the agents read their settings', () => {
    const text = [
      '// hookd config',
      '{',
      '  /* guards */ "hooks": {',
      '    "PreToolUse": [',
      '      { "matcher": "Execute", "hooks": [{ "type": "command", "command": "true", }], }, // one',
      '    ],',
      '  },',
      '}',
    ].join('\n');
    expect(parseJsonc(text)).toEqual({
      hooks: { PreToolUse: [{ matcher: 'Execute', hooks: [{ type: 'command', command: 'true' }] }] },
    });
  });

  it('keeps strings exactly, comment markers and commas in them included', () => {
    const text = '{"a": "http://x/*y*/, // z", "b": "\\"//\\"", "c": [1, "]"],}';
    expect(parseJsonc(text)).toEqual({ a: 'http://x/*y*/, // z', b: '"//"', c: [1, ']'] });
  });

  it('keeps every offset: the plain JSON is as long, line breaks where they were', () => {
    const text = '{\r\n  /* a\r\n b */ "x": 1, // c\n}';
    const json = jsoncToJson(text);
    expect(json).toHaveLength(text.length);
    expect(json.split('\n').length).toBe(text.split('\n').length);
    expect(JSON.parse(json)).toEqual({ x: 1 });
  });

  it('still refuses what is not JSON: a comma with no value before it, an unclosed comment', () => {
    expect(() => parseJsonc('{,}')).toThrow(SyntaxError);
    expect(() => parseJsonc('[1,,]')).toThrow(SyntaxError);
    expect(() => parseJsonc('{"a": 1} /* open')).toThrow(JsoncError);
  });

  it('reads plain JSON exactly as JSON.parse does', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value, null, 2);
        expect(parseJsonc(text)).toEqual(JSON.parse(text));
      }),
      { seed: 20, numRuns: 300 },
    );
  });

  it('a config file with comments and trailing commas validates; errors point into the file as written', () => {
    const ok = validateConfigText('{\n  // none yet\n  "hooks": {},\n}\n', 'c.json');
    expect(ok.ok).toBe(true);
    const bad = validateConfigText('{\n  // a comment\n  "hooks": {]\n}', 'c.json');
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.issues[0]?.message).toMatch(/not valid JSON at line 3, column 13/);
    const open = validateConfigText('{\n  "hooks": {} /* never closed\n}', 'c.json');
    expect(open.ok).toBe(false);
    if (!open.ok)
      expect(open.issues[0]?.message).toMatch(/at line 2, column 15: a \/\* comment is not closed/);
  });
});
