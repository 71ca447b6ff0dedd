import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runHookd } from '../helpers/run-hookd.js';
import { isolatedEnv, makeTempDir } from '../helpers/temp.js';
import { HOOKD_VERSION, USER_AGENT } from '../../src/util/version.js';

const packageVersion = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;

describe('the version has one source, package.json', () => {
  it("the built `hookd --version` prints package.json's version", async () => {
    const tmp = makeTempDir();
    const ran = await runHookd(['--version'], { env: isolatedEnv(tmp.dir) }).finally(() => tmp.cleanup());
    expect(ran.code).toBe(0);
    expect(ran.stdout.trim()).toBe(packageVersion);
  });

  it('the sources the tests run see the same version, and the User-Agent carries it', () => {
    expect(HOOKD_VERSION).toBe(packageVersion);
    expect(USER_AGENT).toBe(`hookd/${packageVersion}`);
  });
});
