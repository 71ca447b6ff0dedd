import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  captureCommand,
  runWithCapture,
  type AgentCapture,
  type CaptureRun,
  type CaptureSpec,
} from '../agent-run.js';
import type { CodexStep, ResponsesRequest } from './fake-responses.js';
import type { CodexInnerConfig, CodexInnerResult } from './inner.js';

/**
 * Runs the real Codex CLI (`codex exec --json`) offline against the scripted fake Responses API
 * (fake-responses.ts), in a throwaway HOME and CODEX_HOME under `dir`, isolated and bounded as every
 * agent run of the harness (agent-run.ts).
 */

export { CAPTURE_HOOK, type CaptureSpec } from '../agent-run.js';
/** What capture-hook.cjs records per call (agent-run.ts). */
export type CodexCapture = AgentCapture;

/** `node AWAIT_COPIES <event> <n>`: waits until n hook processes of that event run in this HOME. */
export const AWAIT_COPIES = fileURLToPath(new URL('./await-copies.cjs', import.meta.url));

/** Codex 0.171.0's hook events (`hooks/list`); StopFailure is documented but not accepted. */
export const CODEX_EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'PreToolUse',
  'PermissionRequest',
  'PostToolUse',
  'PreCompact',
  'PostCompact',
  'SubagentStart',
  'SubagentStop',
  'Stop',
  'Interrupt',
  'SessionEnd',
] as const;

export interface CodexRunOptions {
  bin: string;
  /** A private temp dir for this run (home, work, outputs). */
  dir: string;
  script: CodexStep[];
  prompt: string;
  /** Events wired to capture-hook.cjs (labelled with the event name), with their timeout in seconds. */
  events?: readonly string[];
  capture?: CaptureSpec;
  /** hooks.json as given (instead of `events`). */
  hooks?: unknown;
  /**
   * How Codex is told to run hooks that no one reviewed: 'bypass' = `--dangerously-bypass-hook-trust`;
   * 'persisted' = trusted before the run as Codex's /hooks screen does it (config.toml hooks.state);
   * 'none' = neither (untrusted).
   */
  trust: 'bypass' | 'persisted' | 'none';
  /** 'bypass' = `--dangerously-bypass-approvals-and-sandbox`; 'workspace-write' = Codex's sandbox on. */
  sandbox?: 'bypass' | 'workspace-write';
  /** TOML appended at the end of CODEX_HOME/config.toml (hooks written there as `[[hooks.<Event>]]`). */
  configTail?: string;
  /** Listen on a unix socket in the run's XDG_RUNTIME_DIR; the capture hook tries to connect to it. */
  socket?: boolean;
  env: Record<string, string>;
  deadlineSec?: number;
}

export interface CodexRun extends Omit<CaptureRun<CodexInnerResult, ResponsesRequest>, 'stdout'> {
  codexHome: string;
  /** `codex exec --json` events (one JSON object a line). */
  events: Record<string, unknown>[];
  /** The socket path the run listened on (with `socket`). */
  socketPath?: string;
}

/** hooks.json wiring each event to capture-hook.cjs (SessionEnd and Interrupt: 3 s, Codex's cap). */
export function captureHooks(events: readonly string[], specFile: string): unknown {
  const hooks: Record<string, unknown> = {};
  for (const event of events) {
    const timeout = event === 'SessionEnd' || event === 'Interrupt' ? 3 : 30;
    hooks[event] = [
      { matcher: '', hooks: [{ type: 'command', command: captureCommand(specFile, event), timeout }] },
    ];
  }
  return { hooks };
}

export async function runCodex(options: CodexRunOptions): Promise<CodexRun> {
  const runtime = join(options.dir, 'run');
  mkdirSync(runtime, { recursive: true, mode: 0o700 });
  const codexHome = join(options.dir, 'home', '.codex');
  mkdirSync(codexHome, { recursive: true });
  const socketPath = options.socket ? join(runtime, 'probe.sock') : undefined;
  const sandbox = options.sandbox ?? 'bypass';
  const args = ['--skip-git-repo-check', '--json'];
  if (sandbox === 'bypass') args.push('--dangerously-bypass-approvals-and-sandbox');
  if (options.trust === 'bypass') args.push('--dangerously-bypass-hook-trust');
  const configHead =
    sandbox === 'bypass'
      ? 'approval_policy = "never"\nsandbox_mode = "danger-full-access"'
      : 'approval_policy = "never"\nsandbox_mode = "workspace-write"';
  const capture = { ...options.capture, ...(socketPath ? { socket: socketPath } : {}) };
  const inner = new URL('./inner.ts', import.meta.url);
  const { stdout, ...run } = await runWithCapture<CodexInnerResult, ResponsesRequest>(
    { agent: 'codex', inner, ...options, capture },
    (run): CodexInnerConfig => {
      const hooks =
        options.hooks ?? (options.events ? captureHooks(options.events, run.specFile) : undefined);
      return {
        bin: options.bin,
        outDir: run.outDir,
        codexHome,
        work: run.work,
        script: options.script,
        prompt: options.prompt,
        args,
        env: { ...run.env, HOME: run.home, XDG_RUNTIME_DIR: runtime },
        ...(hooks !== undefined ? { hooks } : {}),
        configHead,
        ...(options.configTail !== undefined ? { configTail: options.configTail } : {}),
        trust: options.trust === 'persisted' ? 'persisted' : 'none',
        ...(socketPath ? { socket: socketPath } : {}),
        deadlineMs: run.deadlineMs,
        netns: run.netns,
      };
    },
  );
  return {
    ...run,
    codexHome,
    events: stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>),
    ...(socketPath ? { socketPath } : {}),
  };
}
