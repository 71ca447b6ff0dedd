import type { AgentKind } from '../events/types.js';
import { matcherRules } from '../agents/hook-rules.js';

const cache = new Map<string, RegExp | null>();

/** The list syntax: a matcher made only of these characters is a list of exact names. */
const WIDE_LIST = /^[A-Za-z0-9_|, -]+$/;
const NARROW_LIST = /^[A-Za-z0-9_|]+$/;

function compile(pattern: string): RegExp | null {
  let regex = cache.get(pattern);
  if (regex === undefined) {
    try {
      regex = new RegExp(pattern);
    } catch {
      regex = null;
    }
    cache.set(pattern, regex);
  }
  return regex;
}

/** How a matcher is read: the agent's syntax (src/agents/: exact, then RegExp; or a list of names, else RegExp). */
export interface MatchRule {
  agent: AgentKind;
  /** A list-of-names agent: the event accepts `,`, space and `-` in a list of names (most events with a matcher). */
  wideList?: boolean;
}

/**
 * The `name-list-or-regexp` syntax (Claude Code 2.1.330): a matcher made only of `[A-Za-z0-9_|, -]`
 * (`[A-Za-z0-9_|]` for a few events) is a list of exact names split on `|` or `,`; anything else is an
 * unanchored RegExp.
 */
function listMatches(pattern: string, value: string, wideList: boolean): boolean {
  if ((wideList ? WIDE_LIST : NARROW_LIST).test(pattern)) {
    return pattern
      .split(wideList ? /[|,]/ : '|')
      .map((name) => name.trim())
      .some((name) => name !== '' && name === value);
  }
  const regex = compile(pattern);
  return regex !== null && regex.test(value);
}

/**
 * The agent's matcher semantics: empty, `*` or absent match everything. `exact-or-regexp` (Droid, an
 * unknown agent, and without a rule: hookd's own keys such as `tool`): an exact match, then an unanchored
 * JavaScript RegExp test. `name-list-or-regexp` (Claude Code): see listMatches. A pattern
 * that is not a valid RegExp matches only exactly (the config validator reports it before it gets here).
 */
export function matchesPattern(pattern: string | undefined, value: unknown, rule?: MatchRule): boolean {
  if (pattern === undefined || pattern === '' || pattern === '*') return true;
  if (typeof value !== 'string') return false;
  if (rule !== undefined && matcherRules(rule.agent).syntax === 'name-list-or-regexp')
    return listMatches(pattern, value, rule.wideList ?? true);
  if (pattern === value) return true;
  const regex = compile(pattern);
  return regex !== null && regex.test(value);
}
