import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleFixture } from '../daemon/process-helpers.js';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { decodeRecord } from '../../../src/ledger/ledger-file.js';
import { createLedger, ledgerPath } from '../../../src/ledger/ledger.js';
import { sampleRecord } from './records.js';

let bundleDir: string;
let childScript: string;
let dataDir: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  bundleDir = await mkdtemp(join(tmpdir(), 'hookd-ledger-child-'));
  childScript = join(bundleDir, 'ledger-child.mjs');
  await bundleFixture(join(import.meta.dirname, 'fixtures', 'ledger-child.ts'), childScript);
});
afterAll(async () => {
  await rm(bundleDir, { recursive: true, force: true });
});
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'hookd-ledger-crash-'));
});
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null && child.pid) process.kill(child.pid, 'SIGKILL');
  }
  await rm(dataDir, { recursive: true, force: true });
});

function startChild(mode: string, ...args: string[]) {
  const child = spawn(process.execPath, [childScript, mode, dataDir, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const lines: string[] = [];
  let buffered = '';
  const waiters: Array<() => void> = [];
  child.stdout!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const parts = buffered.split('\n');
    buffered = parts.pop()!;
    lines.push(...parts);
    waiters.splice(0).forEach((w) => w());
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  const waitForLines = async (n: number) => {
    while (lines.length < n) {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`child ended early: ${stderr}`);
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  return { child, lines, exited, waitForLines, stderr: () => stderr };
}

/** Valid record lines per session id in the raw file (what exactly-once is about). */
async function validLinesPerId(): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const line of (await readFile(ledgerPath(dataDir), 'utf8')).split('\n')) {
    const record = decodeRecord(line);
    if (record) counts.set(record.sessionId, (counts.get(record.sessionId) ?? 0) + 1);
  }
  return counts;
}

describe('ledger exactly-once under a process killed mid-write', () => {
  it('keeps every acknowledged record and writes each session once after redelivery', async () => {
    const writer = startChild('loop', '100000');
    await writer.waitForLines(30);
    process.kill(writer.child.pid!, 'SIGKILL');
    expect((await writer.exited).signal).toBe('SIGKILL');
    const acknowledged = writer.lines.length;

    const ledger = createLedger({ dataDir });
    const survived = await ledger.list();
    // Everything the child reported as written is there (fsync'd before the report), in order, nothing more than one beyond.
    expect(survived.length).toBeGreaterThanOrEqual(acknowledged);
    expect(survived.length).toBeLessThanOrEqual(acknowledged + 1);
    const ids = new Set(survived.map((r) => r.sessionId));
    for (let n = 0; n < acknowledged; n++) expect(ids.has(`child-${n}`)).toBe(true);

    // The daemon restarts and the spool redelivers every SessionEnd, including ones already written.
    const total = acknowledged + 5;
    const outcomes = [];
    for (let n = 0; n < total; n++)
      outcomes.push(await ledger.record(sampleRecord({ sessionId: `child-${n}` })));
    expect(outcomes.filter((o) => o === 'written')).toHaveLength(total - survived.length);
    const counts = await validLinesPerId();
    expect(counts.size).toBe(total);
    expect([...counts.values()].every((c) => c === 1)).toBe(true);
  });

  it('recovers from a write torn in the middle of a line', async () => {
    const torn = startChild('torn');
    expect((await torn.exited).signal).toBe('SIGKILL');
    const raw = await readFile(ledgerPath(dataDir), 'utf8');
    expect(raw.endsWith('\n')).toBe(false);

    const ledger = createLedger({ dataDir });
    expect((await ledger.list()).map((r) => r.sessionId)).toEqual(['child-0']);
    expect(await ledger.record(sampleRecord({ sessionId: 'child-1' }))).toBe('written');
    expect(await ledger.record(sampleRecord({ sessionId: 'child-0' }))).toBe('duplicate');
    expect((await ledger.list()).map((r) => r.sessionId).sort()).toEqual(['child-0', 'child-1']);
    const counts = await validLinesPerId();
    expect(Object.fromEntries(counts)).toEqual({ 'child-0': 1, 'child-1': 1 });
  });

  it('takes over the lock of a writer killed while holding it', async () => {
    const holder = startChild('hold-lock');
    await holder.waitForLines(1);
    expect(holder.lines[0]).toBe('locked');
    process.kill(holder.child.pid!, 'SIGKILL');
    await holder.exited;
    const ledger = createLedger({ dataDir });
    expect(await ledger.record(sampleRecord({ sessionId: 'after-lock' }))).toBe('written');
    expect(await ledger.record(sampleRecord({ sessionId: 'child-0' }))).toBe('duplicate');
  });
});
