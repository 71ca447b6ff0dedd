import { createHash } from 'node:crypto';

/**
 * Codex CLI's trust in a hook, read from its files (observed with Codex CLI 0.171.0, checked against
 * what `codex app-server`'s `hooks/list` reports; docs/agents/codex.md, "Trust"). Codex runs a hook of
 * the user's hooks.json only when `$CODEX_HOME/config.toml` has
 *
 *     [hooks.state."<hooks.json's real path>:<event in snake_case>:<group>:<handler>"]
 *     trusted_hash = "sha256:<hex>"
 *
 * and that hash is the hook's current one: sha256 of a JSON identity of the hook (its event, its group's
 * matcher, its command, timeout, async flag and status message; keys sorted, no spaces). Any change to
 * those makes the hook "modified", which Codex skips like an untrusted one. `enabled = false` in the same
 * table switches a hook off.
 */

export type CodexTrustStatus = 'trusted' | 'untrusted' | 'modified';

/** The user's recorded trust of one hook: its hash, and whether it was switched off. */
export interface CodexHookState {
  trustedHash?: string;
  enabled?: boolean;
}

/** Codex's label of an event in keys and hashes: `PreToolUse` -> `pre_tool_use`. */
export function codexEventLabel(event: string): string {
  return event.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

/** The key Codex files a hook's trust under. `file` must be the hooks.json's real path (symlinks resolved). */
export function codexHookKey(file: string, event: string, group: number, handler: number): string {
  return `${file}:${codexEventLabel(event)}:${group}:${handler}`;
}

/** JSON with object keys sorted at every level, as Codex hashes it. */
function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${sortedJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Events whose matcher Codex leaves out of the hash (it does not match them on anything). */
const UNMATCHED = new Set(['user_prompt_submit', 'stop', 'interrupt']);

/** Teardown events: a hook without a timeout gets 1 s, and none more than 3 s (Codex warns and clamps). */
const TEARDOWN = new Set(['session_end', 'interrupt']);

/**
 * The hash Codex wants in `trusted_hash` for one command hook of an entry: `sha256:<hex>`. The timeout
 * is the one Codex runs with: absent, 600 s (1 s for SessionEnd and Interrupt); at least 1; at most 3 s
 * for SessionEnd and Interrupt.
 */
export function codexHookHash(
  event: string,
  entry: Record<string, unknown>,
  hook: Record<string, unknown>,
): string {
  const label = codexEventLabel(event);
  const teardown = TEARDOWN.has(label);
  const given =
    typeof hook.timeout === 'number' && Number.isFinite(hook.timeout) ? Math.trunc(hook.timeout) : undefined;
  const timeout = Math.max(1, given ?? (teardown ? 1 : 600));
  const handler: Record<string, unknown> = {
    async: hook.async === true,
    command: typeof hook.command === 'string' ? hook.command : '',
    timeout: teardown ? Math.min(3, timeout) : timeout,
    type: 'command',
  };
  if (typeof hook.statusMessage === 'string') handler.statusMessage = hook.statusMessage;
  const identity: Record<string, unknown> = { event_name: label, hooks: [handler] };
  if (typeof entry.matcher === 'string' && !UNMATCHED.has(label)) identity.matcher = entry.matcher;
  return `sha256:${createHash('sha256').update(sortedJson(identity)).digest('hex')}`;
}

/** How many `[hooks.state."..."]` tables hookd reads from one config.toml at most. */
const MAX_STATES = 10_000;

/** A TOML basic string's body (`"..."`) with its escapes undone; undefined when it is not one. */
function basicString(text: string): string | undefined {
  if (!/^"(?:[^"\\\n]|\\.)*"$/.test(text)) return undefined;
  try {
    return JSON.parse(
      text.replace(/\\U([0-9A-Fa-f]{8})/g, (_m, hex: string) => String.fromCodePoint(parseInt(hex, 16))),
    ) as string;
  } catch {
    return undefined;
  }
}

/**
 * The hook states of a Codex config.toml, by key: the `[hooks.state."<key>"]` tables Codex's `/hooks`
 * screen writes, with their `trusted_hash` and `enabled`. Only that form is read; anything else in the
 * file is skipped, never an error.
 */
export function readCodexHookStates(toml: string): Map<string, CodexHookState> {
  const states = new Map<string, CodexHookState>();
  let current: CodexHookState | undefined;
  for (const raw of toml.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (line.startsWith('[')) {
      current = undefined;
      const table = /^\[\s*hooks\s*\.\s*state\s*\.\s*("(?:[^"\\]|\\.)*")\s*\]\s*(?:#.*)?$/.exec(line);
      const key = table ? basicString(table[1]!) : undefined;
      if (key !== undefined && (states.has(key) || states.size < MAX_STATES)) {
        current = states.get(key) ?? {};
        states.set(key, current);
      }
      continue;
    }
    if (!current) continue;
    const pair = /^(trusted_hash|enabled)\s*=\s*(.*?)\s*(?:#[^"]*)?$/.exec(line);
    if (!pair) continue;
    if (pair[1] === 'trusted_hash') {
      const value = basicString(pair[2]!);
      if (value !== undefined) current.trustedHash = value;
    } else if (pair[2] === 'true' || pair[2] === 'false') current.enabled = pair[2] === 'true';
  }
  return states;
}

/** A hook's trust as Codex decides it: the recorded hash against the hook's current one. */
export function codexTrustOf(state: CodexHookState | undefined, currentHash: string): CodexTrustStatus {
  if (state?.trustedHash === undefined) return 'untrusted';
  return state.trustedHash === currentHash ? 'trusted' : 'modified';
}

/**
 * The events a Codex config.toml defines hooks for itself (`[[hooks.PreToolUse]]` tables, which Codex
 * runs beside hooks.json's), in file order. `[hooks.state...]` tables are trust records, not hooks.
 */
export function codexTomlHookEvents(toml: string): string[] {
  const events: string[] = [];
  for (const m of toml.matchAll(/^[ \t]*\[\[?[ \t]*hooks[ \t]*\.[ \t]*"?([A-Za-z]+)"?[ \t]*[.\]]/gm)) {
    const event = m[1]!;
    if (event !== 'state' && !events.includes(event) && events.length < 64) events.push(event);
  }
  return events;
}
