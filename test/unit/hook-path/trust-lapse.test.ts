import { mkdirSync, readdirSync, realpathSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load.js';
import { validator } from '../../../src/config/resolve.js';
import { trustProject } from '../../../src/config/trust.js';
import {
  claimConfigWarnings,
  MAX_LAPSE_MARKERS,
  configWarningPending,
} from '../../../src/hook-path/config-report.js';
import { makeTempDir } from '../../helpers/temp.js';

let tmp: ReturnType<typeof makeTempDir>;
let env: Record<string, string>;

beforeEach(() => {
  tmp = makeTempDir();
  env = { HOME: tmp.dir, HOOKD_CONFIG: join(tmp.dir, 'user.json'), HOOKD_STATE_DIR: join(tmp.dir, 'state') };
  writeFileSync(env.HOOKD_CONFIG!, '{}');
});
afterEach(() => tmp.cleanup());

/** A project trusted, then changed: its trust lapsed. */
function lapsedProject(name: string): string {
  const dir = join(realpathSync(tmp.dir), name);
  mkdirSync(join(dir, '.hookd'), { recursive: true });
  writeFileSync(join(dir, '.hookd', 'config.json'), '{"hooks":{}}');
  trustProject(env, dir);
  writeFileSync(join(dir, '.hookd', 'config.json'), '{"hooks":{"Stop":[]}}');
  return dir;
}

const load = (dir: string) => loadConfig({ env, projectDir: dir, validator: () => validator });
const markers = () => join(env.HOOKD_STATE_DIR!, 'trust-lapses');

describe('a lapsed project trust, said once per session', () => {
  it('is claimed once per session and file; pending until then', () => {
    const dir = lapsedProject('app');
    const loaded = load(dir);
    expect(configWarningPending(env, loaded, 's1')).toBe(true);
    const said = claimConfigWarnings(env, loaded, 's1');
    expect(said).toContain(`hookd trust ${dir}`);
    expect(said.endsWith('\n')).toBe(true);
    expect(configWarningPending(env, loaded, 's1')).toBe(false);
    expect(claimConfigWarnings(env, loaded, 's1')).toBe('');
    expect(claimConfigWarnings(env, loaded, 's2')).toContain(`hookd trust ${dir}`);
    expect(statSync(markers()).mode & 0o777).toBe(0o700);
    for (const name of readdirSync(markers()))
      expect(statSync(join(markers(), name)).mode & 0o777).toBe(0o600);
  });

  it('says nothing for a config that was never trusted, nor for one that applies', () => {
    const dir = join(tmp.dir, 'never');
    mkdirSync(join(dir, '.hookd'), { recursive: true });
    writeFileSync(join(dir, '.hookd', 'config.json'), '{"hooks":{}}');
    expect(claimConfigWarnings(env, load(dir), 's1')).toBe('');
    trustProject(env, dir);
    expect(claimConfigWarnings(env, load(dir), 's1')).toBe('');
  });

  it('keeps the marker folder bounded: the oldest markers go first', () => {
    const dir = lapsedProject('app');
    mkdirSync(markers(), { recursive: true, mode: 0o700 });
    for (let i = 0; i < MAX_LAPSE_MARKERS + 20; i++) {
      const marker = join(markers(), `old-${String(i).padStart(4, '0')}`);
      writeFileSync(marker, '', { mode: 0o600 });
      utimesSync(marker, 1000 + i, 1000 + i);
    }
    expect(claimConfigWarnings(env, load(dir), 'new-session')).not.toBe('');
    const left = readdirSync(markers());
    expect(left.length).toBeLessThanOrEqual(MAX_LAPSE_MARKERS);
    expect(left).not.toContain('old-0000');
    expect(left).toContain(`old-${String(MAX_LAPSE_MARKERS + 19).padStart(4, '0')}`);
    // The new one stays: the same session is not told again.
    expect(claimConfigWarnings(env, load(dir), 'new-session')).toBe('');
  });

  it('never writes a control character from a project path to the terminal', () => {
    const dir = lapsedProject('evil\u001b[2Jrepo');
    const said = claimConfigWarnings(env, load(dir), 's1');
    const raw = [...said].filter((ch) => ch !== '\n' && (ch.codePointAt(0)! < 0x20 || ch === '\u007f'));
    expect(raw).toEqual([]);
    expect(said).toContain('evil\\x1b[2Jrepo');
  });
});

describe('a config file that runs none of its commands, said once per session', () => {
  it('an invalid user file with no valid version before it: the first problem and the fix', () => {
    writeFileSync(env.HOOKD_CONFIG!, '{"hooks":{"PreToolUse":[{"hooks":[{"command":"exit 2"}]}]}}');
    const loaded = load(join(tmp.dir, 'none'));
    expect(configWarningPending(env, loaded, 's1')).toBe(true);
    const said = claimConfigWarnings(env, loaded, 's1');
    expect(said).toContain(`hookd: ${env.HOOKD_CONFIG} is invalid (hooks.PreToolUse[0].hooks[0].type`);
    expect(said).toContain(
      'none of its commands run until it is fixed. To see every problem: hookd validate',
    );
    expect(claimConfigWarnings(env, loaded, 's1')).toBe('');
  });

  it('a project file trusted as it is but invalid is said; an untrusted invalid one is not', () => {
    const dir = join(realpathSync(tmp.dir), 'bad');
    mkdirSync(join(dir, '.hookd'), { recursive: true });
    writeFileSync(join(dir, '.hookd', 'config.json'), '{"hooks":{"Stop":[{"hooks":[{}]}]}}');
    expect(claimConfigWarnings(env, load(dir), 's1')).toBe('');
    trustProject(env, dir);
    expect(claimConfigWarnings(env, load(dir), 's2')).toContain(
      `${join(dir, '.hookd', 'config.json')} is invalid`,
    );
  });
});
