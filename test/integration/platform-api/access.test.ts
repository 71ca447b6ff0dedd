import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveApiAccess } from '../../../src/platform-api/api-client.js';
import { ApiAccessError } from '../../../src/platform-api/errors.js';

describe('resolveApiAccess', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'hookd-access-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const keyFile = (mode: number, text = 'fk-from-file-123456\n') => {
    const file = join(dir, 'key');
    writeFileSync(file, text);
    chmodSync(file, mode);
    return file;
  };

  it('prefers HOOKD_API_KEY, then FACTORY_API_KEY, then the key file', () => {
    const file = keyFile(0o600);
    expect(
      resolveApiAccess({ HOOKD_API_KEY: 'a-key', FACTORY_API_KEY: 'b-key' }, { keyFile: file }),
    ).toMatchObject({
      apiKey: 'a-key',
      keySource: 'HOOKD_API_KEY',
    });
    expect(resolveApiAccess({ FACTORY_API_KEY: 'b-key' }, { keyFile: file })).toMatchObject({
      apiKey: 'b-key',
      keySource: 'FACTORY_API_KEY',
    });
    expect(resolveApiAccess({ HOOKD_API_KEY: '  ' }, { keyFile: file })).toMatchObject({
      apiKey: 'fk-from-file-123456',
      keySource: 'keyFile',
      keyFile: file,
    });
  });

  it('takes URLs from env, then config, then the real hosts', () => {
    const env = { HOOKD_API_KEY: 'k' };
    expect(resolveApiAccess(env, undefined)).toMatchObject({
      baseUrl: 'https://api.factory.ai',
      appUrl: 'https://app.factory.ai',
      timeoutMs: 15000,
      retries: 2,
    });
    expect(
      resolveApiAccess(env, {
        baseUrl: 'http://127.0.0.1:1',
        appUrl: 'http://127.0.0.1:2',
        timeoutMs: 5,
        retries: 0,
      }),
    ).toMatchObject({
      baseUrl: 'http://127.0.0.1:1',
      appUrl: 'http://127.0.0.1:2',
      timeoutMs: 5,
      retries: 0,
    });
    expect(
      resolveApiAccess(
        { ...env, HOOKD_API_URL: 'http://127.0.0.1:3', HOOKD_APP_URL: 'http://127.0.0.1:4' },
        { baseUrl: 'http://127.0.0.1:1' },
      ),
    ).toMatchObject({ baseUrl: 'http://127.0.0.1:3', appUrl: 'http://127.0.0.1:4' });
  });

  it('expands ~ in keyFile against HOME', () => {
    keyFile(0o600);
    expect(resolveApiAccess({ HOME: dir }, { keyFile: '~/key' }).apiKey).toBe('fk-from-file-123456');
  });

  it.skipIf(process.platform === 'win32')(
    'refuses a key file readable by group or others, with the chmod fix',
    () => {
      for (const mode of [0o640, 0o604, 0o660]) {
        const file = keyFile(mode);
        let error: unknown;
        try {
          resolveApiAccess({}, { keyFile: file });
        } catch (e) {
          error = e;
        }
        expect(error).toBeInstanceOf(ApiAccessError);
        expect((error as ApiAccessError).message).toContain(file);
        expect((error as ApiAccessError).message).not.toContain('fk-from-file');
        expect((error as ApiAccessError).hint).toBe(`restrict it to its owner: chmod 600 ${file}`);
      }
    },
  );

  it('explains a missing key, a missing file and an empty file', () => {
    expect(() => resolveApiAccess({}, undefined)).toThrow(/no API key/);
    expect(() => resolveApiAccess({}, { keyFile: join(dir, 'nope') })).toThrow(
      /cannot read the API key file .*ENOENT/,
    );
    expect(() => resolveApiAccess({}, { keyFile: keyFile(0o600, '\n') })).toThrow(/is empty/);
  });
});
