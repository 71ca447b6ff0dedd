import type { ChildProcess, SpawnOptions } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { constants } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { SpawnLike } from '../runner/run-command.js';
import { hookdLocation, nativeCandidates, nativeFileProblem, realPath } from '../util/hookd-location.js';
import {
  SPAWNER_ENDED,
  SPAWNER_FRAME,
  SPAWNER_FRAME_HEAD,
  SPAWNER_HELLO,
  SPAWNER_MAX_FRAME,
  SPAWNER_NAME,
  SPAWNER_OUT_CHUNK,
  SPAWNER_STREAM,
} from '../link/wire.js';

/**
 * The daemon's commands through the resident spawner (native/hookd-spawner.c; docs/daemon.md, "The
 * spawner"). node's child_process forks the whole daemon on its main thread for every command (10-13 ms
 * on a small VM); the spawner is a small C program started once, which forks itself instead.
 *
 * `createSpawner().spawn` is a drop-in for child_process.spawn as runCommand uses it (SpawnLike): it
 * returns a ChildProcess-like object with `pid` (set once the spawner says the command runs), `stdout`
 * and `stderr` ('data'), `stdin` (end(bytes), 'error', destroy()), the events 'spawn', 'error',
 * 'exit'(code, signal) and 'close', and kill(signal). Differences: the command starts when its stdin is
 * ended (all of it goes in one frame), so `pid` comes a few ms after spawn() returns; a kill asked before
 * that is kept and sent to the command's group as soon as it runs.
 *
 * Faults: a spawner that cannot start (no binary, exec fails, a different protocol) before it said HELLO
 * never saw a command (nothing is sent before HELLO): the waiting commands and every later one go through
 * child_process for the rest of the daemon's life, logged once. A spawner that dies after HELLO (a crash,
 * kill -9): each command it was running gets 'error' (its result carries spawnError: a command never runs
 * twice), the process groups of those still running get SIGKILL, and the next command starts a new one.
 * HOOKD_NO_SPAWNER=1 in the daemon's environment: child_process only.
 */

/** What a frame's length counts besides its payload: the type and the id. */
const TYPE_ID = SPAWNER_FRAME_HEAD - 4;
/** The largest frame the spawner sends: a full OUT frame; anything bigger is a broken spawner. */
const MAX_INCOMING_FRAME = TYPE_ID + 1 + SPAWNER_OUT_CHUNK;
/** The frame types as the bytes read. */
const TYPE = Object.fromEntries(
  Object.entries(SPAWNER_FRAME).map(([name, letter]) => [name, letter.charCodeAt(0)]),
) as Record<keyof typeof SPAWNER_FRAME, number>;
/** An OUT or EOF frame's stream byte as the child's stream (0 stdout, 1 stderr); undefined: malformed. */
const streamOf = (byte: number | undefined): 0 | 1 | undefined =>
  byte === SPAWNER_STREAM.stdout ? 0 : byte === SPAWNER_STREAM.stderr ? 1 : undefined;
/** Deaths in a row with no command done in between, after which the daemon stays on child_process. */
const MAX_DEATHS_IN_A_ROW = 3;
const STDERR_KEPT = 4096;

/**
 * Where the spawner is (src/util/hookd-location.ts, nativeCandidates): $HOOKD_NATIVE_DIR, else dist/
 * beside the bundle (dist/ when run from the sources, in tests), else the platform package. Where none
 * is usable, the first place looked at (the daemon then says why and starts commands with child_process).
 */
export function defaultSpawnerPath(env: Record<string, string | undefined> = process.env): string {
  let dist: string;
  try {
    const here = dirname(realPath(fileURLToPath(import.meta.url)));
    dist = basename(here) === 'dist' ? here : join(here, '..', '..', 'dist');
  } catch {
    // A bundle without import.meta (a test's own CJS bundle of the daemon): beside the program run.
    dist = hookdLocation().dist;
  }
  const candidates = nativeCandidates(SPAWNER_NAME, {
    location: hookdLocation(join(dist, 'hookd.cjs')),
    env,
  });
  return (candidates.find((c) => !c.problem) ?? candidates[0]!).path;
}

interface SpawnerLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

export interface SpawnerOptions {
  /** The daemon's environment: HOOKD_NO_SPAWNER=1 turns the spawner off. */
  env?: Record<string, string | undefined>;
  /** The spawner program (default: defaultSpawnerPath()). */
  path?: string;
  logger?: SpawnerLogger;
  /** How commands start when the spawner cannot (default: node:child_process spawn). */
  nodeSpawn?: SpawnLike;
}

export interface Spawner {
  /** child_process.spawn's stand-in for runCommand. */
  spawn: SpawnLike;
  /** The running spawner's pid, if one runs. */
  pid(): number | undefined;
  /** 'spawner' until it fell back for good (or was never used), then 'child_process'. */
  mode(): 'spawner' | 'child_process';
  /** Ends the spawner (stdin closed, SIGKILL by pid); commands it started keep running. */
  close(): Promise<void>;
}

const signalNames = new Map<number, NodeJS.Signals>(
  Object.entries(constants.signals).map(([name, n]) => [n, name as NodeJS.Signals]),
);
const errnoNames = new Map<number, string>(Object.entries(constants.errno).map(([name, n]) => [n, name]));

function frameHead(type: string, id: number, payloadBytes: number): Buffer {
  const head = Buffer.allocUnsafe(SPAWNER_FRAME_HEAD);
  head.writeUInt32BE(TYPE_ID + payloadBytes, 0);
  head.write(type, 4, 'latin1');
  head.writeUInt32BE(id, 5);
  return head;
}

/** Node refuses NUL bytes in a spawn's strings (ERR_INVALID_ARG_VALUE); so does this, the same way. */
function checkNoNul(what: string, value: string): void {
  if (value.includes('\0')) {
    const error = new TypeError(`The argument '${what}' must be a string without null bytes.`);
    (error as Error & { code: string }).code = 'ERR_INVALID_ARG_VALUE';
    throw error;
  }
}

/** One command, as runCommand sees it: what it needs of a ChildProcess. */
class SpawnedChild extends EventEmitter {
  pid: number | undefined;
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;
  readonly stdout = new Readable({ read() {}, autoDestroy: false });
  readonly stderr = new Readable({ read() {}, autoDestroy: false });
  readonly stdin: Writable;
  /** What the spawner has to carry: file, argv, envp, cwd (frame strings) and the stdin bytes. */
  stdinChunks: Buffer[] = [];
  private submitted = false;
  private exited = false;
  private ended = [false, false];
  private closed = false;
  private pendingKill: NodeJS.Signals | undefined;
  /** Set while the spawner runs it: how to let it go (RELEASE) when the caller stops waiting. */
  onRelease: (() => void) | undefined;
  private real: ChildProcess | undefined;

  constructor(
    readonly file: string,
    readonly argv: string[],
    readonly envPairs: string[],
    readonly cwd: string,
    private readonly submit: (child: SpawnedChild) => void,
  ) {
    super();
    this.stdin = new Writable({
      write: (chunk: Buffer, _enc, cb) => {
        this.stdinChunks.push(chunk);
        cb();
      },
      final: (cb) => {
        this.start();
        cb();
      },
      destroy: (_error, cb) => {
        this.start(); // stdin let go before it was ended: the command runs with what was written
        cb(null);
      },
    });
    const release = () => {
      if (this.closed) return;
      this.closed = true;
      const release = this.onRelease;
      this.onRelease = undefined;
      release?.();
      if (this.real) {
        this.real.stdout?.destroy();
        this.real.stderr?.destroy();
        this.real.stdin?.destroy();
      }
    };
    // The caller stopped waiting (runCommand's finish): the spawner forgets the command.
    this.stdout.on('close', release);
    this.stderr.on('close', release);
  }

  private start(): void {
    if (this.submitted) return;
    this.submitted = true;
    this.submit(this);
  }

  stdinBytes(): Buffer {
    return this.stdinChunks.length === 1 ? this.stdinChunks[0]! : Buffer.concat(this.stdinChunks);
  }

  kill(signal: NodeJS.Signals | number = 'SIGTERM'): boolean {
    if (this.exited || this.closed) return false;
    if (this.real) return this.real.kill(signal);
    if (this.pid === undefined) {
      // Asked before the command runs (killProcessGroup of an event aborted at once): sent when it does.
      this.pendingKill = typeof signal === 'number' ? (signalNames.get(signal) ?? 'SIGKILL') : signal;
      return true;
    }
    try {
      process.kill(this.pid, signal);
      return true;
    } catch {
      return false;
    }
  }

  onSpawned(pid: number): void {
    this.pid = pid;
    this.emit('spawn');
    if (this.pendingKill) {
      const signal = this.pendingKill;
      this.pendingKill = undefined;
      try {
        process.kill(-pid, signal);
      } catch {
        try {
          process.kill(pid, signal);
        } catch {}
      }
    }
  }

  onFailed(errno: number, message: string): void {
    const code = errnoNames.get(errno) ?? `E${errno}`;
    const error = new Error(`spawn ${this.file} ${code}`) as NodeJS.ErrnoException;
    error.code = code;
    error.errno = -errno;
    error.syscall = `spawn ${this.file}`;
    error.path = this.file;
    (error as Error & { detail: string }).detail = message;
    this.fail(error);
  }

  /** An error instead of a result: the streams end, nothing more comes. */
  fail(error: Error): void {
    if (this.exited) {
      // It ran and ended; only its pipes are lost (a background child held them): what came is kept.
      this.onEnd(0);
      this.onEnd(1);
      return;
    }
    this.exited = true;
    this.stdout.push(null);
    this.stderr.push(null);
    this.emit('error', error);
  }

  onData(stream: 0 | 1, bytes: Buffer): void {
    (stream === 0 ? this.stdout : this.stderr).push(bytes);
  }

  onEnd(stream: 0 | 1): void {
    if (this.ended[stream]) return;
    this.ended[stream] = true;
    (stream === 0 ? this.stdout : this.stderr).push(null);
    this.maybeClose();
  }

  onExit(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.exited) return;
    this.exited = true;
    this.exitCode = code;
    this.signalCode = signal;
    this.emit('exit', code, signal);
    this.maybeClose();
  }

  /** Whether the spawner still has it running (for the group kill when the spawner dies). */
  running(): boolean {
    return !this.exited && this.pid !== undefined;
  }

  private maybeClose(): void {
    if (!this.exited || !this.ended[0] || !this.ended[1]) return;
    this.onRelease = undefined; // the spawner forgot it on its own
    // 'close' after the streams' own 'end' (as child_process does): they end on the next ticks.
    setImmediate(() => this.emit('close', this.exitCode, this.signalCode));
  }

  /** Runs through child_process instead (no spawner): its events become this object's. */
  attach(real: ChildProcess): void {
    this.real = real;
    if (real.pid !== undefined) this.onSpawned(real.pid);
    real.stdout!.on('data', (chunk: Buffer) => this.stdout.push(chunk));
    real.stderr!.on('data', (chunk: Buffer) => this.stderr.push(chunk));
    real.stdout!.on('end', () => this.onEnd(0));
    real.stderr!.on('end', () => this.onEnd(1));
    real.on('error', (error) => this.fail(error));
    real.on('exit', (code, signal) => this.onExit(code, signal));
    real.stdin!.on('error', () => {});
    real.stdin!.end(this.stdinBytes());
    if (this.closed) {
      real.stdout!.destroy();
      real.stderr!.destroy();
    }
  }
}

/** One started spawner process and the commands sent to it. */
interface Generation {
  proc: ChildProcess;
  ready: boolean;
  dead: boolean;
  /** Commands waiting for HELLO. */
  waiting: SpawnedChild[];
  running: Map<number, SpawnedChild>;
  pending: Buffer;
  stderr: string;
}

export function createSpawner(options: SpawnerOptions = {}): Spawner {
  const env = options.env ?? process.env;
  let resolved = options.path;
  const path = () => (resolved ??= defaultSpawnerPath(env));
  const log = options.logger;
  const nodeSpawn: SpawnLike =
    options.nodeSpawn ??
    (((...args: Parameters<SpawnLike>) =>
      process.getBuiltinModule('node:child_process').spawn(...args)) as SpawnLike);
  let fallback = env.HOOKD_NO_SPAWNER === '1';
  let current: Generation | undefined;
  let nextId = 1;
  let deathsInARow = 0;
  let closing = false;

  const giveUp = (why: string, fields: Record<string, unknown> = {}) => {
    if (fallback) return;
    fallback = true;
    log?.warn(
      { kind: 'spawner', path: path(), why, ...fields },
      'commands start through child_process from now on',
    );
  };

  const send = (g: Generation, child: SpawnedChild) => {
    const id = nextId++;
    const strings = Buffer.from([child.file, child.cwd, ...child.argv, ...child.envPairs].join('\0') + '\0');
    const stdin = child.stdinBytes();
    const counts = Buffer.allocUnsafe(12);
    counts.writeUInt32BE(child.argv.length, 0);
    counts.writeUInt32BE(child.envPairs.length, 4);
    counts.writeUInt32BE(stdin.length, 8);
    const payload = counts.length + strings.length + stdin.length;
    if (TYPE_ID + payload > SPAWNER_MAX_FRAME) {
      child.attach(viaNode(child));
      return;
    }
    g.running.set(id, child);
    child.onRelease = () => {
      if (g.running.delete(id) && !g.dead) g.proc.stdin!.write(frameHead(SPAWNER_FRAME.release, id, 0));
    };
    g.proc.stdin!.write(Buffer.concat([frameHead(SPAWNER_FRAME.spawn, id, payload), counts, strings]));
    if (stdin.length > 0) g.proc.stdin!.write(stdin);
  };

  const viaNode = (child: SpawnedChild): ChildProcess =>
    nodeSpawn(child.file, child.argv.slice(1), {
      argv0: child.argv[0],
      cwd: child.cwd,
      env: Object.fromEntries(
        child.envPairs.map((pair) => {
          const at = pair.indexOf('=');
          return [pair.slice(0, at), pair.slice(at + 1)];
        }),
      ),
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });

  const onFrame = (g: Generation, type: number, id: number, body: Buffer): boolean => {
    if (type === TYPE.hello) {
      if (g.ready || body.toString('latin1') !== SPAWNER_HELLO) return false;
      g.ready = true;
      log?.info({ kind: 'spawner', pid: g.proc.pid }, 'spawner started');
      for (const child of g.waiting.splice(0)) send(g, child);
      return true;
    }
    if (!g.ready) return false;
    const child = g.running.get(id);
    switch (type) {
      case TYPE.spawned:
        if (body.length !== 4) return false;
        child?.onSpawned(body.readUInt32BE(0));
        return true;
      case TYPE.failed:
        if (body.length < 4) return false;
        g.running.delete(id);
        child?.onFailed(body.readUInt32BE(0), body.subarray(4).toString('utf8'));
        return true;
      case TYPE.out: {
        const stream = streamOf(body[0]);
        if (stream === undefined) return false;
        child?.onData(stream, body.subarray(1));
        return true;
      }
      case TYPE.eof: {
        const stream = streamOf(body[0]);
        if (body.length !== 1 || stream === undefined) return false;
        child?.onEnd(stream);
        if (child && !child.onRelease) g.running.delete(id);
        return true;
      }
      case TYPE.exit: {
        if (body.length !== 5 || (body[0] !== SPAWNER_ENDED.exited && body[0] !== SPAWNER_ENDED.signalled))
          return false;
        const value = body.readUInt32BE(1);
        if (body[0] === SPAWNER_ENDED.exited) child?.onExit(value, null);
        else child?.onExit(null, signalNames.get(value) ?? 'SIGKILL');
        if (child && !child.onRelease) g.running.delete(id);
        deathsInARow = 0;
        return true;
      }
      default:
        return false;
    }
  };

  const onBytes = (g: Generation, chunk: Buffer) => {
    let buf = g.pending.length > 0 ? Buffer.concat([g.pending, chunk]) : chunk;
    while (buf.length >= 4) {
      const length = buf.readUInt32BE(0);
      if (length < TYPE_ID || length > MAX_INCOMING_FRAME) return broken(g, `bad frame length ${length}`);
      if (buf.length < 4 + length) break;
      const ok = onFrame(g, buf[4]!, buf.readUInt32BE(5), buf.subarray(SPAWNER_FRAME_HEAD, 4 + length));
      if (!ok) return broken(g, `bad frame (type ${buf[4]})`);
      buf = buf.subarray(4 + length);
    }
    g.pending = buf.length > 0 ? Buffer.from(buf) : Buffer.alloc(0);
  };

  const broken = (g: Generation, why: string) => {
    g.pending = Buffer.alloc(0);
    log?.warn({ kind: 'spawner', pid: g.proc.pid, why }, 'the spawner speaks another protocol; killed');
    if (!g.ready) giveUp(why);
    try {
      g.proc.kill('SIGKILL');
    } catch {}
    died(g, why);
  };

  const died = (g: Generation, why: string) => {
    if (g.dead) return;
    g.dead = true;
    if (current === g) current = undefined;
    if (!g.ready) {
      // It never said HELLO, so it was sent nothing: the waiting commands run through child_process.
      giveUp(why, g.stderr ? { stderr: g.stderr.trim() } : {});
      for (const child of g.waiting.splice(0)) child.attach(viaNode(child));
      return;
    }
    const lost = [...g.running.values()];
    g.running.clear();
    if (!closing || lost.length > 0)
      log?.warn(
        {
          kind: 'spawner',
          pid: g.proc.pid,
          why,
          commands: lost.length,
          ...(g.stderr ? { stderr: g.stderr.trim() } : {}),
        },
        'the spawner died; its running commands are killed, the next command starts a new one',
      );
    if (lost.length > 0 && ++deathsInARow >= MAX_DEATHS_IN_A_ROW)
      giveUp(`died ${deathsInARow} times in a row`);
    for (const child of lost) {
      child.onRelease = undefined;
      // At the daemon's shutdown its commands keep running, as with child_process.
      if (child.running() && !closing) {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          try {
            process.kill(child.pid!, 'SIGKILL');
          } catch {}
        }
      }
      child.fail(new Error(`the hookd spawner died (${why}); the command was not waited for`));
    }
  };

  const startGeneration = (): Generation | undefined => {
    // Not there (not built, no platform package), or a file another user could replace: not run.
    const problem = nativeFileProblem(path());
    if (problem) {
      giveUp(problem === 'not there' ? 'not built' : 'not usable', { detail: `${path()}: ${problem}` });
      return undefined;
    }
    let proc: ChildProcess;
    try {
      proc = process.getBuiltinModule('node:child_process').spawn(path(), [], {
        cwd: '/',
        env: {},
        detached: true, // its own session: a terminal's ^C to the daemon does not reach it
        stdio: ['pipe', 'pipe', 'pipe'],
      });
    } catch (error) {
      giveUp((error as Error).message);
      return undefined;
    }
    const g: Generation = {
      proc,
      ready: false,
      dead: false,
      waiting: [],
      running: new Map(),
      pending: Buffer.alloc(0),
      stderr: '',
    };
    proc.stdout!.on('data', (chunk: Buffer) => {
      if (!g.dead) onBytes(g, chunk);
    });
    proc.stderr!.on('data', (chunk: Buffer) => {
      if (g.stderr.length < STDERR_KEPT)
        g.stderr += chunk.toString('utf8').slice(0, STDERR_KEPT - g.stderr.length);
    });
    proc.stdin!.on('error', () => {}); // it died: 'close' says so
    proc.on('error', (error) => died(g, error.message));
    proc.on('close', (code, signal) => died(g, signal ? `killed by ${signal}` : `exit ${code}`));
    // Never what keeps the daemon up.
    proc.unref();
    for (const s of [proc.stdin, proc.stdout, proc.stderr])
      (s as unknown as { unref?: () => void }).unref?.();
    return g;
  };

  const submit = (child: SpawnedChild) => {
    if (fallback || closing) return child.attach(viaNode(child));
    current ??= startGeneration();
    const g = current;
    if (!g) return child.attach(viaNode(child));
    if (g.ready) send(g, child);
    else g.waiting.push(child);
  };

  const spawn = ((file: string, args: readonly string[] = [], opts: SpawnOptions = {}) => {
    if (fallback) return nodeSpawn(file, args, opts);
    const env = opts.env ?? process.env;
    const envPairs: string[] = [];
    for (const [key, value] of Object.entries(env)) {
      if (value === undefined) continue;
      const pair = `${key}=${value}`;
      checkNoNul('options.env', pair);
      envPairs.push(pair);
    }
    const argv = [opts.argv0 ?? file, ...args];
    for (const a of argv) checkNoNul('args', a);
    checkNoNul('file', file);
    const cwd = opts.cwd === undefined ? process.cwd() : String(opts.cwd);
    checkNoNul('options.cwd', cwd);
    return new SpawnedChild(file, argv, envPairs, cwd, submit) as unknown as ChildProcess;
  }) as SpawnLike;

  return {
    spawn,
    pid: () => (current && !current.dead ? current.proc.pid : undefined),
    mode: () => (fallback ? 'child_process' : 'spawner'),
    close: async () => {
      closing = true;
      const g = current;
      if (!g || g.dead) return;
      const closed = new Promise<void>((resolve) => g.proc.once('close', () => resolve()));
      g.proc.stdin!.end();
      // It holds nothing worth a goodbye (its commands keep running), and a stopped one must not
      // hold the daemon's shutdown: SIGKILL.
      try {
        process.kill(g.proc.pid!, 'SIGKILL');
      } catch {}
      await closed;
    },
  };
}
