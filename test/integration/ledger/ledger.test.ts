import { appendFile, mkdtemp, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLedger, ledgerPath } from '../../../src/ledger/ledger.js';
import { BASE_MS, DAY, sampleRecord } from './records.js';

let dataDir: string;
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'hookd-ledger-'));
});
afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

const id = (n: number) => `${String(n).padStart(8, '0')}-0000-4000-8000-000000000000`;

describe('the ledger file', () => {
  it('writes one JSON line per session under <dataDir>/ledger and reads it back', async () => {
    const ledger = createLedger({ dataDir });
    expect(ledger.path).toBe(join(dataDir, 'ledger', 'sessions.jsonl'));
    expect(await ledger.list()).toEqual([]);
    expect(await ledger.record(sampleRecord())).toBe('written');
    const lines = (await readFile(ledger.path, 'utf8')).split('\n');
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[0]!)).toEqual(sampleRecord());
    expect(await ledger.list()).toEqual([sampleRecord()]);
  });

  it('keeps exactly one record per session: twice, concurrently, and after a restart', async () => {
    const first = createLedger({ dataDir });
    const results = await Promise.all([
      first.record(sampleRecord({ sessionId: id(1) })),
      first.record(sampleRecord({ sessionId: id(1), reason: 'clear' })),
      first.record(sampleRecord({ sessionId: id(2) })),
    ]);
    expect(results).toEqual(['written', 'duplicate', 'written']);
    expect(await first.record(sampleRecord({ sessionId: id(1) }))).toBe('duplicate');
    // A new process (daemon restart) learns the ids from the file.
    const second = createLedger({ dataDir });
    expect(await second.record(sampleRecord({ sessionId: id(2) }))).toBe('duplicate');
    expect(await second.record(sampleRecord({ sessionId: id(3) }))).toBe('written');
    // Another instance appending meanwhile is seen by the first one before it writes.
    expect(await first.record(sampleRecord({ sessionId: id(3) }))).toBe('duplicate');
    const records = await second.list();
    expect(records.map((r) => r.sessionId).sort()).toEqual([id(1), id(2), id(3)]);
    expect(records.find((r) => r.sessionId === id(1))?.reason).toBe('other');
  });

  it('survives a torn write: the cut line is skipped and the next record starts on its own line', async () => {
    const ledger = createLedger({ dataDir });
    await ledger.record(sampleRecord({ sessionId: id(1) }));
    await ledger.record(sampleRecord({ sessionId: id(2) }));
    const { size } = await stat(ledger.path);
    // Simulate a crash in the middle of writing the second line.
    await truncate(ledger.path, size - 40);
    const afterCrash = createLedger({ dataDir });
    expect((await afterCrash.list()).map((r) => r.sessionId)).toEqual([id(1)]);
    // The event is redelivered (spool) after the restart: it is written again, exactly once.
    expect(await afterCrash.record(sampleRecord({ sessionId: id(2) }))).toBe('written');
    expect(await afterCrash.record(sampleRecord({ sessionId: id(3) }))).toBe('written');
    expect((await afterCrash.list()).map((r) => r.sessionId).sort()).toEqual([id(1), id(2), id(3)]);
    const text = await readFile(ledger.path, 'utf8');
    expect(text.split('\n').filter((l) => l.includes(id(2)))).toHaveLength(2);
  });

  it('skips corrupt lines, unknown versions and duplicate lines when reading', async () => {
    const ledger = createLedger({ dataDir });
    await ledger.record(sampleRecord({ sessionId: id(1) }));
    await appendFile(
      ledger.path,
      [
        'not json',
        JSON.stringify({ ...sampleRecord({ sessionId: id(9) }), v: 99 }),
        JSON.stringify({ v: 1, sessionId: '' }),
        JSON.stringify(sampleRecord({ sessionId: id(1), title: 'second copy' })),
        '',
      ].join('\n'),
    );
    const records = await ledger.list();
    expect(records).toHaveLength(1);
    expect(records[0]?.title).toBe('Fix the parser');
  });

  it('takes over a lock left by a killed writer', async () => {
    const ledger = createLedger({ dataDir });
    await ledger.record(sampleRecord({ sessionId: id(1) }));
    // A pid that does not exist (beyond pid_max on Linux).
    await writeFile(`${ledgerPath(dataDir)}.lock`, '99999999');
    expect(await ledger.record(sampleRecord({ sessionId: id(2) }))).toBe('written');
  });
});

describe('ledger queries', () => {
  async function seeded() {
    const ledger = createLedger({ dataDir });
    await ledger.record(
      sampleRecord({
        sessionId: id(1),
        endedAtMs: BASE_MS,
        project: '/p/alpha',
        projectName: 'alpha',
        model: 'm1',
        credits: 1,
      }),
    );
    await ledger.record(
      sampleRecord({
        sessionId: id(2),
        endedAtMs: BASE_MS + DAY,
        project: '/p/beta',
        projectName: 'beta',
        model: 'm2',
        reason: 'clear',
        credits: 2,
      }),
    );
    await ledger.record(
      sampleRecord({
        sessionId: id(3),
        endedAtMs: BASE_MS + DAY + 1000,
        project: '/p/alpha',
        projectName: 'alpha',
        model: 'm1',
        credits: 4,
        durationMs: null,
      }),
    );
    await ledger.record(
      sampleRecord({
        sessionId: 'abcdef00-1',
        endedAtMs: BASE_MS - DAY,
        project: null,
        projectName: null,
        cwd: null,
        model: null,
        tokens: null,
        credits: null,
      }),
    );
    return ledger;
  }

  it('lists most recent first with since, project, reason and limit filters', async () => {
    const ledger = await seeded();
    expect((await ledger.list()).map((r) => r.sessionId)).toEqual([id(3), id(2), id(1), 'abcdef00-1']);
    expect((await ledger.list({ sinceMs: BASE_MS + DAY })).map((r) => r.sessionId)).toEqual([id(3), id(2)]);
    expect((await ledger.list({ project: 'ALPHA' })).map((r) => r.sessionId)).toEqual([id(3), id(1)]);
    expect((await ledger.list({ reason: 'clear' })).map((r) => r.sessionId)).toEqual([id(2)]);
    expect((await ledger.list({ limit: 1 })).map((r) => r.sessionId)).toEqual([id(3)]);
  });

  it('gets by id or unique prefix, and matches prefixes', async () => {
    const ledger = await seeded();
    expect((await ledger.get(id(2)))?.sessionId).toBe(id(2));
    expect((await ledger.get('abcdef'))?.sessionId).toBe('abcdef00-1');
    expect(await ledger.get('0000000')).toBeUndefined();
    expect(await ledger.match('0000000')).toHaveLength(3);
    expect(await ledger.get('zzz')).toBeUndefined();
  });

  it('totals by day, project and model', async () => {
    const ledger = await seeded();
    const byDay = await ledger.stats('day');
    expect(byDay.rows.map((r) => [r.key, r.sessions, r.credits])).toEqual([
      ['2026-11-19', 1, 0],
      ['2026-11-20', 1, 1],
      ['2026-11-21', 2, 6],
    ]);
    expect(byDay.total).toMatchObject({ sessions: 4, credits: 7, durationMs: 180_000, messageCount: 40 });
    expect(byDay.total.tokens.total).toBe(450);
    const byProject = await ledger.stats('project', { sinceMs: BASE_MS });
    expect(byProject.rows.map((r) => [r.key, r.sessions, r.credits])).toEqual([
      ['/p/alpha', 2, 5],
      ['/p/beta', 1, 2],
    ]);
    const byModel = await ledger.stats('model');
    expect(byModel.rows.map((r) => r.key)).toEqual(['m1', 'm2', '(unknown)']);
  });
});
