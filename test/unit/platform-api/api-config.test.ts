import { describe, expect, it } from 'vitest';
import { apiConfigSchema } from '../../../src/config/schemas/api-schema.js';
import { configSchema } from '../../../src/config/schemas/schema.js';

describe('api config', () => {
  it('accepts every documented key', () => {
    const api = {
      baseUrl: 'http://127.0.0.1:4010',
      appUrl: 'https://app.example.test',
      keyFile: '~/.config/hookd/api-key',
      timeoutMs: 5000,
      retries: 0,
    };
    expect(apiConfigSchema.parse(api)).toEqual(api);
    expect(configSchema.parse({ api }).api).toEqual(api);
  });

  it('refuses unknown keys, non-http URLs, relative key files and out-of-range numbers', () => {
    const paths = (input: unknown) =>
      apiConfigSchema.safeParse(input).error?.issues.map((i) => i.path.join('.') || i.code);
    expect(paths({ apiKey: 'x' })).toEqual(['unrecognized_keys']);
    expect(paths({ baseUrl: 'ftp://example.test' })).toEqual(['baseUrl']);
    expect(paths({ keyFile: 'key.txt' })).toEqual(['keyFile']);
    expect(paths({ timeoutMs: 0, retries: 11 })).toEqual(['timeoutMs', 'retries']);
  });
});
