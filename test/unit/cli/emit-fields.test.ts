import { describe, expect, it } from 'vitest';
import { buildPayload, parseFields } from '../../../src/cli/commands/run/emit.js';

describe('emit --field', () => {
  it('parses JSON values and keeps other text as strings', () => {
    expect(parseFields(['a=1', 'b=true', 'c={"x":[1]}', 'd=plain text', 'e='])).toEqual({
      a: 1,
      b: true,
      c: { x: [1] },
      d: 'plain text',
      e: '',
    });
  });

  it('a field named __proto__ or constructor is an own field of the payload, never its prototype', () => {
    const fields = parseFields(['__proto__={"polluted":true}', 'constructor=1']);
    expect(Object.getPrototypeOf(fields)).toBe(Object.prototype);
    expect(Object.keys(fields)).toEqual(['__proto__', 'constructor']);
    const payload = buildPayload({
      event: 'Stop',
      field: ['__proto__={"polluted":true}'],
      daemon: false,
      json: false,
      print: true,
    } as Parameters<typeof buildPayload>[0]);
    expect(JSON.parse(JSON.stringify(payload)).__proto__).toEqual({ polluted: true });
    expect((payload as { polluted?: unknown }).polluted).toBeUndefined();
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('refuses a pair without a key', () => {
    expect(() => parseFields(['=1'])).toThrow(/is not key=value/);
    expect(() => parseFields(['novalue'])).toThrow(/is not key=value/);
  });
});
