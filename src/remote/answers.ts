import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { interpolateEnv } from '../config/interpolate.js';
import { ntfyServerProblem, type RemoteConfig } from '../config/schemas/remote-schema.js';
import type { HookEvent } from '../events/types.js';
import type { PresenceReading } from '../notify/presence.js';
import { dataDir, type Env } from '../paths.js';
import { claudeDenyOnly, claudeSettingsFiles, readAskRules } from './ask-rules.js';
import { Broker, type BrokerRecord } from './broker.js';
import { inputHash } from './canonical.js';
import { NtfyRemoteChannel } from './ntfy-channel.js';
import { createDesktopAnswerChannel } from './desktop-channel.js';
import { createSlackApprovalChannel, resolveSlackConfig } from './slack-approval.js';
import { summarizeCall } from './summary.js';
import type { PermissionRequest, RemoteChannel } from './types.js';
import type { FetchLike } from '../util/fetch-with-timeout.js';
import type { SpawnLike } from '../process/run.js';
import { openPrivateAppend, writeAll } from '../util/private-fs.js';
import { closeSync } from 'node:fs';

/**
 * Remote answers in the daemon (docs/remote.md): the broker built from the user's `remote` config, the
 * asks the hook sends over the socket, the session events that say the prompt was answered at the
 * terminal, and the record of every ask, decision and refused answer (the daemon's log and
 * `<data dir>/ledger/remote-answers.jsonl`).
 */

/** Events of a session that mean its open prompt was answered at the terminal (or the turn moved on). */
const MOVED_ON = new Set([
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'PermissionDenied',
  'Stop',
  'SubagentStop',
  'UserPromptSubmit',
  'SessionEnd',
]);

/** The daemon answers this long before the hook's own wait ends, so its answer is always heard. */
const ANSWER_MARGIN_MS = 1000;

export type PermissionReply = {
  ok: true;
  decision?: 'allow' | 'deny';
  by?: string;
  via?: string;
  ask?: string;
  reason?: string;
};

export interface RemoteAnswersOptions {
  env: Env;
  logger: Logger;
  now: () => number;
  remote: () => RemoteConfig | undefined;
  presence: () => Promise<Pick<PresenceReading, 'state'>>;
  fetch?: FetchLike | undefined;
  /** Channels to use instead of the configured ones (tests of other channels). */
  channels?: RemoteChannel[] | undefined;
  /** How the desktop channel starts notify-send: the daemon's spawner. */
  spawn?: SpawnLike | undefined;
  /** ntfy's first reconnect delay (tests use less). */
  ntfyBackoffMs?: number | undefined;
}

/** The record file of remote answers. */
export function remoteRecordFile(env: Env): string {
  return join(dataDir(env), 'ledger', 'remote-answers.jsonl');
}

export class RemoteAnswers {
  private broker: Broker | undefined;
  private key: string | undefined;
  private rebuilding: Promise<void> = Promise.resolve();

  constructor(private readonly o: RemoteAnswersOptions) {}

  /** Builds the broker from the config in force (again when it changed). */
  async start(): Promise<void> {
    await this.reconfigure();
  }

  /** Called on every config change: a changed `remote` section rebuilds the broker (open asks end). */
  reconfigure(): Promise<void> {
    this.rebuilding = this.rebuilding.then(() => this.rebuild());
    return this.rebuilding;
  }

  private async rebuild(): Promise<void> {
    const config = this.o.remote();
    const key = JSON.stringify(config ?? null);
    if (key === this.key) return;
    this.key = key;
    const old = this.broker;
    this.broker = undefined;
    await old?.close();
    if (!config?.enabled) return;
    const channels = this.o.channels ?? this.channelsFor(config);
    if (channels.length === 0) return;
    const broker = new Broker({
      channels,
      approvers: {
        slack: channels.some((c) => c.name === 'slack') ? (config.slack?.approvers ?? []) : [],
        ntfy: channels.some((c) => c.name === 'ntfy') && config.ntfy !== undefined,
        desktop: channels.some((c) => c.name === 'desktop'),
      },
      maxPendingPerSession: config.maxPendingPerSession,
      now: this.o.now,
      random: (bytes) => randomBytes(bytes),
      schedule: (ms, fn) => {
        const timer = setTimeout(fn, Math.max(0, ms));
        timer.unref();
        return () => clearTimeout(timer);
      },
      record: (record) => this.record(record),
    });
    this.broker = broker;
    // Not awaited: a channel that is slow to connect (Slack down, no network) must not hold the daemon's
    // start or a config reload. Asks sent meanwhile still go out; answers arrive once it is connected.
    void broker.start().then(() => {
      if (this.broker === broker)
        this.o.logger.info({ remote: channels.map((c) => c.name) }, 'remote answers ready');
    });
  }

  private channelsFor(config: RemoteConfig): RemoteChannel[] {
    const channels: RemoteChannel[] = [];
    if (config.ntfy) {
      const { value, missing } = interpolateEnv(config.ntfy, this.o.env);
      // A server named by a variable is checked once filled in: never a public server, never plain http.
      const problem = missing.length > 0 ? undefined : ntfyServerProblem(value.server);
      if (missing.length > 0)
        this.o.logger.error(
          { missing },
          `remote.ntfy names unset variables (${missing.join(', ')}); ntfy answers are off`,
        );
      else if (problem)
        this.o.logger.error({ server: value.server }, `remote.ntfy.server: ${problem}; ntfy answers are off`);
      else
        channels.push(
          new NtfyRemoteChannel({
            config: value,
            ...(this.o.fetch ? { fetch: this.o.fetch } : {}),
            ...(this.o.ntfyBackoffMs ? { backoffMs: this.o.ntfyBackoffMs } : {}),
            onTrouble: (message, detail) => this.o.logger.warn({ remote: 'ntfy', ...detail }, message),
          }),
        );
    }
    if (config.slack) {
      const resolved = resolveSlackConfig(config.slack, this.o.env);
      if ('error' in resolved) this.o.logger.error(`${resolved.error}; Slack answers are off`);
      else
        channels.push(
          createSlackApprovalChannel(resolved.config, {
            log: this.o.logger.child({ remote: 'slack' }),
            ...(this.o.fetch ? { fetch: this.o.fetch } : {}),
          }),
        );
    }
    const spawn = this.o.spawn;
    if (config.desktop?.enabled && !spawn)
      this.o.logger.error('remote.desktop: no way to start notify-send here; desktop answers are off');
    else if (config.desktop?.enabled && spawn) {
      const logger = this.o.logger.child({ remote: 'desktop' });
      channels.push(
        createDesktopAnswerChannel({
          spawn,
          env: this.o.env,
          now: this.o.now,
          logger: { log: (level, fields, msg) => logger[level](fields, msg) },
        }),
      );
    }
    return channels;
  }

  /** Every ask, decision and refused answer: the daemon's log and the private record file. */
  private record(record: BrokerRecord): void {
    const level = record.kind === 'refused' || record.kind === 'channel-error' ? 'warn' : 'info';
    const text =
      record.kind === 'refused'
        ? `remote answer refused (${record.reason}) from ${record.by} via ${record.via}`
        : record.kind === 'decided'
          ? `remote ask ${record.ask} ended: ${record.result}${record.by ? ` by ${record.by} via ${record.via}` : ''}`
          : record.kind === 'asked'
            ? `remote ask ${record.ask} sent for ${record.tool}`
            : record.kind === 'not-asked'
              ? `permission prompt not sent away (${record.reason})`
              : `remote channel ${record.via} failed: ${record.error}`;
    this.o.logger[level]({ remoteAnswer: record }, text);
    try {
      const fd = openPrivateAppend(remoteRecordFile(this.o.env));
      try {
        writeAll(fd, `${JSON.stringify(record)}\n`);
      } finally {
        closeSync(fd);
      }
    } catch (error) {
      this.o.logger.error({ error: (error as Error).message }, 'cannot write the record of remote answers');
    }
  }

  /** A hook's PermissionRequest: sent away when configured and nobody is at the keyboard; else no decision. */
  async ask(request: PermissionRequest): Promise<PermissionReply> {
    await this.rebuilding;
    const broker = this.broker;
    const config = this.o.remote();
    if (!broker || !config?.enabled) return { ok: true, reason: 'off' };
    if (config.whenPresent === 'skip') {
      const reading = await this.o.presence();
      if (reading.state === 'active') return { ok: true, reason: 'present' };
    }
    const rules = readAskRules(claudeSettingsFiles(this.o.env, request.project));
    const payload = {
      tool_name: request.tool,
      tool_input: request.input,
      ...(request.suggestions ? { permission_suggestions: [] } : {}),
    };
    const denyOnly = request.agent === 'claude' ? claudeDenyOnly(payload, rules) : { denyOnly: true };
    const result = await broker.request({
      agent: request.agent,
      session: request.session,
      project: request.project,
      tool: request.tool,
      inputSha256: inputHash(request.input),
      summary: summarizeCall(request.agent, request.tool, request.input, request.project, this.o.env.HOME),
      waitMs: Math.max(0, request.waitMs - ANSWER_MARGIN_MS),
      denyOnly: denyOnly.denyOnly,
    });
    if (result.decision)
      return { ok: true, decision: result.decision, by: result.by, via: result.via, ask: result.ask };
    return { ok: true, reason: result.reason, ...(result.ask ? { ask: result.ask } : {}) };
  }

  /** An event the daemon took in: a later event of a session with an open ask means the terminal answered. */
  eventSeen(event: Pick<HookEvent, 'name' | 'sessionId' | 'receivedAt'>): void {
    if (this.broker && event.sessionId && MOVED_ON.has(event.name))
      this.broker.sessionMoved(event.sessionId, event.receivedAt);
  }

  async close(): Promise<void> {
    await this.rebuilding;
    this.key = undefined;
    await this.broker?.close();
    this.broker = undefined;
  }
}
