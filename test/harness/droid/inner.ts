import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startFakeModel } from './fake-model.js';
import { exitWithin, killRun, RUN_MARKER } from './reap.js';
import { driveJsonRpc, type PermissionAnswer } from './rpc-driver.js';
import type { FakeStep } from './script.js';
import { startSidecar, stopSidecar, type SidecarSpec } from '../sidecar.js';

/**
 * One Droid run, inside the sandbox (a network + PID namespace when isolated): the fake model on this
 * namespace's loopback, a throwaway HOME whose settings name it as the only model, then Droid in exec or
 * jsonrpc mode. Bundled and started by run.ts with the path of its config; writes the run's files into
 * `outDir` and kills whatever the run left behind before it exits.
 */
export interface InnerConfig {
  runId: string;
  bin: string;
  outDir: string;
  isolated: boolean;
  mode: 'exec' | 'jsonrpc';
  prompt: string;
  script: FakeStep[];
  hooks: unknown;
  agentTimeoutSec: number;
  outputFormat: string;
  env: Record<string, string>;
  permissionAnswer?: PermissionAnswer;
  /** A process run beside Droid inside its namespaces (a hookd daemon), stopped once Droid is done. */
  sidecar?: SidecarSpec;
}

const MODEL_ID = 'custom:fake-chat';
// Factory's own endpoints, pointed at a port where nothing listens: the airgap mode already keeps Droid
// off them, but its sub-agent path starts a local daemon that still resolves them.
const DEAD_ENDPOINT = 'http://127.0.0.1:9';

function writeSettings(home: string, port: number, hooks: unknown): void {
  const settings = {
    customModels: [
      {
        model: 'fake-model',
        id: MODEL_ID,
        displayName: 'Fake model (hookd tests)',
        provider: 'generic-chat-completion-api',
        baseUrl: `http://127.0.0.1:${port}/v1`,
        apiKey: 'not-a-secret',
        maxOutputTokens: 4096,
      },
    ],
    sessionDefaultSettings: { model: MODEL_ID },
    hooks,
  };
  mkdirSync(join(home, '.factory'), { recursive: true });
  writeFileSync(join(home, '.factory', 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`);
}

function runExec(c: InnerConfig, env: NodeJS.ProcessEnv, work: string): Promise<number> {
  const child = spawn(
    c.bin,
    ['exec', '--skip-permissions-unsafe', '-m', MODEL_ID, '-o', c.outputFormat, c.prompt],
    {
      cwd: work,
      env,
      stdio: [
        'ignore',
        openSync(join(c.outDir, 'agent.stdout'), 'w'),
        openSync(join(c.outDir, 'agent.stderr'), 'w'),
      ],
      detached: true,
    },
  );
  return exitWithin(child, c.agentTimeoutSec * 1000, join(c.outDir, 'agent.stderr'));
}

async function main(): Promise<void> {
  const c = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as InnerConfig;
  if (c.isolated) {
    const lo = spawnSync('ip', ['link', 'set', 'lo', 'up'], { encoding: 'utf8' });
    if (lo.status !== 0) throw new Error(`cannot bring up loopback in the namespace: ${lo.stderr}`);
  }
  const home = join(c.outDir, 'home');
  const work = join(c.outDir, 'work');
  const model = await startFakeModel({
    script: c.script,
    workDir: work,
    logFile: join(c.outDir, 'fake-model.log'),
  });
  let rc = 1;
  let sidecar: ChildProcess | undefined;
  try {
    writeSettings(home, model.port, c.hooks);
    if (c.sidecar)
      sidecar = await startSidecar(
        { ...c.sidecar, env: { ...c.sidecar.env, [RUN_MARKER]: c.runId } },
        Date.now() + c.agentTimeoutSec * 1000,
        join(c.outDir, 'sidecar.stderr'),
      );
    const env: NodeJS.ProcessEnv = {
      ...c.env,
      HOME: home,
      [RUN_MARKER]: c.runId,
      FACTORY_AIRGAP_ENABLED: '1', // no sign-in, no telemetry: only the custom model
      FACTORY_DROID_AUTO_UPDATE_ENABLED: 'false',
      FACTORY_API_BASE_URL: DEAD_ENDPOINT,
      FACTORY_API_BASE_URL_EU: DEAD_ENDPOINT,
      FACTORY_APP_BASE_URL: DEAD_ENDPOINT,
      FACTORY_TELEMETRY_INGEST_BASE_URL: DEAD_ENDPOINT,
    };
    rc =
      c.mode === 'jsonrpc'
        ? await driveJsonRpc({
            bin: c.bin,
            cwd: work,
            env,
            prompt: c.prompt,
            model: MODEL_ID,
            transcriptFile: join(c.outDir, 'rpc.jsonl'),
            stdoutFile: join(c.outDir, 'agent.stdout'),
            stderrFile: join(c.outDir, 'agent.stderr'),
            deadlineMs: c.agentTimeoutSec * 1000,
            ...(c.permissionAnswer ? { answer: c.permissionAnswer } : {}),
          })
        : await runExec(c, env, work);
  } finally {
    writeFileSync(join(c.outDir, 'agent.rc'), `${rc}\n`);
    if (sidecar) await stopSidecar(sidecar);
    const left = killRun(c.runId);
    if (left > 0) process.stderr.write(`harness: killed ${left} process(es) the run left behind\n`);
    await model.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`harness: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(70);
  },
);
