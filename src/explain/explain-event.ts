import { agentEventPaths, pathOf, type EventPath } from '../doctor/checks/agent/event-paths.js';
import { AGENT_PROFILES, AGENTS, type Agent } from '../install/agents.js';
import { loadConfig, type ConfigSource } from '../config/load.js';
import { validator } from '../config/resolve.js';
import { daemonSettings } from '../config/schemas/daemon-schema.js';
import { notifySettings, type NotifyConfig } from '../config/schemas/notify-schema.js';
import type { HookdConfig } from '../config/schemas/schema.js';
import { PROTOCOL_VERSION, requestDaemon } from '../link/client.js';
import { createNoiseState, deserializeNoise, observeEvent, type NoiseState } from '../notify/noise.js';
import { effectiveRules, evaluateRules } from '../notify/rules.js';
import { isWaitingAsk } from '../notify/session-state.js';
import { missingVariables } from '../doctor/checks/notify/missing-variables.js';
import { matcherTarget } from '../events/names.js';
import { parseEvent, type DeclaredAgent } from '../events/parse.js';
import type { HookEvent } from '../events/types.js';
import type { Env } from '../paths.js';
import { commandLabel, planCommands, type EntryLevels } from '../runner/route.js';
import { passesContext } from '../runner/decision.js';
import { ownValue } from '../util/own.js';
import { describeLadder } from '../notify/escalation.js';
import { daemonLadders, describeLadderState } from '../daemon/admin.js';

/** How the agent of an explained event was settled: named (--agent), droid for a built event, or guessed. */
export type AgentFrom = '--agent' | 'built' | 'guessed';

export interface ExplainOptions {
  env: Env;
  /** The agent the event is explained as (as `hookd hook --agent`); guessed from the payload when absent. */
  agent?: DeclaredAgent | undefined;
  /** How `agent` was settled, for the output; default: --agent when given, else guessed. */
  agentFrom?: AgentFrom;
  now?: () => number;
  /** How long to wait for the daemon's answer. */
  daemonTimeoutMs?: number;
}

export interface CommandToRun {
  name: string;
  command: string;
  timeoutMs: number;
  blocking: boolean;
  context: boolean;
  /** The config level it came from: the user's file, or a project file the user trusted. */
  origin?: 'user' | 'project';
  /** The canonical tool kind its entry's `kinds` matched (`shell` for Gemini's run_shell_command). */
  kind?: string;
}

export interface EntryNotRun {
  /** Index of the entry in `hooks.<Event>`. */
  entry: number;
  reason: string;
  /** The commands of that entry, by label. */
  commands: string[];
}

export interface RuleToFire {
  rule: string;
  index: number;
  channels: string[];
  title: string;
  body: string;
  urgency: string;
  /** Held back by quiet hours until this time (ISO), then sent in a digest. */
  heldUntil?: string;
  /**
   * A "waiting" notification held this long (notify.waitingDelayMs) and cancelled if the session moves
   * on first: the next prompt of a person, tool or permission answer (docs/sessions.md).
   */
  waitingHoldMs?: number;
  /** Coalesced with other events of the same kind arriving in a burst. */
  coalesced: boolean;
  /** Its escalation ladder, for people ("slack after 5m00s; ..."): sent while the session is not answered. */
  ladder?: string;
  /** What presence does (`auto`): remote channels wait for the ladder while you are active, etc. */
  presence?: string;
  /** Goes through quiet hours (rule breakthrough, or urgent with quietHours.allowUrgent). */
  breakthrough?: boolean;
  /** Why some of its channels would not deliver (disabled, unset variables). */
  channelProblems: string[];
}

export interface Explanation {
  event: {
    name: string;
    agent: string;
    /** Named with --agent, droid because the payload was built as Droid's, or guessed from the payload. */
    agentFrom: AgentFrom;
    sessionId?: string;
    cwd?: string;
    projectDir?: string;
    /** The payload field an entry's `matcher` is tested against for this event, and its value. */
    matcher?: { field: string; value: unknown };
  };
  /** Set when nothing at all would happen (HOOKD=0). */
  disabled?: string;
  config: { files: ConfigSource[] };
  commands: { run: CommandToRun[]; notRun: EntryNotRun[]; disabled: string[] };
  notifications: {
    /** Why no notification would be sent at all (daemon disabled), when that is so. */
    off?: string;
    builtInRules: boolean;
    fire: RuleToFire[];
    notFire: { rule: string; index: number; reason: string }[];
    /** Whether cooldown/dedupe state of the running daemon was used, and what that means. */
    noiseState: { consulted: boolean; note: string };
    /** The escalation ladders of the event's session (running and recently stopped), and where from. */
    ladders?: { via: 'daemon' | 'journal'; lines: string[] };
  };
  /**
   * How the event reaches hookd under each agent whose settings wire hookd (fast / node / http / not
   * wired), from the agent's settings files, and why the config needs it.
   */
  paths?: {
    agent: Agent;
    path: EventPath['path'];
    file?: string;
    matcher?: string;
    /** hookd's entry is in a settings.json whose hooks.json names the event: it does not run. */
    shadowedBy?: string;
    /** A setting switches the agent's hooks off. */
    off?: string;
    reasons: string[];
  }[];
  /** What explain assumed because it runs nothing. */
  notes: string[];
}

function channelProblems(notify: NotifyConfig, names: readonly string[], env: Env): string[] {
  const problems: string[] = [];
  for (const name of names) {
    const channel = notify.channels[name];
    if (!channel) continue; // the implicit "desktop" channel
    if (!channel.enabled) {
      problems.push(`${name}: disabled (enabled: false), nothing is sent there`);
      continue;
    }
    const missing = missingVariables(channel, env, `notify.channels.${name}`);
    if (missing.length > 0)
      problems.push(`${name}: ${missing.map((m) => m.name).join(', ')} not set here, so it cannot deliver`);
  }
  return problems;
}

function explainCommands(
  event: HookEvent,
  config: HookdConfig,
  levels: EntryLevels,
): Explanation['commands'] {
  const plan = planCommands(event, config, levels);
  const entries = ownValue(config.hooks, event.name) ?? [];
  return {
    run: plan.commands.map((c) => ({
      name: c.name,
      command: c.spec.command,
      timeoutMs: c.timeoutMs,
      blocking: c.spec.blocking,
      context: passesContext(c.spec),
      origin: c.origin,
      ...(c.kind !== undefined ? { kind: c.kind } : {}),
    })),
    notRun: plan.skipped.map((s) => ({
      entry: s.entry,
      reason: s.reason,
      commands: (entries[s.entry]?.hooks ?? []).map(commandLabel),
    })),
    disabled: plan.disabled,
  };
}

/** The running daemon's noise-control memory, so cooldown, dedupe and idle repeats explain themselves. */
async function daemonNoise(
  env: Env,
  timeoutMs: number,
): Promise<{ noise: NoiseState; consulted: boolean; note: string }> {
  const reply = await requestDaemon({ v: PROTOCOL_VERSION, type: 'noise' }, { env, timeoutMs });
  if (reply.ok && reply.reply.ok)
    return {
      noise: deserializeNoise(reply.reply.noise),
      consulted: true,
      note: 'cooldown/dedupe state of the running daemon consulted',
    };
  if (reply.ok)
    return {
      noise: createNoiseState(),
      consulted: false,
      note: `cooldown/dedupe state not consulted: the daemon answered ${String(reply.reply.error ?? 'no')}; rules were evaluated as if nothing had been sent recently`,
    };
  return {
    noise: createNoiseState(),
    consulted: false,
    note: 'cooldown/dedupe state not consulted: daemon not running',
  };
}

/**
 * What hookd would do with an event, without running anything: the commands that would run and why
 * the other entries would not; the notification rules that would fire and why the others would not.
 */
export async function explainEvent(
  payload: Record<string, unknown>,
  options: ExplainOptions,
): Promise<Explanation> {
  const env = options.env;
  const now = (options.now ?? Date.now)();
  // The agent explain was told to take the event for (or droid for a built one) is its sender.
  const parsed = parseEvent(JSON.stringify(payload), env, undefined, options.agent, true);
  if (!parsed.ok) throw new Error(parsed.detail);
  const event = parsed.event;
  const loaded = loadConfig({
    env,
    projectDir: event.projectDir,
    validator: () => validator,
    useCache: false,
  });
  const config = loaded.config;
  const notify = notifySettings(config.notify);
  const daemon = daemonSettings(config.daemon);
  const target = matcherTarget(event.agent, event.name, event.payload);

  const live = await daemonNoise(env, options.daemonTimeoutMs ?? 1000);
  const noise = live.noise;
  observeEvent(noise, event, now);
  const evaluation = evaluateRules(event, {}, notify, noise, now, {
    ...(env.HOME ? { home: env.HOME } : {}),
    results: [],
  });
  const ladders = event.sessionId
    ? await daemonLadders(env, options.daemonTimeoutMs ?? 1000, event.sessionId).catch(() => undefined)
    : undefined;
  const ladderLines = ladders
    ? [...ladders.active, ...ladders.recent.slice(-10)].map((l) => describeLadderState(l, now))
    : [];
  const coalesceOn = notify.noise.coalesceWindowMs > 0;
  const waitingHold = notify.waitingDelayMs > 0 && event.sessionId !== undefined && isWaitingAsk(event);
  const notes = ['texts are shown without enrichment (session title, last message, tokens)'];
  if (effectiveRules(notify).rules.some((r) => r.commandsFailed !== undefined))
    notes.push(
      'hook commands are not run: rules with commandsFailed are evaluated as if every command succeeded',
    );

  const agentFrom = options.agentFrom ?? (options.agent ? '--agent' : 'guessed');
  const byAgent = await agentEventPaths(env, event.projectDir ?? event.cwd ?? process.cwd(), config);
  // The paths under the event's agent (every agent when it cannot be told): of an agent wired to hookd
  // at all, or named with --agent (its event not reaching hookd is then the answer).
  const paths = AGENTS.filter(
    (agent) =>
      (event.agent === agent || event.agent === 'unknown') &&
      ((agentFrom === '--agent' && options.agent === agent) ||
        byAgent[agent].some((p) => p.path !== 'not wired')),
  ).map((agent) => {
    // The agent's settings name the event its own way (Gemini: PreToolUse is BeforeTool).
    const p = pathOf(byAgent[agent], AGENT_PROFILES[agent].nativeEvent?.(event.name) ?? event.name);
    return {
      agent,
      path: p.path,
      ...(p.file ? { file: p.file } : {}),
      ...(p.matcher ? { matcher: p.matcher } : {}),
      ...(p.shadowedBy ? { shadowedBy: p.shadowedBy } : {}),
      ...(p.off ? { off: p.off } : {}),
      reasons: p.reasons,
    };
  });

  return {
    paths,
    event: {
      name: event.name,
      agent: event.agent,
      agentFrom,
      ...(event.sessionId ? { sessionId: event.sessionId } : {}),
      ...(event.cwd ? { cwd: event.cwd } : {}),
      ...(event.projectDir ? { projectDir: event.projectDir } : {}),
      ...(target ? { matcher: { field: target.field, value: target.value ?? null } } : {}),
    },
    ...(env.HOOKD === '0' ? { disabled: 'HOOKD=0 is set: hookd would do nothing for this event' } : {}),
    config: { files: loaded.sources },
    commands: explainCommands(event, config, loaded),
    notifications: {
      ...(!daemon.enabled || env.HOOKD_DAEMON === '0'
        ? {
            off: `${env.HOOKD_DAEMON === '0' ? 'HOOKD_DAEMON=0' : 'daemon.enabled is false'}: the event is not handed to the daemon, so no notification is sent`,
          }
        : {}),
      builtInRules: evaluation.builtInRules,
      fire: evaluation.fired.map((f) => ({
        rule: f.rule,
        index: f.index,
        channels: f.channels,
        title: f.notification.title,
        body: f.notification.body,
        urgency: f.notification.urgency,
        ...(f.deferred && f.quietEndsAt !== undefined
          ? { heldUntil: new Date(f.quietEndsAt).toISOString() }
          : {}),
        ...(waitingHold ? { waitingHoldMs: notify.waitingDelayMs } : {}),
        coalesced: f.coalesce && coalesceOn && !waitingHold,
        ...(f.escalate && event.sessionId ? { ladder: describeLadder(f.escalate) } : {}),
        ...(f.presence === 'auto' && event.sessionId
          ? {
              presence:
                'auto: while you are active here only local channels now (remote ones by the ladder); when idle the first remote step at once; unknown: as written',
            }
          : {}),
        ...(f.breakthrough && notify.quietHours ? { breakthrough: true } : {}),
        channelProblems: channelProblems(notify, f.channels, env),
      })),
      notFire: evaluation.skipped.map((s) => ({ rule: s.rule, index: s.index, reason: s.reason })),
      noiseState: { consulted: live.consulted, note: live.note },
      ...(ladders && ladderLines.length > 0 ? { ladders: { via: ladders.via, lines: ladderLines } } : {}),
    },
    notes,
  };
}
