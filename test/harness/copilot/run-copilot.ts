import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jsonLines } from '../../helpers/json-lines.js';
import { AGENTS, agentsCacheDir } from '../agents.js';
import type { CodexStep, ResponsesRequest } from '../codex/fake-responses.js';
import { CAPTURE_HOOK, runInner, type CaptureSpec, type CodexCapture } from '../codex/run-codex.js';
import type { CopilotInnerConfig, CopilotInnerResult } from './inner.js';

/**
 * Runs the real Copilot CLI (`copilot -p <prompt> --allow-all-tools`) offline against the scripted fake
 * Responses API (codex/fake-responses.ts) in its "bring your own key" mode (no GitHub sign-in), in a
 * throwaway HOME under `dir`, isolated like the Codex runs (codex/run-codex.ts `runInner`). Hooks come
 * from the files in HOME (`~/.copilot/hooks/*.json`, written by `hookd install --agent copilot`) or
 * the project's `.github/hooks/*.json` (run only with `trustFolder`); `events` wires each named event in
 * `~/.copilot/hooks/capture.json` to the recording hook (codex/capture-hook.cjs).
 */
const HERE = dirname(fileURLToPath(import.meta.url));

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

export interface CopilotRun {
  result: CopilotInnerResult;
  work: string;
  home: string;
  isolated: boolean;
  stdout: string;
  stderr: string;
  requests: ResponsesRequest[];
  captured: CodexCapture[];
}

const SCRUBBED = /^(COPILOT_|GH_|GITHUB_|CLAUDE|ANTHROPIC_|CODEX_|OPENAI_|GEMINI_|GOOGLE_|FACTORY_|DROID_)/;

/** A hooks file wiring each event to the recording hook, in Claude Code's shape (what hookd writes). */
export function copilotCaptureHooks(events: readonly string[], specFile: string, timeoutSec = 30): unknown {
  const hooks: Record<string, unknown> = {};
  for (const event of events) {
    const command = `node ${CAPTURE_HOOK} ${specFile} ${event}`;
    hooks[event] = [{ matcher: '*', hooks: [{ type: 'command', command, timeout: timeoutSec }] }];
  }
  return { hooks };
}

/** The package the binary unpacks on its first start (about 200 MB), kept beside the pinned binary. */
function unpackCache(): string {
  return join(agentsCacheDir(), `copilot-${AGENTS.copilot.version}`, 'xdg-cache');
}

export async function runCopilot(options: CopilotRunOptions): Promise<CopilotRun> {
  const outDir = join(options.dir, 'out');
  const home = join(options.dir, 'home');
  const work = join(options.dir, 'work');
  for (const d of [outDir, home, work]) mkdirSync(d, { recursive: true });
  const captureFile = join(outDir, 'capture.jsonl');
  const specFile = join(outDir, 'capture-spec.json');
  writeFileSync(specFile, JSON.stringify({ out: captureFile, answers: options.capture?.answers ?? {} }));
  const files: Record<string, unknown> = {};
  if (options.events)
    files[join(home, '.copilot', 'hooks', 'capture.json')] = copilotCaptureHooks(
      options.events,
      specFile,
      options.timeoutSec,
    );
  for (const [path, content] of Object.entries(options.homeFiles ?? {})) files[join(home, path)] = content;
  for (const [path, content] of Object.entries(options.workFiles ?? {})) files[join(work, path)] = content;
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(options.env)) if (!SCRUBBED.test(key)) env[key] = value;
  env.XDG_CACHE_HOME = unpackCache();
  const args = ['--allow-all-tools', '--no-auto-update', '--disable-builtin-mcps'];
  if (options.trustFolder) args.push('--trust-folder');
  const deadlineMs = (options.deadlineSec ?? 60) * 1000;
  const config = (netns: boolean): CopilotInnerConfig => ({
    bin: options.bin,
    outDir,
    home,
    work,
    script: options.script,
    prompt: options.prompt,
    ...(options.model ? { model: options.model } : {}),
    args,
    files,
    env,
    deadlineMs,
    netns,
  });
  const { isolated, read, result } = await runInner<CopilotInnerResult>(
    'copilot',
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
    requests: jsonLines<ResponsesRequest>(join(outDir, 'model.jsonl')),
    captured: jsonLines<CodexCapture>(captureFile),
  };
}
