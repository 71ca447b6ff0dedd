import { mkdtemp, open, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLocalSession } from '../../../src/enrich/session-store.js';

const MiB = 1024 * 1024;
const SESSION = 'huge-0000-4000-8000-000000000000';
const MAX_READ = 1 * MiB;
const SCAN_CAP = 8 * MAX_READ;

function messageLine(id: string, role: string, text: string): string {
  return `${JSON.stringify({
    type: 'message',
    id,
    timestamp: '2026-11-22T11:32:36.699Z',
    message: { role, content: [{ type: 'text', text }] },
  })}\n`;
}

/** One MiB of filler lines: assistant tool calls and long tool results, like a busy session. */
function fillerBlock(): Buffer {
  const lines: string[] = [];
  let size = 0;
  let n = 0;
  while (size < MiB) {
    const line =
      n % 2 === 0
        ? `${JSON.stringify({
            type: 'message',
            id: `filler-${n}`,
            message: {
              role: 'assistant',
              content: [{ type: 'tool_use', id: `c${n}`, name: 'Read', input: { file_path: '/x' } }],
            },
          })}\n`
        : messageLine(`filler-${n}`, 'user', 'x'.repeat(3000));
    lines.push(line);
    size += Buffer.byteLength(line);
    n++;
  }
  return Buffer.from(lines.join(''));
}

let dir: string;
let path: string;
let size: number;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hookd-huge-'));
  const sessions = join(dir, '.factory', 'sessions', '-tmp-huge');
  await (await import('node:fs/promises')).mkdir(sessions, { recursive: true });
  path = join(sessions, `${SESSION}.jsonl`);
  const handle = await open(path, 'w');
  try {
    await handle.write(
      `${JSON.stringify({ type: 'session_start', id: SESSION, title: 'Huge session', cwd: '/tmp/huge', version: 2 })}\n`,
    );
    await handle.write(messageLine('first', 'user', 'start'));
    const block = fillerBlock();
    for (let i = 0; i < 200; i++) {
      await handle.write(block);
      // A message 4 blocks before the end: outside the tail window, inside the scan cap.
      if (i === 195) await handle.write(messageLine('middle-answer', 'assistant', 'the middle answer'));
    }
    // A final message far longer than the whole read window.
    await handle.write(messageLine('long-final', 'assistant', `LONG ${'y'.repeat(2 * MiB)} END`));
    await handle.write(messageLine('final', 'assistant', 'All done with the huge job.'));
  } finally {
    await handle.close();
  }
  size = (await stat(path)).size;
}, 120_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('readLocalSession on a 200 MB transcript', () => {
  it('is over 200 MB', () => {
    expect(size).toBeGreaterThan(200 * MiB);
  });

  it('reads the head and a tail window only, and finds the final message there', async () => {
    const info = await readLocalSession({
      sessionId: SESSION,
      transcriptPath: path,
      messageId: 'final',
      maxReadBytes: MAX_READ,
    });
    expect(info.message?.text).toBe('All done with the huge job.');
    expect(info.title).toBe('Huge session');
    expect(info.cwd).toBe('/tmp/huge');
    expect(info.bytesRead).toBeLessThanOrEqual(MAX_READ);
    expect(info.transcriptBytes).toBe(size);
    expect(info.transcriptComplete).toBe(false);
    expect(info.toolCallsComplete).toBe(false);
    expect(info.startedAtMs).toBe(Date.parse('2026-11-22T11:32:36.699Z'));
  });

  it('finds a message behind the tail with a bounded backwards scan', async () => {
    const info = await readLocalSession({
      sessionId: SESSION,
      transcriptPath: path,
      messageId: 'middle-answer',
      maxReadBytes: MAX_READ,
    });
    expect(info.message?.text).toBe('the middle answer');
    expect(info.lastAssistantMessage?.id).toBe('final');
    expect(info.bytesRead).toBeGreaterThan(MAX_READ);
    expect(info.bytesRead).toBeLessThanOrEqual(MAX_READ + SCAN_CAP);
  });

  it('reassembles a message line longer than the window while scanning', async () => {
    const info = await readLocalSession({
      sessionId: SESSION,
      transcriptPath: path,
      messageId: 'long-final',
      maxReadBytes: MAX_READ,
    });
    expect(info.message?.text.startsWith('LONG y')).toBe(true);
    expect(info.message?.text.endsWith('y END')).toBe(true);
    expect(info.bytesRead).toBeLessThanOrEqual(MAX_READ + SCAN_CAP);
  });

  it('gives up on an absent message id after the scan cap, with a warning', async () => {
    const info = await readLocalSession({
      sessionId: SESSION,
      transcriptPath: path,
      messageId: 'nowhere',
      maxReadBytes: MAX_READ,
    });
    expect(info.message).toBeUndefined();
    expect(info.lastAssistantMessage?.text).toBe('All done with the huge job.');
    expect(info.bytesRead).toBeLessThanOrEqual(MAX_READ + SCAN_CAP);
    expect(info.warnings.some((w) => w.startsWith('message nowhere not found in the last'))).toBe(true);
  });

  it('stops a scan when the signal aborts and returns what it has', async () => {
    const controller = new AbortController();
    const pending = readLocalSession({
      sessionId: SESSION,
      transcriptPath: path,
      messageId: 'nowhere',
      maxReadBytes: MAX_READ,
      signal: controller.signal,
    });
    controller.abort();
    const info = await pending;
    expect(info.bytesRead).toBeLessThanOrEqual(MAX_READ + SCAN_CAP);
    expect(info.warnings.join('\n')).toMatch(/time budget spent|not found/);
  });
});
