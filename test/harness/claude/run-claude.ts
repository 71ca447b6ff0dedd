import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import { killHard } from '../../helpers/procs.js';
import { AGENTS } from '../agents.js';
import type { ModelRequest, ModelStep } from './fake-model.js';
import type { InnerConfig, InnerResult } from './inner.js';
import { jsonLines } from '../../helpers/json-lines.js';

/**
 * Runs the real Claude Code binary offline against the scripted fake model (fake-model.ts), in a
 * throwaway HOME prepared here, as a test needs it: print mode (`claude -p`), or stream-json mode (a
 * session of several user messages, e.g. "/compact"; permission prompts answered over stdio once a
 * condition holds). As root with `unshare`, the run happens in a fresh network namespace (only loopback:
 * the binary cannot reach any other host) and PID namespace (everything it started dies with it).
 * Otherwise it runs unisolated and says so. The run is killed by PID at its deadline.
 */

const HERE = dirname(fileURLToPath(import.meta.url));
/** A fake key in the shape Claude Code expects; pre-approved in the throwaway ~/.claude.json. */
const FAKE_KEY = 'sk-ant-api03-hookd-offline-test-key-000000000000000000000000-AA';

/** Variables of an enclosing Claude Code session or of a real account that must not reach the run. */
const SCRUBBED = /^(CLAUDE|ANTHROPIC_|CLAUDECODE$|AI_AGENT$|FACTORY_|DROID_)/;

export interface ClaudeRunOptions {
  bin: string;
  /** The throwaway HOME (prepared by prepareClaudeHome) and the session's working directory. */
  home: string;
  work: string;
  /** Where the run's files go (model.jsonl, debug.log, agent.stdout/stderr, stream.jsonl). */
  outDir: string;
  mode: 'print' | 'stream';
  script: ModelStep[];
  prompt: string;
  followups?: string[];
  /** The environment claude starts with (HOME is set to `home`); enclosing-agent variables are removed. */
  env: Record<string, string>;
  /** Added after the scrub: e.g. an enclosing Droid session's FACTORY_PROJECT_DIR. */
  extraEnv?: Record<string, string>;
  /** --permission-mode (default bypassPermissions). */
  permissionMode?: 'bypassPermissions' | 'default' | 'acceptEdits';
  permission?: InnerConfig['permission'];
  args?: string[];
  deadlineSec?: number;
  /** A process run beside claude inside its namespaces (see InnerConfig.sidecar), e.g. a hookd daemon. */
  sidecar?: InnerConfig['sidecar'];
  /** `--debug` (Claude Code writes ~/.claude/debug/<session>.txt, as a user's would) instead of --debug-file. */
  debugInHome?: boolean;
}

export interface ClaudeRun {
  result: InnerResult;
  outDir: string;
  isolated: boolean;
  stdout: string;
  stderr: string;
  debugLog: string;
  /** Every request the fake model got, in order: what hooks fed back to the model is in there. */
  requests: ModelRequest[];
}

/** ~/.claude.json as a finished onboarding leaves it: the fake key approved, the work dir trusted. */
export function prepareClaudeHome(home: string, work: string): void {
  mkdirSync(join(home, '.claude'), { recursive: true });
  mkdirSync(work, { recursive: true });
  writeFileSync(
    join(home, '.claude.json'),
    JSON.stringify({
      hasCompletedOnboarding: true,
      lastOnboardingVersion: AGENTS.claude.version,
      bypassPermissionsModeAccepted: true,
      autoUpdates: false,
      customApiKeyResponses: { approved: [FAKE_KEY.slice(-20)], rejected: [] },
      projects: { [work]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true } },
    }),
  );
}

let bundle: string | undefined;

/** inner.ts as one CommonJS file, so plain `node` runs it inside the namespace. */
function innerBundle(dir: string): string {
  if (bundle && existsSync(bundle)) return bundle;
  const file = join(dir, 'claude-inner.cjs');
  buildSync({
    entryPoints: [join(HERE, 'inner.ts')],
    outfile: file,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    logLevel: 'error',
  });
  bundle = file;
  return file;
}

function canIsolate(): boolean {
  if (process.getuid?.() !== 0) return false;
  return (
    spawnSync('unshare', ['--net', '--pid', '--fork', '--kill-child', '--mount-proc', 'true']).status === 0
  );
}

function claudeEnv(options: ClaudeRunOptions): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(options.env)) if (!SCRUBBED.test(key)) env[key] = value;
  const mode = options.permissionMode ?? 'bypassPermissions';
  Object.assign(env, {
    HOME: options.home,
    ANTHROPIC_API_KEY: FAKE_KEY,
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY: '1',
    CLAUDE_CODE_DISABLE_TERMINAL_TITLE: '1',
    // Claude Code refuses to bypass permissions as root unless it is told it runs in a sandbox
    ...(mode === 'bypassPermissions' && process.getuid?.() === 0 ? { IS_SANDBOX: '1' } : {}),
    ...options.extraEnv,
  });
  return env;
}

/** What `claude --debug` wrote under the throwaway HOME (~/.claude/debug/<session>.txt), all sessions. */
function homeDebugLogs(home: string): string {
  const dir = join(home, '.claude', 'debug');
  if (!existsSync(dir)) return '';
  return readdirSync(dir)
    .filter((name) => name.endsWith('.txt'))
    .map((name) => readFileSync(join(dir, name), 'utf8'))
    .join('\n');
}

export async function runClaude(options: ClaudeRunOptions): Promise<ClaudeRun> {
  mkdirSync(options.outDir, { recursive: true });
  const isolated = canIsolate();
  const deadlineMs = (options.deadlineSec ?? 120) * 1000;
  const config: InnerConfig = {
    bin: options.bin,
    mode: options.mode,
    outDir: options.outDir,
    work: options.work,
    script: options.script,
    prompt: options.prompt,
    followups: options.followups ?? [],
    args: [
      '--permission-mode',
      options.permissionMode ?? 'bypassPermissions',
      ...(options.debugInHome ? ['--debug'] : ['--debug-file', join(options.outDir, 'debug.log')]),
      ...(options.mode === 'print' ? ['--output-format', 'json'] : []),
      ...(options.args ?? []),
    ],
    env: claudeEnv(options),
    deadlineMs,
    netns: isolated,
    ...(options.permission ? { permission: options.permission } : {}),
    ...(options.sidecar ? { sidecar: options.sidecar } : {}),
  };
  const configFile = join(options.outDir, 'inner-config.json');
  writeFileSync(configFile, JSON.stringify(config));
  const inner = [process.execPath, innerBundle(options.outDir), configFile];
  const argv = isolated
    ? ['unshare', '--net', '--pid', '--fork', '--kill-child', '--mount-proc', ...inner]
    : inner;
  if (!isolated)
    process.stderr.write(
      'claude harness: WARNING running without network/PID isolation (not root or no unshare)\n',
    );
  const child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'ignore', 'pipe'], detached: !isolated });
  let innerErr = '';
  child.stderr.on('data', (d: Buffer) => (innerErr += d.toString()));
  // The inner part kills claude at the deadline; this one is for an inner part that hangs itself.
  const guard = setTimeout(() => killHard(child.pid), deadlineMs + 30_000);
  await new Promise<void>((resolve) => child.on('close', () => resolve()));
  clearTimeout(guard);
  if (!isolated) killHard(child.pid);
  const read = (name: string) =>
    existsSync(join(options.outDir, name)) ? readFileSync(join(options.outDir, name), 'utf8') : '';
  const resultText = read('result.json');
  if (!resultText)
    throw new Error(`claude harness failed: ${read('inner-error.txt') || innerErr || 'no result'}`);
  return {
    result: JSON.parse(resultText) as InnerResult,
    outDir: options.outDir,
    isolated,
    stdout: read('agent.stdout'),
    stderr: read('agent.stderr'),
    debugLog: options.debugInHome ? homeDebugLogs(options.home) : read('debug.log'),
    requests: jsonLines<ModelRequest>(join(options.outDir, 'model.jsonl')),
  };
}
