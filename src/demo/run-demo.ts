import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AGENT_IDS, DEFAULT_AGENT } from '../agents/ids.js';
import { CliError } from '../errors.js';
import { paint, type Out } from '../terminal/output.js';
import { validator } from '../config/resolve.js';
import type { WiringConfig } from '../daemon/lifecycle/run-foreground.js';
import { createDaemonWiring, type DaemonWiring } from '../daemon/lifecycle/run-foreground.js';
import { startDaemon, type Daemon, type DaemonHandle } from '../daemon/lifecycle/daemon.js';
import { createDaemonLogger } from '../daemon/lifecycle/logger.js';
import { handOff } from '../link/client.js';
import type { RenderedNotification } from '../notify/notification.js';
import { createConsoleChannel } from '../channels/console.js';
import { notificationPayload, type Channel } from '../channels/channel.js';
import { processEvent, type ProcessIO } from '../hook-path/process-event.js';
import { createLineLogger } from '../logging/line-logger.js';
import { createLedger } from '../ledger/ledger.js';
import type { DaemonStats } from '../journal/stats.js';
import { formatSessionsTable } from '../ledger/format-sessions.js';
import type { SessionRecord } from '../ledger/types.js';
import { startSimulator, type Simulator } from '../platform-api/simulator/index.js';
import { logFilePath, type Env } from '../paths.js';
import { createDemoLayout, demoConfig, demoEnv, type DemoLayout } from './demo-env.js';
import { findPackageRoot, loadDemoEvents, readRecordedStore, type DemoEvent } from './demo-session.js';
import { createTranscriptFeeder } from './transcript-feeder.js';
import { platformSessionFromTranscript } from './seed-platform.js';
import {
  demoEventResult,
  formatDemoEvent,
  heading,
  type DemoCommand,
  type DemoEventResult,
} from './format-demo.js';
import { str } from '../util/json-values.js';

export interface RunDemoOptions {
  /** Where the demo prints as it goes; absent: silent (the caller prints the returned summary). */
  out?: Out;
  /** Keep the temp root (its path is returned and printed). */
  keep?: boolean;
  /** Pause between two events (default 150 ms; 0 for `--fast`). */
  pauseMs?: number;
  /** The caller's environment: only PATH, locale, terminal and NO_COLOR are taken from it. */
  env?: Env;
  /** The folder holding demo/ and hooks/ (default: found by walking up from this module). */
  packageRoot?: string;
  /** Stops the playback early (Ctrl-C); everything is still cleaned up. */
  signal?: AbortSignal;
  /** How long the daemon may take over one event before the next is played (default 5 s). */
  eventWaitMs?: number;
}

/** A notification as the console channel delivered it (the webhook channel's JSON body shape). */
export type DemoNotification = ReturnType<typeof notificationPayload>['notification'];

/** What the demo did, for `--json` and for tests. */
export interface DemoSummary {
  events: DemoEventResult[];
  commands: DemoCommand[];
  notifications: DemoNotification[];
  ledger: SessionRecord[];
  platform: {
    requests: { method: string; path: string; status: number }[];
    /** The tags of each replayed session on the (simulated) platform afterwards. */
    tags: Record<string, unknown[]>;
  };
  /** What the shipped log-commands.mjs hook wrote. */
  commandLog: Record<string, unknown>[];
  /** Whether the daemon finished every delivery before the demo stopped waiting. */
  drained: boolean;
  /** Stopped early by the signal (Ctrl-C): not every event was played. */
  interrupted: boolean;
  /** The temp root, when kept (--keep). */
  keptAt: string | null;
  /** What the watchers on the platform API raised for the scripted changes (docs/watch.md). */
  watch: { changes: string[]; notifications: DemoNotification[] };
}

export const DEFAULT_PAUSE_MS = 150;
/** How long the demo waits for the daemon to process one event, and to drain at the end. */
const EVENT_WAIT_MS = 5000;
const DRAIN_WAIT_MS = 15_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function waitUntil(check: () => boolean, timeoutMs: number, everyMs = 15): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() >= deadline) return false;
    await sleep(everyMs);
  }
  return true;
}

function locatePackage(options: RunDemoOptions): string {
  const root = options.packageRoot ?? findPackageRoot(dirname(fileURLToPath(import.meta.url)));
  if (!root || !existsSync(join(root, 'demo-session', 'factory-home'))) {
    throw new CliError(
      'the demo session (demo-session/) was not found beside hookd',
      1,
      'reinstall hookd: its package ships demo/ (package.json "files")',
    );
  }
  return root;
}

/** The sessions of the recording: the main one, and the sub-agents (SessionStart with a calling session). */
function sessionsOf(events: DemoEvent[]): {
  mainId: string;
  subagents: Set<string>;
  withEvents: Set<string>;
} {
  const withEvents = new Set<string>();
  const subagents = new Set<string>();
  for (const e of events) {
    const id = str(e.payload.session_id);
    if (id) withEvents.add(id);
    if (id && e.payload.hook_event_name === 'SessionStart' && str(e.payload.calling_session_id))
      subagents.add(id);
  }
  const mainId = str(events[0]?.payload.session_id);
  if (!mainId) throw new CliError('the demo session has no events with a session id', 1);
  return { mainId, subagents, withEvents };
}

/** A console channel writing to `out` that also keeps every notification it delivered. */
function recordingConsole(out: Out | undefined, into: DemoNotification[]): Channel {
  const inner = createConsoleChannel(
    'console',
    { type: 'console', enabled: true, timeoutMs: 10_000 },
    {
      stream: { write: (text: string) => out?.write(text), isTTY: out?.isTTY ?? false },
      color: out?.color ?? false,
      label: 'demo output',
    },
  );
  return {
    ...inner,
    send: (notification: RenderedNotification, context) => {
      into.push(notificationPayload(notification, context, inner.name).notification);
      return inner.send(notification, context);
    },
  };
}

function readJsonLines(path: string): Record<string, unknown>[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
}

/** What a request to the simulator was for, in the demo's words. */
function requestPurpose(method: string, path: string): string {
  if (method === 'GET' && /\/messages\//.test(path))
    return 'a final message missing from the local transcript';
  if (method === 'PATCH' && /^\/api\/v0\/sessions\//.test(path))
    return 'the ledger tags the finished session';
  return '';
}

function printPlatform(out: Out, summary: DemoSummary, mainId: string): void {
  out.write(heading('Platform API (local simulator)', out));
  const shortPath = (path: string) => path.replace(/([0-9a-f]{8})-[0-9a-f-]{27}/g, '$1…');
  const width = Math.max(0, ...summary.platform.requests.map((r) => shortPath(r.path).length));
  for (const r of summary.platform.requests) {
    const purpose = requestPurpose(r.method, r.path);
    out.write(
      `${r.method.padEnd(5)} ${shortPath(r.path).padEnd(width)}  ${r.status}${purpose ? paint(out, 'gray', `  ${purpose}`) : ''}\n`,
    );
  }
  if (summary.platform.requests.length === 0) out.write(paint(out, 'gray', 'no request was needed\n'));
  const tags = (summary.platform.tags[mainId] ?? []) as {
    name?: string;
    metadata?: Record<string, unknown>;
  }[];
  const tag = tags.find((t) => t.name === 'hookd');
  if (tag) {
    const meta = Object.entries(tag.metadata ?? {})
      .filter(([, v]) => v !== null)
      .map(
        ([k, v]) =>
          `${k}=${typeof v === 'number' ? Math.round(v) : typeof v === 'string' ? v : JSON.stringify(v)}`,
      )
      .join(' ');
    out.write(`session ${mainId.slice(0, 8)} on the platform is now tagged "hookd": ${meta}\n`);
  }
}

const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

function printClosing(out: Out, summary: DemoSummary, packageRoot: string): void {
  out.write(heading('Done', out));
  out.write(
    `${count(summary.events.length, 'event')}, ${count(summary.commands.length, 'hook command')}, ` +
      `${count(summary.notifications.length, 'notification')}, ${count(summary.ledger.length, 'session')} in the ledger.\n`,
  );
  if (!summary.drained)
    out.write(
      paint(out, 'yellow', 'The daemon had not delivered everything when the demo stopped waiting.\n'),
    );
  if (summary.keptAt) {
    out.write(`\nEverything is kept in ${summary.keptAt}. Look around with:\n`);
    out.write(
      `  HOME=${summary.keptAt}/home HOOKD_CONFIG=${summary.keptAt}/config.json HOOKD_STATE_DIR=${summary.keptAt}/state HOOKD_DATA_DIR=${summary.keptAt}/data hookd sessions\n`,
    );
  }
  out.write('\nNow wire it into your agent:\n');
  out.write(
    `  ${paint(out, 'cyan', 'hookd install')}   wire hookd into Droid's hooks (--agent ${AGENT_IDS.filter((a) => a !== DEFAULT_AGENT).join('|')} for the others)\n`,
  );
  out.write(`  ${paint(out, 'cyan', 'hookd doctor')}    check what is configured and what works\n`);
  out.write(`  ${paint(out, 'cyan', 'hookd logs -f')}   watch every event and command as it happens\n`);
  const readme = join(packageRoot, 'README.md');
  out.write(`Configuration: ${existsSync(readme) ? readme : 'https://github.com/hookd/hookd#readme'}\n`);
}

/**
 * True once the daemon is done with `acked` acknowledged hand-offs: each is processed, or was a copy of
 * an event it had taken already (answered `"duplicate": true`, never processed: docs/daemon.md, "The same
 * event twice").
 */
export function handOffsDone(stats: Pick<DaemonStats, 'events'>, acked: number): boolean {
  return stats.events.processed + stats.events.duplicates >= acked;
}

/** Every event the daemon took is processed and every delivery made. */
function idle(daemon: Pick<DaemonHandle, 'stats'>): boolean {
  const s = daemon.stats();
  return (
    s.events.pending === 0 &&
    s.events.processed >= s.events.received &&
    s.outbox.pending === 0 &&
    s.outbox.held === 0
  );
}

/**
 * The watchers on the platform API: each takes a baseline, the simulator makes one change each
 * watcher sees, and each polls again; what they raise reaches the console like any notification.
 */
async function showWatchers(daemon: Daemon, simulator: Simulator, out: Out | undefined): Promise<string[]> {
  const runner = daemon.watchers;
  if (!runner) return [];
  out?.write(heading('Platform watchers (hookd watch): one scripted change each', out));
  for (const name of runner.enabled()) await runner.pollNow(name);
  const owner = simulator.state.users.find((u) => u.role === 'Owner')!;
  const computer = simulator.state.computers.find((c) => c.steps.every((step) => !step.failWith));
  const script = simulator.script;
  const changes: [string, () => void][] = [
    ['950,000,000 more credits used', () => script.addUsage(owner.loginEmail, 950_000_000)],
    [
      `computer ${computer?.name ?? '?'} fails`,
      () => computer && script.setComputerStatus(computer.id, 'error'),
    ],
    ['an enterprise control changes', () => void script.changeControls({ sessionRetentionDays: 30 })],
    [
      'a readiness report arrives',
      () => void script.addReadinessReport('https://github.com/acme/demo', 7, 9),
    ],
    ['someone joins', () => void script.addMember('new.hire@acme.example')],
  ];
  for (const [what, change] of changes) {
    change();
    out?.write(paint(out, 'gray', `scripted: ${what}\n`));
  }
  for (const name of runner.enabled()) await runner.pollNow(name);
  await waitUntil(() => idle(daemon), DRAIN_WAIT_MS);
  return changes.map(([what]) => what);
}

/** Puts the recorded session store and config in place and seeds the simulator with the sessions. */
function prepare(
  layout: DemoLayout,
  packageRoot: string,
  simulator: Simulator,
): {
  events: DemoEvent[];
  mainId: string;
  subagents: Set<string>;
  feeder: ReturnType<typeof createTranscriptFeeder>;
} {
  const sessionDir = join(packageRoot, 'demo-session');
  const paths = { home: layout.home, cwd: layout.project };
  const events = loadDemoEvents(sessionDir, paths);
  const { mainId, subagents, withEvents } = sessionsOf(events);
  // A sub-agent's final message is left out of its local transcript: the platform API supplies it.
  const drop = new Set(
    events
      .filter((e) => e.payload.hook_event_name === 'Stop' && subagents.has(str(e.payload.session_id) ?? ''))
      .map((e) => str(e.payload.message_id))
      .filter((id): id is string => id !== undefined),
  );
  const store = readRecordedStore(join(sessionDir, 'factory-home'), paths);
  const transcripts: { sessionId: string; path: string; text: string }[] = [];
  for (const file of store) {
    const transcriptOf = /^sessions\/[^/]+\/([^/]+)\.jsonl$/.exec(file.path)?.[1];
    const target = join(layout.factoryHome, file.path);
    if (transcriptOf && withEvents.has(transcriptOf)) {
      transcripts.push({ sessionId: transcriptOf, path: target, text: file.text });
      const settings = store.find((f) => f.path === file.path.replace(/\.jsonl$/, '.settings.json'));
      simulator.state.sessions.set(
        transcriptOf,
        platformSessionFromTranscript(
          transcriptOf,
          file.text,
          settings ? (JSON.parse(settings.text) as Record<string, unknown>) : undefined,
        ),
      );
      continue;
    }
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, file.text);
  }
  writeFileSync(layout.config, `${JSON.stringify(demoConfig(), null, 2)}\n`);
  return { events, mainId, subagents, feeder: createTranscriptFeeder(transcripts, drop) };
}

/**
 * `hookd demo`: plays a real recorded Droid session through the real hook path (commands, hand-off over
 * the unix socket) and an in-process daemon wired like `hookd daemon run` (enrichment, ledger, tagging),
 * against the platform simulator, all inside a temp root that is removed afterwards. Prints the events
 * with the commands that ran, the notifications as the console channel delivers them, the ledger and
 * the platform requests, and returns the same as data.
 */
export async function runDemo(options: RunDemoOptions = {}): Promise<DemoSummary> {
  const out = options.out;
  const pauseMs = options.pauseMs ?? DEFAULT_PAUSE_MS;
  const packageRoot = locatePackage(options);
  const layout = createDemoLayout(options.env ?? process.env);
  let simulator: Simulator | undefined;
  let handle: DaemonHandle | undefined;
  let wiring: DaemonWiring | undefined;
  const notifications: DemoNotification[] = [];
  try {
    simulator = await startSimulator({ seed: 'hookd-demo' });
    const env = demoEnv(layout, options.env ?? process.env, {
      hooksDir: join(packageRoot, 'hooks'),
      api: { baseUrl: simulator.baseUrl, appUrl: simulator.appUrl, apiKey: simulator.keys.owner },
    });
    const { events, mainId, subagents, feeder } = prepare(layout, packageRoot, simulator);
    const config = demoConfig() as WiringConfig;
    const logger = createDaemonLogger(env, 'info');
    wiring = await createDaemonWiring(env, config, { logger });
    handle = await startDaemon({
      env,
      logger,
      watchConfig: false,
      channels: { console: recordingConsole(out, notifications) },
      ...wiring.startOptions,
      // The demo polls the watchers itself, after the session, so their requests come last.
      ...(wiring.startOptions.watch
        ? { watch: { ...wiring.startOptions.watch, timers: { set: () => undefined, clear: () => {} } } }
        : {}),
    });
    const daemon = handle;

    if (out) {
      out.write(
        `${paint(out, 'bold', 'hookd demo')}: a real Droid 0.225.2 session (${events.length} events: a sub-agent, two permission\n` +
          'prompts, a resume and a compaction) played through hookd: hook commands, a daemon on a unix socket,\n' +
          'notifications to this terminal, the session ledger, and a local simulator of the platform API.\n',
      );
      out.write(paint(out, 'gray', `Nothing outside ${layout.root} is read or written.\n`));
      out.write(heading('Events, the hook commands they ran, and notifications', out));
    }

    const io: ProcessIO = {
      env,
      cwd: layout.project,
      logger: createLineLogger(logFilePath(env)),
      validator: () => validator,
      handOff,
    };
    const results: DemoEventResult[] = [];
    let acked = 0;
    for (const [i, event] of events.entries()) {
      if (options.signal?.aborted) break;
      const sessionId = str(event.payload.session_id) ?? '';
      feeder.before(sessionId, str(event.payload.hook_event_name) ?? '');
      const report = await processEvent(Buffer.from(event.raw), io);
      const result = demoEventResult(i + 1, report, subagents.has(sessionId));
      results.push(result);
      out?.write(formatDemoEvent(result, out));
      if (report.handoff?.outcome === 'acked') acked++;
      // The daemon reads the transcript as it is now: let it finish this event before the next lines land.
      await waitUntil(() => handOffsDone(daemon.stats(), acked), options.eventWaitMs ?? EVENT_WAIT_MS);
      if (pauseMs > 0 && i < events.length - 1) await sleep(pauseMs);
    }
    feeder.finish();

    const drained = await waitUntil(() => options.signal?.aborted === true || idle(daemon), DRAIN_WAIT_MS);

    const sessionRequests = simulator.requests.length;
    const sessionNotifications = notifications.length;
    const changes =
      options.signal?.aborted || !drained ? [] : await showWatchers(daemon as Daemon, simulator, out);

    const ledger = await createLedger({ dataDir: layout.dataDir }).list();
    const tags: Record<string, unknown[]> = {};
    for (const id of [mainId, ...subagents]) {
      const value = simulator.state.sessions.get(id)?.sessionSettings.tags;
      tags[id] = Array.isArray(value) ? value : [];
    }
    const summary: DemoSummary = {
      events: results,
      commands: results.flatMap((r) => r.commands),
      notifications: notifications.slice(0, sessionNotifications),
      ledger,
      platform: {
        requests: simulator.requests
          .slice(0, sessionRequests)
          .map((r) => ({ method: r.method, path: r.path, status: r.status })),
        tags,
      },
      commandLog: readJsonLines(layout.commandLog),
      drained,
      watch: { changes, notifications: notifications.slice(sessionNotifications) },
      interrupted: options.signal?.aborted ?? false,
      keptAt: options.keep ? layout.root : null,
    };

    if (out && summary.interrupted) {
      out.write(
        `\nStopped after ${count(results.length, 'event')} of ${events.length}; ${options.keep ? `kept ${layout.root}` : 'cleaned up'}.\n`,
      );
    } else if (out) {
      out.write(heading('Commands logged by hooks/log-commands.mjs', out));
      for (const entry of summary.commandLog)
        out.write(`${String(entry.command)}  ${paint(out, 'gray', `exit ${String(entry.exitCode)}`)}\n`);
      out.write(heading('Session ledger (hookd sessions)', out));
      out.write(formatSessionsTable(ledger, out));
      printPlatform(out, summary, mainId);
      printClosing(out, summary, packageRoot);
    }
    return summary;
  } finally {
    await handle?.close();
    await wiring?.close();
    await simulator?.close();
    if (!options.keep) rmSync(layout.root, { recursive: true, force: true });
  }
}
