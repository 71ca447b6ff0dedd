import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { installHookd, uninstallHookd } from '../../../src/install/install.js';
import { receiverTokenPath } from '../../../src/telemetry/receiver-token.js';
import { runCli } from '../../helpers/cli-run.js';
import { isolatedEnv, useTempDir } from '../../helpers/temp.js';

const tmp = useTempDir('hkd-otel-');
const fixedNow = () => new Date('2026-01-02T03:04:05.678Z');
const HOOKD = '/opt/hookd/dist/hookd.cjs';

function setup() {
  const env = isolatedEnv(tmp.dir);
  const managed = join(tmp.dir, 'managed');
  const settings = join(env.HOME!, '.claude', 'settings.json');
  const target = { agent: 'claude' as const, scope: 'user' as const, env, claudeManagedDir: managed };
  return {
    env,
    managed,
    settings,
    install: (extra: Partial<Parameters<typeof installHookd>[0]> = {}) =>
      installHookd({ ...target, hookdPath: HOOKD, now: fixedNow, otel: true, ...extra }),
    uninstall: () => uninstallHookd({ ...target, now: fixedNow }),
    write: async (text: string, mode = 0o644) => {
      await mkdir(join(settings, '..'), { recursive: true });
      await writeFile(settings, text, { mode });
      await chmod(settings, mode);
    },
    read: async () => readFile(settings, 'utf8'),
  };
}

const TELEMETRY_KEYS = [
  'CLAUDE_CODE_ENABLE_TELEMETRY',
  'OTEL_METRICS_EXPORTER',
  'OTEL_LOGS_EXPORTER',
  'OTEL_EXPORTER_OTLP_PROTOCOL',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_HEADERS',
];

const ORIGINAL = `{
  "model": "opus",
  "env": {
    "MY_VAR": "kept"
  },
  "theme": "dark"
}
`;

describe('hookd install --agent claude --otel', () => {
  it("writes the env that sends Claude Code's telemetry to the receiver, with its token, private", async () => {
    const t = setup();
    await t.write(ORIGINAL);
    const result = await t.install();
    const data = JSON.parse(await t.read());
    const token = (await readFile(receiverTokenPath(t.env), 'utf8')).trim();
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect(data.env).toEqual({
      MY_VAR: 'kept',
      CLAUDE_CODE_ENABLE_TELEMETRY: '1',
      OTEL_METRICS_EXPORTER: 'otlp',
      OTEL_LOGS_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4319',
      OTEL_EXPORTER_OTLP_HEADERS: `Authorization=Bearer ${token}`,
      HOOKD_OTEL: TELEMETRY_KEYS.join(','),
    });
    expect(Object.keys(data.env).some((k) => /LOG_USER_PROMPTS|LOG_TOOL_DETAILS/.test(k))).toBe(false);
    expect(result.otel?.keys).toEqual(TELEMETRY_KEYS);
    // The file now holds a secret: the owner's alone; the token is never shown in a diff.
    expect((await stat(t.settings)).mode & 0o777).toBe(0o600);
    expect((await stat(receiverTokenPath(t.env))).mode & 0o777).toBe(0o600);
    expect(result.diff).not.toContain(token);
    expect(result.diff).toContain('Authorization=Bearer <receiver token>');
    expect(result.notes.join('\n')).toMatch(/the receiver is off: set "telemetry"/);
    // The backup is of the original, without the token.
    const backup = (await readdir(join(t.settings, '..'))).find((n) => n.includes('.hookd-backup-'));
    expect(await readFile(join(t.settings, '..', backup!), 'utf8')).toBe(ORIGINAL);
  });

  it('changes nothing the second time; uninstall gives back the original byte for byte', async () => {
    for (const original of [ORIGINAL, '{"theme":"dark"}', '{}\n', '{\n\t"env": {}\n}\n']) {
      const t = setup();
      await t.write(original);
      await t.install();
      const once = await t.read();
      expect((await t.install()).changed).toBe(false);
      expect(await t.read()).toBe(once);
      const removed = await t.uninstall();
      expect(removed.otelRemoved).toEqual(TELEMETRY_KEYS);
      expect(await t.read()).toBe(original);
    }
  });

  it('keeps a key the user set to the same value as theirs: uninstall leaves it', async () => {
    const t = setup();
    const original = '{\n  "env": {\n    "CLAUDE_CODE_ENABLE_TELEMETRY": "1"\n  }\n}\n';
    await t.write(original);
    const result = await t.install();
    expect(result.otel?.keys).toEqual(TELEMETRY_KEYS.slice(1));
    expect(JSON.parse(await t.read()).env.HOOKD_OTEL).toBe(TELEMETRY_KEYS.slice(1).join(','));
    await t.uninstall();
    expect(await t.read()).toBe(original);
  });

  it("leaves the user's own collector alone and says why", async () => {
    const t = setup();
    await t.write('{"env":{"OTEL_EXPORTER_OTLP_ENDPOINT":"https://collector.example:4318"}}');
    const result = await t.install();
    const data = JSON.parse(await t.read());
    expect(data.env).toEqual({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector.example:4318' });
    expect(data.hooks).toBeDefined(); // the hooks are still wired
    expect(result.otel?.keys).toEqual([]);
    expect(result.notes.join('\n')).toContain(
      'already sets OTEL_EXPORTER_OTLP_ENDPOINT (to "https://collector.example:4318")',
    );
  });

  it("leaves an endpoint set by managed settings (the company's collector) alone and says why", async () => {
    const t = setup();
    await mkdir(t.managed, { recursive: true });
    await writeFile(
      join(t.managed, 'managed-settings.json'),
      '{"env":{"OTEL_EXPORTER_OTLP_ENDPOINT":"https://otel.corp.example"}}',
    );
    await t.write(ORIGINAL);
    const result = await t.install();
    expect(JSON.parse(await t.read()).env).toEqual({ MY_VAR: 'kept' });
    expect(result.notes.join('\n')).toMatch(
      /managed-settings\.json \(managed settings\) sets OTEL_EXPORTER_OTLP_ENDPOINT: your organization decides/,
    );
    expect((await stat(t.settings)).mode & 0o777).toBe(0o644);
  });

  it('uses the configured receiver port and says nothing about the receiver when it is on', async () => {
    const t = setup();
    await writeFile(
      t.env.HOOKD_CONFIG!,
      JSON.stringify({ telemetry: { receiver: { enabled: true, port: 4999 } } }),
    );
    const ran = await runCli(['install', '--agent', 'claude', '--otel', '--transport', 'node'], {
      env: t.env,
    });
    expect(ran.code).toBe(0);
    expect(JSON.parse(await t.read()).env.OTEL_EXPORTER_OTLP_ENDPOINT).toBe('http://127.0.0.1:4999');
    expect(ran.stdout).toContain('note: --otel: Claude Code exports');
    expect(ran.stdout).not.toMatch(/receiver is off/);
    expect((await stat(t.settings)).mode & 0o777).toBe(0o600);
  });

  it('--dry-run makes no token and writes nothing', async () => {
    const t = setup();
    await t.write(ORIGINAL);
    const result = await t.install({ dryRun: true });
    expect(result.diff).toContain('Authorization=Bearer <receiver token>');
    expect(existsSync(receiverTokenPath(t.env))).toBe(false);
    expect(await t.read()).toBe(ORIGINAL);
  });

  it('is refused for an agent hookd cannot point at its receiver', async () => {
    const t = setup();
    await expect(t.install({ agent: 'codex' })).rejects.toThrow(/--otel: hookd cannot point Codex/);
    expect(existsSync(receiverTokenPath(t.env))).toBe(false);
  });

  it('is refused for Droid with why and what to set by hand instead', async () => {
    const t = setup();
    const refused = t.install({ agent: 'droid' });
    await expect(refused).rejects.toThrow(/Droid reads no `env` from its settings/);
    const ran = await runCli(['install', '--agent', 'droid', '--otel'], { env: t.env });
    expect(ran.code).toBe(2);
    // What to set, readable as printed (the output's redaction of credentials leaves it whole).
    expect(ran.stderr).toContain('OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4319');
    expect(ran.stderr).toContain(`OTEL_EXPORTER_OTLP_HEADERS`);
    expect(ran.stderr).toContain(receiverTokenPath(t.env));
    expect(ran.stderr).not.toContain('REDACTED');
    expect(existsSync(receiverTokenPath(t.env))).toBe(false);
  });

  it("never writes the token into a project's shared settings file", async () => {
    const t = setup();
    const project = join(tmp.dir, 'repo');
    await mkdir(project);
    await expect(t.install({ scope: 'project', projectDir: project })).rejects.toThrow(
      /shared with everyone who clones the project/,
    );
    expect(existsSync(join(project, '.claude', 'settings.json'))).toBe(false);
    expect(existsSync(receiverTokenPath(t.env))).toBe(false);
  });

  it('through the CLI: says what it wrote, never prints the token', async () => {
    const t = setup();
    const ran = await runCli(['install', '--agent', 'claude', '--otel', '--transport', 'node'], {
      env: t.env,
    });
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    const token = (await readFile(receiverTokenPath(t.env), 'utf8')).trim();
    expect(ran.stdout).toContain(`otel:      ${TELEMETRY_KEYS.join(', ')}`);
    expect(ran.stdout).not.toContain(token);
    const json = await runCli(['uninstall', '--agent', 'claude', '--json'], { env: t.env });
    expect(json.stdout).not.toContain(token);
    expect(JSON.parse(json.stdout).otelRemoved).toEqual(TELEMETRY_KEYS);
  });
});
