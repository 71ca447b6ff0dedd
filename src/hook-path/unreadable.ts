import type { LoadedConfig } from '../config/load.js';
import { topString, type ScanResult } from '../events/json-scan.js';
import { GO_ON_EVENTS, isEventName } from '../events/names.js';
import { canonicalEventName, detectAgent, projectDirOf, type DeclaredAgent } from '../events/parse.js';
import type { AgentKind, HookEvent, HookPayload } from '../events/types.js';
import type { AgentReply } from '../runner/decision.js';
import { planCommands, type PlannedCommand } from '../runner/route.js';

type Env = Record<string, string | undefined>;

/**
 * What hookd can still tell of an event whose input it could not read (too big, not closed in time, not
 * JSON): its name from the command line (`hookd hook --event PreToolUse`), else from the input's
 * top-level `hook_event_name` when the scan found it once, whole; the other top-level string fields
 * found so (`tool_name`, `source`, ...), the agent and the project dir from the environment.
 */
export interface UnreadableEvent {
  /** Undefined when neither the command line nor the input settles it. */
  name: string | undefined;
  nameFrom: 'command line' | 'input' | undefined;
  agent: AgentKind;
  /** The top-level string fields the scan settled (each found once, whole). */
  known: HookPayload;
  projectDir: string | undefined;
}

export function identifyUnreadable(
  scan: Pick<ScanResult, 'top'>,
  env: Env,
  declared: { event?: string | undefined; agent?: DeclaredAgent | undefined },
): UnreadableEvent {
  const known: HookPayload = {};
  for (const key of scan.top.keys()) {
    const value = topString(scan, key);
    if (value !== undefined) known[key] = value;
  }
  const fromInput = isEventName(known.hook_event_name) ? known.hook_event_name : undefined;
  const given = isEventName(declared.event) ? declared.event : fromInput;
  const nameFrom = given === undefined ? undefined : given === declared.event ? 'command line' : 'input';
  const agent = declared.agent ?? detectAgent(known, env);
  const name = given === undefined ? undefined : canonicalEventName(agent, given);
  // The project of the session, from the agent's environment only: the input's cwd is not settled.
  return { name, nameFrom, agent, known, projectDir: projectDirOf(agent, env, undefined) };
}

/** A guard that would have run and must not be skipped: blocking, marked `"onError": "block"`. */
export interface GuardAtStake {
  event: string;
  guard: PlannedCommand;
}

/**
 * The guards hookd would have run for the event, had it read it, that say `"onError": "block"`. An
 * entry applies unless a field the scan settled rules it out (a field it could not read may match).
 * When the event's name is not known, every event of the config but Stop and SubagentStop counts.
 * Never Stop or SubagentStop: there exit 2 makes the agent go on.
 */
export function guardsAtStake(unreadable: UnreadableEvent, loaded: LoadedConfig): GuardAtStake[] {
  const hooks = loaded.config.hooks;
  const names = unreadable.name !== undefined ? [unreadable.name] : Object.keys(hooks);
  const found: GuardAtStake[] = [];
  for (const name of names) {
    if (GO_ON_EVENTS.has(name) || !Object.hasOwn(hooks, name)) continue;
    const event: HookEvent = {
      id: '',
      receivedAt: 0,
      agent: unreadable.agent,
      name,
      payload: { ...unreadable.known, hook_event_name: name },
    };
    const plan = planCommands(event, loaded.config, loaded, { absentMatches: true });
    for (const guard of plan.commands)
      if (guard.spec.blocking && guard.spec.onError === 'block') found.push({ event: name, guard });
  }
  return found;
}

/** Longest account of the input's problem in the answer (a parser's message quotes the input). */
const MAX_DETAIL = 300;

/**
 * Text about the input, made inert for the agent's screen and the model: control and format characters
 * (escape sequences, bidirectional overrides) become `\uXXXX`, and it is cut to MAX_DETAIL characters.
 */
function inert(text: string): string {
  const cut = text.length > MAX_DETAIL ? `${text.slice(0, MAX_DETAIL)}…` : text;
  return cut.replace(/[\p{Cc}\p{Cf}]/gu, (c) => {
    const code = c.codePointAt(0)!;
    return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** The answer to the agent: exit 2 with what happened, for the model to read (PreToolUse) or the user. */
export function unreadableReply(
  unreadable: UnreadableEvent,
  detail: string,
  guards: GuardAtStake[],
): AgentReply {
  const names = [...new Set(guards.map((g) => g.guard.name))];
  const what =
    unreadable.name !== undefined
      ? `this ${unreadable.name} event`
      : 'this event, nor tell which event it is';
  const marked = names.length === 1 ? 'it is' : 'they are';
  return {
    exitCode: 2,
    stdout: '',
    stderr: `hookd: ${names.join(', ')} could not run (hookd could not read ${what}: ${inert(detail)}); ${marked} marked "onError": "block", so hookd blocks\n`,
    decidedBy: names[0]!,
  };
}
