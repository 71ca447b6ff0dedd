import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import type { Env } from '../paths.js';

/** The demo's private world: everything hookd reads or writes lives under `root`. */
export interface DemoLayout {
  root: string;
  home: string;
  /** The project the recorded session ran in (a real folder: hook commands run there). */
  project: string;
  factoryHome: string;
  config: string;
  stateDir: string;
  dataDir: string;
  runtimeDir: string;
  commandLog: string;
}

/** Unix socket paths are limited to about 107 bytes; the demo's must fit with room to spare. */
const MAX_SOCKET_PATH = 100;
const SOCKET_SUFFIX = 'hookd-demo-XXXXXX/run/hookd/hookd.sock';

/** Creates the temp root (`$TMPDIR/hookd-demo-XXXXXX`, or `/tmp/...` when that path would be too long). */
export function createDemoLayout(env: Env = process.env): DemoLayout {
  const base = env.TMPDIR || tmpdir();
  const parent = join(base, SOCKET_SUFFIX).length <= MAX_SOCKET_PATH ? base : '/tmp';
  const root = mkdtempSync(join(parent, 'hookd-demo-'));
  const home = join(root, 'home');
  const layout: DemoLayout = {
    root,
    home,
    project: join(home, 'projects', 'demo'),
    factoryHome: join(home, '.factory'),
    config: join(root, 'config.json'),
    stateDir: join(root, 'state'),
    dataDir: join(root, 'data'),
    runtimeDir: join(root, 'run', 'hookd'),
    commandLog: join(root, 'state', 'commands.jsonl'),
  };
  mkdirSync(layout.project, { recursive: true });
  // A checked-out branch for the enrichment to show, read from .git/HEAD (no git process).
  mkdirSync(join(layout.project, '.git'));
  writeFileSync(join(layout.project, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  return layout;
}

/** Variables worth keeping from the caller: how to find programs, the locale and terminal, colour. */
const KEPT = ['PATH', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TERM', 'NO_COLOR', 'TZ', 'SHELL'];

/**
 * The environment of everything the demo runs (hook path, daemon, hook commands): a fake HOME and
 * every XDG and hookd directory inside the temp root, the recorded project as the agent's project dir,
 * and the platform simulator as the API. Nothing else of the caller's environment (API keys, Slack
 * URLs, hookd settings) leaks in.
 */
export function demoEnv(
  layout: DemoLayout,
  base: Env,
  extra: { hooksDir: string; api?: { baseUrl: string; appUrl: string; apiKey: string } },
): Env {
  const env: Env = {};
  for (const key of KEPT) if (base[key] !== undefined) env[key] = base[key];
  // Hook commands run `node`: the one running the demo comes first.
  env.PATH = [dirname(process.execPath), env.PATH].filter(Boolean).join(delimiter);
  Object.assign(env, {
    HOME: layout.home,
    XDG_CONFIG_HOME: join(layout.home, '.config'),
    XDG_STATE_HOME: join(layout.home, '.local', 'state'),
    XDG_DATA_HOME: join(layout.home, '.local', 'share'),
    XDG_CACHE_HOME: join(layout.home, '.cache'),
    XDG_RUNTIME_DIR: join(layout.root, 'run'),
    HOOKD_CONFIG: layout.config,
    HOOKD_STATE_DIR: layout.stateDir,
    HOOKD_DATA_DIR: layout.dataDir,
    HOOKD_RUNTIME_DIR: layout.runtimeDir,
    HOOKD_HOOKS_DIR: extra.hooksDir,
    HOOKD_COMMAND_LOG: layout.commandLog,
    FACTORY_PROJECT_DIR: layout.project,
    FACTORY_HOME: layout.factoryHome,
  });
  if (extra.api) {
    env.HOOKD_API_URL = extra.api.baseUrl;
    env.HOOKD_APP_URL = extra.api.appUrl;
    env.HOOKD_API_KEY = extra.api.apiKey;
  }
  return env;
}

/**
 * The demo's config: three hook commands that really run (the shipped guard before every Execute;
 * the shipped command logger after it and an echo at every Stop, both observe-only), notifications to
 * the console, the ledger tagging sessions on the platform, and the watchers on the platform API.
 */
export function demoConfig(): Record<string, unknown> {
  return {
    hooks: {
      PreToolUse: [
        {
          matcher: 'Execute|Bash',
          hooks: [
            {
              type: 'command',
              command: 'node "$HOOKD_HOOKS_DIR/guard-execute.mjs"',
              name: 'guard',
              blocking: true,
              timeout: 5,
            },
          ],
        },
      ],
      PostToolUse: [
        {
          matcher: 'Execute|Bash',
          hooks: [
            {
              type: 'command',
              command: 'node "$HOOKD_HOOKS_DIR/log-commands.mjs"',
              name: 'command-log',
              blocking: false,
              timeout: 5,
            },
          ],
        },
      ],
      Stop: [
        {
          hooks: [
            {
              type: 'command',
              command: 'echo "turn finished after $elapsed_time ms"',
              name: 'stop-echo',
              blocking: false,
              timeout: 5,
            },
          ],
        },
      ],
    },
    notify: {
      channels: {
        console: { type: 'console' },
        // No desktop notifications from a demo (and node-notifier is never loaded).
        desktop: { type: 'desktop', enabled: false },
      },
      rules: [
        { name: 'needs you', on: 'Notification', channels: ['console'] },
        { name: 'finished', on: 'Stop', session: 'main', channels: ['console'] },
        {
          name: 'sub-agent finished',
          on: 'Stop',
          session: 'subagent',
          channels: ['console'],
          urgency: 'low',
        },
        { name: 'sub-agent result', on: 'SubagentStop', channels: ['console'], urgency: 'low' },
        { name: 'session ended', on: 'SessionEnd', session: 'main', channels: ['console'] },
        { name: 'platform', on: 'PlatformWatch', channels: ['console'] },
      ],
      // Sub-agent bursts are still coalesced, with a short window so the demo need not wait 3 s.
      noise: { coalesceWindowMs: 300 },
      // The demo's permission ask is answered at once: shown anyway (no delay-then-cancel, docs/sessions.md).
      waitingDelayMs: 0,
    },
    daemon: { autoStart: false, fsync: false, handoffTimeoutMs: 2000 },
    enrich: { api: true, budgetMs: 3000 },
    ledger: { enabled: true, tagOnPlatform: true },
    // Every watcher on the platform API (docs/watch.md); the demo polls them itself, after the session.
    watch: {
      credits: { enabled: true, orgLimit: 1_000_000_000 },
      computers: { enabled: true },
      controls: { enabled: true },
      readiness: { enabled: true },
      members: { enabled: true },
    },
  };
}
