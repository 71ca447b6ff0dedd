import type { AgentKind } from '../events/types.js';

const cache = new Map<string, RegExp | null>();

/** Claude Code's list syntax: a matcher made only of these characters is a list of exact names. */
const CLAUDE_WIDE_LIST = /^[A-Za-z0-9_|, -]+$/;
const CLAUDE_NARROW_LIST = /^[A-Za-z0-9_|]+$/;

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

/** How a matcher is read: Droid's rule (exact, then RegExp) or Claude Code's (list of names, else RegExp). */
export interface MatchRule {
  agent: AgentKind;
  /** Claude Code: the event accepts `,`, space and `-` in a list of names (most events with a matcher). */
  wideList?: boolean;
}

/**
 * Claude Code's rule (2.1.330): a matcher made only of `[A-Za-z0-9_|, -]` (`[A-Za-z0-9_|]` for a few
 * events) is a list of exact names split on `|` or `,`; anything else is an unanchored RegExp.
 */
function claudeMatches(pattern: string, value: string, wideList: boolean): boolean {
  if ((wideList ? CLAUDE_WIDE_LIST : CLAUDE_NARROW_LIST).test(pattern)) {
    return pattern
      .split(wideList ? /[|,]/ : '|')
      .map((name) => name.trim())
      .some((name) => name !== '' && name === value);
  }
  const regex = compile(pattern);
  return regex !== null && regex.test(value);
}

/**
 * The agent's matcher semantics: empty, `*` or absent match everything. Droid (and an unknown agent):
 * an exact match, then an unanchored JavaScript RegExp test. Claude Code: see claudeMatches. A pattern
 * that is not a valid RegExp matches only exactly (the config validator reports it before it gets here).
 */
export function matchesPattern(
  pattern: string | undefined,
  value: unknown,
  rule: MatchRule = { agent: 'droid' },
): boolean {
  if (pattern === undefined || pattern === '' || pattern === '*') return true;
  if (typeof value !== 'string') return false;
  if (rule.agent === 'claude') return claudeMatches(pattern, value, rule.wideList ?? true);
  if (pattern === value) return true;
  const regex = compile(pattern);
  return regex !== null && regex.test(value);
}
