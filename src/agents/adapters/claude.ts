import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { CLAUDE_PROTOCOL, CLAUDE_TOOLS } from '../claude-protocol.js';
import { DROID_EVENTS } from '../droid-protocol.js';
import { SHARED_CANONICAL_EVENTS } from './shared-events.js';
import { projectIsHome } from './settings-files.js';
import type { AgentAdapter, HooksFileRef } from '../types.js';

/** Where Claude Code looks for the machine's managed settings (its `managed-settings.json` folder). */
export function claudeManagedDir(platform: NodeJS.Platform = process.platform): string {
  return platform === 'darwin' ? '/Library/Application Support/ClaudeCode' : '/etc/claude-code';
}

/**
 * The Claude Code events hookd wires by default: the nine it shares with Droid, plus the ones that say
 * a turn failed (StopFailure) or the agent waits for a person (PermissionRequest, about 6 s before the
 * Notification). Any of the 33 events of Claude Code 2.1.330 may be named with --events.
 */
const CLAUDE_DEFAULT_EVENTS = [...DROID_EVENTS, 'PermissionRequest', 'StopFailure'] as const;

/** Anthropic's Claude Code (docs/agents/claude.md). */
export const CLAUDE: AgentAdapter = {
  ...CLAUDE_PROTOCOL,
  displayName: 'Claude Code',
  ...CLAUDE_TOOLS,
  canonicalEvents: {
    ...SHARED_CANONICAL_EVENTS,
    PostToolUseFailure: 'tool-failed',
    PermissionRequest: 'permission',
    StopFailure: 'stop-failed',
    SubagentStart: 'subagent-start',
    PostCompact: 'after-compact',
  },
  settings: {
    dirName: '.claude',
    writableLayers: ['user', 'project', 'local'],
    // User, project, local (a project that is not the home folder), then the machine's managed settings
    // and its drop-ins.
    files({ home, project, platform, managedDir, managedDropIns }) {
      const managed = managedDir ?? claudeManagedDir(platform);
      const files: HooksFileRef[] = [
        { layer: 'user', kind: 'settings', file: join(home, '.claude', 'settings.json') },
      ];
      if (!projectIsHome(project, home))
        files.push(
          { layer: 'project', kind: 'settings', file: join(project, '.claude', 'settings.json') },
          { layer: 'local', kind: 'settings', file: join(project, '.claude', 'settings.local.json') },
        );
      files.push({ layer: 'managed', kind: 'settings', file: join(managed, 'managed-settings.json') });
      for (const file of managedDropIns ?? []) files.push({ layer: 'managed', kind: 'settings', file });
      return files;
    },
    managedDir: claudeManagedDir,
    // The types Claude Code 2.1.330 accepts, with the field each needs (an unknown type under PreToolUse
    // disables the whole file: "Valid types: command, prompt, agent, http, mcp_tool").
    hookTypes: { command: 'command', prompt: 'prompt', agent: 'prompt', http: 'url', mcp_tool: 'server' },
    switches: [],
    dedupesAcrossFiles: true,
  },
  install: {
    defaultEvents: CLAUDE_DEFAULT_EVENTS,
    // Claude Code's own default is 600 s, but it gives SessionEnd hooks only 1.5 s unless an entry sets a
    // timeout (it then waits for the largest SessionEnd timeout, capped at 60 s): 60 s on every entry lets
    // hookd finish everywhere, and hookd answers within its 55 s event budget.
    timeouts: {
      unit: 's',
      agentDefault: 600,
      installDefault: 60,
      max: 600,
      teardown: [
        {
          event: 'SessionEnd',
          budgetMs: 1500,
          note: "the largest SessionEnd entry's timeout, capped at 60 s, when one is set",
        },
      ],
    },
    readsHooksOf: [],
    // Claude Code 2.1.330 exports metrics and log events; OTEL_LOG_USER_PROMPTS and
    // OTEL_LOG_TOOL_DETAILS stay unset (prompt text and tool input are not hookd's to collect).
    otelEnv: (endpoint, headers) => ({
      CLAUDE_CODE_ENABLE_TELEMETRY: '1',
      OTEL_METRICS_EXPORTER: 'otlp',
      OTEL_LOGS_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_EXPORTER_OTLP_HEADERS: headers,
    }),
  },
  sessions: {
    transcriptFormat: 'claude-jsonl',
    root: (env, home) => env.CLAUDE_CONFIG_DIR || join(home || homedir(), '.claude'),
    ownsTranscript: (path) => basename(dirname(dirname(path))) === 'projects' && path.endsWith('.jsonl'),
    slug: (cwd) => cwd.replace(/[^A-Za-z0-9]/g, '-'),
  },
  doctor: { logFolder: 'debug', logExt: '.txt', logMarkers: ['Invalid setting skipped'] },
  fixtures: { folder: 'claude-code-2.1.330', version: '2.1.330' },
  docs: 'docs/agents/claude.md',
};
