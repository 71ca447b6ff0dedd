import { readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { runProcess, type ProcessResult, type SpawnLike } from '../process/run.js';
import type { LineLogger } from '../logging/line-logger.js';
import { safeLines, safeText } from '../util/text/safe-text.js';
import { clipText } from '../util/text/clip-text.js';
import { probeDesktopAnswers, type DesktopAnswerSupport } from './desktop-probe.js';
import type { AskOutcome, PermissionAsk, RemoteAnswer, RemoteChannel, RemoteDecision } from './types.js';

/**
 * Allow and Deny on the desktop notification (docs/remote.md). Each ask is one
 * `notify-send --action=allow=Allow --action=deny=Deny --wait` process: the notification server shows
 * the buttons, and notify-send prints the key of the one pressed (`allow` or `deny`) and exits. The key
 * only names the decision; the channel hands the broker the ask's token for it, and the token itself
 * never leaves hookd.
 *
 * Each process is started through the daemon's spawner, with argv only (the ask's text is never shell
 * text), and is bounded: at the ask's expiry it is interrupted (SIGINT, on which notify-send closes its
 * notification), and its process group is killed if it is still there shortly after.
 */

export interface DesktopAnswerOptions {
  /** How processes start: the daemon's spawner (`createSpawner().spawn`), or node's spawn. */
  spawn: SpawnLike;
  /** The environment notify-send sees (the daemon's: DBUS_SESSION_BUS_ADDRESS, PATH). */
  env?: Record<string, string | undefined>;
  platform?: NodeJS.Platform;
  logger?: Pick<LineLogger, 'log'>;
  /** The clock asks' `expiresAt` is read against (epoch ms). */
  now?: () => number;
  /** The application name the notification shows (default `hookd`). */
  appName?: string;
  /** Asks shown at once; more are refused (default 16). */
  maxPending?: number;
  /** How long an "unavailable" answer is kept before the platform is checked again (default 60 s). */
  recheckMs?: number;
  /**
   * How long an ask waits for notify-send to show its notification (or to fail) before it counts as shown
   * (default 2 s); a failure after that is logged.
   */
  showWaitMs?: number;
}

export interface DesktopAnswerChannel extends RemoteChannel {
  /** Whether Allow/Deny can be shown here, and if not why (for doctor and the log). */
  support(): Promise<DesktopAnswerSupport>;
}

/** How long notify-send has to close its notification after SIGINT before its group is killed. */
const INTERRUPT_GRACE_MS = 2_000;
/** The deadline of each probe program. */
const PROBE_TIMEOUT_MS = 5_000;
/** What notify-send prints is one action key: a few bytes are plenty. */
const MAX_OUTPUT_BYTES = 1024;
/** The longest a notification waits, whatever the ask's expiry says. */
const MAX_WAIT_MS = 24 * 3600_000;
const MAX_TITLE = 200;
const MAX_BODY = 2_000;
/** A started process, as the spawn given returns it. */
type ChildProcess = ReturnType<SpawnLike>;

const DECISIONS: readonly RemoteDecision[] = ['allow', 'deny'];

/** notify-send reads Pango markup in the body: escape what would break it or style it. */
function escapeMarkup(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * The notification's title and body: exactly what the broker summarised (already redacted and bounded),
 * with control characters and bidirectional overrides shown escaped so that nothing reorders or hides a
 * part of the command.
 */
export function desktopAskText(ask: PermissionAsk): { title: string; body: string } {
  const { summary } = ask;
  const lines = [`Tool: ${summary.tool}`];
  if (summary.command !== undefined) lines.push(`Command: ${summary.command}`);
  if (summary.filePath !== undefined) lines.push(`File: ${summary.filePath}`);
  if (summary.diff !== undefined) lines.push(summary.diff);
  lines.push(`Project: ${ask.project}`);
  const title = clipText(safeText(summary.title || `${ask.agent} asks for a permission`), MAX_TITLE);
  return { title, body: escapeMarkup(clipText(safeLines(lines.join('\n')), MAX_BODY)) };
}

/** notify-send's argv for one ask; `--` so that a title starting with "-" is never read as an option. */
export function desktopAskArgs(
  notifySend: string,
  ask: PermissionAsk,
  appName: string,
  remainingMs: number,
): string[] {
  const { title, body } = desktopAskText(ask);
  return [
    notifySend,
    '--app-name',
    appName,
    '--urgency',
    'critical',
    '--expire-time',
    String(Math.max(1, Math.ceil(remainingMs))),
    '--action=allow=Allow',
    '--action=deny=Deny',
    '--wait',
    '--',
    title,
    body,
  ];
}

/** The decision in what notify-send printed: exactly one known action key on a line, else none. */
export function chosenDecision(stdout: string): RemoteDecision | undefined {
  const lines = stdout.split('\n').map((line) => line.trim());
  return DECISIONS.find((decision) => lines.includes(decision));
}

interface Shown {
  ask: PermissionAsk;
  /** The running notify-send, once started. */
  child?: ChildProcess;
  /** Kills its process group (runProcess's own stop). */
  abort: AbortController;
  expiry: NodeJS.Timeout;
  /** Set when hookd interrupted it (settled, expired, closed). */
  interrupted: boolean;
  done: Promise<ProcessResult>;
  exited: boolean;
  /** The notify-send program started (its real path), to tell it from a copy of this process or a shell. */
  program: string;
}

/** The program a process runs (Linux), or undefined where /proc cannot tell. */
function programOf(pid: number | 'self'): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/exe`);
  } catch {
    return undefined;
  }
}

/**
 * Whether the process handles SIGINT yet (Linux: its SigCgt mask in /proc). notify-send starts to handle
 * it once its notification is shown; a SIGINT before that would end it without closing the notification.
 * Only `program` (the notify-send started) counts: not the child while it is still a copy of this process
 * (with this process's handlers), nor a shell wrapper that catches SIGINT from its start, nor a process
 * that has ended. Without /proc, true: interrupt at once.
 */
function handlesInterrupt(pid: number | undefined, program: string): boolean {
  if (pid === undefined) return false;
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'latin1');
  } catch {
    // Gone already (its exit is on the way: wait for it), or no /proc at all.
    return programOf('self') === undefined;
  }
  // Ended (its exit is on the way): wait for it.
  if (/^State:\s*[ZX]/m.test(status)) return false;
  const running = programOf(pid);
  // Its program unreadable while /proc is there: it is exiting (or not yet running it): wait.
  if (running === undefined ? programOf('self') !== undefined : running !== program) return false;
  const caught = /^SigCgt:\s*([0-9a-f]+)$/m.exec(status)?.[1];
  return caught === undefined || (BigInt(`0x${caught}`) & SIGINT_BIT) !== 0n;
}
const SIGINT_BIT = 1n << 1n;

/** The real path of a program (what /proc/<pid>/exe shows once it runs), or the path as given. */
function realProgram(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** Why a process failed, in one line: the first line it wrote on stderr, else how it ended. */
function failure(result: ProcessResult): string {
  const said = safeText(result.stderr.text().trim().split('\n')[0] ?? '');
  return (
    said ||
    result.spawnError ||
    (result.exitCode === null ? `killed by ${result.signal}` : `exit ${result.exitCode}`)
  );
}

/** Polls `ready` every 10 ms, at most `limitMs / 10` times (default INTERRUPT_GRACE_MS). */
async function waitUntil(ready: () => boolean, limitMs = INTERRUPT_GRACE_MS): Promise<void> {
  for (let i = 0; i < limitMs / 10 && !ready(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** The desktop answer channel. It never throws on a platform without actions: it says why, once. */
export function createDesktopAnswerChannel(options: DesktopAnswerOptions): DesktopAnswerChannel {
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const now = options.now ?? Date.now;
  const appName = options.appName ?? 'hookd';
  const maxPending = options.maxPending ?? 16;
  const recheckMs = options.recheckMs ?? 60_000;
  const log = (level: 'info' | 'warn', fields: Record<string, unknown>, msg: string) =>
    options.logger?.log(level, { channel: 'desktop', ...fields }, msg);

  const shown = new Map<string, Shown>();
  /** Asks between ask() and their notification, and those of them settled meanwhile (both bounded by it). */
  const starting = new Set<string>();
  const endedEarly = new Set<string>();
  let onAnswer: ((answer: RemoteAnswer) => void) | undefined;
  let closed = false;
  let probing: Promise<DesktopAnswerSupport> | undefined;
  let probedAt = 0;
  let lastSaid: string | undefined;

  /** The platform check, kept; an "unavailable" answer is checked again after `recheckMs`. */
  function support(): Promise<DesktopAnswerSupport> {
    if (probing && !(probedAt && now() - probedAt >= recheckMs)) return probing;
    probedAt = 0;
    const current = probeDesktopAnswers({
      platform,
      env,
      spawn: options.spawn,
      timeoutMs: PROBE_TIMEOUT_MS,
    }).then((result) => {
      // Kept for good when it works; "unavailable" for recheckMs, then asked again.
      if (!result.ok) probedAt = now();
      const said = result.ok ? 'available' : result.reason;
      if (said !== lastSaid) {
        lastSaid = said;
        if (result.ok) log('info', {}, 'desktop answers: Allow and Deny on the desktop notification');
        else log('warn', { reason: result.reason }, `desktop answers unavailable: ${result.reason}`);
      }
      return result;
    });
    probing = current;
    return current;
  }

  /**
   * Asks notify-send to close its notification and stop (SIGINT, once it handles it: see
   * handlesInterrupt); kills its group if it is still there INTERRUPT_GRACE_MS later.
   */
  async function interrupt(entry: Shown): Promise<void> {
    if (!entry.interrupted) {
      entry.interrupted = true;
      clearTimeout(entry.expiry);
      if (entry.child) {
        const child = entry.child;
        await waitUntil(() => entry.exited || handlesInterrupt(child.pid, entry.program));
        try {
          child.kill('SIGINT');
        } catch {
          // Already gone.
        }
      } else entry.abort.abort();
    }
    const grace = setTimeout(() => entry.abort.abort(), INTERRUPT_GRACE_MS);
    await entry.done;
    clearTimeout(grace);
  }

  function finished(entry: Shown, result: ProcessResult): void {
    clearTimeout(entry.expiry);
    if (shown.get(entry.ask.id) === entry) shown.delete(entry.ask.id);
    const decision = chosenDecision(result.stdout.text());
    if (decision) {
      log('info', { ask: entry.ask.id, decision }, `desktop answer: ${decision}`);
      // The broker decides whether it counts (an answer after the ask ended is refused and logged there).
      if (!closed) onAnswer?.({ token: entry.ask.tokens[decision], channel: 'desktop', approver: 'desktop' });
      return;
    }
    if (entry.interrupted || result.exitCode === 0) return;
    log('warn', { ask: entry.ask.id, error: failure(result) }, `notify-send failed: ${failure(result)}`);
  }

  return {
    name: 'desktop',
    support,
    async start(answer) {
      onAnswer = answer;
      closed = false;
      await support();
    },
    async ask(ask) {
      if (closed) throw new Error('the desktop answer channel is closed');
      if (shown.has(ask.id) || starting.has(ask.id)) return;
      starting.add(ask.id);
      let state: DesktopAnswerSupport;
      try {
        state = await support();
      } finally {
        starting.delete(ask.id);
      }
      // Settled while the platform was being checked: nothing to show any more.
      if (endedEarly.delete(ask.id) || closed) return;
      if (!state.ok) throw new Error(`desktop answers unavailable: ${state.reason}`);
      if (shown.size >= maxPending)
        throw new Error(
          `desktop answers: ${maxPending} asks are already on the desktop; this one is not shown`,
        );
      // Bounded also for a far expiry (a timer of 2^31 ms or more would fire at once).
      const remaining = Math.min(ask.expiresAt - now(), MAX_WAIT_MS);
      if (remaining <= 0) throw new Error('the ask has expired');
      const entry: Shown = {
        ask,
        abort: new AbortController(),
        interrupted: false,
        exited: false,
        program: realProgram(state.notifySend),
        expiry: setTimeout(() => void interrupt(entry), remaining),
        done: Promise.resolve(undefined as unknown as ProcessResult),
      };
      entry.expiry.unref();
      // The spawn is wrapped to keep the child: on SIGINT notify-send closes its notification itself.
      const spawn = ((file: string, args: readonly string[], spawnOptions: object) => {
        const child = (options.spawn as (f: string, a: readonly string[], o: object) => ChildProcess)(
          file,
          args,
          spawnOptions,
        );
        entry.child = child;
        return child;
      }) as SpawnLike;
      entry.done = runProcess({
        command: desktopAskArgs(state.notifySend, ask, appName, remaining),
        env,
        // The expiry interrupts it; this deadline is the last resort.
        timeoutMs: remaining + INTERRUPT_GRACE_MS,
        killGraceMs: 500,
        maxOutputBytes: MAX_OUTPUT_BYTES,
        signal: entry.abort.signal,
        spawn,
      });
      shown.set(ask.id, entry);
      void entry.done.then((result) => {
        entry.exited = true;
        finished(entry, result);
      });
      const child = entry.child as ChildProcess | undefined;
      if (!child) {
        const result = await entry.done;
        throw new Error(`notify-send did not start: ${result.spawnError ?? 'no process'}`);
      }
      // Shown once notify-send handles SIGINT (it does from its notification on); or it ended first.
      await waitUntil(() => entry.exited || handlesInterrupt(child.pid, entry.program), options.showWaitMs);
      if (entry.exited) {
        const result = await entry.done;
        if (!chosenDecision(result.stdout.text()) && result.exitCode !== 0)
          throw new Error(`notify-send failed: ${failure(result)}`);
      }
    },
    async settle(ask: PermissionAsk, outcome: AskOutcome) {
      const entry = shown.get(ask.id);
      if (!entry) {
        if (starting.has(ask.id)) endedEarly.add(ask.id);
        return;
      }
      log('info', { ask: ask.id, outcome: outcome.result }, 'desktop notification closed: the ask ended');
      await interrupt(entry);
    },
    async close() {
      closed = true;
      await Promise.all([...shown.values()].map((entry) => interrupt(entry)));
      shown.clear();
    },
  };
}
