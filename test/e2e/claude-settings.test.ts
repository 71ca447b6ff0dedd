import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeWithAgent } from '../harness/availability.js';
import type { CheckResult } from '../../src/doctor/types.js';
import { runClaude, type ClaudeRun } from '../harness/claude/run-claude.js';
import { claudeTestbed, type ClaudeTestbed } from '../harness/claude/testbed.js';
import { runHookd } from '../helpers/run-hookd.js';

// Claude Code 2.1.330's reach for an invalid hook entry, against the real binary: one bad PreToolUse
// (or PermissionRequest) entry disables the whole settings file, so hookd's hooks beside it never run;
// a bad entry of another event is skipped alone. Headless, the only trace is `Invalid setting skipped`
// in Claude's debug log (~/.claude/debug/<session>.txt with --debug). `hookd install` refuses to write
// into such a file, and `hookd doctor` reports both the file and the debug-log line.

interface Case {
  bed: ClaudeTestbed;
  run: ClaudeRun;
  doctor: Map<string, CheckResult>;
  reinstall: { code: number | null; stderr: string; stdout: string };
}

let guard: Case;
let other: Case;

async function runWithBadEntry(bin: string, prefix: string, event: string): Promise<Case> {
  const bed = claudeTestbed(prefix);
  await bed.install();
  writeFileSync(
    bed.env.HOOKD_CONFIG!,
    JSON.stringify({
      hooks: { SessionStart: [{ hooks: [bed.recorder()] }], Stop: [{ hooks: [bed.recorder()] }] },
    }),
  );
  const file = join(bed.home, '.claude', 'settings.json');
  const settings = JSON.parse(readFileSync(file, 'utf8')) as { hooks: Record<string, unknown[]> };
  // a hook without its command, added by hand beside hookd's entry
  settings.hooks[event]!.push({ matcher: '', hooks: [{ type: 'command' }] });
  writeFileSync(file, JSON.stringify(settings, null, 2));
  const run = await runClaude({
    bin: bin,
    home: bed.home,
    work: bed.work,
    outDir: join(bed.tmp.dir, 'run'),
    mode: 'print',
    env: bed.env,
    debugInHome: true,
    prompt: 'Say hi.',
    script: [{ text: 'hi' }],
  });
  const ran = await runHookd(['doctor', '--json'], { env: bed.env, cwd: bed.tmp.dir });
  const doctor = new Map((JSON.parse(ran.stdout) as CheckResult[]).map((c) => [c.id, c]));
  const reinstall = await runHookd(['install', '--agent', 'claude'], { env: bed.env, cwd: bed.tmp.dir });
  return { bed, run, doctor, reinstall };
}

describeWithAgent('claude', 'Claude Code 2.1.330 settings rules', (bin) => {
  beforeAll(async () => {
    guard = await runWithBadEntry(bin, 'hkg-', 'PreToolUse');
    other = await runWithBadEntry(bin, 'hko-', 'Stop');
  });

  afterAll(() => {
    guard?.bed.tmp.cleanup();
    other?.bed.tmp.cleanup();
  });

  describe('invalid Claude settings entries, against the real Claude Code 2.1.330', () => {
    it('a bad PreToolUse entry: Claude ran no hook of the file, and wrote only a debug-log line', () => {
      expect(guard.run.result).toMatchObject({ code: 0, timedOut: false });
      expect(guard.bed.captured()).toEqual([]);
      expect(guard.run.debugLog).toContain('Invalid setting skipped');
      expect(guard.run.debugLog).toContain('PreToolUse');
    });

    it('a bad Stop entry: Claude skipped it alone, and hookd ran for every event', () => {
      expect(other.run.result).toMatchObject({ code: 0, timedOut: false });
      expect(other.bed.captured().map((c) => c.ev)).toEqual(['SessionStart', 'Stop']);
      expect(other.run.debugLog).toContain('Invalid setting skipped');
    });

    it('hookd install refuses the file Claude ignores, naming the entry; accepts the other with a warning', () => {
      expect(guard.reinstall.code).not.toBe(0);
      expect(guard.reinstall.stderr).toContain('hooks.PreToolUse[1].hooks[0].command');
      expect(other.reinstall.code, other.reinstall.stderr).toBe(0);
      expect(other.reinstall.stdout + other.reinstall.stderr).toContain('hooks.Stop[1].hooks[0].command');
    });

    it('hookd doctor reports the settings file and the debug-log line', () => {
      expect(guard.doctor.get('claude-settings-user')).toMatchObject({ status: 'fail' });
      expect(guard.doctor.get('claude-settings-user')!.detail).toContain('whole settings file');
      expect(guard.doctor.get('claude-log')).toMatchObject({ status: 'fail' });
      expect(guard.doctor.get('claude-log')!.detail).toContain('Invalid setting skipped');
      expect(other.doctor.get('claude-settings-user')).toMatchObject({ status: 'warn' });
      expect(other.doctor.get('claude-log')).toMatchObject({ status: 'warn' });
      expect(other.doctor.get('claude-log')!.detail).toContain('hooks.Stop[1]');
    });
  });
});
