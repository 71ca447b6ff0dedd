import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  JsonScanner,
  LEFT_OUT,
  MAX_DEPTH,
  scanJson,
  topString,
  type ScanOptions,
  type ScanResult,
} from '../../../src/events/json-scan.js';
import { MAX_EVENT_DEPTH, TOO_DEEP_MARKER } from '../../../src/events/parse.js';
import { fuzzOptions } from '../../integration/fuzz/arbitraries.js';

const BUILD: ScanOptions = { build: true, maxDepth: MAX_EVENT_DEPTH, tooDeepMarker: TOO_DEEP_MARKER };

/** Feeds `bytes` in the chunks given by the cut points. */
function scanInChunks(bytes: Buffer, cuts: number[], options: ScanOptions = BUILD): ScanResult {
  const scanner = new JsonScanner(options);
  let at = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    const to = Math.min(Math.max(cut, at), bytes.length);
    scanner.push(bytes.subarray(at, to));
    at = to;
  }
  scanner.push(bytes.subarray(at));
  return scanner.end();
}

/** JSON.parse, or the error, of text that may start with a BOM. */
function parsed(bytes: Buffer): { ok: true; value: unknown } | { ok: false } {
  const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** The top-level string fields JSON.parse sees, for keys that occur once. */
function topStrings(value: unknown): Record<string, string> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return {};
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).filter(
      (e): e is [string, string] => typeof e[1] === 'string' && Buffer.byteLength(e[1]) < 1000,
    ),
  );
}

/** JSON with whitespace anywhere it may go, escapes of every kind, and odd keys. */
const jsonText = fc
  .tuple(fc.jsonValue({ maxDepth: 5 }), fc.constantFrom(undefined, 1, 2, '\t', ' \r\n '))
  .map(([value, space]) => JSON.stringify(value, null, space as never) ?? 'null');

const chunked = fc.tuple(jsonText, fc.array(fc.nat({ max: 400 }), { maxLength: 6 }));

describe('JsonScanner: the same answer as JSON.parse', () => {
  it('accepts every JSON text, in any chunks, and builds what JSON.parse builds', () => {
    fc.assert(
      fc.property(chunked, ([text, cuts]) => {
        const bytes = Buffer.from(text);
        const result = scanInChunks(bytes, cuts);
        expect(result.state).toBe('complete');
        expect(result.value).toStrictEqual(JSON.parse(text));
        expect(result.cut).toBe(false);
        const expected = topStrings(JSON.parse(text));
        for (const [key, value] of Object.entries(expected)) expect(topString(result, key)).toBe(value);
      }),
      fuzzOptions(400, true),
    );
  });

  it('says complete exactly when JSON.parse accepts, on any bytes', () => {
    const bytes = fc.oneof(
      fc.uint8Array({ maxLength: 40 }).map((a) => Buffer.from(a)),
      fc.string({ unit: 'grapheme', maxLength: 40 }).map((s) => Buffer.from(s)),
      // Valid JSON with one byte changed, dropped or doubled: near misses.
      fc
        .tuple(jsonText, fc.nat(), fc.integer({ min: 0, max: 255 }), fc.nat({ max: 2 }))
        .map(([t, at, b, how]) => {
          const src = Buffer.from(t);
          const i = at % Math.max(1, src.length);
          if (how === 0) src[i] = b;
          if (how === 1) return Buffer.concat([src.subarray(0, i), src.subarray(i + 1)]);
          if (how === 2) return Buffer.concat([src.subarray(0, i + 1), src.subarray(i)]);
          return src;
        }),
    );
    fc.assert(
      fc.property(bytes, fc.array(fc.nat({ max: 60 }), { maxLength: 4 }), (input, cuts) => {
        const result = scanInChunks(input, cuts);
        const expected = parsed(input);
        if (expected.ok) {
          expect(result.state).toBe('complete');
          expect(result.value).toStrictEqual(expected.value);
        } else expect(result.state).not.toBe('complete');
      }),
      fuzzOptions(3000, true),
    );
  });

  it('on a truncated event, reports only top-level fields the whole event has', () => {
    const event = fc.record({
      hook_event_name: fc.constantFrom('PreToolUse', 'PostToolUse', 'Stop'),
      tool_name: fc.string({ maxLength: 10 }),
      tool_input: fc.jsonValue({ maxDepth: 3 }),
      session_id: fc.string({ maxLength: 10 }),
    });
    fc.assert(
      fc.property(event, fc.nat(), (value, at) => {
        const text = Buffer.from(JSON.stringify(value));
        const prefix = text.subarray(0, at % text.length);
        const result = scanJson(prefix);
        expect(result.state).not.toBe('complete');
        for (const [key, field] of result.top) {
          if (field.value !== undefined) expect(field.value).toBe((value as Record<string, unknown>)[key]);
        }
      }),
      fuzzOptions(1000, true),
    );
  });
});

describe('JsonScanner: hostile events', () => {
  it('never takes a key from inside a string, however the content fakes one', () => {
    const fake = '{"hook_event_name":"Stop","tool_name":"Nope"}\\"hook_event_name\\":"Stop"\\';
    const text = JSON.stringify({
      session_id: 's',
      tool_input: { content: fake, x: [fake, { '"hook_event_name"': 'Stop' }] },
      hook_event_name: 'PreToolUse',
      tool_name: 'Write',
    });
    expect(text).toContain('\\"hook_event_name\\":\\"Stop\\"');
    for (let cut = 0; cut <= text.length; cut++) {
      const result = scanJson(Buffer.from(text.slice(0, cut)));
      const name = topString(result, 'hook_event_name');
      expect(name === undefined || name === 'PreToolUse').toBe(true);
      expect(topString(result, 'tool_name') ?? 'Write').toBe('Write');
    }
    // Cut inside the content: the fake key is never read.
    const inside = scanJson(Buffer.from(text.slice(0, text.indexOf('Stop') + 6)));
    expect(inside.state).toBe('truncated');
    expect(topString(inside, 'hook_event_name')).toBeUndefined();
  });

  it('counts a key sent twice, so it settles nothing', () => {
    const result = scanJson(Buffer.from('{"hook_event_name":"PreToolUse","hook_event_name":"Stop"}'));
    expect(result.top.get('hook_event_name')).toEqual({ count: 2, value: 'Stop' });
    expect(topString(result, 'hook_event_name')).toBeUndefined();
  });

  it('scans 200,000 levels of nesting without recursion, and clamps the copy as parse does', () => {
    const depth = 200_000;
    const text = `{"hook_event_name":"PreToolUse","tool_input":${'['.repeat(depth)}1${']'.repeat(depth)},"tool_name":"Bash"}`;
    const result = scanJson(Buffer.from(text), BUILD);
    expect(result.state).toBe('complete');
    expect(result.tooDeep).toBe(true);
    expect(topString(result, 'tool_name')).toBe('Bash');
    let node: unknown = (result.value as Record<string, unknown>).tool_input;
    let levels = 1;
    while (Array.isArray(node)) {
      node = node[0];
      levels++;
    }
    expect(node).toBe(TOO_DEEP_MARKER);
    expect(levels).toBe(MAX_EVENT_DEPTH);
  });

  it('refuses nesting deeper than it can check, without holding it', () => {
    const result = scanJson(Buffer.from('['.repeat(MAX_DEPTH + 1)));
    expect(result.state).toBe('invalid');
    expect(result.error).toMatch(/nested more than/);
  });

  it('cuts long strings in the copy with a marker, and keeps the rest whole', () => {
    const big = 'x'.repeat(5000) + '\\u00e9\\n' + 'y'.repeat(5000);
    const text = `{"hook_event_name":"PreToolUse","tool_input":{"content":"${big}","file_path":"/a"},"tool_name":"Write"}`;
    const result = scanJson(Buffer.from(text), { ...BUILD, maxString: 1000 });
    expect(result.state).toBe('complete');
    expect(result.cut).toBe(true);
    const value = result.value as { tool_input: { content: string; file_path: string }; tool_name: string };
    expect(value.tool_input.content).toBe(`${'x'.repeat(1000)}… (${big.length} bytes, cut)`);
    expect(value.tool_input.file_path).toBe('/a');
    expect(value.tool_name).toBe('Write');
  });

  it('cuts at a character boundary, never inside an escape or a UTF-8 sequence', () => {
    for (let max = 1; max < 14; max++) {
      const result = scanJson(Buffer.from('["ab\\u00e9é\\ncd"]'), { ...BUILD, maxString: max });
      const [text] = result.value as [string];
      const kept = text.replace(/… \(\d+ bytes, cut\)$/, '');
      expect('abéé\ncd'.startsWith(kept)).toBe(true);
    }
  });

  it('keeps memory bounded: past the budget only the root keys remain, with short values', () => {
    const many = Array.from({ length: 5000 }, (_, i) => i);
    const text = JSON.stringify({
      hook_event_name: 'PostToolUse',
      tool_response: { items: many },
      tool_name: 'Bash',
      later: { a: 1 },
      long: 'z'.repeat(10_000),
    });
    const result = scanJson(Buffer.from(text), { ...BUILD, budget: 2000 });
    expect(result.state).toBe('complete');
    expect(result.cut).toBe(true);
    const value = result.value as Record<string, unknown>;
    expect(value.hook_event_name).toBe('PostToolUse');
    expect(value.tool_name).toBe('Bash');
    expect(value.later).toBe(LEFT_OUT);
    expect(value.long).toBe(LEFT_OUT);
    expect(((value.tool_response as { items: number[] }).items ?? []).length).toBeLessThan(200);
  });

  it('reads a UTF-8 byte order mark as nothing, and only at the start', () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    const body = Buffer.from('{"hook_event_name":"PreToolUse"}');
    for (const cut of [0, 1, 2, 3, 4]) {
      const result = scanInChunks(Buffer.concat([bom, body]), [cut]);
      expect(result.state).toBe('complete');
      expect(topString(result, 'hook_event_name')).toBe('PreToolUse');
    }
    expect(scanJson(Buffer.concat([Buffer.from(' '), bom, body])).state).toBe('invalid');
    expect(scanJson(Buffer.concat([bom.subarray(0, 2), body])).state).toBe('invalid');
  });
});
