import { join } from 'node:path';
import { AGENTS, agentsCacheDir } from '../agents.js';
import type { CodexStep, ResponsesRequest } from '../codex/fake-responses.js';
import { captureCommand, runWithCapture, type CaptureRun, type CaptureSpec } from '../agent-run.js';
import type { CopilotInnerConfig, CopilotInnerResult } from './inner.js';

/**
 * Runs the real Copilot CLI (`copilot -p <prompt> --allow-all-tools`) offline against the scripted fake
 * Responses API (codex/fake-responses.ts) in its "bring your own key" mode (no GitHub sign-in), in a
 * throwaway HOME under `dir`, isolated and bounded as every agent run of the harness (agent-run.ts). Hooks come
 * from the files in HOME (`~/.copilot/hooks/*.json`, written by `hookd install --agent copilot`) or
 * the project's `.github/hooks/*.json` (run only with `trustFolder`); `events` wires each named event in
 * `~/.copilot/hooks/capture.json` to the recording hook (codex/capture-hook.cjs).
 */
export interface CopilotRunOptions {
  bin: string;
  dir: string;
  script: CodexStep[];
  prompt: string;
  /** The model name Copilot asks the provider for (default gpt-5.5; it picks its tools by model). */
  model?: string;
  /** Events (Claude Code's names) wired to the recording hook in ~/.copilot/hooks/capture.json. */
  events?: readonly string[];
  /** Seconds, Copilot's unit. */
  timeoutSec?: number;
  capture?: CaptureSpec;
  /** More files to write before the run, by path relative to the run's HOME (`.copilot/hooks/x.json`), as JSON. */
  homeFiles?: Record<string, unknown>;
  /** Files to write in the run's working folder before it (`.github/hooks/x.json`), as JSON. */
  workFiles?: Record<string, unknown>;
  /** Pass --trust-folder: the project's .github/hooks run. */
  trustFolder?: boolean;
  env: Record<string, string>;
  deadlineSec?: number;
}

export type CopilotRun = CaptureRun<CopilotInnerResult, ResponsesRequest>;

/** A hooks file wiring each event to the recording hook, in Claude Code's shape (what hookd writes). */
export function copilotCaptureHooks(events: readonly string[], specFile: string, timeoutSec = 30): unknown {
  const hooks: Record<string, unknown> = {};
  for (const event of events) {
    const command = captureCommand(specFile, event);
    hooks[event] = [{ matcher: '*', hooks: [{ type: 'command', command, timeout: timeoutSec }] }];
  }
  return { hooks };
}

/** The package the binary unpacks on its first start (about 200 MB), kept beside the pinned binary. */
function unpackCache(): string {
  return join(agentsCacheDir(), `copilot-${AGENTS.copilot.version}`, 'xdg-cache');
}

export function runCopilot(options: CopilotRunOptions): Promise<CopilotRun> {
  const args = ['--allow-all-tools', '--no-auto-update', '--disable-builtin-mcps'];
  if (options.trustFolder) args.push('--trust-folder');
  const inner = new URL('./inner.ts', import.meta.url);
  return runWithCapture({ agent: 'copilot', inner, ...options }, (run): CopilotInnerConfig => {
    const files: Record<string, unknown> = {};
    if (options.events)
      files[join(run.home, '.copilot', 'hooks', 'capture.json')] = copilotCaptureHooks(
        options.events,
        run.specFile,
        options.timeoutSec,
      );
    for (const [path, content] of Object.entries(options.homeFiles ?? {}))
      files[join(run.home, path)] = content;
    for (const [path, content] of Object.entries(options.workFiles ?? {}))
      files[join(run.work, path)] = content;
    return {
      bin: options.bin,
      outDir: run.outDir,
      home: run.home,
      work: run.work,
      script: options.script,
      prompt: options.prompt,
      ...(options.model ? { model: options.model } : {}),
      args,
      files,
      env: { ...run.env, XDG_CACHE_HOME: unpackCache() },
      deadlineMs: run.deadlineMs,
      netns: run.netns,
    };
  });
}
