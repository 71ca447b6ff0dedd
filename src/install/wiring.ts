import { effectiveRules, notifySettings } from '../config/schemas/notify-schema.js';
import type { HookdConfig } from '../config/schemas/schema.js';
import { MOVED_ON_EVENTS } from '../notify/session-state.js';
import { AGENT_PROFILES, type Agent } from './agents.js';

/** Why an event is wired: each is a feature of the effective config that needs the event. */
export type WiringReason = 'hooks' | 'rules' | 'ledger' | 'waiting';

/** One event hookd must receive, with the agent-side matcher of its entry. */
export interface WiredEvent {
  event: string;
  /** The entry's matcher: '' (every call) unless only tool-matched hook entries need the event. */
  matcher: string;
  reasons: WiringReason[];
  /** Some enabled command runs for it: its decisions must reach the agent (never an http hook). */
  commands: boolean;
}

/** Events whose entries the agent matches by tool name. */
const TOOL_EVENTS = new Set(['PreToolUse', 'PostToolUse']);
/** A matcher both agents read like hookd does and that can be joined with `|`: tool names, alternations. */
const PLAIN_MATCHER = /^[A-Za-z0-9_]+(\|[A-Za-z0-9_]+)*$/;

/** What the ledger needs from hooks; tool counts (and Claude Code's prompts) come from the transcript. */
const LEDGER_EVENTS: Readonly<Record<Agent, readonly string[]>> = {
  droid: ['SessionStart', 'SessionEnd', 'SubagentStop', 'UserPromptSubmit'],
  claude: ['SessionStart', 'SessionEnd', 'SubagentStop'],
  codex: ['SessionStart', 'SessionEnd', 'Stop'],
  gemini: ['SessionStart', 'SessionEnd', 'Stop'],
  copilot: ['SessionStart', 'SessionEnd', 'Stop'],
};

/**
 * The events that cancel a held waiting notification, as wired: userMovedOn's, without PreToolUse. A
 * permission ask comes after its tool's PreToolUse, and the call it lets run ends with PostToolUse (or
 * PostToolUseFailure) before the next PreToolUse, so PreToolUse cancels nothing the others do not, and
 * wiring it would run hookd on every tool call once more.
 */
const CANCEL_EVENTS = MOVED_ON_EVENTS.filter((event) => event !== 'PreToolUse');

/** Events whose notification says the agent waits for a person (delay-then-cancel holds these). */
const WAITING_EVENTS = ['Notification', 'PermissionRequest'];

function catchAll(matcher: string | undefined): boolean {
  return matcher === undefined || matcher === '' || matcher === '*';
}

/**
 * The matcher of a tool event needed only by hook entries: every entry's `matcher` joined, when each is
 * plain (tool names) and the entry has no `tool` matcher of its own; else '' (every call).
 */
function toolMatcher(
  entries: readonly { matcher?: string | undefined; tool?: string | undefined }[],
): string {
  const names = new Set<string>();
  for (const entry of entries) {
    if (catchAll(entry.matcher) || entry.tool !== undefined || !PLAIN_MATCHER.test(entry.matcher!)) return '';
    for (const name of entry.matcher!.split('|')) names.add(name);
  }
  return [...names].join('|');
}

/**
 * The events (and tool matchers) the agent must send hookd for this effective config, in the agent's
 * event order: configured hooks with an enabled command; the events of enabled notification rules (the
 * built-in ones without rules; `*` is every event); the ledger's; and, while waiting notifications are
 * held (`notify.waitingDelayMs` > 0 and a rule on Notification or PermissionRequest), the events that
 * cancel them (the user moved on). Events the agent does not fire are left out. Pure.
 */
export function eventsToWire(config: HookdConfig, agent: Agent): WiredEvent[] {
  const known = AGENT_PROFILES[agent].knownEvents;
  // hookd's event names (the config's) in the agent's own words (Gemini: PreToolUse is BeforeTool).
  const native = AGENT_PROFILES[agent].nativeEvent ?? ((event: string) => event);
  const needs = new Map<string, { reasons: Set<WiringReason>; commands: boolean }>();
  const need = (name: string, reason: WiringReason, commands = false) => {
    const event = native(name);
    if (!known.includes(event)) return;
    const n = needs.get(event) ?? { reasons: new Set(), commands: false };
    n.reasons.add(reason);
    n.commands ||= commands;
    needs.set(event, n);
  };

  const activeEntries = (event: string) =>
    (config.hooks[event] ?? []).filter(
      (entry) =>
        (entry.agent === undefined || entry.agent === agent) &&
        (entry.agents === undefined || entry.agents.includes(agent)) &&
        entry.hooks.some((h) => h.enabled !== false),
    );
  for (const event of Object.keys(config.hooks)) {
    if (activeEntries(event).length > 0) need(event, 'hooks', true);
  }

  const notify = notifySettings(config.notify);
  const rules = notify.enabled ? effectiveRules(notify).rules.filter((r) => r.enabled !== false) : [];
  const ruleEvents = new Set(rules.flatMap((r) => (Array.isArray(r.on) ? r.on : [r.on])));
  const onEvents = ruleEvents.has('*') ? known : [...ruleEvents];
  for (const event of onEvents) need(event, 'rules');
  if (notify.waitingDelayMs > 0 && onEvents.some((e) => WAITING_EVENTS.includes(e)))
    for (const event of CANCEL_EVENTS) need(event, 'waiting');

  if (config.ledger?.enabled !== false) for (const event of LEDGER_EVENTS[agent]) need(event, 'ledger');

  return known.flatMap((event) => {
    const n = needs.get(event);
    if (!n) return [];
    const onlyHooks = n.reasons.size === 1 && n.reasons.has('hooks');
    const canonical = (Object.keys(config.hooks) as string[]).find((e) => native(e) === event) ?? event;
    const matcher = onlyHooks && TOOL_EVENTS.has(canonical) ? toolMatcher(activeEntries(canonical)) : '';
    return [{ event, matcher, reasons: [...n.reasons], commands: n.commands }];
  });
}
