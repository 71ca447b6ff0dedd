import { createHash } from 'node:crypto';
import { parse } from 'smol-toml';

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

const isTable = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The hook states of a Codex config.toml, by key: the `[hooks.state."<key>"]` tables Codex's `/hooks`
 * screen writes, with their `trusted_hash` and `enabled`; other keys and values of another type are
 * skipped. Throws (a TomlError saying where) when the text is not TOML: Codex cannot read it either.
 */
export function readCodexHookStates(toml: string): Map<string, CodexHookState> {
  const data = parse(toml, { maxDepth: 32, unsafeKeyBehaviour: 'drop' });
  const states = new Map<string, CodexHookState>();
  const table = isTable(data.hooks) ? data.hooks.state : undefined;
  if (!isTable(table)) return states;
  for (const [key, value] of Object.entries(table)) {
    if (states.size >= MAX_STATES) break;
    if (!isTable(value)) continue;
    const state: CodexHookState = {};
    if (typeof value.trusted_hash === 'string') state.trustedHash = value.trusted_hash;
    if (typeof value.enabled === 'boolean') state.enabled = value.enabled;
    states.set(key, state);
  }
  return states;
}

/** A hook's trust as Codex decides it: the recorded hash against the hook's current one. */
export function codexTrustOf(state: CodexHookState | undefined, currentHash: string): CodexTrustStatus {
  if (state?.trustedHash === undefined) return 'untrusted';
  return state.trustedHash === currentHash ? 'trusted' : 'modified';
}
