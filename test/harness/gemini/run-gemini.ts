import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  captureCommand,
  captureRunFolders,
  runCaptureInner,
  scrubbedEnv,
  type AgentCapture,
  type CaptureSpec,
} from '../agent-run.js';
import type { GeminiRequest, GeminiStep } from './fake-gemini.js';
import type { GeminiInnerConfig, GeminiInnerResult } from './inner.js';

/**
 * Runs the real Gemini CLI (`gemini -p -o json --approval-mode yolo --skip-trust`) offline against the
 * scripted fake Gemini API (fake-gemini.ts), in a throwaway HOME under `dir`, isolated and bounded as
 * every agent run of the harness (agent-run.ts). Hooks come from ~/.gemini/settings.json; `events` wires each named
 * event to the same recording hook as Codex's (codex/capture-hook.cjs).
 */
const HERE = dirname(fileURLToPath(import.meta.url));

/** Gemini CLI 0.61.0's hook events. */
export const GEMINI_EVENTS = [
  'SessionStart',
  'BeforeAgent',
  'BeforeModel',
  'AfterModel',
  'BeforeToolSelection',
  'BeforeTool',
  'AfterTool',
  'AfterAgent',
  'PreCompress',
  'Notification',
  'SessionEnd',
] as const;

export interface GeminiRunOptions {
  /** bundle/gemini.js of the pinned package. */
  entry: string;
  dir: string;
  script: GeminiStep[];
  prompt: string;
  events?: readonly string[];
  /** Milliseconds, Gemini's unit. */
  timeoutMs?: number;
  capture?: CaptureSpec;
  hooks?: unknown;
  env: Record<string, string>;
  deadlineSec?: number;
}

export interface GeminiRun {
  result: GeminiInnerResult;
  work: string;
  home: string;
  isolated: boolean;
  stdout: string;
  stderr: string;
  requests: GeminiRequest[];
  captured: AgentCapture[];
}

export function geminiCaptureHooks(events: readonly string[], specFile: string, timeoutMs = 30_000): unknown {
  const hooks: Record<string, unknown> = {};
  for (const event of events) {
    const command = captureCommand(specFile, event);
    hooks[event] = [
      { matcher: '', hooks: [{ type: 'command', name: `capture-${event}`, command, timeout: timeoutMs }] },
    ];
  }
  return hooks;
}

export async function runGemini(options: GeminiRunOptions): Promise<GeminiRun> {
  const folders = captureRunFolders(options.dir, options.capture);
  const { outDir, home, work } = folders;
  const hooks =
    options.hooks ??
    (options.events ? geminiCaptureHooks(options.events, folders.specFile, options.timeoutMs) : undefined);
  const env = scrubbedEnv(options.env);
  const deadlineMs = (options.deadlineSec ?? 60) * 1000;
  const config = (netns: boolean): GeminiInnerConfig => ({
    entry: options.entry,
    outDir,
    home,
    work,
    script: options.script,
    prompt: options.prompt,
    ...(hooks !== undefined ? { hooks } : {}),
    env,
    deadlineMs,
    netns,
  });
  const run = await runCaptureInner<GeminiInnerResult, GeminiRequest>(
    'gemini',
    join(HERE, 'inner.ts'),
    folders,
    config,
    deadlineMs,
  );
  const { read, ...rest } = run;
  return { ...rest, work, home, stdout: read('agent.stdout') };
}
