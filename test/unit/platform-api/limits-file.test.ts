import { describe, expect, it } from 'vitest';
import { parseCreditLimits } from '../../../src/platform-api/limits-file.js';
import { RequestValidationError } from '../../../src/platform-api/errors.js';
import { withChangedKeys } from '../../../src/platform-api/present.js';

describe('parseCreditLimits', () => {
  it('reads CSV with a header, comments, quotes and blank lines', () => {
    const csv = 'email,limit\n# team a\n"ada@acme.example", 500\n\ngrace@acme.example,0\r\n';
    expect(parseCreditLimits(csv, 'f.csv')).toEqual([
      { email: 'ada@acme.example', limit: 500 },
      { email: 'grace@acme.example', limit: 0 },
    ]);
  });

  it('reads JSON arrays and {users}', () => {
    const entries = [{ email: 'a@acme.example', limit: 1 }];
    expect(parseCreditLimits(JSON.stringify(entries), 'f.json')).toEqual(entries);
    expect(parseCreditLimits(JSON.stringify({ users: entries }), 'f.json')).toEqual(entries);
  });

  it('reports every bad line at once, with its number', () => {
    let error: unknown;
    try {
      parseCreditLimits('a@acme.example,1\nb@acme.example\nc@acme.example,1.5\nd,1,2\n', 'f.csv');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).issues.map((i) => i.field)).toEqual([
      'line 2',
      'line 3',
      'line 4',
    ]);
    expect(() => parseCreditLimits('{"users": 3}', 'f.json')).toThrow(/must be an array/);
    expect(() => parseCreditLimits('[oops', 'f.json')).toThrow(/not valid JSON/);
  });
});

describe('withChangedKeys', () => {
  it('names the settings that differ from the next older revision', () => {
    const change = (revision: number, settings: Record<string, unknown>) => ({
      revision,
      settings,
      user: { id: 'u' },
      updatedAt: '2026-11-01T00:00:00Z',
    });
    const rows = withChangedKeys([
      change(3, { a: 1, b: [2] }),
      change(2, { a: 1, b: [1] }),
      change(1, { a: 0, b: [1] }),
    ]);
    expect(rows.map((r) => r.changed)).toEqual([['b'], ['a'], undefined]);
  });
});
