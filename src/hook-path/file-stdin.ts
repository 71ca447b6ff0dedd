import { EventEmitter } from 'node:events';
import { closeSync, constants, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import type { Readable } from 'node:stream';

/**
 * Whether `fd` is a regular file: the fast client's private copy of the agent's stdin when it falls back
 * to this path, or `hookd hook < event.json`. A regular file always ends, so reading it can never wait
 * on a writer.
 */
export function isRegularFile(fd: number): boolean {
  try {
    return fstatSync(fd).isFile();
  } catch {
    return false;
  }
}

/**
 * One read into `buf`: the bytes read (0 at the end), or undefined when a read would have to wait for
 * the writer.
 */
type ChunkRead = (buf: Buffer) => number | undefined;

/**
 * Stdin read as the stream calls read-stdin.ts makes (`on`, `removeListener`, `pause`, `resume`), with
 * synchronous reads on the main thread that never wait: no stream classes, no `net`, no thread pool,
 * milliseconds less start-up for the event. Bytes come a chunk at a time, so read-stdin's limits and
 * spilling apply as they do to a stream. When a read would wait, `later` (a real stream) takes over
 * from there. With `drain`, reading goes on for as long as anyone listens for data (read-stdin keeps
 * draining a pipe it gave up on, so the writer never blocks on it); without, it stops once the reader
 * has settled (it removed its `end` listener).
 */
function syncStdin(read: ChunkRead, options: { chunkBytes: number; drain: boolean; later?: () => Readable }) {
  const emitter = new EventEmitter();
  let paused = true;
  let scheduled = false;
  let done = false;
  let stream: Readable | undefined;
  const wanted = () => emitter.listenerCount(options.drain ? 'data' : 'end') > 0;
  /** The rest comes from the real stream, its events passed on. */
  const handOver = () => {
    stream = options.later!();
    stream.on('data', (chunk) => emitter.emit('data', chunk));
    stream.on('end', () => emitter.emit('end'));
    stream.on('error', (error) => emitter.emit('error', error));
    if (!paused) stream.resume();
  };
  const schedule = () => {
    if (scheduled || done) return;
    scheduled = true;
    setImmediate(pump);
  };
  const pump = () => {
    scheduled = false;
    while (!paused && !done && stream === undefined && wanted()) {
      const buf = Buffer.allocUnsafe(options.chunkBytes);
      let n: number | undefined;
      try {
        n = read(buf);
      } catch (error) {
        done = true;
        emitter.emit('error', error);
        return;
      }
      if (n === undefined) return handOver();
      if (n === 0) {
        done = true;
        emitter.emit('end');
        return;
      }
      emitter.emit('data', buf.subarray(0, n));
      // Draining for a reader that has settled: a chunk a turn, so that the event goes on meanwhile.
      if (emitter.listenerCount('end') === 0) return schedule();
    }
  };
  const source = Object.assign(emitter, {
    pause() {
      paused = true;
      stream?.pause();
      return source;
    },
    resume() {
      paused = false;
      if (stream) stream.resume();
      else schedule();
      return source;
    },
  });
  return source as unknown as Readable;
}

/**
 * A regular file read a chunk at a time on the main thread (see syncStdin). Once the reader has settled,
 * the rest of the file is left unread: nothing waits on it, unlike a pipe's writer.
 */
export function fileStdin(fd: number, chunkBytes = 64 * 1024): Readable {
  return syncStdin((buf) => readSync(fd, buf, 0, buf.length, null), { chunkBytes, drain: false });
}

/**
 * process.stdin (a socket or a pipe: Node's stream over it), left open when it ends. Node destroys such a
 * stream at its end, and destroying one makes Node create process.stderr just to compare it (a stream of
 * its own over the agent's stderr, about a millisecond, which also turns that descriptor non-blocking).
 * The hook writes stderr directly and exits once the event is done, which closes stdin anyway. An error
 * on stdin is still reported as one.
 */
export function keptStdin(): Readable {
  const stdin = process.stdin as Readable & { _readableState?: { autoDestroy: boolean } };
  if (stdin._readableState) stdin._readableState.autoDestroy = false;
  return stdin;
}

/** O_ACCMODE on Linux (Node has no constant for it): the bits that say read, write or both. */
const LINUX_ACCESS_MODE = 0o3;

/** The open flags of one of this process's descriptors, from /proc; throws when they cannot be read. */
function fdFlags(fd: number): number {
  const flags = /^flags:\s*([0-7]+)$/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'));
  if (!flags) throw new Error(`no flags for descriptor ${fd}`);
  return parseInt(flags[1]!, 8);
}

/**
 * A pipe as stdin (as the agents give hooks) read without waiting, where the system allows it (Linux):
 * the pipe is opened again through /proc/self/fd with O_NONBLOCK, a description of its own (fd `fd`'s
 * flags, which the agent's side may share, are left as they are), checked in /proc/self/fdinfo to be
 * non-blocking. An agent writes the event and closes the pipe: all of it is read on the main thread,
 * without the stream classes or `net`. When a read would wait, what came so far has been passed on and
 * `later()` (process.stdin, with its timeout) reads the rest. Undefined when stdin is not a pipe or
 * cannot be opened so (a socket, another system): read it as a stream.
 */
export function pipeStdin(fd: number, later: () => Readable, chunkBytes = 64 * 1024): Readable | undefined {
  if (process.platform !== 'linux') return undefined;
  let own: number;
  try {
    // Only the read end of a pipe: opened again for reading, a write end would read what another
    // process's reader is owed.
    if (!fstatSync(fd).isFIFO() || (fdFlags(fd) & LINUX_ACCESS_MODE) === constants.O_WRONLY) return undefined;
    own = openSync(`/proc/self/fd/${fd}`, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch {
    return undefined;
  }
  let open = true;
  const close = () => {
    if (open) closeSync(own);
    open = false;
  };
  try {
    // A blocking read here could hold the process forever: only a description that says O_NONBLOCK.
    if ((fdFlags(own) & constants.O_NONBLOCK) === 0) throw new Error('blocking');
  } catch {
    close();
    return undefined;
  }
  const read: ChunkRead = (buf) => {
    try {
      const n = readSync(own, buf, 0, buf.length, null);
      if (n === 0) close();
      return n;
    } catch (error) {
      close();
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      return undefined;
    }
  };
  return syncStdin(read, { chunkBytes, drain: true, later });
}
