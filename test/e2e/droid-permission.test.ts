import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeWithAgent } from '../harness/availability.js';
import {
  droidCommandOf,
  droidProbeRecords,
  droidPromptsOf,
  droidWithSettings,
  writeDroidProbeHook,
  type DroidProbeRecord,
  type DroidPrompt,
} from '../harness/droid/permission-probe.js';
import { runRealDroid, type DroidRun, type FakeStep } from '../helpers/droid.js';
import { isolatedEnv, makeTempDir } from '../helpers/temp.js';

// What the REAL Droid 0.225.2 lets a hook decide about a permission, the facts remote answers to
// permission prompts rely on. Droid has no PermissionRequest event: a PreToolUse hook decides before
// Droid's own check, and a Notification `permission_prompt` runs before Droid asks. A plain hook program
// (no hookd) answers PreToolUse by marker words in the command (test/harness/droid/permission-probe.ts);
// sessions are jsonrpc sessions with permissions asked, answered "proceed_once" at once by the driver.

const DUMP = process.env.PROBE_DUMP === '1';
const shell = (command: string): FakeStep => ({ tool: 'shell', input: { command } });
/** How long the first Notification hook watches for the prompt before it gives up. */
const HOLD_MS = 2000;
/** The hooks' timeout (s), above HOLD_MS. */
const TIMEOUT = 3;

interface Probed {
  run: DroidRun;
  records: DroidProbeRecord[];
  prompts: DroidPrompt[];
  ran(file: string): boolean;
  events(marker: string): string[];
  cleanup(): void;
}

async function probe(bin: string, autonomyLevel: 'off' | 'high', script: FakeStep[]): Promise<Probed> {
  const tmp = makeTempDir('hdp-');
  const env = isolatedEnv(tmp.dir);
  const outDir = join(tmp.dir, 'run');
  const rpcLog = join(outDir, 'rpc.jsonl');
  const capture = join(tmp.dir, 'capture.jsonl');
  const hook = writeDroidProbeHook(tmp.dir, { capture, rpcLog, holdMs: HOLD_MS });
  const entry = [{ matcher: '', hooks: [{ type: 'command', command: hook, timeout: TIMEOUT }] }];
  const run = await runRealDroid({
    outDir,
    env,
    // the harness names the fake model as the session default; the autonomy level goes beside it
    bin: droidWithSettings(tmp.dir, bin, {
      sessionDefaultSettings: { model: 'custom:fake-chat', autonomyLevel },
    }),
    hooksJson: { PreToolUse: entry, PostToolUse: entry, Notification: entry },
    mode: 'jsonrpc',
    prompt: 'Run the commands.',
    script: [...script, { text: 'Done.' }],
    agentTimeoutSec: 90,
  });
  const records = droidProbeRecords(capture);
  const prompts = droidPromptsOf(rpcLog);
  if (DUMP) {
    console.log(run.rc, tmp.dir, run.stderr);
    for (const r of records)
      console.log(r.at, r.event, droidCommandOf(r), r.promptSeenWhileRunning, JSON.stringify(r.payload));
    for (const q of prompts) console.log('PROMPT', JSON.stringify(q));
  }
  return {
    run,
    records,
    prompts,
    ran: (file) => existsSync(join(run.work, file)),
    events: (marker) => records.filter((r) => droidCommandOf(r).includes(marker)).map((r) => r.event),
    cleanup: () => (DUMP ? undefined : tmp.cleanup()),
  };
}

const promptedCommands = (p: Probed) =>
  p.prompts.map((q) => {
    const uses = q.params.toolUses as { toolUse: { input: { command: string } } }[];
    return uses.map((u) => u.toolUse.input.command).join(' | ');
  });

describeWithAgent('droid', 'what Droid 0.225.2 lets a hook decide on a permission', (bin) => {
  describe('autonomy off: every command asks', () => {
    let p: Probed;
    beforeAll(async () => {
      p = await probe(bin, 'off', [
        shell('touch d1-pre-allow.out'),
        shell('touch d2-pre-ask.out'),
        shell('touch d3-pre-deny.out'),
        shell('touch d4.out'),
        shell('touch d5-pre-slow.out'),
      ]);
    });
    afterAll(() => p?.cleanup());

    it('PreToolUse allow skips the prompt; ask and no decision get the normal prompt; deny blocks', () => {
      expect(p.run.rc).toBe(0);
      expect(promptedCommands(p).slice(0, 2)).toEqual(['touch d2-pre-ask.out', 'touch d4.out']);
      expect(p.ran('d1-pre-allow.out')).toBe(true);
      expect(p.ran('d2-pre-ask.out')).toBe(true);
      expect(p.ran('d3-pre-deny.out')).toBe(false);
      expect(p.ran('d4.out')).toBe(true);
      expect(p.events('d1-pre-allow')).toEqual(['PreToolUse', 'PostToolUse']);
      expect(p.events('d3-pre-deny')).toEqual(['PreToolUse']);
      // the model is told the hook's reason
      expect(p.run.fakeModelLog).toContain('pre says deny');
    });

    it('the permission_prompt Notification runs first: Droid asks only after the hook returned', () => {
      const notes = p.records.filter((r) => r.event === 'Notification');
      expect(notes).toHaveLength(3);
      expect(notes[0]!.payload).toMatchObject({
        hook_event_name: 'Notification',
        notification_type: 'permission_prompt',
        message: 'Factory CLI needs permission to execute 1 tool(s)',
        permission_mode: 'off',
      });
      // the Notification names no tool call; the PreToolUse payload has no call id either
      expect(notes[0]!.payload).not.toHaveProperty('tool_name');
      const pre = p.records.find((r) => r.event === 'PreToolUse')!;
      expect(Object.keys(pre.payload).sort()).toEqual(
        [
          'cwd',
          'hook_event_name',
          'permission_mode',
          'session_id',
          'tool_input',
          'tool_name',
          'transcript_path',
        ].sort(),
      );
      // Droid's prompt carries the call id and what it would run
      const use = (p.prompts[0]!.params.toolUses as { toolUse: { id: string }; details: unknown }[])[0]!;
      expect(use.toolUse.id).toMatch(/^call_/);
      expect(use.details).toMatchObject({ type: 'exec', fullCommand: 'touch d2-pre-ask.out' });
      // the first Notification hook watched for the prompt the whole time it ran and never saw it
      const hold = p.records.find((r) => r.event === 'notification-hold')!;
      expect(hold.promptSeenWhileRunning).toBe(false);
      expect(hold.at - notes[0]!.at).toBeGreaterThanOrEqual(HOLD_MS);
    });

    it('a PreToolUse hook that times out is stopped and Droid asks as usual', () => {
      expect(p.events('d5-pre-slow')).toEqual(['PreToolUse', 'sigterm', 'PostToolUse']);
      expect(promptedCommands(p)[2]).toBe('touch d5-pre-slow.out');
      expect(p.ran('d5-pre-slow.out')).toBe(true);
    });
  });

  describe('autonomy high: only the deny list asks', () => {
    let p: Probed;
    beforeAll(async () => {
      p = await probe(bin, 'high', [
        shell('touch h1-pre-ask.out'),
        shell('chown -R 0 . && touch h2-pre-allow.out'),
        shell('chown -R 0 . && touch h3.out'),
        shell('chown -R 0 . && touch h4-pre-deny.out'),
      ]);
    });
    afterAll(() => p?.cleanup());

    it('a PreToolUse ask does not make Droid ask', () => {
      expect(p.run.rc).toBe(0);
      expect(p.records.find((r) => r.event === 'PreToolUse')!.payload.permission_mode).toBe('auto-high');
      expect(p.ran('h1-pre-ask.out')).toBe(true);
      expect(promptedCommands(p)).not.toContain('touch h1-pre-ask.out');
    });

    it('a deny-listed command asks, with no "always allow"', () => {
      expect(promptedCommands(p)).toEqual(['chown -R 0 . && touch h3.out']);
      const params = p.prompts[0]!.params as {
        toolUses: { details: { riskLevelReason: string; impactLevel: string } }[];
        options: { value: string }[];
      };
      expect(params.toolUses[0]!.details.riskLevelReason).toContain('Matched deny-list entry "chown -R"');
      expect(params.toolUses[0]!.details.impactLevel).toBe('high');
      expect(params.options.map((o) => o.value)).toEqual(['proceed_once', 'cancel']);
      expect(p.ran('h3.out')).toBe(true);
    });

    it('a PreToolUse allow runs a deny-listed command without asking anyone', () => {
      expect(p.ran('h2-pre-allow.out')).toBe(true);
      expect(p.events('h2-pre-allow')).toEqual(['PreToolUse', 'PostToolUse']);
      expect(p.ran('h4-pre-deny.out')).toBe(false);
    });
  });
});
