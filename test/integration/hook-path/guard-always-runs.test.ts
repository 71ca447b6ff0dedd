import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixture } from '../../helpers/fixtures.js';
import { runAsAgent, useHookSandbox } from '../../helpers/agent-spawn.js';
import { hookdLogRecords } from '../../helpers/agent-hook.js';

// A user's guard always runs. Every case drives the built hookd through the command the
// installer writes, spawned the way the agent spawns it (sh -c, its cwd, env and stdin).

const box = useHookSandbox();

const cmd = (command: string, more: Record<string, unknown> = {}) => ({ type: 'command', command, ...more });

function deadLetters(): string[] {
  const dir = join(box.env.XDG_STATE_HOME!, 'hookd', 'dead-letter');
  return existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith('.bin')) : [];
}

const preToolUse = () => ({ ...fixture('jsonrpc/03-PreToolUse-Execute.json'), cwd: box.project });

describe('a huge field never stops a spawn', () => {
  it('runs the guard of a UserPromptSubmit with a 140 KB prompt, stdin whole, and logs the skipped variable', async () => {
    box.writeConfig({
      hooks: {
        UserPromptSubmit: [
          {
            hooks: [
              cmd('n=$(wc -c); echo "got $n bytes, prompt ${#prompt}" >&2; exit 2', { blocking: true }),
            ],
          },
        ],
      },
    });
    const payload = JSON.stringify({
      ...fixture('jsonrpc/02-UserPromptSubmit.json'),
      cwd: box.project,
      prompt: 'p'.repeat(140_000),
    });
    // Claude Code does not export fields (Droid itself cannot start any hook with such a prompt).
    const ran = await runAsAgent(payload, { env: box.env, cwd: box.project, agent: 'claude' });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toBe(`got ${Buffer.byteLength(payload) + 1} bytes, prompt 0\n`);
    const skipped = hookdLogRecords(box.env).find((r) => r.kind === 'env-skipped');
    expect(skipped).toMatchObject({ level: 40, fields: ['prompt'] });
  });

  it("runs the guard when hookd's own variables would carry a huge value (a 300 KB session id, found by the fuzz suite)", async () => {
    box.writeConfig({
      hooks: { PreToolUse: [{ matcher: 'Execute', hooks: [cmd('echo "guarded" >&2; exit 2')] }] },
    });
    const payload = JSON.stringify({ ...preToolUse(), session_id: 's'.repeat(300_000) });
    const ran = await runAsAgent(payload, { env: box.env, cwd: box.project, agent: 'claude' });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toBe('guarded\n');
    const skipped = hookdLogRecords(box.env).find((r) => r.kind === 'env-skipped');
    expect(skipped?.fields).toEqual(['session_id', 'HOOKD_SESSION_ID']);
    // The log keeps the records short whatever the event holds.
    const event = hookdLogRecords(box.env).find((r) => r.kind === 'event');
    expect(event?.sessionId).toMatch(/^s{8192}… \(300000 characters, cut\)$/);
  });

  it('keeps the whole environment under the kernel limit when many large fields add up', async () => {
    box.writeConfig({
      hooks: { Stop: [{ hooks: [cmd('echo "ran: ${f00:+f00}" >&2; exit 2', { blocking: true })] }] },
    });
    const fields = Object.fromEntries(
      Array.from({ length: 30 }, (_, i) => [`f${String(i).padStart(2, '0')}`, 'v'.repeat(100_000)]),
    );
    const payload = JSON.stringify({ ...fixture('jsonrpc/16-Stop.json'), cwd: box.project, ...fields });
    const ran = await runAsAgent(payload, { env: box.env, cwd: box.project, agent: 'claude' });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toBe('ran: f00\n');
    const skipped = hookdLogRecords(box.env).find((r) => r.kind === 'env-skipped');
    expect((skipped?.fields as string[]).length).toBeGreaterThan(0);
    expect(skipped?.fields).not.toContain('f00');
  });
});

describe('a deleted cwd falls back', () => {
  it('runs the guard in the box.project dir when the session cwd was removed under the agent', async () => {
    const gone = join(box.dir, 'gone');
    mkdirSync(gone);
    const where = join(box.dir, 'where');
    box.writeConfig({
      hooks: {
        PreToolUse: [{ hooks: [cmd(`pwd > ${where}; echo "no rm" >&2; exit 2`, { blocking: true })] }],
      },
    });
    const payload = JSON.stringify({ ...preToolUse(), cwd: gone });
    const ran = await runAsAgent(payload, {
      env: box.env,
      cwd: gone,
      projectDir: box.project,
      prelude: 'rmdir "$PWD"',
    });
    expect(ran).toMatchObject({ code: 2, stderr: 'no rm\n' });
    expect(readFileSync(where, 'utf8').trim()).toBe(box.project);
    // hookd itself was started in the removed directory: it moved to the project dir and said so.
    expect(hookdLogRecords(box.env).find((r) => r.kind === 'cwd-lost')).toMatchObject({
      fallback: box.project,
    });
    expect(hookdLogRecords(box.env).find((r) => r.kind === 'cwd-fallback')).toMatchObject({
      level: 40,
      cwd: gone,
      fallback: box.project,
    });
  });

  it('falls back to the home dir when the box.project dir is gone too', async () => {
    const gone = join(box.dir, 'gone');
    mkdirSync(gone);
    const where = join(box.dir, 'where');
    box.writeConfig({
      hooks: { PreToolUse: [{ hooks: [cmd(`pwd > ${where}; exit 2`, { blocking: true })] }] },
    });
    const payload = JSON.stringify({ ...preToolUse(), cwd: gone });
    const ran = await runAsAgent(payload, {
      env: box.env,
      cwd: gone,
      agent: 'claude',
      prelude: 'rmdir "$PWD"',
    });
    expect(ran.code).toBe(2);
    expect(readFileSync(where, 'utf8').trim()).toBe(box.env.HOME);
    expect(hookdLogRecords(box.env).find((r) => r.kind === 'cwd-fallback')).toMatchObject({
      fallback: box.env.HOME,
    });
  });
});

describe('event names that are object keys', () => {
  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'])(
    'routes an event named %s like any other: logged, its own hooks run, exit 0',
    async (name) => {
      const marker = join(box.dir, 'ran');
      writeFileSync(
        box.env.HOOKD_CONFIG!,
        `{"settings": {"eventBudgetSecByEvent": {"Stop": 5}}, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "exit 0"}]}], ${JSON.stringify(name)}: [{"hooks": [{"type": "command", "command": "touch ${marker}"}]}]}}`,
      );
      const payload = JSON.stringify({
        ...fixture('jsonrpc/16-Stop.json'),
        cwd: box.project,
        hook_event_name: name,
      });
      const ran = await runAsAgent(payload, { env: box.env, cwd: box.project });
      // A config key `__proto__` cannot hold hooks: the file is refused (none of its commands run, and
      // the hook says so on the agent's stderr); every other name runs the hooks listed under it.
      const own = name === '__proto__' ? 0 : 1;
      expect(ran).toMatchObject({ code: 0, stdout: '' });
      if (own) expect(ran.stderr).toBe('');
      else
        expect(ran.stderr).toMatch(
          /hooks\.__proto__: "__proto__" is not a usable name.*none of its commands run/,
        );
      const records = hookdLogRecords(box.env);
      expect(records.filter((r) => r.kind === 'crash')).toEqual([]);
      expect(records.find((r) => r.kind === 'event')).toMatchObject({ event: name, commands: own });
      if (own)
        expect(records.find((r) => r.kind === 'command')).toMatchObject({ exitCode: 0, timedOut: false });
      expect(existsSync(marker)).toBe(own === 1);
    },
  );
});

describe('an over-deep event', () => {
  const deepArray = '['.repeat(100_000) + ']'.repeat(100_000);
  const deepObject = (name: string) =>
    `{"hook_event_name":"${name}","tool_name":"Execute","a":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_001)}`;

  it('dead-letters a 100,000-deep [[[...]]] (not an event object) and exits 0, with the daemon hand-off on', async () => {
    box.writeConfig({ daemon: { autoStart: false } });
    const ran = await runAsAgent(deepArray, {
      env: { ...box.env, HOOKD_DAEMON: '1' },
      cwd: box.project,
      agent: 'claude',
    });
    expect(ran).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(hookdLogRecords(box.env).find((r) => r.kind === 'bad-input')).toMatchObject({
      level: 50,
      reason: 'not-object',
    });
    expect(deadLetters()).toHaveLength(1);
  });

  it('runs the guard of a 100,000-deep event with the whole bytes on its stdin, hands off a copy cut at 128 levels, and keeps the original', async () => {
    box.writeConfig({
      daemon: { autoStart: false },
      hooks: {
        PreToolUse: [{ matcher: 'Execute', hooks: [cmd('echo "guard saw $(wc -c) bytes" >&2; exit 2')] }],
      },
    });
    const input = deepObject('PreToolUse');
    const ran = await runAsAgent(input, {
      env: { ...box.env, HOOKD_DAEMON: '1' },
      cwd: box.project,
      agent: 'claude',
    });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toBe(`guard saw ${Buffer.byteLength(input) + 1} bytes\n`);
    expect(hookdLogRecords(box.env).find((r) => r.kind === 'too-deep')).toMatchObject({ level: 40 });
    const kept = deadLetters();
    expect(kept).toHaveLength(1);
    expect(readFileSync(join(box.env.XDG_STATE_HOME!, 'hookd', 'dead-letter', kept[0]!), 'utf8').trim()).toBe(
      input,
    );
    // Nothing lost: the daemon is down, so the event waits in the spool, cut where it was too deep.
    const spool = join(box.env.XDG_STATE_HOME!, 'hookd', 'spool');
    const spooled = readdirSync(spool).filter((n) => n.endsWith('.json'));
    expect(spooled).toHaveLength(1);
    expect(readFileSync(join(spool, spooled[0]!), 'utf8')).toContain('[nested deeper than 128 levels]');
  });
});
