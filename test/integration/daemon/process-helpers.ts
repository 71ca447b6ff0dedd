import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { afterEach, beforeAll } from 'vitest';
import { requestDaemon } from '../../../src/link/client.js';

export const ROOT = resolve(import.meta.dirname, '../../..');
export const BIN = resolve(ROOT, 'dist/hookd.cjs');

/** The built CLI; built once if missing (the project's `npm test` builds first anyway). */
export function ensureBuilt(): void {
  if (
    existsSync(BIN) &&
    existsSync(resolve(ROOT, 'dist/cli.cjs')) &&
    existsSync(resolve(ROOT, 'dist/client.cjs'))
  )
    return;
  const result = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) throw new Error('npm run build failed');
}

export function writeConfig(env: Record<string, string | undefined>, config: unknown): void {
  const file = env.HOOKD_CONFIG!;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(config, null, 2));
}

/** `node dist/hookd.cjs daemon run` as a real process; resolves once it answers a ping. */
export async function spawnDaemon(env: Record<string, string | undefined>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [BIN, 'daemon', 'run'], {
    env: env as NodeJS.ProcessEnv,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`daemon exited ${child.exitCode}: ${stderr}`);
    const ping = await requestDaemon({ v: 1, type: 'ping' }, { env, timeoutMs: 500 });
    if (ping.ok && ping.reply.ok && ping.reply.pid === child.pid) return child;
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`daemon did not answer: ${stderr}`);
}

export function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null)
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

export function killQuietly(pid: number | undefined): void {
  if (!pid) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {}
}

/** Stops a daemon by PID: SIGTERM, then SIGKILL when it has not exited after `graceMs`. */
export async function stopDaemon(child: ChildProcess | undefined, graceMs = 5000): Promise<void> {
  if (!child?.pid) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => killQuietly(child.pid), graceMs);
  await exited(child);
  clearTimeout(timer);
}

/** Bundles a TypeScript fixture into a plain .mjs run by real child processes (the code under test, unmocked). */
export async function bundleFixture(
  entry: string,
  outfile: string,
  format: 'esm' | 'cjs' = 'esm',
): Promise<void> {
  const { build } = await import('esbuild');
  await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format,
    target: 'node20',
    outfile,
    logLevel: 'silent',
  });
}

/**
 * For a test file that starts daemons and other processes: builds once, and after each test kills every
 * pid pushed to `pids` and runs `cleanups` (last first).
 */
export function useProcessCleanup(): { pids: number[]; cleanups: (() => Promise<void> | void)[] } {
  const pids: number[] = [];
  const cleanups: (() => Promise<void> | void)[] = [];
  beforeAll(() => ensureBuilt(), 120_000);
  afterEach(async () => {
    for (const pid of pids.splice(0)) killQuietly(pid);
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return { pids, cleanups };
}
