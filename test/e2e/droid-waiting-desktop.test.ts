import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { liveSessions, outboxAction } from '../../src/daemon/admin.js';
import type { Delivery } from '../../src/journal/store.js';
import { describeWithAgent } from '../harness/availability.js';
import { describeWithDesktop, startDesktopSession, type DesktopSession } from '../helpers/desktop-session.js';
import { runRealDroid, type FakeStep } from '../helpers/droid.js';
import type { PermissionAnswer } from '../harness/droid/rpc-driver.js';
import { jsonLines } from '../helpers/json-lines.js';
import { tempEnv, waitFor } from '../integration/daemon/helpers.js';
import { BIN, ensureBuilt, writeConfig } from '../integration/daemon/process-helpers.js';

// Delay-then-cancel through the REAL Droid CLI 0.225.2 and a real desktop (Xvfb, D-Bus, dunst:
// test/helpers/desktop-session.ts): a permission prompt answered late is shown once; one answered at
// once is cancelled and never shown. The harness answers Droid's `droid.request_permission` (jsonrpc
// mode): at once, or, for "late", only once the test has seen the notification on the desktop (a gate
// file), so "late" is a fact of the run, not a guess about the clock.

// Above the time from Droid's Notification hook to its PostToolUse hook for a prompt answered at once
// (two hook processes on a busy machine), which the "at once" case needs; the "late" one waits for the
// notification itself, whatever the delay.
const WAITING_DELAY_MS = 5000;
const SCRIPT: FakeStep[] = [{ tool: 'shell', input: { command: 'echo hi' } }, { text: 'done' }];

/** The session id Droid gave the run (its `droid.initialize_session` answer, in rpc.jsonl). */
function sessionIdOf(outDir: string): string | undefined {
  const file = join(outDir, 'rpc.jsonl');
  if (!existsSync(file)) return undefined;
  return /"result":\{"sessionId":"([0-9a-f-]+)"/.exec(readFileSync(file, 'utf8'))?.[1];
}

describeWithDesktop('delay-then-cancel on a real desktop', () => {
  describeWithAgent('droid', 'under the real Droid CLI 0.225.2', () => {
    let temp: ReturnType<typeof tempEnv>;
    let desktop: DesktopSession | undefined;
    let env: Record<string, string>;
    const daemonLog = () =>
      jsonLines<Record<string, unknown>>(join(env.HOOKD_STATE_DIR!, 'logs', 'daemon.log'));
    /** The desktop notifications of one session (the rule's title names it). */
    const shownFor = (sid: string) => desktop!.shown().filter((n) => n.summary === `asks ${sid}`);
    const asksOf = async (sid: string) =>
      ((await outboxAction(env, { action: 'list', state: 'all' })).items ?? []).filter(
        (d: Delivery) => d.notification.title === `asks ${sid}` && d.notification.kind !== 'resolved',
      );
    /** The deliveries that mark a shown ask of the session resolved (closed on the desktop). */
    const resolutionsOf = async (sid: string) =>
      ((await outboxAction(env, { action: 'list', state: 'all' })).items ?? []).filter(
        (d: Delivery) => d.notification.title === `asks ${sid}` && d.notification.kind === 'resolved',
      );
    const run = (name: string, permissionAnswer?: PermissionAnswer) =>
      runRealDroid({
        outDir: join(temp.root, name),
        env,
        hookCmd: `"${process.execPath}" "${BIN}" hook`,
        mode: 'jsonrpc',
        script: SCRIPT,
        ...(permissionAnswer ? { permissionAnswer } : {}),
      });

    const cancelRecord = (sid: string) =>
      daemonLog().find(
        (r) => r.msg === 'the session moved on: held notifications cancelled' && r.sessionId === sid,
      );
    /** Runs a session whose ask is answered before the delay, and waits for the daemon's cancel of it. */
    const runCancelled = async (name: string, permissionAnswer?: PermissionAnswer) => {
      const droid = await run(name, permissionAnswer);
      expect(droid.rc, droid.stderr).toBe(0);
      const sid = sessionIdOf(join(temp.root, name))!;
      expect(sid).toBeDefined();
      const cancel = await waitFor(() => cancelRecord(sid), 60_000, 'the cancel record');
      // The ask was held, then cancelled; dunst never showed it.
      expect((await asksOf(sid)).map((d) => d.state)).toEqual(['cancelled']);
      expect(shownFor(sid)).toEqual([]);
      return { sid, cancel };
    };

    beforeAll(async () => {
      ensureBuilt();
      temp = tempEnv();
      env = Object.fromEntries(
        Object.entries(temp.env).filter((e): e is [string, string] => e[1] !== undefined),
      );
      writeConfig(env, {
        notify: {
          waitingDelayMs: WAITING_DELAY_MS,
          rules: [{ name: 'asks', on: 'Notification', channels: ['desktop'], title: 'asks {{sessionId}}' }],
        },
        // The hooks run in the harness's PID namespace and reach this daemon by its socket; time enough
        // that a busy machine never makes a hook spool.
        daemon: { handoffTimeoutMs: 5000 },
      });
      desktop = await startDesktopSession(temp.root, env);
    }, 120_000);

    afterAll(async () => {
      await desktop?.stop();
      temp?.cleanup();
    }, 30_000);

    it('a permission prompt answered late: exactly one desktop notification', async () => {
      const gateFile = join(temp.root, 'late.answer');
      const running = run('late', { gateFile });
      const sid = await waitFor(() => sessionIdOf(join(temp.root, 'late')), 120_000, 'the session id');
      // The prompt is still open: the notification comes after the waiting delay, and then it is answered.
      await waitFor(() => shownFor(sid).length > 0, 120_000, 'the ask on the desktop');
      writeFileSync(gateFile, '');
      const droid = await running;
      expect(droid.rc, droid.stderr).toBe(0);
      // Every event of the run is in (the hooks hand over before they exit) and processed: its one ask was
      // held, then delivered once; dunst showed it once.
      await waitFor(
        async () => (await liveSessions(env))?.find((s) => s.id === sid)?.phase === 'ended',
        60_000,
        'the SessionEnd processed',
      );
      const asks = await asksOf(sid);
      expect(asks.map((d) => d.state)).toEqual(['delivered']);
      // Answered after it was shown: it is closed (marked resolved), not shown again.
      await waitFor(
        async () => (await resolutionsOf(sid)).some((d) => d.state === 'delivered'),
        30_000,
        'the close delivered',
      );
      expect(await resolutionsOf(sid)).toHaveLength(1);
      expect(shownFor(sid)).toHaveLength(1);
      expect(shownFor(sid)[0]).toMatchObject({ app: 'hookd', urgency: 'NORMAL' });
      expect(cancelRecord(sid)).toBeUndefined();
    });

    it('a permission prompt answered at once: none (the daemon logged the cancel)', async () => {
      const { cancel } = await runCancelled('at-once');
      // The tool ran: Droid's PostToolUse is the answer.
      expect(cancel.event).toBe('PostToolUse');
    });

    it('Esc at the prompt: none; the held ask is cancelled (by the Stop Droid fires on Esc, or the interrupt read from the transcript)', async () => {
      const { sid, cancel } = await runCancelled('esc', { interrupt: true });
      // Droid 0.225.2 fires its Stop hook on Esc, then writes the turn's outcome; a Stop of the asking
      // session ends its permission ask (docs/sessions.md), so whichever the daemon handles first cancels.
      expect(cancel.event === 'Stop' || cancel.transition === 'transcript-interrupt').toBe(true);
      // Droid's own record of it: the turn's outcome `cancelled`, written after its Stop hook.
      const found = daemonLog().find(
        (r) => r.msg === 'transcript: a record no hook reported' && r.sessionId === sid,
      );
      expect(found).toMatchObject({ signal: 'interrupt', detail: 'cancelled' });
    });
  });
});
