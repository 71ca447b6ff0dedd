import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Explanation } from '../../src/explain/explain-event.js';
import { FIXTURES_DIR, HOOKD_BIN, REPO_DIR } from '../helpers/fixtures.js';
import { runHookd } from '../helpers/run-hookd.js';
import { makeDoctorHome, writeJson, type DoctorHome } from '../integration/doctor/doctor-env.js';

let h: DoctorHome;
let env: Record<string, string>;

beforeAll(() => {
  if (!existsSync(HOOKD_BIN))
    spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: REPO_DIR, stdio: 'inherit' });
});
beforeEach(() => {
  h = makeDoctorHome();
  env = Object.fromEntries(Object.entries(h.env).filter((e): e is [string, string] => e[1] !== undefined));
  const marker = join(h.root, 'ran');
  writeJson(env.HOOKD_CONFIG!, {
    hooks: {
      PreToolUse: [
        { matcher: 'Execute', hooks: [{ type: 'command', command: `touch ${marker}`, name: 'on-execute' }] },
        { matcher: 'Create', hooks: [{ type: 'command', command: `touch ${marker}`, name: 'on-create' }] },
      ],
    },
    notify: {
      rules: [
        { name: 'shell', on: 'PreToolUse', tool: 'Execute', channels: ['desktop'] },
        { name: 'files', on: 'PreToolUse', tool: 'Create|Edit', channels: ['desktop'] },
      ],
    },
  });
});
afterEach(() => h.cleanup());

const explain = (args: string[]) => runHookd(['explain', ...args], { env, cwd: h.project });

describe('hookd explain (built CLI)', () => {
  it('explains a recorded Droid payload as JSON, running nothing', async () => {
    const ran = await explain([join(FIXTURES_DIR, 'exec', '02-PreToolUse-Execute.json'), '--json']);
    expect(ran.code).toBe(0);
    const x = JSON.parse(ran.stdout) as Explanation;
    expect(x.event).toMatchObject({ name: 'PreToolUse', sessionId: '2205f964-686d-4779-9439-ceccfdb78145' });
    expect(x.commands.run.map((c) => c.name)).toEqual(['on-execute']);
    expect(x.commands.notRun).toEqual([
      { entry: 1, reason: 'matcher "Create" does not match tool_name "Execute"', commands: ['on-create'] },
    ]);
    expect(x.notifications.fire.map((f) => f.rule)).toEqual(['shell']);
    expect(x.notifications.notFire).toEqual([
      { rule: 'files', index: 1, reason: 'filter: tool Execute does not match Create|Edit' },
    ]);
    expect(x.notifications.noiseState.note).toBe('cooldown/dedupe state not consulted: daemon not running');
    expect(existsSync(join(h.root, 'ran'))).toBe(false);
  });

  it('builds the event from the same flags as hookd emit, and reads for people', async () => {
    const ran = await explain(['PreToolUse', '--tool', 'Create', '--file', 'a.txt']);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain('PreToolUse  tool_name "Create"');
    expect(ran.stdout).toContain('  ▸ on-create  ');
    expect(ran.stdout).toContain(
      '  - entry 0 (on-execute) not run: matcher "Execute" does not match tool_name "Create"',
    );
    expect(ran.stdout).toContain('  - shell would not fire: filter: tool Create does not match Execute');
    expect(ran.stdout).toContain('cooldown/dedupe state not consulted: daemon not running');
    expect(ran.stdout).not.toContain('\u001b[');
    expect(existsSync(join(h.root, 'ran'))).toBe(false);
  });

  it('applies --field over a payload file', async () => {
    const file = join(h.root, 'event.json');
    writeFileSync(
      file,
      JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'Execute', cwd: h.project }),
    );
    const ran = await explain([file, '--field', 'tool_name=Edit', '--json']);
    const x = JSON.parse(ran.stdout) as Explanation;
    expect(x.notifications.fire.map((f) => f.rule)).toEqual(['files']);
  });

  it('refuses a payload file that does not exist, as a usage error', async () => {
    const ran = await explain([join(h.root, 'missing.json')]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain('cannot read --from');
    expect(ran.stderr).toContain(`cannot read --from ${join(h.root, 'missing.json')}: it does not exist`);
  });

  it('has --help with examples', async () => {
    const help = await explain(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Examples:');
  });
});
