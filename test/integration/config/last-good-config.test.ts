import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixture } from '../../helpers/fixtures.js';
import { hookdLogRecords, runHookAsAgent } from '../../helpers/agent-hook.js';
import { runCli } from '../../helpers/cli-run.js';
import { isolatedEnv, makeTempDir } from '../../helpers/temp.js';

let tmp: ReturnType<typeof makeTempDir>;
let env: Record<string, string>;

beforeEach(() => {
  tmp = makeTempDir();
  env = isolatedEnv(tmp.dir);
});
afterEach(() => tmp.cleanup());

const GUARD = {
  type: 'command',
  command: 'echo "no rm -rf today" >&2; exit 2',
  name: 'guard',
  blocking: true,
};
const GOOD = { hooks: { PreToolUse: [{ matcher: 'Execute', hooks: [GUARD] }] } };
/** The same file with one typo: an unknown key. */
const TYPO = { hooks: { PreToolUse: [{ matcher: 'Execute', hooks: [{ ...GUARD, tiemout: 5 }] }] } };

const cacheDir = () => join(env.XDG_STATE_HOME!, 'hookd', 'config-cache');
const write = (config: unknown) => writeFileSync(env.HOOKD_CONFIG!, JSON.stringify(config));
const run = () =>
  runHookAsAgent({
    env,
    cwd: tmp.dir,
    stdin: JSON.stringify({ ...fixture('jsonrpc/03-PreToolUse-Execute.json'), cwd: tmp.dir }),
  });

describe('a broken user config runs the last config that validated', () => {
  it('keeps the guard running after a typo, and says so loudly on every run', async () => {
    write(GOOD);
    expect((await run()).code).toBe(2);
    write(TYPO);
    const first = await run();
    expect(first.code).toBe(2);
    expect(first.stderr).toContain('no rm -rf today');
    const second = await run();
    expect(second.code).toBe(2);
    const records = hookdLogRecords(env).filter((r) => r.kind === 'config-last-good');
    expect(records).toHaveLength(2);
    expect(records[0]).toMatchObject({ level: 50, file: env.HOOKD_CONFIG });
    expect(String(records[0]!.msg)).toContain('last config that validated');
    const issues = hookdLogRecords(env).filter((r) => r.kind === 'config');
    expect(issues.some((r) => String(r.path).endsWith('tiemout'))).toBe(true);
  });

  it('runs nothing, and says so, when no config ever validated', async () => {
    write(TYPO);
    const ran = await run();
    expect(ran.code).toBe(0);
    expect(hookdLogRecords(env).find((r) => r.kind === 'config-none')).toMatchObject({ level: 50 });
    // The agent shows its user the hook's stderr: a guard that does not run is said there, once a session.
    expect(ran.stderr).toContain(`hookd: ${env.HOOKD_CONFIG} is invalid (`);
    expect(ran.stderr).toMatch(/tiemout.*none of its commands run until it is fixed.*hookd validate/);
    const again = await run();
    expect(again.code).toBe(0);
    expect(again.stderr).not.toContain('is invalid');
  });

  it('picks up the fixed file at once', async () => {
    write(GOOD);
    await run();
    write(TYPO);
    await run();
    write({ hooks: {} });
    expect((await run()).code).toBe(0);
  });

  it('keeps its caches private: 0600 files in a 0700 dir', async () => {
    write(GOOD);
    await run();
    expect(statSync(cacheDir()).mode & 0o777).toBe(0o700);
    for (const name of readdirSync(cacheDir()))
      expect(statSync(join(cacheDir(), name)).mode & 0o777).toBe(0o600);
  });

  it('does not trust a cache others could have written: it re-validates the files instead', async () => {
    write({ hooks: {} });
    await run();
    for (const name of readdirSync(cacheDir())) {
      const file = join(cacheDir(), name);
      const text = readFileSync(file, 'utf8').replace(
        '"hooks":{}',
        JSON.stringify({ hooks: GOOD.hooks }).slice(1, -1),
      );
      writeFileSync(file, text);
      chmodSync(file, 0o666);
    }
    expect((await run()).code).toBe(0);
    expect(hookdLogRecords(env).find((r) => r.kind === 'config-cache')).toBeDefined();
  });

  it('does not run a last good config that no longer validates (a tampered record)', async () => {
    write(GOOD);
    await run();
    for (const name of readdirSync(cacheDir()).filter((n) => n.startsWith('last-good-'))) {
      const file = join(cacheDir(), name);
      const record = JSON.parse(readFileSync(file, 'utf8')) as { text: string };
      record.text = JSON.stringify({ hooks: { PreToolUse: [{ hooks: [{ ...GUARD, bogus: 1 }] }] } });
      writeFileSync(file, JSON.stringify(record));
    }
    write(TYPO);
    expect((await run()).code).toBe(0);
    expect(hookdLogRecords(env).find((r) => r.kind === 'config-none')).toBeDefined();
  });

  it('hookd config shows the last good config in force and exits 1', async () => {
    write(GOOD);
    await run();
    write(TYPO);
    const ran = await runCli(['config', '--json'], { env });
    expect(ran.code).toBe(1);
    const out = JSON.parse(ran.stdout) as {
      config: { hooks: { PreToolUse: unknown[] } };
      sources: { lastGood?: { savedAt: string } }[];
    };
    expect(out.config.hooks.PreToolUse).toHaveLength(1);
    expect(out.sources[0]!.lastGood?.savedAt).toMatch(/^\d{4}-/);
  });
});

describe('hookd config shows the whole effective config', () => {
  it('includes notify (with the default rules), enrich, ledger and api, with ${VAR} secrets redacted', async () => {
    write({
      hooks: {},
      notify: {
        channels: {
          ops: { type: 'webhook', url: 'https://example.test/hook', secret: '${OPS_SECRET}' },
          lit: {
            type: 'webhook',
            url: 'https://example.test/other',
            headers: { Authorization: 'Bearer sk-live-1234567890abcdef' },
          },
        },
      },
    });
    const ran = await runCli(['config', '--json'], { env: { ...env, OPS_SECRET: 'hunter2-secret' } });
    expect(ran.code, ran.stderr).toBe(0);
    const out = JSON.parse(ran.stdout) as {
      config: {
        notify: { rules: unknown[]; channels: Record<string, unknown> };
        enrich: unknown;
        ledger: unknown;
        api: unknown;
      };
    };
    expect(out.config.notify.rules.length).toBeGreaterThan(0);
    expect(out.config.enrich).toBeDefined();
    expect(out.config.ledger).toBeDefined();
    expect(out.config.api).toBeDefined();
    expect(ran.stdout).not.toContain('hunter2-secret');
    // A reference names a variable and is shown as written; a literal secret is redacted.
    expect(out.config.notify.channels.ops).toMatchObject({ secret: '${OPS_SECRET}' });
    expect(JSON.stringify(out.config.notify.channels.lit)).not.toContain('sk-live-1234567890abcdef');
    const text = await runCli(['config'], { env: { ...env, OPS_SECRET: 'hunter2-secret' } });
    expect(text.stdout).toContain('"notify"');
    expect(text.stdout).toContain('"ledger"');
    expect(text.stdout).not.toContain('hunter2-secret');
  });
});
