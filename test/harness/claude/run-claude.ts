import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AGENTS } from '../agents.js';
import { runInner, scrubbedEnv } from '../agent-run.js';
import type { ModelRequest, ModelStep } from './fake-model.js';
import type { InnerConfig, InnerResult } from './inner.js';
import { jsonLines } from '../../helpers/json-lines.js';

/**
 * Runs the real Claude Code binary offline against the scripted fake model (fake-model.ts), in a
 * throwaway HOME prepared here, as a test needs it: print mode (`claude -p`), or stream-json mode (a
 * session of several user messages, e.g. "/compact"; permission prompts answered over stdio once a
 * condition holds). Isolated and bounded as every agent run of the harness (agent-run.ts).
 */

const HERE = dirname(fileURLToPath(import.meta.url));
/** A fake key in the shape Claude Code expects; pre-approved in the throwaway ~/.claude.json. */
const FAKE_KEY = 'sk-ant-api03-hookd-offline-test-key-000000000000000000000000-AA';

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

function claudeEnv(options: ClaudeRunOptions): Record<string, string> {
  const env = scrubbedEnv(options.env);
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
  const deadlineMs = (options.deadlineSec ?? 120) * 1000;
  const config = (netns: boolean): InnerConfig => ({
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
    netns,
    ...(options.permission ? { permission: options.permission } : {}),
    ...(options.sidecar ? { sidecar: options.sidecar } : {}),
  });
  const { isolated, read, result } = await runInner<InnerResult>(
    'claude',
    join(HERE, 'inner.ts'),
    options.outDir,
    config,
    deadlineMs,
  );
  return {
    result,
    outDir: options.outDir,
    isolated,
    stdout: read('agent.stdout'),
    stderr: read('agent.stderr'),
    debugLog: options.debugInHome ? homeDebugLogs(options.home) : read('debug.log'),
    requests: jsonLines<ModelRequest>(join(options.outDir, 'model.jsonl')),
  };
}
