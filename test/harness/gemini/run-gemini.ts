import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jsonLines } from '../../helpers/json-lines.js';
import { CAPTURE_HOOK, runInner, type CaptureSpec, type CodexCapture } from '../codex/run-codex.js';
import type { GeminiRequest, GeminiStep } from './fake-gemini.js';
import type { GeminiInnerConfig, GeminiInnerResult } from './inner.js';

/**
 * Runs the real Gemini CLI (`gemini -p -o json --approval-mode yolo --skip-trust`) offline against the
 * scripted fake Gemini API (fake-gemini.ts), in a throwaway HOME under `dir`, isolated like the Codex
 * runs (run-codex.ts `runInner`). Hooks come from ~/.gemini/settings.json; `events` wires each named
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
  captured: CodexCapture[];
}

const SCRUBBED = /^(GEMINI_|GOOGLE_|CLAUDE|ANTHROPIC_|CODEX_|OPENAI_|FACTORY_|DROID_)/;

export function geminiCaptureHooks(events: readonly string[], specFile: string, timeoutMs = 30_000): unknown {
  const hooks: Record<string, unknown> = {};
  for (const event of events) {
    const command = `node ${CAPTURE_HOOK} ${specFile} ${event}`;
    hooks[event] = [
      { matcher: '', hooks: [{ type: 'command', name: `capture-${event}`, command, timeout: timeoutMs }] },
    ];
  }
  return hooks;
}

export async function runGemini(options: GeminiRunOptions): Promise<GeminiRun> {
  const outDir = join(options.dir, 'out');
  const home = join(options.dir, 'home');
  const work = join(options.dir, 'work');
  for (const d of [outDir, home, work]) mkdirSync(d, { recursive: true });
  const captureFile = join(outDir, 'capture.jsonl');
  const specFile = join(outDir, 'capture-spec.json');
  writeFileSync(specFile, JSON.stringify({ out: captureFile, answers: options.capture?.answers ?? {} }));
  const hooks =
    options.hooks ??
    (options.events ? geminiCaptureHooks(options.events, specFile, options.timeoutMs) : undefined);
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(options.env)) if (!SCRUBBED.test(key)) env[key] = value;
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
  const { isolated, read, result } = await runInner<GeminiInnerResult>(
    'gemini',
    join(HERE, 'inner.ts'),
    outDir,
    config,
    deadlineMs,
  );
  return {
    result,
    work,
    home,
    isolated,
    stdout: read('agent.stdout'),
    stderr: read('agent.stderr'),
    requests: jsonLines<GeminiRequest>(join(outDir, 'model.jsonl')),
    captured: jsonLines<CodexCapture>(captureFile),
  };
}
