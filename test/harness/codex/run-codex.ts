import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import { killHard } from '../../helpers/procs.js';
import { jsonLines } from '../../helpers/json-lines.js';
import type { CodexStep, ResponsesRequest } from './fake-responses.js';
import type { CodexInnerConfig, CodexInnerResult } from './inner.js';

/**
 * Runs the real Codex CLI (`codex exec --json`) offline against the scripted fake Responses API
 * (fake-responses.ts), in a throwaway HOME and CODEX_HOME under `dir`. As root with `unshare`, the run
 * happens in a fresh network namespace (only loopback) and PID namespace (everything it started dies
 * with it); otherwise it runs unisolated and says so. The run is killed by PID at its deadline.
 */

const HERE = dirname(fileURLToPath(import.meta.url));

/** The hook command that records its call (capture-hook.cjs), for hooks.json. */
export const CAPTURE_HOOK = join(HERE, '..', 'codex', 'capture-hook.cjs');

/** `node AWAIT_COPIES <event> <n>`: waits until n hook processes of that event run in this HOME. */
export const AWAIT_COPIES = join(HERE, '..', 'codex', 'await-copies.cjs');

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

/** What capture-hook.cjs records per call. */
export interface CodexCapture {
  label: string;
  cwd: string;
  env: Record<string, string>;
  stdin: string;
  payload: Record<string, unknown> | null;
  socket?: string;
}

export interface CaptureSpec {
  /** How the hook labelled `label` answers: stdout text, stderr text, exit code. */
  answers?: Record<string, { stdout?: string; stderr?: string; exit?: number }>;
  /** A unix socket the hook tries to connect to before answering. */
  socket?: string;
}

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

export interface CodexRun {
  result: CodexInnerResult;
  outDir: string;
  home: string;
  work: string;
  codexHome: string;
  isolated: boolean;
  /** `codex exec --json` events (one JSON object a line). */
  events: Record<string, unknown>[];
  stderr: string;
  /** Every request the fake model got, in order. */
  requests: ResponsesRequest[];
  captured: CodexCapture[];
  /** The socket path the run listened on (with `socket`). */
  socketPath?: string;
}

/** Variables of an enclosing agent or a real account that must not reach the run. */
const SCRUBBED = /^(CODEX_|OPENAI_|CLAUDE|ANTHROPIC_|CLAUDECODE$|FACTORY_|DROID_|GEMINI_|GOOGLE_)/;

const bundles = new Map<string, string>();

/** An inner part (a .ts file) as one CommonJS file, so plain `node` runs it inside the namespace. */
function innerBundle(entry: string, dir: string): string {
  const done = bundles.get(entry);
  if (done && existsSync(done)) return done;
  const file = join(dir, 'inner.cjs');
  buildSync({
    entryPoints: [entry],
    outfile: file,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    logLevel: 'error',
  });
  bundles.set(entry, file);
  return file;
}

function canIsolate(): boolean {
  if (process.getuid?.() !== 0) return false;
  return (
    spawnSync('unshare', ['--net', '--pid', '--fork', '--kill-child', '--mount-proc', 'true']).status === 0
  );
}

/**
 * Runs an agent's inner part (`entry`, a .ts file taking its config file as argument) in a fresh
 * network and PID namespace when root, else unisolated with a warning; kills it by PID 30 s past the
 * deadline. Returns whether it was isolated and a reader of the files it left in `outDir`.
 */
export async function runInner<Result>(
  agent: string,
  entry: string,
  outDir: string,
  config: (netns: boolean) => unknown,
  deadlineMs: number,
): Promise<{ isolated: boolean; read: (name: string) => string; result: Result }> {
  const isolated = canIsolate();
  const configFile = join(outDir, 'inner-config.json');
  writeFileSync(configFile, JSON.stringify(config(isolated)));
  const inner = [process.execPath, innerBundle(entry, outDir), configFile];
  const argv = isolated
    ? ['unshare', '--net', '--pid', '--fork', '--kill-child', '--mount-proc', ...inner]
    : inner;
  if (!isolated)
    process.stderr.write(
      `${agent} harness: WARNING running without network/PID isolation (not root or no unshare)\n`,
    );
  const child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'ignore', 'pipe'], detached: !isolated });
  let innerErr = '';
  child.stderr.on('data', (d: Buffer) => (innerErr += d.toString()));
  const guard = setTimeout(() => killHard(child.pid), deadlineMs + 30_000);
  try {
    await new Promise<void>((resolve) => child.on('close', () => resolve()));
  } finally {
    clearTimeout(guard);
    if (!isolated) killHard(child.pid);
  }
  const read = (name: string) =>
    existsSync(join(outDir, name)) ? readFileSync(join(outDir, name), 'utf8') : '';
  const resultText = read('result.json');
  if (!resultText)
    throw new Error(`${agent} harness failed: ${read('inner-error.txt') || innerErr || 'no result'}`);
  return { isolated, read, result: JSON.parse(resultText) as Result };
}

/** hooks.json wiring each event to capture-hook.cjs (SessionEnd and Interrupt: 3 s, Codex's cap). */
export function captureHooks(events: readonly string[], specFile: string): unknown {
  const hooks: Record<string, unknown> = {};
  for (const event of events) {
    const timeout = event === 'SessionEnd' || event === 'Interrupt' ? 3 : 30;
    const command = `node ${CAPTURE_HOOK} ${specFile} ${event}`;
    hooks[event] = [{ matcher: '', hooks: [{ type: 'command', command, timeout }] }];
  }
  return { hooks };
}

export async function runCodex(options: CodexRunOptions): Promise<CodexRun> {
  const outDir = join(options.dir, 'out');
  const home = join(options.dir, 'home');
  const codexHome = join(home, '.codex');
  const work = join(options.dir, 'work');
  const runtime = join(options.dir, 'run');
  for (const d of [outDir, codexHome, work]) mkdirSync(d, { recursive: true });
  mkdirSync(runtime, { recursive: true, mode: 0o700 });
  const captureFile = join(outDir, 'capture.jsonl');
  const socketPath = options.socket ? join(runtime, 'probe.sock') : undefined;
  const specFile = join(outDir, 'capture-spec.json');
  writeFileSync(
    specFile,
    JSON.stringify({ out: captureFile, answers: options.capture?.answers ?? {}, socket: socketPath }),
  );
  const hooks = options.hooks ?? (options.events ? captureHooks(options.events, specFile) : undefined);
  const sandbox = options.sandbox ?? 'bypass';
  const args = ['--skip-git-repo-check', '--json'];
  if (sandbox === 'bypass') args.push('--dangerously-bypass-approvals-and-sandbox');
  if (options.trust === 'bypass') args.push('--dangerously-bypass-hook-trust');
  const configHead =
    sandbox === 'bypass'
      ? 'approval_policy = "never"\nsandbox_mode = "danger-full-access"'
      : 'approval_policy = "never"\nsandbox_mode = "workspace-write"';
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(options.env)) if (!SCRUBBED.test(key)) env[key] = value;
  Object.assign(env, { HOME: home, XDG_RUNTIME_DIR: runtime });
  const deadlineMs = (options.deadlineSec ?? 60) * 1000;
  const config = (netns: boolean): CodexInnerConfig => ({
    bin: options.bin,
    outDir,
    codexHome,
    work,
    script: options.script,
    prompt: options.prompt,
    args,
    env,
    ...(hooks !== undefined ? { hooks } : {}),
    configHead,
    ...(options.configTail !== undefined ? { configTail: options.configTail } : {}),
    trust: options.trust === 'persisted' ? 'persisted' : 'none',
    ...(socketPath ? { socket: socketPath } : {}),
    deadlineMs,
    netns,
  });
  const { isolated, read, result } = await runInner<CodexInnerResult>(
    'codex',
    join(HERE, 'inner.ts'),
    outDir,
    config,
    deadlineMs,
  );
  return {
    result,
    outDir,
    home,
    work,
    codexHome,
    isolated,
    events: read('agent.stdout')
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>),
    stderr: read('agent.stderr'),
    requests: jsonLines<ResponsesRequest>(join(outDir, 'model.jsonl')),
    captured: jsonLines<CodexCapture>(captureFile),
    ...(socketPath ? { socketPath } : {}),
  };
}
