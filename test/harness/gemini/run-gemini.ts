import { captureCommand, runWithCapture, type CaptureRun, type CaptureSpec } from '../agent-run.js';
import type { GeminiRequest, GeminiStep } from './fake-gemini.js';
import type { GeminiInnerConfig, GeminiInnerResult } from './inner.js';

/**
 * Runs the real Gemini CLI (`gemini -p -o json --approval-mode yolo --skip-trust`) offline against the
 * scripted fake Gemini API (fake-gemini.ts), in a throwaway HOME under `dir`, isolated and bounded as
 * every agent run of the harness (agent-run.ts). Hooks come from ~/.gemini/settings.json; `events` wires each named
 * event to the same recording hook as Codex's (codex/capture-hook.cjs).
 */
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

export type GeminiRun = CaptureRun<GeminiInnerResult, GeminiRequest>;

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

export function runGemini(options: GeminiRunOptions): Promise<GeminiRun> {
  const inner = new URL('./inner.ts', import.meta.url);
  return runWithCapture({ agent: 'gemini', inner, ...options }, (run): GeminiInnerConfig => {
    const hooks =
      options.hooks ??
      (options.events ? geminiCaptureHooks(options.events, run.specFile, options.timeoutMs) : undefined);
    return {
      entry: options.entry,
      outDir: run.outDir,
      home: run.home,
      work: run.work,
      script: options.script,
      prompt: options.prompt,
      ...(hooks !== undefined ? { hooks } : {}),
      env: run.env,
      deadlineMs: run.deadlineMs,
      netns: run.netns,
    };
  });
}
