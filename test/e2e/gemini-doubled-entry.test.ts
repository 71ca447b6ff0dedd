import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithAgent } from '../harness/availability.js';
import { functionResponses } from '../harness/gemini/fake-gemini.js';
import { runGemini, type GeminiRun } from '../harness/gemini/run-gemini.js';
import {
  countingGuard,
  forbiddenGuard,
  guardRuns,
  hookdTestbed,
  type HookdTestbed,
} from '../harness/hookd-testbed.js';
import { jsonLines } from '../helpers/json-lines.js';
import { waitFor } from '../helpers/wait.js';

// hookd wired twice for the REAL Gemini CLI 0.61.0, offline: `hookd install --agent gemini` writes
// ~/.gemini/settings.json, and the same hooks, identical commands, are in the project's
// .gemini/settings.json too, beside a hook of the project's own (folder trust off, as the harness runs
// Gemini). Observed: Gemini reads both files (it lists the project's hooks in a warning and runs the
// project's own hook) and runs a hook of the same name and command once per event (its planner drops
// the copy), so hookd gets each event once and no copy ever reaches the daemon.

const BLOCKED = 'touch forbidden.txt';
const FINAL = 'Finished: both notes written.';

describeWithAgent(
  'gemini',
  "hookd in the user's and the project's settings under the real Gemini CLI 0.61.0",
  (entry) => {
    let bed: HookdTestbed;
    let run: GeminiRun;
    const lines = (name: string) =>
      existsSync(join(bed.dir, name))
        ? readFileSync(join(bed.dir, name), 'utf8').split('\n').filter(Boolean)
        : [];

    beforeAll(async () => {
      bed = await hookdTestbed('hkgmdd-', 'gemini', () => ({
        PreToolUse: [countingGuard('run_shell_command'), forbiddenGuard('run_shell_command')],
      }));
      const user = JSON.parse(readFileSync(join(bed.dir, 'home', '.gemini', 'settings.json'), 'utf8')) as {
        hooks: Record<string, unknown[]>;
      };
      // The project's settings: hookd's entries as they are, and a hook of its own on BeforeTool.
      const own = {
        matcher: '',
        hooks: [{ type: 'command', name: 'mine', command: 'echo project >> "$HOME/../project-runs.txt"' }],
      };
      mkdirSync(join(bed.dir, 'work', '.gemini'), { recursive: true });
      writeFileSync(
        join(bed.dir, 'work', '.gemini', 'settings.json'),
        JSON.stringify({ hooks: { ...user.hooks, BeforeTool: [...user.hooks.BeforeTool!, own] } }),
      );
      run = await runGemini({
        entry,
        dir: bed.dir,
        script: [{ shell: 'echo one > one.txt' }, { shell: BLOCKED }, { text: FINAL }],
        prompt: 'Write the notes.',
        env: bed.env,
        deadlineSec: 60,
      });
      await bed.settled('gemini');
    });

    afterAll(async () => {
      await bed?.close();
    });

    it("Gemini reads the project's hooks: it names hookd's among them and runs its own", () => {
      expect(bed.installed.code, bed.installed.stderr).toBe(0);
      expect(run.result).toMatchObject({ code: 0, timedOut: false });
      expect(run.stderr).toMatch(
        /project-level hooks have been detected[\s\S]*--agent gemini --event BeforeTool/,
      );
      expect(lines('project-runs.txt')).toEqual(['project', 'project']);
    });

    it('hookd got each event once, and the guard ran once per tool call', async () => {
      const read = () =>
        jsonLines<{ kind?: string; event?: string }>(join(bed.env.HOOKD_STATE_DIR!, 'logs', 'hookd.log'));
      // The daemon logs an event after it answered it: wait for the session's end to be there.
      await waitFor(
        () => read().some((l) => l.kind === 'event' && l.event === 'SessionEnd'),
        20_000,
        'SessionEnd in the hook log',
      );
      const log = read();
      const events = log.filter((l) => l.kind === 'event').map((l) => l.event);
      expect(
        events.filter((e) => e === 'PreToolUse'),
        JSON.stringify(events),
      ).toHaveLength(2);
      expect(events.filter((e) => e === 'Stop')).toHaveLength(1);
      expect(log.filter((l) => l.kind === 'duplicate')).toEqual([]);
      expect(guardRuns(bed.dir)).toEqual(['gemini other', 'gemini forbidden']);
    });

    it("the block reached the model once, with the guard's reason, and the command did not run", () => {
      expect(existsSync(join(run.work, 'forbidden.txt'))).toBe(false);
      const seen = run.requests.flatMap((r) => functionResponses(r.body));
      expect(seen.filter((s) => JSON.stringify(s).includes('forbidden here'))).toEqual([
        { error: 'Tool execution blocked: no files named forbidden here' },
      ]);
    });

    it('one Stop notification with the final message, and one ledger record, as Gemini', () => {
      const stops = bed.delivered().filter((d) => d.notification.event === 'Stop');
      expect(stops, JSON.stringify(bed.delivered())).toHaveLength(1);
      expect(`${stops[0]!.notification.title}\n${stops[0]!.notification.body}`).toContain(FINAL);
      expect(bed.ledger().map((r) => r.agent)).toEqual(['gemini']);
    });
  },
);
