import { describe, expect, it } from 'vitest';
import { patchJsonText } from '../../../src/settings-io/json-patch.js';
import { jsoncToJson } from '../../../src/config/jsonc.js';
import { detectJsonStyle } from '../../../src/settings-io/json-text.js';

const hookd = { type: 'command', command: '/opt/hookd hook', timeout: 60 };
const hooks = { Stop: [{ matcher: '', hooks: [hookd] }] };

function patch(text: string, value: unknown): string {
  const out = patchJsonText(text, value, detectJsonStyle(text));
  expect(JSON.parse(out)).toEqual(value);
  return out;
}

function withKey(text: string, key: string, value: unknown): string {
  return patch(text, { ...(JSON.parse(text) as object), [key]: value });
}

function withoutKey(text: string, key: string): string {
  const data = JSON.parse(text) as Record<string, unknown>;
  delete data[key];
  return patch(text, data);
}

describe('patchJsonText', () => {
  it('adds a key after the last one, keeping every other byte', () => {
    const text = '{\n    "model":   "x",\n    "list": [1,2,   3]\n}\n';
    expect(withKey(text, 'hooks', hooks)).toBe(
      '{\n    "model":   "x",\n    "list": [1,2,   3],\n    "hooks": {\n        "Stop": [\n            {\n' +
        '                "matcher": "",\n                "hooks": [\n                    {\n' +
        '                        "type": "command",\n                        "command": "/opt/hookd hook",\n' +
        '                        "timeout": 60\n                    }\n                ]\n            }\n' +
        '        ]\n    }\n}\n',
    );
  });

  it('replaces a changed value in place, keeping the keys around it', () => {
    expect(withKey('{"a":1,"hooks":{"Old":[]},"z":{"k":"}"}}', 'hooks', { New: [] })).toBe(
      '{"a":1,"hooks":{"New":[]},"z":{"k":"}"}}',
    );
  });

  it('appends an entry to an existing event array, leaving the other entries byte for byte', () => {
    const text =
      '{\n  "hooks": {\n    "Stop": [ {"hooks":[{"type":"command","command":"say hi"}]} ],\n    "Other": [1,2]\n  }\n}';
    const data = JSON.parse(text);
    data.hooks.Stop.push({ matcher: '', hooks: [hookd] });
    const out = patch(text, data);
    expect(out).toContain('"Stop": [ {"hooks":[{"type":"command","command":"say hi"}]},');
    expect(out).toContain('\n    "Other": [1,2]\n  }\n}');
  });

  it('removes what it added, giving back the original text', () => {
    const originals = [
      '{\n  "a": 1\n}\n',
      '{"a":1}',
      '{}',
      '{\r\n\t"a": [1]\r\n}',
      '{\n  "a": 1,\n  "b": 2\n}',
      '{ "hooks": { "Stop": [ { "hooks": [ ] } ] , "PreToolUse":[]}, "x": null }',
    ];
    for (const text of originals) {
      const data = JSON.parse(text);
      const added = data.hooks
        ? patch(text, {
            ...data,
            hooks: { ...data.hooks, Stop: [...data.hooks.Stop, { matcher: '', hooks: [hookd] }], New: [] },
          })
        : withKey(text, 'hooks', hooks);
      expect(patch(added, data)).toBe(text);
    }
  });

  it('follows tabs and CRLF, and fills an empty object on several lines', () => {
    const crlf = '{\r\n\t"a": 1\r\n}\r\n';
    const out = withKey(crlf, 'hooks', hooks);
    expect(out).toContain('\t"hooks": {\r\n\t\t"Stop": [\r\n');
    expect(out.replace(/\r\n/g, '').includes('\n')).toBe(false);
    expect(patchJsonText('{}', { hooks: {} }, { indent: '  ', eol: '\n', finalNewline: true })).toBe(
      '{\n  "hooks": {}\n}',
    );
  });

  it('edits an element in the middle of an array in place', () => {
    const text = '[ {"a": 1},  {"b": 2},   {"c": 3} ]';
    expect(patch(text, [{ a: 1 }, { b: 20 }, { c: 3 }])).toBe('[ {"a": 1},  {"b": 20},   {"c": 3} ]');
    expect(patch(text, [{ a: 1 }, { c: 3 }])).toBe('[ {"a": 1},  {"c": 3} ]');
    expect(patch(text, [{ b: 2 }, { c: 3 }])).toBe('[ {"b": 2},   {"c": 3} ]');
  });

  it('rewrites an object whose keys changed order, or that has duplicate keys', () => {
    expect(patch('{"a": 1, "b": 2}', { b: 2, a: 1 })).toBe('{"b":2,"a":1}');
    expect(patch('{"a": 1, "a": 2}', { a: 3 })).toBe('{"a":3}');
  });

  it('removes a first, middle or only key with its separator', () => {
    expect(withoutKey('{"hooks": 1, "a": 2}', 'hooks')).toBe('{"a": 2}');
    expect(withoutKey('{"a": 1, "hooks": {}, "b": 2}', 'hooks')).toBe('{"a": 1, "b": 2}');
    expect(withoutKey('{\n  "hooks": 1\n}', 'hooks')).toBe('{}');
  });

  it('handles keys with escapes and strings holding brackets', () => {
    expect(withKey('{"we\\"ird": "{[", "s": "a\\\\"}', 'hooks', {})).toBe(
      '{"we\\"ird": "{[", "s": "a\\\\", "hooks": {}}',
    );
  });
});

describe('patchJsonText on generated documents', () => {
  // A small seeded generator: the same documents on every run.
  let seed = 42;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const value = (depth: number): unknown => {
    const kind = depth > 2 ? pick(['n', 's', 'b']) : pick(['n', 's', 'b', 'o', 'a', 'o', 'a']);
    if (kind === 'n') return Math.round(random() * 1000) / 10;
    if (kind === 's') return pick(['', 'x', 'a "quoted" }] thing', 'tab\there', 'ünï']);
    if (kind === 'b') return random() > 0.5;
    if (kind === 'a') return Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1));
    return Object.fromEntries(
      Array.from({ length: Math.floor(random() * 4) }, (_, i) => [`k${i}`, value(depth + 1)]),
    );
  };
  const mutate = (input: unknown, depth = 0): unknown => {
    if (Array.isArray(input)) {
      const copy = [...input];
      const op = pick(['append', 'remove', 'change']);
      if (op === 'append' || copy.length === 0) copy.push(value(depth + 1));
      else if (op === 'remove') copy.splice(Math.floor(random() * copy.length), 1);
      else {
        const i = Math.floor(random() * copy.length);
        copy[i] = mutate(copy[i], depth + 1);
      }
      return copy;
    }
    if (input !== null && typeof input === 'object') {
      const copy = { ...(input as Record<string, unknown>) };
      const keys = Object.keys(copy);
      const op = pick(['add', 'remove', 'change']);
      if (op === 'add' || keys.length === 0) copy[`new${depth}`] = value(depth + 1);
      else if (op === 'remove') delete copy[pick(keys)];
      else {
        const key = pick(keys);
        copy[key] = mutate(copy[key], depth + 1);
      }
      return copy;
    }
    return value(depth);
  };

  it('always yields the new value, and the old one back', () => {
    for (let round = 0; round < 300; round++) {
      const doc = { root: value(0), list: [value(1), value(1)] };
      const indent = pick(['', '  ', '    ', '\t']);
      const text = JSON.stringify(doc, null, indent || undefined);
      const changed = mutate(doc);
      const out = patchJsonText(text, changed, detectJsonStyle(text));
      expect(JSON.parse(out), `round ${round}: ${text}`).toEqual(changed);
      const back = patchJsonText(out, doc, detectJsonStyle(out));
      expect(JSON.parse(back)).toEqual(doc);
    }
  });

  it('undoes pure additions byte for byte, in every layout', () => {
    const add = (input: unknown, depth = 0): unknown => {
      if (Array.isArray(input))
        return random() < 0.5 && input.length > 0
          ? input.map((v, i) => (i === 0 ? add(v, depth + 1) : v))
          : [...input, value(depth + 1)];
      if (input !== null && typeof input === 'object') {
        const entries = Object.entries(input as Record<string, unknown>);
        if (random() < 0.5 && entries.length > 0)
          return Object.fromEntries(entries.map(([k, v], i) => [k, i === 0 ? add(v, depth + 1) : v]));
        return { ...(input as object), [`added${depth}`]: value(depth + 1) };
      }
      return input;
    };
    let checked = 0;
    for (let round = 0; round < 300; round++) {
      const doc = { root: value(0), list: [value(1)] };
      const indent = pick(['', '  ', '    ', '\t']);
      const text = JSON.stringify(doc, null, indent || undefined);
      const grown = add(doc);
      if (JSON.stringify(grown) === JSON.stringify(doc)) continue;
      const out = patchJsonText(text, grown, detectJsonStyle(text));
      expect(JSON.parse(out)).toEqual(grown);
      expect(patchJsonText(out, doc, detectJsonStyle(out)), `round ${round}: ${text}`).toBe(text);
      checked++;
    }
    expect(checked).toBeGreaterThan(200);
  });
});

describe('patchJsonText on JSON with comments', () => {
  const jsonc = (text: string) => JSON.parse(jsoncToJson(text)) as Record<string, unknown>;
  const grow = (text: string, key: string, value: unknown) => {
    const before = jsonc(text);
    const out = patchJsonText(text, { ...before, [key]: value }, detectJsonStyle(text));
    expect(jsonc(out)).toEqual({ ...before, [key]: value });
    expect(patchJsonText(out, before, detectJsonStyle(out)), 'removing it gives the file back').toBe(text);
    return out;
  };

  it.each([
    ['a comment on the last member', '{\n  "model": "x" // mine\n}\n', 'hooks', { Stop: [] }, ['// mine']],
    [
      'a comment between members',
      '{\n  "a": 1, // one\n  /* two */\n  "b": 2\n}\n',
      'c',
      [3],
      ['// one', '/* two */'],
    ],
    ['a block comment glued to a value', '{"a":1/*x*/,"b":[true/*y*/]}', 'c', 'z', ['/*x*/', '/*y*/']],
    [
      'comments with brackets and quotes',
      '{\n  // "}]{[\n  "a": [1] /* ] } " */\n}\n',
      'b',
      {},
      ['// "}]{[', '/* ] } " */'],
    ],
    [
      'a // inside a string is text',
      '{\n  "url": "http://x//y" // real\n}\n',
      'b',
      1,
      ['"http://x//y", // real'],
    ],
    [
      'CRLF and tabs',
      '{\r\n\t// note\r\n\t"a": 1 // end\r\n}\r\n',
      'b',
      [1, 2],
      ['// note\r\n', '// end\r\n'],
    ],
  ])('%s: adds a key, keeps every comment, and gives the file back', (_name, text, key, value, comments) => {
    const out = grow(text, key, value);
    for (const comment of comments) expect(out).toContain(comment);
  });

  it('keeps a same-line comment beside the member it annotates', () => {
    expect(grow('{\n  "theme": "dark" // dark is better\n}\n', 'hooks', 1)).toBe(
      '{\n  "theme": "dark", // dark is better\n  "hooks": 1\n}\n',
    );
  });

  it('edits inside a compact array next to a comment, keeping its layout', () => {
    const text = '{\n  "Stop": [{ "hooks": [] }] // a voice\n}\n';
    const out = patchJsonText(text, { Stop: [{ hooks: [] }, hookd] }, detectJsonStyle(text));
    expect(out).toBe(
      '{\n  "Stop": [{ "hooks": [] },{"type":"command","command":"/opt/hookd hook","timeout":60}] // a voice\n}\n',
    );
    expect(patchJsonText(out, { Stop: [{ hooks: [] }] }, detectJsonStyle(out))).toBe(text);
  });

  it('never copies a comment into the separators of new items', () => {
    const text = '[1, // one\n 2]';
    const out = patchJsonText(text, [1, 2, 3, 4], detectJsonStyle(text));
    expect(out.match(/\/\/ one/g)).toHaveLength(1);
    expect(JSON.parse(jsoncToJson(out))).toEqual([1, 2, 3, 4]);
  });
});
