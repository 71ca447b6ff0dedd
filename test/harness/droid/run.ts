import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { DROID_EVENTS } from '../../../src/events/names.js';
import { agentBinary } from '../agents.js';
import type { SidecarSpec } from '../sidecar.js';
import type { InnerConfig } from './inner.js';
import { killRun, RUN_MARKER } from './reap.js';
import type { PermissionAnswer } from './rpc-driver.js';
import { DEFAULT_PROMPT, DEFAULT_SCRIPT, type FakeStep } from './script.js';

const HERE = dirname(fileURLToPath(import.meta.url));

export interface DroidRunOptions {
  /** The run's directory (created): home/, work/, agent.*, fake-model.log, rpc.jsonl. */
  outDir: string;
  /** The agent's environment (and so its hooks'); HOME is replaced by outDir/home. */
  env: Record<string, string>;
  /** One command wired to all nine events (matcher ""), unless `hooksJson` is given. */
  hookCmd?: string;
  /** The whole `hooks` object of Droid's settings. */
  hooksJson?: unknown;
  /** exec: `droid exec "<prompt>"` (7 events); jsonrpc: a stream-jsonrpc session (all 9 events). */
  mode?: 'exec' | 'jsonrpc';
  script?: FakeStep[];
  prompt?: string;
  /** Deadline of the agent run (default 120 s); the whole run gets 60 s more. */
  agentTimeoutSec?: number;
  /** exec mode's `-o` (default json). */
  outputFormat?: 'json' | 'text' | 'stream-json';
  /** The droid binary (default: the pinned one from the agents cache). */
  bin?: string;
  /** jsonrpc mode: when and how each permission request is answered (rpc-driver.ts; default at once). */
  permissionAnswer?: PermissionAnswer;
  /** false: run in this machine's namespaces even when a sandbox is available (what non-root gets). */
  isolate?: boolean;
  /** A process run beside Droid inside its namespaces (e.g. a hookd daemon), stopped when Droid is done. */
  sidecar?: SidecarSpec;
}

export interface DroidRun {
  /** Droid's exit code (124: killed at its deadline). */
  rc: number;
  /** The value of HOOKD_HARNESS_RUN in the environment of every process of the run. */
  runId: string;
  /** Whether the run had a network and PID namespace of its own. */
  isolated: boolean;
  outDir: string;
  home: string;
  work: string;
  /** The harness's own diagnostics and warnings. */
  stderr: string;
  /** One JSON line per request the fake model answered. */
  fakeModelLog: string;
  /** Droid's own logs (home/.factory/logs). */
  droidLogs: string;
  /** Droid's session transcripts (.jsonl) under the throwaway HOME. */
  transcripts(): string[];
}

/** Why the run cannot be isolated in its own network and PID namespace, or undefined when it can. */
export function isolationUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'not root';
  for (const tool of ['unshare', 'ip'])
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) return `${tool} not found`;
  return undefined;
}

/** The sandboxed part, bundled to one ESM file (Node 20 does not run TypeScript). */
async function bundleInner(outDir: string): Promise<string> {
  const outfile = join(outDir, 'harness', 'droid-inner.mjs');
  await build({
    entryPoints: [join(HERE, 'inner.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'silent',
  });
  return outfile;
}

/**
 * Runs the REAL Droid CLI (the pinned 0.225.2 from the agents cache) headless and offline against the
 * scripted fake model, with the hooks given. As root the run happens in a fresh network and PID
 * namespace (`unshare`) holding only loopback; everything a run started is killed by PID when it ends.
 */
export async function runRealDroid(options: DroidRunOptions): Promise<DroidRun> {
  const bin = options.bin ?? agentBinary('droid');
  if (!bin)
    throw new Error(
      'Droid 0.225.2 is not in the agents cache: run the e2e group, whose setup installs it (test/harness/README.md)',
    );
  const { outDir } = options;
  const home = join(outDir, 'home');
  const work = join(outDir, 'work');
  for (const dir of [home, work, join(outDir, 'harness')]) mkdirSync(dir, { recursive: true });
  const agentTimeoutSec = options.agentTimeoutSec ?? 120;
  const hooks =
    options.hooksJson ??
    Object.fromEntries(
      DROID_EVENTS.map((e) => [
        e,
        [{ matcher: '', hooks: [{ type: 'command', command: options.hookCmd ?? 'true' }] }],
      ]),
    );
  const why = options.isolate === false ? 'isolate: false' : isolationUnavailable();
  const config: InnerConfig = {
    runId: randomUUID(),
    bin,
    outDir,
    isolated: why === undefined,
    mode: options.mode ?? 'exec',
    prompt: options.prompt ?? DEFAULT_PROMPT,
    script: options.script ?? DEFAULT_SCRIPT,
    hooks,
    agentTimeoutSec,
    outputFormat: options.outputFormat ?? 'json',
    env: options.env,
    ...(options.permissionAnswer ? { permissionAnswer: options.permissionAnswer } : {}),
    ...(options.sidecar ? { sidecar: options.sidecar } : {}),
  };
  const configFile = join(outDir, 'harness', 'run.json');
  writeFileSync(configFile, JSON.stringify(config, null, 2));
  const inner = await bundleInner(outDir);
  const node = process.execPath;
  const [command, args] = config.isolated
    ? ['unshare', ['--net', '--pid', '--fork', '--kill-child', '--mount-proc', node, inner, configFile]]
    : [node, [inner, configFile]];
  let stderr = config.isolated ? '' : `harness: WARNING running without network isolation (${why})\n`;

  const child = spawn(command, args, {
    cwd: outDir,
    env: { ...process.env, [RUN_MARKER]: config.runId },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const outerRc = await new Promise<number>((resolve) => {
    const deadline = setTimeout(
      () => {
        stderr += `harness: the run passed its ${agentTimeoutSec + 60} s deadline and was killed\n`;
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {}
      },
      (agentTimeoutSec + 60) * 1000,
    );
    child.on('error', (e) => {
      stderr += `harness: cannot start ${command}: ${e.message}\n`;
      clearTimeout(deadline);
      resolve(127);
    });
    child.on('close', (code, signal) => {
      clearTimeout(deadline);
      resolve(code ?? (signal ? 128 : 1));
    });
  });
  // Unisolated, or killed at the deadline: nothing of the run may outlive it.
  const left = killRun(config.runId);
  if (left > 0) stderr += `harness: killed ${left} process(es) the run left behind\n`;

  const read = (p: string) => (existsSync(p) ? readFileSync(p, 'utf8') : '');
  const rcText = read(join(outDir, 'agent.rc')).trim();
  const rc = rcText ? Number(rcText) : outerRc === 0 ? 1 : outerRc;
  const logsDir = join(home, '.factory', 'logs');
  const droidLogs = existsSync(logsDir)
    ? readdirSync(logsDir)
        .map((n) => read(join(logsDir, n)))
        .join('\n')
    : '';
  // Droid says nothing on its output when it drops a malformed hooks object; its log does.
  if (droidLogs.includes('Invalid hooks in settings.json'))
    stderr +=
      'harness: WARNING droid rejected the hooks config as invalid; no hooks ran (see home/.factory/logs)\n';
  stderr += `harness: mode=${config.mode} rc=${rc} out=${outDir}\n`;
  return {
    rc,
    runId: config.runId,
    isolated: config.isolated,
    outDir,
    home,
    work,
    stderr,
    fakeModelLog: read(join(outDir, 'fake-model.log')),
    droidLogs,
    transcripts: () => {
      const sessions = join(home, '.factory', 'sessions');
      if (!existsSync(sessions)) return [];
      return readdirSync(sessions)
        .flatMap((d) => readdirSync(join(sessions, d)).map((f) => join(sessions, d, f)))
        .filter((f) => f.endsWith('.jsonl'));
    },
  };
}
