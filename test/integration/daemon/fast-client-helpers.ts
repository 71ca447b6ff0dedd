import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join, resolve } from 'node:path';
import { isAlive, readPid } from '../../helpers/procs.js';
import { isolatedEnv } from '../../helpers/temp.js';
import { waitFor } from './helpers.js';
import { afterAll, beforeAll, describe } from 'vitest';
import { BIN, ROOT, spawnDaemon, stopDaemon, writeConfig } from './process-helpers.js';

// Black-box helpers for the fast path: run a fast client (bash or native) as the agent runs
// it, against a real daemon process, and read back only effects (files the commands wrote, log records,
// the journal). Nothing here knows the client's wire protocol.

/**
 * The native client `npm run build` compiles (native/hookd-client.c), or the program in
 * HOOKD_TEST_NATIVE_CLIENT: the package test runs these suites with another platform's build (the arm64
 * client under qemu-user, through a wrapper that execs it).
 */
export const NATIVE_CLIENT = process.env.HOOKD_TEST_NATIVE_CLIENT || resolve(ROOT, 'dist/hookd-client');

/**
 * The fast clients the fast-path suites run against (`describe.each(CLIENT_KINDS)` with `useClient(kind)`
 * in a beforeAll). One since the bash client was retired; never skipped: where it was not built the runs
 * fail (CI installs gcc).
 */
export const CLIENT_KINDS: readonly ClientKind[] = ['native'];
export type ClientKind = 'native';
let current: ClientKind = 'native';
export function useClient(kind: ClientKind): void {
  current = kind;
}
export const currentClient = (): ClientKind => current;

/** Single-quotes a test-side path for sh (never event data). */
const shq = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

/** The fast client's program words as install writes them. */
export function clientProgram(_kind: ClientKind = current): string {
  return shq(NATIVE_CLIENT);
}

/** The two transports, as the hook command written in the agent's settings (fast: the current client). */
export const TRANSPORTS = {
  fast: (agent = 'droid') => `${clientProgram()} --agent ${agent}`,
  node: (agent = 'droid') => `${shq(process.execPath)} ${shq(BIN)} hook --agent ${agent}`,
} as const;
export type Transport = keyof typeof TRANSPORTS;

/**
 * An isolated hookd environment with the hand-off to the daemon ON (isolatedEnv turns it off), so that
 * events reach the journal whichever path ran them. Short paths: unix socket paths are limited.
 */
export function handOffEnv(dir: string, extra: Record<string, string> = {}): Record<string, string> {
  const env = isolatedEnv(dir, {
    HOOKD_RUNTIME_DIR: join(dir, 'run'),
    HOOKD_STATE_DIR: join(dir, 'state'),
    HOOKD_DATA_DIR: join(dir, 'data'),
    ...extra,
  });
  delete env.HOOKD_DAEMON;
  delete env.FACTORY_API_KEY;
  return env;
}

/**
 * The user config with the fast listener on (explicitly: its default may change), the Node path never
 * starting a daemon of its own (autoStart false: it spools, the test starts and kills daemons), and a
 * journal that is not compacted under the test (so every received event stays one `in` record).
 */
export function writeFastConfig(
  env: Record<string, string>,
  hooks: Record<string, unknown>,
  more: Record<string, unknown> = {},
): void {
  const { daemon, ...rest } = more as { daemon?: Record<string, unknown> };
  writeConfig(env, {
    daemon: {
      fastListener: true,
      autoStart: false,
      compactBytes: 1024 * 1024 * 1024,
      handoffTimeoutMs: 5000,
      ...daemon,
    },
    hooks,
    ...rest,
  });
}

/** hooks config: one command on every PreToolUse and PostToolUse. */
export const onToolEvents = (command: string, more: Record<string, unknown> = {}) => {
  const entry = [{ hooks: [{ type: 'command', command, timeout: 60, ...more }] }];
  return { PreToolUse: entry, PostToolUse: entry };
};

/** The fast listener's unix socket in the runtime dir. */
export const fastSocket = (env: Record<string, string>) => join(env.HOOKD_RUNTIME_DIR!, 'fast.sock');

/** A real daemon process with its fast listener up. */
export async function startFastDaemon(env: Record<string, string>): Promise<ChildProcess> {
  const daemon = await spawnDaemon(env);
  await waitFor(() => existsSync(fastSocket(env)), 20_000, 'the fast listener socket');
  return daemon;
}

/**
 * Declares `body` twice: with no daemon (the Node path runs the commands), then with a real daemon up
 * (its fast path runs them); the daemon is stopped after the suites.
 */
export function withDaemonDownThenUp(
  env: () => Record<string, string>,
  body: (state: 'daemon down' | 'daemon up') => void,
): void {
  let daemon: ChildProcess | undefined;
  afterAll(async () => stopDaemon(daemon));
  describe.each(['daemon down', 'daemon up'] as const)('with the %s', (state) => {
    beforeAll(async () => {
      if (state === 'daemon up') daemon = await startFastDaemon(env());
    });
    body(state);
  });
}

export interface HookRun {
  child: ChildProcess;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: Buffer; stderr: Buffer }>;
  /** With `holdStdin`: writes the payload and closes stdin (the agent sends the event now). */
  release: () => void;
}

/**
 * Starts a hook command as the agent does: `/bin/sh -c "<command>"` in its own process group, in the
 * session's cwd, with the agent's env and umask, the payload on stdin, then EOF. `exec` makes the
 * transport itself the spawned pid, as the signal the agent sends at its timeout reaches it.
 */
export function startHook(
  transport: Transport | string,
  options: {
    env: Record<string, string>;
    cwd: string;
    stdin: Buffer | string;
    umask?: string;
    /** Shell text run first in the agent's shell (e.g. exporting a value the test cannot pass through Node). */
    prelude?: string;
    /** Starts the process but sends its stdin only at `release()`. */
    holdStdin?: boolean;
  },
): HookRun {
  const command = transport in TRANSPORTS ? TRANSPORTS[transport as Transport]() : transport;
  const child = spawn(
    '/bin/sh',
    ['-c', `umask ${options.umask ?? '022'}\n${options.prelude ?? ''}\nexec ${command}`],
    {
      env: options.env,
      cwd: options.cwd,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout!.on('data', (c: Buffer) => out.push(c));
  child.stderr!.on('data', (c: Buffer) => err.push(c));
  child.stdin!.on('error', () => {});
  const release = () => child.stdin!.end(options.stdin);
  if (!options.holdStdin) release();
  const done = new Promise<Awaited<HookRun['done']>>((settle) =>
    child.once('close', (code, signal) =>
      settle({ code, signal, stdout: Buffer.concat(out), stderr: Buffer.concat(err) }),
    ),
  );
  return { child, done, release };
}

/** A payload the tests can find again in the journal by its `tag` field. */
export function toolEvent(tag: string, extra: Record<string, unknown> = {}): Buffer {
  return Buffer.from(
    JSON.stringify({
      session_id: `s-${tag.split('-')[0]}`,
      hook_event_name: 'PostToolUse',
      tool_name: 'Execute',
      tool_input: { command: 'ls' },
      tool_response: { output: 'ok' },
      tag,
      ...extra,
    }),
  );
}

/** Every line of `file`, counted: line -> occurrences. */
/** The bytes of each dead letter the daemon kept in `dir` (none while the folder does not exist). */
export function deadLetters(dir: string): Buffer[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((n) => n.endsWith('.bin'))
    .map((n) => readFileSync(join(dir, n)));
}

export function lineCounts(file: string): Map<string, number> {
  const counts = new Map<string, number>();
  if (!existsSync(file)) return counts;
  for (const l of readFileSync(file, 'utf8').split('\n')) if (l) counts.set(l, (counts.get(l) ?? 0) + 1);
  return counts;
}

/** The events the daemon's journal received (`in` records): the payload tag of each, with repeats. */
export function journaledTags(env: Record<string, string>): string[] {
  const file = join(env.HOOKD_STATE_DIR!, 'daemon', 'journal.jsonl');
  if (!existsSync(file)) return [];
  const tags: string[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue;
    let record: { t?: string; h?: { event?: { payload?: { tag?: unknown } } } };
    try {
      record = JSON.parse(line) as typeof record;
    } catch {
      continue; // a torn last line of a killed daemon
    }
    const tag = record.t === 'in' ? record.h?.event?.payload?.tag : undefined;
    if (typeof tag === 'string') tags.push(tag);
  }
  return tags;
}

/** The parsed records of hookd.log (the hook's and the fast listener's event and command records). */
export function hookLogRecords(env: Record<string, string>): Record<string, unknown>[] {
  const file = join(env.HOOKD_STATE_DIR!, 'logs', 'hookd.log');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
}

export const daemonLogText = (env: Record<string, string>) => {
  const file = join(env.HOOKD_STATE_DIR!, 'logs', 'daemon.log');
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
};

/** Resolves once every pid written to these files is gone (a live one is a leaked command). */
export async function pidsGone(files: string[]): Promise<boolean> {
  const pids = files.map((f) => readPid(f)).filter((p): p is number => p !== undefined);
  if (pids.length !== files.length) return false;
  try {
    await waitFor(() => pids.every((p) => !isAlive(p)), 20_000, 'the commands to be killed');
    return true;
  } catch {
    return false;
  }
}

export function signalQuietly(pid: number | undefined, signal: NodeJS.Signals): void {
  if (!pid) return;
  try {
    process.kill(pid, signal);
  } catch {}
}

/**
 * Shell text (test-side, never event data) for a command to print the pid of the daemon that ran it:
 * its parent, or its parent's parent when the parent is the daemon's spawner (src/spawner/spawner.ts;
 * the daemon starts commands through it). Through the Node path it is the `hookd hook` process.
 */
export const DAEMON_PID_SH =
  '$(p=$PPID; [ "$(cat /proc/$p/comm 2>/dev/null)" = hookd-spawner ] && p=$(cut -d" " -f4 /proc/$p/stat); echo $p)';

/** The daemon that runs process `pid`: its parent, or its parent's parent when that is the daemon's spawner. */
export function daemonOf(pid: number): number | undefined {
  const stat = (p: number) => {
    try {
      const text = readFileSync(`/proc/${p}/stat`, 'utf8');
      const open = text.indexOf('('),
        close = text.lastIndexOf(')');
      return { comm: text.slice(open + 1, close), ppid: Number(text.slice(close + 2).split(' ')[1]) };
    } catch {
      return undefined;
    }
  };
  const parent = stat(pid)?.ppid;
  if (parent === undefined) return undefined;
  return stat(parent)?.comm === 'hookd-spawner' ? stat(parent)?.ppid : parent;
}

/**
 * A listener on the fast socket that is not a working daemon (a stalled or scripted peer of the user's
 * own), where the daemon's would be. `handle` gets each connection; every socket is destroyed and the
 * server closed by the cleanup pushed on `cleanups`.
 */
export async function fakeListener(
  env: Record<string, string>,
  handle: (socket: Socket) => void,
  cleanups: (() => unknown)[],
): Promise<{ sockets: Set<Socket> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((s: Socket) => {
    sockets.add(s);
    s.on('error', () => {});
    handle(s);
  });
  cleanups.push(() => {
    for (const s of sockets) s.destroy();
    return new Promise<void>((r) => server.close(() => r()));
  });
  mkdirSync(env.HOOKD_RUNTIME_DIR!, { recursive: true, mode: 0o700 });
  await new Promise<void>((r) => server.listen(fastSocket(env), () => r()));
  return { sockets };
}
