import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import { killHard } from '../helpers/procs.js';
import { jsonLines } from '../helpers/json-lines.js';

/**
 * What every real-agent run of the harness shares: the agent's inner part (a .ts file that starts the
 * fake model and the agent, and reports through files in its out folder) bundled for plain `node` and
 * run, as root with `unshare`, in a fresh network namespace (only loopback: the agent cannot reach any
 * other host) and PID namespace (everything it started dies with it); otherwise unisolated, saying so.
 * The inner part kills the agent at the deadline; the run kills the inner part by PID 30 s after it.
 * For the agents whose hooks are checked by the recording hook (capture-hook.cjs: Codex, Gemini,
 * Copilot), the throwaway folders, the hook's spec file and what it recorded.
 */

const HERE = dirname(fileURLToPath(import.meta.url));

/** The hook command that records its call (codex/capture-hook.cjs), for an agent's hooks file. */
export const CAPTURE_HOOK = join(HERE, 'codex', 'capture-hook.cjs');

/** The recording hook's command for `event` (its label), reading its answers from `specFile`. */
export const captureCommand = (specFile: string, event: string) =>
  `node ${CAPTURE_HOOK} ${specFile} ${event}`;

/** What capture-hook.cjs records per call. */
export interface AgentCapture {
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

/**
 * Variables of an enclosing agent session or of a real account (any agent's) that must not reach a run.
 * CLAUDE covers CLAUDECODE and CLAUDE_*.
 */
const SCRUBBED =
  /^(CLAUDE|ANTHROPIC_|AI_AGENT$|FACTORY_|DROID_|CODEX_|OPENAI_|GEMINI_|GOOGLE_|COPILOT_|GH_|GITHUB_)/;

/** `env` without the variables of SCRUBBED. */
export function scrubbedEnv(env: Record<string, string>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (!SCRUBBED.test(key)) kept[key] = value;
  return kept;
}

const bundles = new Map<string, string>();

/** An inner part (a .ts file) as one CommonJS file in `dir`, so plain `node` runs it inside the namespace. */
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
 * Runs an agent's inner part (`entry`, a .ts file taking its config file as argument) isolated when it
 * can (see above) and waits for it. Returns whether it was isolated, a reader of the files it left in
 * `outDir` and its `result.json`; throws with its error when it left none.
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

/** The throwaway folders of a run with the recording hook, and the hook's files. */
export interface CaptureRunFolders {
  /** What the run leaves (model.jsonl, agent.stdout/stderr, result.json, capture.jsonl). */
  outDir: string;
  home: string;
  work: string;
  /** The recording hook's spec: where it records, how it answers. */
  specFile: string;
  captureFile: string;
}

/** A run with the recording hook, as a runner asks for it. */
export interface CaptureRunRequest {
  agent: string;
  /** The agent's inner part: `new URL('./inner.ts', import.meta.url)`. */
  inner: URL;
  /** A private temp dir for the run: its `out`, `home` and `work` folders are made in it. */
  dir: string;
  capture?: CaptureSpec;
  /** The run's environment before the scrub (scrubbedEnv). */
  env: Record<string, string>;
  deadlineSec?: number;
}

/** What a runner builds its inner part's config from. */
export interface CaptureRunContext extends CaptureRunFolders {
  /** The request's environment, scrubbed. */
  env: Record<string, string>;
  deadlineMs: number;
  /** Whether the run is isolated (the inner part then brings up loopback). */
  netns: boolean;
}

/** A finished run with the recording hook: its folders, its result and what it left. */
export interface CaptureRun<Result, Request> extends CaptureRunFolders {
  result: Result;
  isolated: boolean;
  read: (name: string) => string;
  stdout: string;
  stderr: string;
  /** Every request the fake model got, in order. */
  requests: Request[];
  /** Every call of the recording hook, in order. */
  captured: AgentCapture[];
}

/**
 * Runs an agent whose hooks are the recording hook (or hooks of the test's own): makes the run's folders
 * and the hook's spec in `dir`, runs the inner part with the config `configOf` builds (see runInner), and
 * reads what the run left.
 */
export async function runWithCapture<Result, Request>(
  request: CaptureRunRequest,
  configOf: (run: CaptureRunContext) => unknown,
): Promise<CaptureRun<Result, Request>> {
  const outDir = join(request.dir, 'out');
  const home = join(request.dir, 'home');
  const work = join(request.dir, 'work');
  for (const d of [outDir, home, work]) mkdirSync(d, { recursive: true });
  const captureFile = join(outDir, 'capture.jsonl');
  const specFile = join(outDir, 'capture-spec.json');
  const { answers = {}, socket } = request.capture ?? {};
  writeFileSync(specFile, JSON.stringify({ out: captureFile, answers, ...(socket ? { socket } : {}) }));
  const folders = { outDir, home, work, specFile, captureFile };
  const env = scrubbedEnv(request.env);
  const deadlineMs = (request.deadlineSec ?? 60) * 1000;
  const { isolated, read, result } = await runInner<Result>(
    request.agent,
    fileURLToPath(request.inner),
    outDir,
    (netns) => configOf({ ...folders, env, deadlineMs, netns }),
    deadlineMs,
  );
  return {
    ...folders,
    result,
    isolated,
    read,
    stdout: read('agent.stdout'),
    stderr: read('agent.stderr'),
    requests: jsonLines<Request>(join(outDir, 'model.jsonl')),
    captured: jsonLines<AgentCapture>(captureFile),
  };
}
