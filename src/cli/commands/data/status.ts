import type { CommandModule } from 'yargs';
import { daemonState, liveSessions, type DaemonState, type DaemonStats } from '../../../daemon/admin.js';
import { isLive, type SessionState } from '../../../notify/session-state.js';
import { probeDesktop } from '../../../channels/desktop.js';
import { loadConfig } from '../../../config/load.js';
import { validator } from '../../../config/resolve.js';
import { notifySettings } from '../../../config/schemas/notify-schema.js';
import type { ConfigIssue } from '../../../config/issues.js';
import {
  formatAgo,
  formatDuration,
  formatJson,
  formatTable,
  paint,
  safeData,
  safeText,
  type Out,
} from '../../../terminal/output.js';
import { journalTrouble } from '../../../daemon/admin.js';
import type { WatcherRow } from '../../../watch/report.js';
import {
  describeDetection,
  describeReading,
  presenceStatusSchema,
  type PresenceStatus,
} from '../../../notify/presence.js';
import { agentEventPaths, type EventPath } from '../../../doctor/checks/agent/event-paths.js';
import type { HookdConfig } from '../../../config/schemas/schema.js';
import { AGENT_PROFILES, AGENTS, type Agent } from '../../../install/agents.js';
import { cli, cliOut } from '../../../terminal/cli-io.js';

interface StatusArgs {
  json: boolean;
}

export interface StatusReport {
  daemon: DaemonState;
  /** The config file as it is on disk now (the daemon may still run the last good one). */
  configOnDisk: { ok: boolean; file?: string; issues: ConfigIssue[] };
  /** Desktop prerequisites as seen from this shell (the daemon reports its own under channels). */
  desktop: { ok: boolean; problems: string[] };
  /** The sessions' states the daemon holds (docs/sessions.md); absent when it does not run. */
  sessions?: SessionState[];
  /** How each event reaches hookd, per agent whose settings wire it (user and current project files). */
  paths: Partial<Record<Agent, EventPath[]>>;
}

/** One line per agent: the events by path, and the events the config needs that are not wired. */
export function formatPaths(unsafePaths: StatusReport['paths'], out: Pick<Out, 'color'>): string[] {
  // Event names and matchers come from agent settings files (a repository's among them).
  const paths = safeData(unsafePaths);
  const lines: string[] = [];
  for (const agent of AGENTS) {
    const list = paths[agent];
    if (!list) continue;
    const by = (path: EventPath['path']) =>
      list
        .filter((p) => p.path === path)
        .map(
          (p) =>
            p.event +
            (p.matcher ? ` [${p.matcher}]` : '') +
            (p.reasons.length === 0 && path !== 'not wired' ? ' (not needed)' : ''),
        );
    const parts = (['fast', 'node', 'http'] as const)
      .filter((path) => by(path).length > 0)
      .map((path) => `${path === 'http' ? 'http (no longer served)' : path}: ${by(path).join(', ')}`);
    lines.push(`${AGENT_PROFILES[agent].displayName} paths: ${parts.join('; ') || 'none'}`);
    const missing = list.filter((p) => p.path === 'not wired' && p.reasons.length > 0).map((p) => p.event);
    if (missing.length > 0)
      lines.push(
        paint(
          out,
          'yellow',
          `  not wired, but the config needs: ${missing.join(', ')} (hookd install --agent ${agent})`,
        ),
      );
    for (const p of list.filter((x) => x.shadowedBy))
      lines.push(
        paint(out, 'yellow', `  ${p.event}: hookd's entry in ${p.file} never runs: ${p.shadowedBy} names it`),
      );
    const off = [...new Set(list.flatMap((p) => (p.off ? [p.off] : [])))];
    for (const reason of off) lines.push(paint(out, 'red', `  hooks switched off: ${reason}`));
  }
  return lines;
}

/** One row per session: its state (and why it waits), since when, its last event. */
export function formatSessionStates(
  sessions: readonly SessionState[],
  out: Pick<Out, 'color'>,
  now: number,
): string {
  if (sessions.length === 0) return 'no sessions\n';
  const colour = (s: SessionState) =>
    s.phase === 'waiting' ? 'yellow' : s.phase === 'failed' || s.phase === 'interrupted' ? 'red' : 'green';
  return formatTable(
    [...sessions].sort((a, b) => b.lastEventAt - a.lastEventAt),
    [
      { header: 'SESSION', value: (s) => s.id, max: 48 },
      { header: 'AGENT', value: (s) => (s.parent ? `${s.agent} (sub-agent)` : s.agent) },
      {
        header: 'STATE',
        value: (s) =>
          `${s.phase}${s.waitingFor ? ` (${s.waitingFor})` : ''}${s.failure ? `: ${s.failure}` : ''}`,
        color: colour,
      },
      { header: 'SINCE', value: (s) => formatAgo(now - s.since) },
      { header: 'LAST EVENT', value: (s) => `${s.lastEvent} (${s.transition})` },
      { header: 'CWD', value: (s) => s.cwd ?? '-', max: 40 },
    ],
    out,
  );
}

/**
 * OpenTelemetry (docs/telemetry.md): one line per exported signal (where, queued, dropped) and one for
 * the receiver (port, token file, requests); a receiver that does not listen is a problem.
 */
export function formatTelemetry(t: DaemonStats['telemetry'], problems: string[]): string[] {
  if (!t) return [];
  const lines = Object.entries(t.export ?? {}).map(
    ([signal, e]) =>
      `export ${signal}: ${e.url}, ${e.sent} sent, ${e.queued} queued, ${e.dropped} dropped${e.lastError ? `, last error: ${e.lastError}` : ''}`,
  );
  const r = t.receiver;
  if (r?.port !== undefined)
    lines.push(
      `receiver: 127.0.0.1:${r.port} (token ${r.tokenFile}), ${r.counts.accepted} accepted, ${r.counts.unauthorized} without the token, ${r.counts.refused} refused`,
    );
  else if (r) {
    lines.push('receiver: not listening');
    problems.push(`OTLP receiver: ${r.problem ?? 'not listening'}`);
  }
  return lines;
}

/** "presence: xprintidle, active (idle 3s), read 1s ago" (docs/sessions.md#presence). */
export function formatPresence(p: PresenceStatus, now: number): string {
  if (p.setting === 'off') return 'presence: off';
  if (!p.detection) return 'presence: detecting the idle source';
  const reading =
    p.last && p.detection.source !== 'none'
      ? `, ${describeReading(p.last)}, read ${formatAgo(now - p.last.at)}`
      : '';
  // The detection's reasons quote what the probes printed.
  return safeText(`presence: ${describeDetection(p.detection)}${reading}`);
}

/** The live sessions of those the daemon holds. */
export function liveOnly(sessions: readonly SessionState[]): SessionState[] {
  return sessions.filter(isLive);
}

/** Everything `hookd status` shows, as data. */
export async function statusReport(env: Record<string, string | undefined>): Promise<StatusReport> {
  const daemon = await daemonState(env);
  let configOnDisk: StatusReport['configOnDisk'];
  let desktopWanted = true;
  let config: HookdConfig | undefined;
  try {
    const loaded = loadConfig({ env, projectDir: undefined, validator: () => validator, useCache: false });
    config = loaded.config;
    const issues = loaded.sources.flatMap((s) => s.issues);
    configOnDisk = { ok: issues.length === 0, file: loaded.sources[0]?.file, issues };
    const notify = notifySettings(loaded.config.notify);
    desktopWanted =
      notify.rules === undefined ||
      Object.values(notify.channels).some((c) => c.type === 'desktop' && c.enabled);
  } catch (error) {
    configOnDisk = {
      ok: false,
      issues: [{ file: '(config)', path: '(root)', message: (error as Error).message }],
    };
  }
  const desktop = desktopWanted
    ? probeDesktop({ platform: process.platform, arch: process.arch, env })
    : { ok: true, problems: [] };
  const sessions = daemon.running ? await liveSessions(env) : undefined;
  const byAgent = await agentEventPaths(env, cli().cwd, config);
  const paths = Object.fromEntries(
    AGENTS.filter((a) => byAgent[a].some((p) => p.path !== 'not wired')).map((a) => [a, byAgent[a]]),
  );
  return {
    paths,
    daemon,
    configOnDisk,
    desktop: { ok: desktop.ok, problems: desktop.problems },
    ...(sessions ? { sessions: liveOnly(sessions) } : {}),
  };
}

/** "watchers:" and one line per watcher turned on (docs/watch.md); failures go to the problems too. */
export function formatWatchers(
  watchers: WatcherRow[],
  out: Pick<Out, 'color'>,
  now: number,
  problems: string[],
): string[] {
  const on = watchers.filter((w) => w.enabled);
  if (on.length === 0) return [];
  const lines = ['watchers:'];
  const when = (at: number | undefined) =>
    at === undefined ? '-' : at <= now ? formatAgo(now - at) : `in ${formatDuration(at - now)}`;
  for (const w of on) {
    const failing = w.failures > 0;
    const state = paint(out, failing ? 'red' : w.status === 'ok' ? 'green' : 'gray', w.status);
    const backoff =
      failing && w.backoffMs !== undefined
        ? ` (${w.failures} failed in a row, backing off ${formatDuration(w.backoffMs)})`
        : '';
    lines.push(
      `  ${w.name}: ${state}${backoff}, last poll ${when(w.lastPollAt)}, next ${when(w.nextPollAt)}, ${w.raised} raised`,
    );
    if (failing && w.lastError) problems.push(`watcher ${w.name}: ${w.lastError}`);
  }
  return lines;
}

/** The report for people: daemon, config, counts, one row per channel, then every problem. */
export function formatStatus(unsafeReport: StatusReport, out: Pick<Out, 'color'>, now = Date.now()): string {
  // Paths, session ids, channel errors and problems hold event and command data: escaped before use.
  const report = safeData(unsafeReport);
  const lines: string[] = [];
  const problems: string[] = [];
  const d = report.daemon;
  if (d.running) {
    const s = d.stats;
    lines.push(
      `${paint(out, 'green', 'daemon: running')} (pid ${s.pid}, up ${formatDuration(s.uptimeMs)}) ${s.socketPath}`,
    );
    // Older daemons do not say what they listen on.
    if (s.listening)
      lines.push(
        safeText(
          `listening: ${s.listening.control} (control)${s.listening.fast ? `, ${s.listening.fast.socket} (fast client, protocol ${s.listening.fast.protocol})` : ', no fast listener'}; no TCP port`,
        ),
      );
    if (s.config.ok)
      lines.push(
        `config: ok (${s.config.file ?? 'built-in'}, loaded ${formatAgo(s.config.appliedAt ? now - s.config.appliedAt : undefined)})`,
      );
    else {
      lines.push(
        `${paint(out, 'red', 'config: invalid edit rejected')} (${s.config.file ?? '?'}); running the last good config from ${formatAgo(s.config.appliedAt ? now - s.config.appliedAt : undefined)}`,
      );
      for (const issue of s.config.issues)
        problems.push(`config ${issue.path}: ${issue.message}${issue.fix ? ` (fix: ${issue.fix})` : ''}`);
    }
    lines.push(
      `events: ${s.events.received} received (${s.events.fromSpool} from spool, ${s.events.duplicates} duplicates dropped, ${s.events.rejected} rejected), ${s.events.pending} pending`,
    );
    lines.push(
      `notifications: ${s.notifications.fired} fired, ${s.notifications.suppressed} suppressed, ${s.notifications.coalesced} coalesced, ${s.notifications.held} held for quiet hours`,
    );
    lines.push(`outbox: ${s.outbox.pending} pending, ${s.outbox.held} held, ${s.outbox.dead} dead`);
    const presence = presenceStatusSchema.safeParse(s.presence);
    if (presence.success) lines.push(formatPresence(presence.data, now));
    if (s.watchers) lines.push(...formatWatchers(s.watchers, out, now, problems));
    lines.push(...formatTelemetry(s.telemetry, problems));
    lines.push('');
    lines.push(
      formatTable(
        s.channels,
        [
          { header: 'CHANNEL', value: (c) => c.name },
          { header: 'TYPE', value: (c) => c.description, max: 40 },
          {
            // An older daemon says only whether the channel's own check passed.
            header: 'STATE',
            value: (c) => c.state ?? (c.healthy ? 'ok' : 'unusable'),
            color: (c) => ((c.state ?? (c.healthy ? 'ok' : 'unusable')) === 'ok' ? 'green' : 'red'),
          },
          { header: 'PENDING', value: (c) => String(c.pending), align: 'right' },
          { header: 'SENT', value: (c) => String(c.delivered), align: 'right' },
          { header: 'DEAD', value: (c) => String(c.dead), align: 'right' },
          {
            header: 'LAST SENT',
            value: (c) => formatAgo(c.lastDeliveredAt ? now - c.lastDeliveredAt : undefined),
          },
          { header: 'LAST ERROR', value: (c) => c.lastError ?? '-', max: 60 },
        ],
        out,
      ).trimEnd(),
    );
    for (const c of s.channels) for (const p of c.problems) problems.push(`${c.name}: ${p}`);
    if (report.sessions) {
      lines.push('');
      lines.push(`live sessions: ${report.sessions.length}`);
      if (report.sessions.length > 0) lines.push(formatSessionStates(report.sessions, out, now).trimEnd());
    }
    if (s.journal.error) problems.push(journalTrouble(s.journal.file, s.journal.error));
  } else {
    lines.push(
      `${paint(out, 'yellow', 'daemon: not running')} (${d.reason})${d.pid ? `; pid ${d.pid} holds the lock` : ''}`,
    );
    lines.push(`spool: ${d.spooled} event(s) waiting for the daemon`);
    lines.push(
      `journal: ${d.pendingEvents} event(s) to process; outbox ${d.outbox.pending} pending, ${d.outbox.held} held, ${d.outbox.dead} dead`,
    );
    lines.push(
      'start it with `hookd daemon start` (hooks start it on their own unless daemon.autoStart is false)',
    );
    for (const p of report.desktop.problems) problems.push(`desktop: ${p}`);
  }
  const pathLines = formatPaths(report.paths ?? {}, out);
  if (pathLines.length > 0) lines.push('', ...pathLines);
  if (!report.configOnDisk.ok && !(d.running && !d.stats.config.ok)) {
    for (const issue of report.configOnDisk.issues)
      problems.push(`config ${issue.path}: ${issue.message}${issue.fix ? ` (fix: ${issue.fix})` : ''}`);
  }
  if (problems.length > 0) {
    lines.push('');
    lines.push(paint(out, 'red', 'problems:'));
    for (const p of problems) lines.push(`  - ${p}`);
  }
  return `${lines.join('\n')}\n`;
}

export const statusCommand: CommandModule<object, StatusArgs> = {
  command: 'status',
  describe: 'Show the daemon, its config, its channels and what is waiting to be delivered',
  builder: (y) =>
    y
      .option('json', { type: 'boolean', default: false, describe: 'Print the status as JSON' })
      .example('hookd status', 'Is the daemon up, and can it notify me?')
      .example('hookd status --json | jq .daemon.stats.channels', 'Channel health for scripts'),
  handler: async (args) => {
    const out = cliOut();
    const report = await statusReport(cli().env);
    out.write(args.json ? formatJson(report) : formatStatus(report, out));
  },
};
