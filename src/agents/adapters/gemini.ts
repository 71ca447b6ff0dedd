import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import { GEMINI_CHAT, GEMINI_PROTOCOL, GEMINI_TOOLS } from '../gemini-protocol.js';
import { projectIsHome } from './settings-files.js';
import type { AgentAdapter, HooksFileRef } from '../types.js';

/** The events `hookd install --agent gemini` wires by default (Gemini's names). */
export const GEMINI_DEFAULT_EVENTS = [
  'SessionStart',
  'BeforeAgent',
  'BeforeTool',
  'AfterTool',
  'AfterAgent',
  'Notification',
  'SessionEnd',
] as const;

/** Google's Gemini CLI (docs/agents/gemini.md). */
export const GEMINI: AgentAdapter = {
  ...GEMINI_PROTOCOL,
  displayName: 'Gemini CLI',
  ...GEMINI_TOOLS,
  canonicalEvents: {
    SessionStart: 'session-start',
    BeforeAgent: 'prompt',
    BeforeTool: 'before-tool',
    AfterTool: 'after-tool',
    Notification: 'notification',
    AfterAgent: 'stop',
    PreCompress: 'before-compact',
    SessionEnd: 'session-end',
  },
  settings: {
    dirName: '.gemini',
    writableLayers: ['user', 'project'],
    files({ home, project }) {
      const files: HooksFileRef[] = [
        { layer: 'user', kind: 'settings', file: join(home, '.gemini', 'settings.json') },
      ];
      if (!projectIsHome(project, home))
        files.push({ layer: 'project', kind: 'settings', file: join(project, '.gemini', 'settings.json') });
      return files;
    },
    hookTypes: { command: 'command' },
    switches: [],
    // Observed (0.61.0, test/e2e/gemini-doubled-entry.test.ts): its planner runs a hook of the same
    // `name` and `command` once per event, from whichever settings file.
    dedupesAcrossFiles: true,
    dedupesByName: true,
  },
  install: {
    defaultEvents: GEMINI_DEFAULT_EVENTS,
    timeouts: { unit: 'ms', agentDefault: 60_000, installDefault: 60_000, max: 600_000, teardown: [] },
    readsHooksOf: [],
  },
  sessions: {
    transcriptFormat: 'gemini-chat',
    root: (_env, home) => join(home || homedir(), '.gemini', 'tmp'),
    ownsTranscript: (path) => GEMINI_CHAT.test(path),
    // Observed: a session in `<...>/work` keeps its chats under `~/.gemini/tmp/work/`.
    slug: (cwd) => basename(cwd),
  },
  doctor: { logFolder: 'tmp', logExt: '.json', logMarkers: [] },
  fixtures: { folder: 'gemini-cli-0.61.0', version: '0.61.0' },
  docs: 'docs/agents/gemini.md',
};
