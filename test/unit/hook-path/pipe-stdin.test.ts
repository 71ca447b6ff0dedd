import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readStdin } from '../../../src/events/read-stdin.js';
import { pipeStdin } from '../../../src/hook-path/file-stdin.js';
import { makeTempDir } from '../../helpers/temp.js';

// A pipe as stdin is read on the main thread as far as it goes without waiting; what comes later is read
// by the stream that takes over (process.stdin in the hook), so no byte is lost or read twice.
let tmp: { dir: string; cleanup: () => void };
const open: number[] = [];
beforeEach(() => {
  tmp = makeTempDir('hkd-pipe-');
});
afterEach(() => {
  for (const fd of open.splice(0)) closeSync(fd);
  tmp.cleanup();
});

/** A FIFO's read end (opened without waiting) and its write end. */
function fifo(): { reader: number; writer: number } {
  const path = join(tmp.dir, 'stdin.fifo');
  execFileSync('mkfifo', [path]);
  const reader = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  const writer = openSync(path, constants.O_WRONLY);
  open.push(reader, writer);
  return { reader, writer };
}

const limits = { maxBytes: 1 << 20, memoryBytes: 1 << 20, timeoutMs: 60_000 };

describe.runIf(process.platform === 'linux')('pipeStdin', () => {
  it('reads a pipe whose writer closed to its end, without the later stream', async () => {
    const { reader, writer } = fifo();
    writeSync(writer, '{"hook_event_name":"Stop"}');
    open.splice(open.indexOf(writer), 1);
    closeSync(writer);
    let later = 0;
    const source = pipeStdin(reader, () => {
      later++;
      return new PassThrough();
    });
    expect(source).toBeDefined();
    const read = await readStdin(source!, limits);
    expect(read).toMatchObject({ ok: true });
    expect(read.bytes.toString()).toBe('{"hook_event_name":"Stop"}');
    expect(later).toBe(0);
  });

  it('hands over to the later stream when the writer has not closed the pipe yet', async () => {
    const { reader, writer } = fifo();
    writeSync(writer, '{"hook_event_name":');
    const rest = new PassThrough();
    let later = 0;
    const source = pipeStdin(reader, () => {
      later++;
      return rest as Readable;
    });
    const reading = readStdin(source!, limits);
    rest.end('"Stop"}');
    const read = await reading;
    expect(read).toMatchObject({ ok: true });
    expect(read.bytes.toString()).toBe('{"hook_event_name":"Stop"}');
    expect(later).toBe(1);
  });

  it("takes no pipe's write end", () => {
    const { writer } = fifo();
    expect(pipeStdin(writer, () => new PassThrough())).toBeUndefined();
  });

  it('takes no stdin that is not a pipe', () => {
    const file = join(tmp.dir, 'event.json');
    writeFileSync(file, '{}');
    const fd = openSync(file, 'r');
    open.push(fd);
    expect(pipeStdin(fd, () => new PassThrough())).toBeUndefined();
  });
});
