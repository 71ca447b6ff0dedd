import { ADAPTERS } from '../agents/adapters/registry.js';
import { ownValue } from '../util/own.js';
import { formatPath } from '../config/issues.js';
import { AGENT_PROFILES, type Agent } from './agents.js';

/**
 * One problem in an agent's `hooks` object. An `error` makes the agent ignore every hook of the
 * file (Droid logs `Invalid hooks in settings.json, ignoring`; Claude Code, for a PreToolUse or
 * PermissionRequest entry, skips the whole settings file); a `warning` is accepted by the agent but does
 * not do what it looks like (the entry never runs, is skipped alone, or times out at once).
 */
export interface AgentHooksProblem {
  severity: 'error' | 'warning';
  /** Where, e.g. `hooks.PreToolUse[0].hooks[1].timeout`. */
  path: string;
  message: string;
  fix: string;
  value?: unknown;
}

export interface AgentHooksReport {
  /** False when the agent would reject the whole hooks object. */
  ok: boolean;
  problems: AgentHooksProblem[];
}

type Path = (string | number)[];

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function regexError(pattern: string): string | undefined {
  if (pattern === '' || pattern === '*') return undefined;
  try {
    new RegExp(pattern);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/**
 * Claude Code 2.1.330 drops the whole settings file for a bad entry of these events ("a PreToolUse/
 * PermissionRequest hook that cannot be loaded may be what guards the permissions declared beside it");
 * a bad entry of any other event is skipped alone, and an unknown event's key is ignored.
 */
export const CLAUDE_GUARD_EVENTS: readonly string[] = ['PreToolUse', 'PermissionRequest'];

/** What Claude Code writes to its debug log (`--debug`, `--debug-file`) for each skipped setting. */
export const CLAUDE_SKIPPED_LINE = 'Invalid setting skipped';

class Collector {
  readonly problems: AgentHooksProblem[] = [];
  /** Errors on keys the agent does not validate, or validates alone, are downgraded to warnings. */
  private downgrade: false | { note: string } = false;
  constructor(
    private readonly agent: Agent,
    private readonly root: Path = ['hooks'],
  ) {}

  withDowngrade<T>(downgrade: false | { note: string }, run: () => T): T {
    const before = this.downgrade;
    this.downgrade = downgrade;
    try {
      return run();
    } finally {
      this.downgrade = before;
    }
  }

  error(path: Path, message: string, fix: string, value?: unknown): void {
    if (this.downgrade) this.push('warning', path, `${message}${this.downgrade.note}`, fix, value);
    else this.push('error', path, message, fix, value);
  }

  warning(path: Path, message: string, fix: string, value?: unknown): void {
    this.push('warning', path, message, fix, value);
  }

  private push(
    severity: AgentHooksProblem['severity'],
    path: Path,
    message: string,
    fix: string,
    value: unknown,
  ) {
    this.problems.push({
      severity,
      path: formatPath([...this.root, ...path]),
      message,
      fix,
      ...(value !== undefined ? { value } : {}),
    });
  }

  get agentName(): string {
    return AGENT_PROFILES[this.agent].displayName;
  }
}

function checkPatternField(c: Collector, entry: Record<string, unknown>, key: string, path: Path): void {
  if (!(key in entry)) return;
  const value = entry[key];
  if (typeof value !== 'string') {
    c.error(
      [...path, key],
      `${key} must be a string, not ${typeName(value)}`,
      `use a string ("" matches all)`,
      value,
    );
    return;
  }
  const problem = regexError(value);
  if (problem) {
    c.warning(
      [...path, key],
      `${key} is not a valid regular expression (${problem}); ${c.agentName} never matches this entry`,
      'use a JavaScript regular expression such as "Edit|Create", or "" for all',
      value,
    );
  }
}

function checkHook(c: Collector, agent: Agent, hook: unknown, path: Path): void {
  if (!isPlainObject(hook)) {
    c.error(
      path,
      `a hook must be an object, not ${typeName(hook)}`,
      'use {"type": "command", "command": "..."}',
      hook,
    );
    return;
  }
  const type = hook.type;
  const hookTypes = ADAPTERS[agent].settings.hookTypes;
  const allowed = Object.keys(hookTypes);
  if (type === undefined) {
    c.error([...path, 'type'], 'type is missing', 'add "type": "command"');
  } else if (typeof type !== 'string' || !allowed.includes(type)) {
    c.error(
      [...path, 'type'],
      `type ${JSON.stringify(type)} is not supported by ${c.agentName}`,
      `use ${allowed.map((t) => JSON.stringify(t)).join(' or ')}`,
      type,
    );
  }
  const field = typeof type === 'string' ? (ownValue(hookTypes, type) ?? 'command') : 'command';
  const body = hook[field];
  if (body === undefined) {
    c.error([...path, field], `${field} is missing`, `add "${field}": "<${field}>"`);
  } else if (typeof body !== 'string') {
    c.error([...path, field], `${field} must be a string, not ${typeName(body)}`, 'use a string', body);
  } else if (field === 'command' && body.trim() === '') {
    c.warning(
      [...path, field],
      'command is empty; the agent runs nothing',
      'set the shell command or remove the hook',
    );
  }
  if ('timeout' in hook) checkTimeout(c, hook.timeout, [...path, 'timeout']);
}

function checkTimeout(c: Collector, timeout: unknown, path: Path): void {
  if (typeof timeout !== 'number') {
    c.error(
      path,
      `timeout must be a number of seconds, not ${typeName(timeout)}`,
      'use a number such as 60',
      timeout,
    );
  } else if (timeout < 0) {
    c.warning(
      path,
      'timeout is negative; the agent kills the command at once and counts it as exit code 1',
      'use a positive number of seconds',
      timeout,
    );
  } else if (timeout === 0) {
    c.warning(
      path,
      'timeout 0 means the agent default',
      'use a positive number of seconds, or leave it out',
      timeout,
    );
  }
}

function checkEntry(c: Collector, agent: Agent, entry: unknown, path: Path): void {
  if (!isPlainObject(entry)) {
    c.error(
      path,
      `an entry must be an object, not ${typeName(entry)}`,
      'use {"matcher": "", "hooks": [...]}',
      entry,
    );
    return;
  }
  checkPatternField(c, entry, 'matcher', path);
  checkPatternField(c, entry, 'commandRegex', path);
  if (!('hooks' in entry)) {
    c.error([...path, 'hooks'], 'hooks is missing', 'add "hooks": [{"type": "command", "command": "..."}]');
    return;
  }
  const hooks = entry.hooks;
  if (!Array.isArray(hooks)) {
    c.error(
      [...path, 'hooks'],
      `hooks must be an array, not ${typeName(hooks)}`,
      'wrap the hook in [ ]',
      hooks,
    );
    return;
  }
  hooks.forEach((hook, index) => checkHook(c, agent, hook, [...path, 'hooks', index]));
}

/**
 * Which problems under this event key are only warnings. Droid 0.225.2 validates only the events it
 * knows and ignores other keys whatever their value. Claude Code 2.1.330 ignores an unknown event's key
 * and skips a bad entry alone, except under PreToolUse and PermissionRequest, where one bad entry
 * disables the whole settings file.
 */
function downgradeFor(agent: Agent, event: string, known: boolean): false | { note: string } {
  if (agent === 'droid') return known ? false : { note: '' };
  if (!known) return { note: '' };
  if (CLAUDE_GUARD_EVENTS.includes(event)) return false;
  return {
    note: `; Claude Code skips this entry alone ("${CLAUDE_SKIPPED_LINE}" in its debug log), the rest of the file works`,
  };
}

/**
 * Checks an agent's `hooks` object the way the agent does, so nothing is written that would make it
 * ignore every hook of the file. The Droid rules were found by running the real Droid CLI 0.225.2
 * (docs/install.md lists each shape probed); Claude Code gets the same structural rules, plus its
 * extra hook types, with its own reach: only a bad PreToolUse or PermissionRequest entry disables the
 * file (observed with Claude Code 2.1.330).
 */
export function validateAgentHooks(
  hooks: unknown,
  agent: Agent,
  options: { root?: (string | number)[] } = {},
): AgentHooksReport {
  const c = new Collector(agent, options.root);
  if (hooks === undefined) return { ok: true, problems: [] };
  if (!isPlainObject(hooks)) {
    c.error(
      [],
      `hooks must be an object keyed by event name, not ${typeName(hooks)}`,
      'use {"Stop": [...]}',
      hooks,
    );
    return { ok: false, problems: c.problems };
  }
  const profile = AGENT_PROFILES[agent];
  for (const [event, entries] of Object.entries(hooks)) {
    if (ADAPTERS[agent].settings.switches.includes(event)) {
      if (typeof entries !== 'boolean')
        c.error(
          [event],
          `${event} must be true or false, not ${typeName(entries)}`,
          'use true or false',
          entries,
        );
      continue;
    }
    const known = profile.knownEvents.includes(event);
    c.withDowngrade(downgradeFor(agent, event, known), () => {
      // A wrapper one level too deep (Droid's hooks.json is the hooks object itself): say that, once.
      if (
        !known &&
        isPlainObject(entries) &&
        Object.keys(entries).some((k) => profile.knownEvents.includes(k))
      ) {
        c.warning(
          [event],
          `"${event}" is not an event but holds events (${Object.keys(entries).slice(0, 3).join(', ')}): ${profile.displayName} runs none of their entries`,
          `move those events up one level, out of "${event}"`,
        );
        return;
      }
      if (!known) {
        c.warning(
          [event],
          `${profile.displayName} does not fire the event "${event}"; its entries never run`,
          `use one of: ${profile.knownEvents.join(', ')}`,
        );
      }
      if (!Array.isArray(entries)) {
        c.error(
          [event],
          `an event's value must be an array of entries, not ${typeName(entries)}`,
          'wrap it in [ ]',
          entries,
        );
        return;
      }
      entries.forEach((entry, index) => checkEntry(c, agent, entry, [event, index]));
    });
  }
  return { ok: !c.problems.some((p) => p.severity === 'error'), problems: c.problems };
}

/** Human lines for a list of problems, one block each. */
export function formatAgentHooksProblems(file: string, problems: readonly AgentHooksProblem[]): string {
  return problems
    .map((p) => {
      const lines = [`${file}: ${p.path}: ${p.severity}: ${p.message}`];
      if (p.value !== undefined) lines.push(`  value: ${JSON.stringify(p.value)?.slice(0, 120)}`);
      lines.push(`  fix: ${p.fix}`);
      return lines.join('\n');
    })
    .join('\n');
}
