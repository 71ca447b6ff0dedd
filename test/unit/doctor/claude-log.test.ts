import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkClaudeLog, parseSkippedSetting } from '../../../src/doctor/checks/agent/check-claude-log.js';
import { makeTempDir } from '../../helpers/temp.js';

// The lines are as Claude Code 2.1.330 wrote them in a headless session (test/e2e/claude-settings.test.ts
// produces them with the real binary).
const WHOLE = (file: string) =>
  `2026-11-23T15:52:45.779Z [ERROR] Invalid setting skipped without dialog (automated session): ${file}: hooks.PreToolUse.1.hooks.0: Invalid command hook (command: Invalid input: expected string, received undefined) — a PreToolUse/PermissionRequest hook that cannot be loaded may be what guards the permissions declared beside it, so nothing it sits in is applied until the entry is fixed or removed.`;
const ALONE = (file: string) =>
  `2026-11-23T15:52:48.505Z [ERROR] Invalid setting skipped without dialog (automated session): ${file}: hooks.Stop.1.hooks.0: Invalid command hook (command: Invalid input: expected string, received undefined); entry ignored.`;

let tmp: ReturnType<typeof makeTempDir>;
let debugDir: string;
let settings: string;
const now = Date.parse('2026-11-23T16:00:00Z');

beforeEach(() => {
  tmp = makeTempDir();
  debugDir = join(tmp.dir, '.claude', 'debug');
  mkdirSync(debugDir, { recursive: true });
  settings = join(tmp.dir, '.claude', 'settings.json');
});
afterEach(() => tmp.cleanup());

describe('Claude Code debug log check', () => {
  it('parses the file, the entry (in hookd notation), the time and whether the whole file was dropped', () => {
    expect(parseSkippedSetting(WHOLE('/h/.claude/settings.json'), 'x.txt')).toMatchObject({
      settingsFile: '/h/.claude/settings.json',
      path: 'hooks.PreToolUse[1].hooks[0]',
      at: Date.parse('2026-11-23T15:52:45.779Z'),
      wholeFile: true,
    });
    expect(parseSkippedSetting(ALONE('/h/.claude/settings.json'), 'x.txt')).toMatchObject({
      path: 'hooks.Stop[1].hooks[0]',
      wholeFile: false,
    });
  });

  it('fails for a dropped file, warns for a skipped entry, ok when none; skip without logs', async () => {
    expect((await checkClaudeLog(join(tmp.dir, 'none'), now)).status).toBe('skip');
    writeFileSync(join(debugDir, 'a.txt'), 'nothing here\n');
    expect((await checkClaudeLog(debugDir, now)).status).toBe('ok');
    writeFileSync(settings, JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command' }] }] } }));
    writeFileSync(join(debugDir, 'b.txt'), `${ALONE(settings)}\n`);
    const warn = await checkClaudeLog(debugDir, now);
    expect(warn.status).toBe('warn');
    expect(warn.detail).toContain(`${settings}: hooks.Stop[1].hooks[0]`);
    writeFileSync(join(debugDir, 'c.txt'), `${WHOLE(settings)}\n`);
    const fail = await checkClaudeLog(debugDir, now);
    expect(fail.status).toBe('fail');
    expect(fail.detail).toContain('ignored this whole settings file');
  });

  it('counts an entry as fixed when the file changed later and is valid now', async () => {
    writeFileSync(
      settings,
      JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'true' }] }] } }),
    );
    writeFileSync(join(debugDir, 'c.txt'), `${WHOLE(settings)}\n`);
    utimesSync(settings, new Date(now), new Date(now));
    const fixed = await checkClaudeLog(debugDir, now);
    expect(fixed.status).toBe('ok');
    expect(fixed.detail).toContain('fixed since');
  });
});
