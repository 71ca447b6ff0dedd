import { mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { topString } from '../../../src/events/json-scan.js';
import { eventScanOptions } from '../../../src/events/parse.js';
import { readStdin, removeSpill } from '../../../src/events/read-stdin.js';
import { makeTempDir } from '../../helpers/temp.js';

let tmp: ReturnType<typeof makeTempDir>;
let spillDir: string;
beforeEach(() => {
  tmp = makeTempDir();
  spillDir = join(tmp.dir, 'state', 'stdin');
});
afterEach(() => {
  vi.useRealTimers();
  tmp.cleanup();
});

const event = (content: string) =>
  Buffer.from(JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { content } }));

/** Writes `bytes` in chunks of `size`, then ends the stream. */
function feed(stream: PassThrough, bytes: Buffer, size = 1000): void {
  for (let at = 0; at < bytes.length; at += size) stream.write(bytes.subarray(at, at + size));
  stream.end();
}

describe('readStdin', () => {
  it('holds a stdin within memoryBytes in memory, and writes no file', async () => {
    const stream = new PassThrough();
    const bytes = event('small');
    const reading = readStdin(stream, { maxBytes: 10_000, timeoutMs: 1000, memoryBytes: 1000, spillDir });
    feed(stream, bytes, 7);
    expect(await reading).toEqual({ ok: true, bytes });
  });

  it('past memoryBytes, keeps the whole stdin in a private file and scans it on the way', async () => {
    const stream = new PassThrough();
    const bytes = event('c'.repeat(50_000));
    const reading = readStdin(stream, {
      maxBytes: 100_000,
      timeoutMs: 1000,
      memoryBytes: 4096,
      spillDir,
      scan: eventScanOptions(1_000_000),
    });
    feed(stream, bytes, 999);
    const result = await reading;
    if (!result.ok || !result.spilled) throw new Error(`not spilled: ${JSON.stringify(result)}`);
    expect(result.bytes).toEqual(bytes.subarray(0, 4096));
    expect(result.spilled.size).toBe(bytes.length);
    expect(readFileSync(result.spilled.path)).toEqual(bytes);
    expect(statSync(result.spilled.path).mode & 0o777).toBe(0o600);
    expect(statSync(spillDir).mode & 0o777).toBe(0o700);
    expect(result.spilled.scan.state).toBe('complete');
    expect(topString(result.spilled.scan, 'tool_name')).toBe('Write');
    expect(result.spilled.scan.value).toEqual(JSON.parse(bytes.toString()));
    removeSpill(result.spilled.path);
    expect(readdirSync(spillDir)).toEqual([]);
  });

  it('over maxBytes: rejects, removes the file, and returns what it read and its scan', async () => {
    const stream = new PassThrough();
    const bytes = event('d'.repeat(50_000));
    const reading = readStdin(stream, { maxBytes: 20_000, timeoutMs: 1000, memoryBytes: 4096, spillDir });
    feed(stream, bytes);
    const result = await reading;
    expect(result).toMatchObject({
      ok: false,
      reason: 'too-big',
      detail: 'stdin is larger than 20000 bytes',
    });
    if (result.ok) return;
    expect(result.bytes).toEqual(bytes.subarray(0, 4096));
    expect(result.scan?.state).toBe('truncated');
    expect(topString(result.scan!, 'hook_event_name')).toBe('PreToolUse');
    expect(readdirSync(spillDir)).toEqual([]);
  });

  it('says why when the file cannot be made (the folder is a symlink to a folder others can write)', async () => {
    const open = join(tmp.dir, 'open');
    mkdirSync(open, { mode: 0o777 });
    mkdirSync(join(tmp.dir, 'state'));
    symlinkSync(open, spillDir);
    const { chmodSync } = await import('node:fs');
    chmodSync(open, 0o777);
    const stream = new PassThrough();
    const reading = readStdin(stream, { maxBytes: 100_000, timeoutMs: 1000, memoryBytes: 100, spillDir });
    feed(stream, event('e'.repeat(1000)));
    const result = await reading;
    expect(result).toMatchObject({ ok: false, reason: 'error' });
    if (!result.ok) expect(result.detail).toMatch(/could not be kept on disk: .*writable by others/);
    expect(readdirSync(open)).toEqual([]);
  });

  it('removes spill files a killed hook left, and only those', async () => {
    mkdirSync(spillDir, { recursive: true, mode: 0o700 });
    const stale = join(spillDir, '123.1000.1.json');
    const other = join(spillDir, 'notes.txt');
    writeFileSync(stale, 'x');
    writeFileSync(other, 'y');
    const { utimesSync } = await import('node:fs');
    utimesSync(stale, new Date(0), new Date(0));
    utimesSync(other, new Date(0), new Date(0));
    const stream = new PassThrough();
    const reading = readStdin(stream, { maxBytes: 100_000, timeoutMs: 1000, memoryBytes: 10, spillDir });
    feed(stream, event('f'));
    const result = await reading;
    if (result.ok && result.spilled) removeSpill(result.spilled.path);
    expect(readdirSync(spillDir)).toEqual(['notes.txt']);
  });

  it('gives up when nothing more comes for timeoutMs, however long it has been reading', async () => {
    vi.useFakeTimers();
    const stream = new PassThrough();
    const reading = readStdin(stream, { maxBytes: 100_000, timeoutMs: 1000 });
    for (let i = 0; i < 5; i++) {
      stream.write('{"a":1,');
      await vi.advanceTimersByTimeAsync(900);
    }
    let settled = false;
    void reading.then(() => (settled = true));
    await vi.advanceTimersByTimeAsync(50);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1000);
    expect(await reading).toMatchObject({
      ok: false,
      reason: 'timeout',
      bytes: Buffer.from('{"a":1,'.repeat(5)),
      detail: 'stdin was not closed: nothing more came for 1000 ms',
    });
  });
});
