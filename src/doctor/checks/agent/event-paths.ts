import type { HookdConfig } from '../../../config/schemas/schema.js';
import type { Layer } from '../../../install/agent-files.js';
import { AGENT_PROFILES, AGENTS, type Agent } from '../../../install/agents.js';
import { hooksAt, hooksSwitches } from '../../../install/effective-hooks.js';
import type { Env } from '../../../paths.js';
import { transportOf, type WiredTransport } from '../../../install/transport.js';
import { eventsToWire, type WiringReason } from '../../../install/wiring.js';
import {
  inspectAgentFiles,
  installCommandFor,
  type InspectOptions,
  type SettingsFileState,
} from './agent-settings.js';

/** One of hookd's hooks in a file of the agent, any transport. */
export interface WiredHook {
  file: string;
  layer: Layer;
  event: string;
  /** `hooks.Stop[0].hooks[1]` */
  path: string;
  transport: WiredTransport;
  matcher: string;
  hook: Record<string, unknown>;
  /** The hooks.json of the same Droid folder names the event, so this hook does not run. */
  shadowedBy?: string;
}

/** How one event reaches hookd for an agent, and why the config needs it. */
export interface EventPath {
  event: string;
  /** The transport the settings files give it, or 'not wired'. */
  path: WiredTransport | 'not wired';
  /** The matcher of hookd's entry ('' = every call); the one the config needs in `neededMatcher`. */
  matcher?: string;
  file?: string;
  /** Why the config needs the event; empty when it does not (a wired event then only costs time). */
  reasons: WiringReason[];
  neededMatcher?: string;
  /** Commands run for it: their decisions must reach the agent. */
  commands: boolean;
  /** Not wired because hookd's entry is in a settings.json whose hooks.json names the event. */
  shadowedBy?: string;
  /** A setting switches the agent's hooks off here: `"hooksDisabled": true in <file>`. */
  off?: string;
}

/**
 * hookd's hooks (node, fast, and the retired http) in the files the agent accepts, each with the file
 * that shadows it, if any.
 */
export function wiredHooksOf(states: readonly SettingsFileState[]): WiredHook[] {
  return hooksAt(states).flatMap(({ file, layer, event, path, entry, hook, shadowedBy }) => {
    const transport = transportOf(hook);
    if (!transport) return [];
    const matcher = typeof entry.matcher === 'string' && entry.matcher !== '*' ? entry.matcher : '';
    return [
      {
        file,
        layer,
        event,
        path,
        transport,
        matcher,
        hook: hook as Record<string, unknown>,
        ...(shadowedBy ? { shadowedBy } : {}),
      },
    ];
  });
}

/** True when an agent matcher `wired` sends at least every tool `needed` names ('' is every tool). */
export function matcherCovers(wired: string, needed: string): boolean {
  if (wired === '') return true;
  if (needed === '') return false;
  const have = new Set(wired.split('|'));
  return needed.split('|').every((name) => have.has(name));
}

/**
 * Every event that is wired or needed, in the agent's event order: the path the agent's settings files
 * give it (user and project together, as the agent merges them) and why the config needs it.
 */
export function eventPaths(
  agent: Agent,
  states: readonly SettingsFileState[],
  config: HookdConfig | undefined,
): EventPath[] {
  const all = wiredHooksOf(states);
  const wired = all.filter((w) => !w.shadowedBy);
  const switches = hooksSwitches(agent, states);
  const needed = new Map((config ? eventsToWire(config, agent) : []).map((w) => [w.event, w]));
  const known = AGENT_PROFILES[agent].knownEvents;
  const events = [...known, ...all.map((w) => w.event).filter((e) => !known.includes(e))].filter(
    (e, i, list) => list.indexOf(e) === i && (needed.has(e) || all.some((w) => w.event === e)),
  );
  return events.map((event) => {
    const hook = wired.find((w) => w.event === event);
    const shadowed = hook ? undefined : all.find((w) => w.event === event && w.shadowedBy);
    const need = needed.get(event);
    const off = hook ? switches.find((s) => s.off.includes(hook.layer)) : undefined;
    return {
      event,
      path: hook?.transport ?? 'not wired',
      ...(hook ? { matcher: hook.matcher, file: hook.file } : {}),
      reasons: need?.reasons ?? [],
      ...(need ? { neededMatcher: need.matcher } : {}),
      commands: need?.commands ?? false,
      ...(shadowed ? { file: shadowed.file, shadowedBy: shadowed.shadowedBy } : {}),
      ...(off ? { off: `"${off.key}": true in ${off.file}` } : {}),
    };
  });
}

/** The install command that wires what the config needs, where hookd is wired, with the transport in use. */
export function fixCommand(
  agent: Agent,
  paths: readonly EventPath[],
  states: readonly SettingsFileState[] = [],
): string {
  const used = new Set(paths.map((p) => p.path));
  const node = used.has('node') && !used.has('fast') && !used.has('http');
  return installCommandFor(agent, states, { node });
}

const REASON_TEXT: Record<WiringReason, string> = {
  hooks: 'your hooks',
  rules: 'notification rules',
  ledger: 'the session ledger',
  waiting: 'cancels held waiting notifications',
};

/** One line per event: `Stop: fast (notification rules, your hooks)`. */
export function formatEventPath(p: EventPath): string {
  const matcher = p.matcher ? ` [${p.matcher}]` : '';
  const why =
    p.reasons.length > 0 ? p.reasons.map((r) => REASON_TEXT[r]).join(', ') : 'nothing in the config today';
  const shadow = p.shadowedBy
    ? `; hookd's entry in ${p.file} never runs: ${p.shadowedBy} names ${p.event}`
    : '';
  const off = p.off ? `; switched off: ${p.off}` : '';
  return `${p.event}: ${p.path}${matcher} (${why})${shadow}${off}`;
}

/** Each agent's event paths, from every file of its hooks and the config (status, explain, validate). */
export async function agentEventPaths(
  env: Env,
  projectDir: string,
  config: HookdConfig | undefined,
  options: InspectOptions = {},
): Promise<Record<Agent, EventPath[]>> {
  const entries = await Promise.all(
    AGENTS.map(async (agent) => {
      const states = await inspectAgentFiles(agent, env, projectDir, options);
      return [agent, eventPaths(agent, states, config)] as const;
    }),
  );
  return Object.fromEntries(entries) as Record<Agent, EventPath[]>;
}

/** The path of one event (not wired when the settings do not send it). */
export function pathOf(paths: readonly EventPath[], event: string): EventPath {
  return paths.find((p) => p.event === event) ?? { event, path: 'not wired', reasons: [], commands: false };
}
