import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { CODEX_PROTOCOL, CODEX_ROLLOUT, CODEX_TOOLS } from '../codex-protocol.js';
import { codexHookHash, codexHookKey, codexTrustOf, readCodexHookStates } from './codex-trust.js';
import { SHARED_CANONICAL_EVENTS } from './shared-events.js';
import type { AgentAdapter } from '../types.js';

/** The events `hookd install --agent codex` wires by default: a guard's, a notification's, the ledger's. */
export const CODEX_DEFAULT_EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'PreToolUse',
  'PermissionRequest',
  'PostToolUse',
  'Stop',
  'Interrupt',
  'SessionEnd',
] as const;

/** Codex's folder: `$CODEX_HOME`, else `~/.codex`. */
export function codexHome(env: Readonly<Record<string, string | undefined>>, home: string): string {
  return env.CODEX_HOME ? resolve(env.CODEX_HOME) : join(home || homedir(), '.codex');
}

/** OpenAI's Codex CLI (docs/agents/codex.md). */
export const CODEX: AgentAdapter = {
  ...CODEX_PROTOCOL,
  displayName: 'Codex CLI',
  ...CODEX_TOOLS,
  // The shared dialect's events but Notification, which Codex does not have.
  canonicalEvents: {
    ...Object.fromEntries(
      Object.entries(SHARED_CANONICAL_EVENTS).filter(([name]) => name !== 'Notification'),
    ),
    PermissionRequest: 'permission',
    SubagentStart: 'subagent-start',
    PostCompact: 'after-compact',
    Interrupt: 'interrupt',
  },
  settings: {
    dirName: '.codex',
    // Codex CLI 0.171.0 reads $CODEX_HOME/hooks.json (`{"hooks": {...}}`), then config.toml's
    // `[[hooks.<Event>]]` tables, and runs both (its hooks/list lists both, in this order, and warns).
    // hookd writes hooks.json only.
    writableLayers: ['user'],
    files: ({ env, home }) => [
      { layer: 'user', kind: 'settings', file: join(codexHome(env, home), 'hooks.json') },
      { layer: 'user', kind: 'settings-toml', file: join(codexHome(env, home), 'config.toml') },
    ],
    hookTypes: { command: 'command' },
    switches: [],
    dedupesAcrossFiles: false,
  },
  install: {
    defaultEvents: CODEX_DEFAULT_EVENTS,
    timeouts: {
      unit: 's',
      agentDefault: 600,
      installDefault: 60,
      max: 600,
      teardown: [
        { event: 'SessionEnd', budgetMs: 3000, note: 'a few seconds whatever the entry says' },
        { event: 'Interrupt', budgetMs: 3000, note: 'a few seconds whatever the entry says' },
      ],
    },
    readsHooksOf: [],
  },
  sessions: {
    transcriptFormat: 'codex-rollout',
    root: (env, home) => join(codexHome(env, home), 'sessions'),
    ownsTranscript: (path) => CODEX_ROLLOUT.test(path),
    // Rollouts are filed by date, not by project.
    slug: () => '',
  },
  doctor: {
    logFolder: 'log',
    logExt: '.log',
    logMarkers: [],
    // Codex skips a hook the user has not trusted in its /hooks screen, without a word.
    hookTrust: {
      file: (env, home) => join(codexHome(env, home), 'config.toml'),
      steps:
        'start `codex`, type `/hooks`, review the hookd entries and trust them (Codex asks again after every change to an entry)',
      read(text) {
        const states = readCodexHookStates(text);
        return ({ file, event, group, handler, entry, hook }) => {
          const state = states.get(codexHookKey(file, event, group, handler));
          if (state?.enabled === false) return 'disabled';
          return codexTrustOf(state, codexHookHash(event, entry, hook));
        };
      },
    },
  },
  fixtures: { folder: 'codex-0.171.0', version: '0.171.0' },
  docs: 'docs/agents/codex.md',
};
