import { EventEmitter } from 'node:events';
import { fstatSync, readSync } from 'node:fs';
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
 * A regular file read as the stream calls read-stdin.ts makes (`on`, `removeListener`, `pause`,
 * `resume`), with synchronous reads on the main thread: no stream classes, no `net`, no thread pool,
 * milliseconds less start-up for the event. Bytes come a chunk at a time, so read-stdin's limits and
 * spilling apply as they do to a pipe. Once the reader has settled (it removed its `end` listener),
 * the rest of the file is left unread: nothing waits on it, unlike a pipe's writer.
 */
export function fileStdin(fd: number, chunkBytes = 64 * 1024): Readable {
  const emitter = new EventEmitter();
  let paused = true;
  let scheduled = false;
  let done = false;
  const pump = () => {
    scheduled = false;
    while (!paused && !done && emitter.listenerCount('end') > 0) {
      const buf = Buffer.allocUnsafe(chunkBytes);
      let n: number;
      try {
        n = readSync(fd, buf, 0, chunkBytes, null);
      } catch (error) {
        done = true;
        emitter.emit('error', error);
        return;
      }
      if (n === 0) {
        done = true;
        emitter.emit('end');
        return;
      }
      emitter.emit('data', buf.subarray(0, n));
    }
  };
  const stream = Object.assign(emitter, {
    pause() {
      paused = true;
      return stream;
    },
    resume() {
      paused = false;
      if (!scheduled && !done) {
        scheduled = true;
        setImmediate(pump);
      }
      return stream;
    },
  });
  return stream as unknown as Readable;
}
