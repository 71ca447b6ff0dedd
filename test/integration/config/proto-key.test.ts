import { writeFileSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli-run.js';
import { isolatedEnv, makeTempDir } from '../../helpers/temp.js';
import { ensureBuilt } from '../daemon/process-helpers.js';

beforeAll(() => ensureBuilt(), 120_000);
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

describe('a "__proto__" key under hooks', () => {
  it('`hookd validate` and `hookd config` (the loader) both report it; neither calls the file valid', async () => {
    const { dir, cleanup } = makeTempDir();
    cleanups.push(cleanup);
    const env = isolatedEnv(dir);
    writeFileSync(
      env.HOOKD_CONFIG!,
      '{"hooks": {"__proto__": [{"hooks": [{"type": "command", "command": "echo proto"}]}],' +
        ' "Stop": [{"hooks": [{"type": "command", "command": "echo stop"}]}]}}',
    );
    const validate = await runCli(['validate'], { env, cwd: dir });
    expect(validate.code).toBe(1);
    expect(validate.stdout).toContain('hooks.__proto__: "__proto__" is not a usable name');
    const config = await runCli(['config'], { env, cwd: dir });
    expect(config.code).toBe(1);
    expect(config.stdout).toMatch(/user +\S+config\.json +INVALID/);
    expect(config.stderr).toContain('hooks.__proto__: "__proto__" is not a usable name');
  });
});
