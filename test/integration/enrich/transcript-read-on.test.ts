import {
  appendFileSync,
  copyFileSync,
  mkdtempSync,
  openSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
  closeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readTranscript, type TranscriptRead } from '../../../src/enrich/read-transcript.js';

// A transcript read whole once is read on from where that read ended (only what was appended since):
// each read must give what a whole read of the file as it is now gives, whatever happened to the file.

const dir = mkdtempSync(join(tmpdir(), 'hkd-readon-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const OPTIONS = { maxReadBytes: 4 * 1024 * 1024, maxScanBytes: 32 * 1024 * 1024 };

const start = (title: string) =>
  `${JSON.stringify({ type: 'session_start', id: 's1', title, cwd: '/home/dev/projects/demo' })}\n`;
function message(id: string, role: string, text: string, tool?: string): string {
  const content: unknown[] = [{ type: 'text', text }];
  if (tool) content.push({ type: 'tool_use', id: `c-${id}`, name: tool, input: {} });
  return `${JSON.stringify({
    type: 'message',
    id,
    timestamp: `2026-11-22T11:32:${String(10 + (id.length % 40)).padStart(2, '0')}.000Z`,
    message: { role, content },
  })}\n`;
}

let copies = 0;
/** What a first, whole read of the same bytes gives (a copy under a path never read before). */
async function cold(path: string, messageId?: string): Promise<TranscriptRead> {
  const copy = join(dir, `cold-${++copies}.jsonl`);
  copyFileSync(path, copy);
  return readTranscript(copy, { ...OPTIONS, messageId });
}
const read = (path: string, messageId?: string) => readTranscript(path, { ...OPTIONS, messageId });

async function expectSameAsCold(path: string, messageId?: string): Promise<TranscriptRead> {
  const got = await read(path, messageId);
  const want = await cold(path, messageId);
  expect(got.summary).toEqual(want.summary);
  expect({ ...got, summary: undefined, bytesRead: 0 }).toEqual({ ...want, summary: undefined, bytesRead: 0 });
  return got;
}

describe('reading a transcript on from its last read', () => {
  it('reads only what was appended, and gives what a whole read gives', async () => {
    const path = join(dir, 'append.jsonl');
    const filler = message('u0', 'user', 'x'.repeat(20_000));
    writeFileSync(
      path,
      start('first') + filler + message('u1', 'user', 'do it') + message('a1', 'assistant', 'ok', 'Read'),
    );
    await expectSameAsCold(path, 'a1');
    appendFileSync(path, message('u2', 'user', 'go on') + message('a2', 'assistant', 'done: é ✓', 'Execute'));
    const got = await expectSameAsCold(path, 'a2');
    expect(got.summary.wanted?.text).toBe('done: é ✓');
    expect(got.summary.toolCalls).toEqual({ Read: 1, Execute: 1 });
    expect(got.bytesRead).toBeLessThan(filler.length); // the lines read before were not read again
    // Nothing appended: the same again, from the kept summary (the wanted message is the last one).
    const again = await expectSameAsCold(path, 'a2');
    expect(again.bytesRead).toBeLessThan(filler.length);
  });

  it('a line being written is skipped, and counted once when it is whole', async () => {
    const path = join(dir, 'partial.jsonl');
    writeFileSync(path, start('t') + message('a1', 'assistant', 'one', 'Read'));
    await read(path);
    const line = message('a2', 'assistant', 'two', 'Grep');
    appendFileSync(path, line.slice(0, 40));
    const half = await expectSameAsCold(path);
    expect(half.warnings).toContain('transcript ends in a partial line (being written); it was skipped');
    appendFileSync(path, line.slice(40));
    const whole = await expectSameAsCold(path, 'a2');
    expect(whole.summary.toolCalls).toEqual({ Read: 1, Grep: 1 });
    expect(whole.summary.messageLines).toBe(2);
  });

  it('a file replaced, rewritten in place with the same size, or cut shorter is read whole again', async () => {
    const path = join(dir, 'changed.jsonl');
    writeFileSync(path, start('title AAAA') + message('a1', 'assistant', 'one', 'Read'));
    await read(path);
    // Replaced (another inode), with another title.
    const next = join(dir, 'changed.next');
    writeFileSync(next, start('title BBBB') + message('a1', 'assistant', 'one', 'Read'));
    renameSync(next, path);
    expect((await expectSameAsCold(path)).summary.sessionStart?.title).toBe('title BBBB');
    // Rewritten in place: same inode, same size, another title of the same length.
    const fd = openSync(path, 'r+');
    writeSync(fd, start('title CCCC'), 0);
    closeSync(fd);
    expect((await expectSameAsCold(path)).summary.sessionStart?.title).toBe('title CCCC');
    // Cut shorter.
    writeFileSync(path, start('title DDDD'));
    const cut = await expectSameAsCold(path);
    expect(cut.summary.messageLines).toBe(0);
  });

  it('a wanted message among the lines read before (not the last answer) is found by a whole read', async () => {
    const path = join(dir, 'wanted.jsonl');
    writeFileSync(
      path,
      start('t') + message('a1', 'assistant', 'early answer') + message('a2', 'assistant', 'later'),
    );
    await read(path);
    appendFileSync(path, message('u3', 'user', 'more'));
    const got = await expectSameAsCold(path, 'a1');
    expect(got.summary.wanted?.text).toBe('early answer');
  });
});
