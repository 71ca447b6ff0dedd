import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithAgent } from '../harness/availability.js';
import { toolOutputs } from '../harness/codex/fake-responses.js';
import { AWAIT_COPIES, runCodex, type CodexRun } from '../harness/codex/run-codex.js';
import {
  countingGuard,
  forbiddenGuard,
  guardRuns,
  hookdTestbed,
  type HookdTestbed,
} from '../harness/hookd-testbed.js';
import { jsonLines } from '../helpers/json-lines.js';
import { waitFor } from '../helpers/wait.js';

// hookd wired twice for the REAL Codex CLI 0.171.0, offline: `hookd install --agent codex` writes
// $CODEX_HOME/hooks.json, and the same entries, identical commands, are written by hand as
// `[[hooks.<Event>]]` tables in $CODEX_HOME/config.toml. Every hook of both files is trusted before the
// run the way Codex's /hooks screen does it (config.toml `hooks.state` trusted_hash, the hashes
// `codex app-server` hooks/list gives; never by hookd). Codex runs both copies of each entry, side by
// side; hookd's daemon runs the guard once and answers both copies alike.

const BLOCKED = 'touch forbidden.txt';
const FINAL = 'Finished: both notes written.';

interface HooksJson {
  hooks: Record<string, { matcher?: string; hooks: { type: string; command: string; timeout: number }[] }[]>;
}

/** hooks.json's entries as config.toml tables: the same matcher, command and timeout. */
function asToml(json: HooksJson): string {
  const lines: string[] = [];
  for (const [event, entries] of Object.entries(json.hooks))
    for (const entry of entries) {
      lines.push('', `[[hooks.${event}]]`);
      if (entry.matcher !== undefined) lines.push(`matcher = ${JSON.stringify(entry.matcher)}`);
      for (const hook of entry.hooks)
        lines.push(
          `[[hooks.${event}.hooks]]`,
          `type = "command"`,
          `command = ${JSON.stringify(hook.command)}`,
          `timeout = ${hook.timeout}`,
        );
    }
  return `${lines.join('\n')}\n`;
}

describeWithAgent(
  'codex',
  'hookd in both hooks.json and config.toml under the real Codex CLI 0.171.0',
  (bin) => {
    let bed: HookdTestbed;
    let run: CodexRun;
    let hooksJson: HooksJson;

    beforeAll(async () => {
      bed = await hookdTestbed('hkcxdd-', 'codex', () => ({
        PreToolUse: [
          // Holds the first call until Codex started the second copy (so the copy overlaps it on a
          // loaded machine too), then counts.
          countingGuard('Bash', `node '${AWAIT_COPIES}' PreToolUse 2; `),
          forbiddenGuard('Bash'),
        ],
      }));
      hooksJson = JSON.parse(
        readFileSync(join(bed.dir, 'home', '.codex', 'hooks.json'), 'utf8'),
      ) as HooksJson;
      run = await runCodex({
        bin,
        dir: bed.dir,
        script: [{ shell: 'echo one > one.txt' }, { shell: BLOCKED }, { text: FINAL }],
        prompt: 'Write the notes.',
        trust: 'persisted',
        configTail: asToml(hooksJson),
        env: bed.env,
        deadlineSec: 60,
      });
      await bed.settled('codex');
    });

    afterAll(async () => {
      await bed?.close();
    });

    it('Codex lists and trusts every hookd entry of both files', () => {
      expect(bed.installed.code, bed.installed.stderr).toBe(0);
      const listed = (run.result.hooksList as { data: { hooks: { key: string; command?: string }[] }[] })
        .data;
      const keys = listed.flatMap((d) => d.hooks.map((h) => h.key));
      const events = Object.keys(hooksJson.hooks).length;
      expect(keys.filter((k) => k.includes('hooks.json:'))).toHaveLength(events);
      expect(keys.filter((k) => k.includes('config.toml:'))).toHaveLength(events);
      expect(run.result).toMatchObject({ code: 0, timedOut: false });
    });

    it('the guard ran once per tool call', () => {
      expect(guardRuns(bed.dir)).toEqual(['codex other', 'codex forbidden']);
    });

    it('both copies reached hookd, and the copy was answered with the first call’s result', async () => {
      const read = () =>
        jsonLines<{ kind?: string; event?: string; exitCode?: number }>(
          join(bed.env.HOOKD_STATE_DIR!, 'logs', 'hookd.log'),
        );
      // The daemon logs an event after it answered it: wait for the session's end to be there.
      await waitFor(
        () => read().some((l) => l.kind === 'event' && l.event === 'SessionEnd'),
        20_000,
        'SessionEnd in the hook log',
      );
      const log = read();
      const copies = log.filter((l) => l.kind === 'duplicate' && l.event === 'PreToolUse');
      expect(copies.map((l) => l.exitCode).sort(), JSON.stringify(log.slice(-40))).toEqual([0, 2]);
    });

    it("the block reached the model, once, with the guard's reason, and the command did not run", () => {
      expect(existsSync(join(run.work, 'forbidden.txt'))).toBe(false);
      expect(readFileSync(join(run.work, 'one.txt'), 'utf8')).toBe('one\n');
      const seen = run.requests.flatMap((r) => toolOutputs(r.body));
      expect(seen.filter((o) => o.includes('no files named forbidden here'))).toEqual([
        `Command blocked by PreToolUse hook: no files named forbidden here. Command: ${BLOCKED}`,
      ]);
    });

    it('one Stop notification with the final message, and one ledger record, as Codex', () => {
      const stops = bed.delivered().filter((d) => d.notification.event === 'Stop');
      expect(stops, JSON.stringify(bed.delivered())).toHaveLength(1);
      expect(`${stops[0]!.notification.title}\n${stops[0]!.notification.body}`).toContain(FINAL);
      const records = bed.ledger();
      expect(records.map((r) => r.agent)).toEqual(['codex']);
    });
  },
);
