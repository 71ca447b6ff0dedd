import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { COPILOT_EVENTS_LOG, COPILOT_PROTOCOL, COPILOT_TOOLS } from '../copilot-protocol.js';
import { projectIsHome } from './settings-files.js';
import { SHARED_CANONICAL_EVENTS } from './shared-events.js';
import type { AgentAdapter, HooksFileRef } from '../types.js';

/** The events `hookd install --agent copilot` wires by default: a guard's, a notification's, the ledger's. */
export const COPILOT_DEFAULT_EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'PreToolUse',
  'PostToolUse',
  'Stop',
  'SessionEnd',
] as const;

/** The name of the hooks file hookd writes in Copilot's hooks folders. */
export const COPILOT_HOOKS_FILE = 'hookd.json';

/** Copilot's folder: `$COPILOT_HOME`, else `~/.copilot`. */
export function copilotHome(env: Readonly<Record<string, string | undefined>>, home: string): string {
  return env.COPILOT_HOME ? resolve(env.COPILOT_HOME) : join(home || homedir(), '.copilot');
}

/** The hooks file hookd owns at each scope: `<copilot home>/hooks/hookd.json`, `<project>/.github/hooks/hookd.json`. */
export function copilotHooksFile(
  scope: 'user' | 'project',
  env: Readonly<Record<string, string | undefined>>,
  home: string,
  project: string,
): string {
  return scope === 'user'
    ? join(copilotHome(env, home), 'hooks', COPILOT_HOOKS_FILE)
    : join(project, '.github', 'hooks', COPILOT_HOOKS_FILE);
}

/** GitHub's Copilot CLI (docs/agents/copilot.md). */
export const COPILOT: AgentAdapter = {
  ...COPILOT_PROTOCOL,
  displayName: 'Copilot CLI',
  ...COPILOT_TOOLS,
  canonicalEvents: {
    ...SHARED_CANONICAL_EVENTS,
    PostToolUseFailure: 'tool-failed',
    SubagentStart: 'subagent-start',
    ErrorOccurred: 'stop-failed',
  },
  settings: {
    dirName: '.copilot',
    writableLayers: ['user', 'project'],
    // Copilot reads every `*.json` in these folders and the `hooks` key of its settings; hookd lists the
    // files it writes itself, each in the settings layout (`{"hooks": {...}}`). A project's hooks run
    // only once the user trusts the folder.
    files({ env, home, project }) {
      const files: HooksFileRef[] = [
        { layer: 'user', kind: 'settings', file: join(copilotHome(env, home), 'settings.json') },
        { layer: 'user', kind: 'settings', file: copilotHooksFile('user', env, home, project) },
      ];
      if (!projectIsHome(project, home))
        files.push({
          layer: 'project',
          kind: 'settings',
          file: copilotHooksFile('project', env, home, project),
        });
      return files;
    },
    hookTypes: { command: 'command' },
    switches: ['disableAllHooks'],
    dedupesAcrossFiles: false,
  },
  install: {
    defaultEvents: COPILOT_DEFAULT_EVENTS,
    // Observed: an entry's `timeout` is in seconds; a hook past it is abandoned and the tool call goes on.
    timeouts: { unit: 's', agentDefault: 30, installDefault: 30, max: 600, teardown: [] },
    readsHooksOf: [],
  },
  sessions: {
    transcriptFormat: 'copilot-events',
    root: (env, home) => join(copilotHome(env, home), 'session-state'),
    ownsTranscript: (path) => COPILOT_EVENTS_LOG.test(path),
    // A session's log is filed by session id, not by project.
    slug: () => '',
  },
  doctor: { logFolder: 'logs', logExt: '.log', logMarkers: [] },
  fixtures: { folder: 'copilot-1.0.102', version: '1.0.102' },
  docs: 'docs/agents/copilot.md',
};
