import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEnricher } from '../../../src/enrich/enricher.js';
import { parseEvent } from '../../../src/events/parse.js';
import type { CommandOutcome, EventHandoff, HookEvent } from '../../../src/events/types.js';
import { createLedger, type Ledger } from '../../../src/ledger/ledger.js';
import { tagSessionOnEnd } from '../../../src/ledger/tag-session.js';
import { createSessionTracker, loadTrackerSnapshot } from '../../../src/ledger/tracker.js';
import type { SessionRecord } from '../../../src/ledger/types.js';
import {
  MAIN_SESSION,
  SUB_SESSION,
  fixtureEventFiles,
  makeTempHome,
  type TempHome,
} from '../enrich/fixture-home.js';

let home: TempHome;
let dataDir: string;
let ledger: Ledger;
beforeEach(async () => {
  home = await makeTempHome();
  dataDir = await mkdtemp(join(tmpdir(), 'hookd-tracker-'));
  ledger = createLedger({ dataDir });
});
afterEach(async () => {
  await home.cleanup();
  await rm(dataDir, { recursive: true, force: true });
});

function outcome(over: Partial<CommandOutcome> = {}): CommandOutcome {
  return {
    name: 'cmd',
    command: 'true',
    exitCode: 0,
    signal: null,
    timedOut: false,
    durationMs: 5,
    blocking: false,
    ...over,
  };
}

/** Command outcomes per fixture file: one failure, one timeout, one deliberate block (not a failure). */
const RESULTS: Record<string, CommandOutcome[]> = {
  '03-PreToolUse-Execute.json': [outcome({ exitCode: 1 }), outcome()],
  '05-PostToolUse-Execute.json': [outcome({ exitCode: null, signal: 'SIGKILL', timedOut: true })],
  '06-PreToolUse-Create.json': [outcome({ exitCode: 2, blocking: true })],
  '16-Stop.json': [outcome({ exitCode: 127, spawnError: 'ENOENT' })],
};

async function handoffs(): Promise<EventHandoff[]> {
  const out: EventHandoff[] = [];
  for (const file of await fixtureEventFiles()) {
    out.push({ v: 1, type: 'event', event: await home.event(file), results: RESULTS[file] ?? [outcome()] });
  }
  return out;
}

function byId(records: SessionRecord[]) {
  return Object.fromEntries(records.map((r) => [r.sessionId, r]));
}

describe('session tracker on the real Droid event flow', () => {
  it('writes one full record per session at SessionEnd', async () => {
    const enricher = createEnricher();
    const recorded: string[] = [];
    const tracker = createSessionTracker({
      ledger,
      enrich: (e) => enricher.enrich(e),
      idleCloseMs: 3_600_000,
      now: () => 1_795_347_200_000,
      onRecorded: (r) => void recorded.push(r.sessionId),
    });
    for (const h of await handoffs()) await tracker.onEvent(h);
    expect(tracker.size).toBe(0);
    expect(recorded).toEqual([SUB_SESSION, MAIN_SESSION]);
    const records = byId(await ledger.list());
    expect(records[MAIN_SESSION]).toMatchObject({
      parentId: null,
      isSubagent: false,
      agent: 'droid',
      projectName: 'demo',
      title: 'OK',
      reason: 'other',
      messageCount: 23,
      model: 'custom:fake-chat',
      activeTimeMs: 1902,
      credits: 0,
      toolCalls: { Execute: 1, Create: 1, Task: 1 },
      hookFailures: 2,
      hookTimeouts: 1,
      subagentCount: 1,
      eventCount: 15,
      recordedAtMs: 1_795_347_200_000,
    });
    expect(records[MAIN_SESSION]?.durationMs).toBeCloseTo(2277.14, 1);
    expect(records[MAIN_SESSION]?.tokens?.total).toBe(90);
    expect(records[MAIN_SESSION]?.inclusiveTokens?.total).toBe(105);
    expect(records[SUB_SESSION]).toMatchObject({
      parentId: MAIN_SESSION,
      isSubagent: true,
      title: 'Worker: Tiny sub task',
      messageCount: 6,
      subagentCount: 0,
      eventCount: 4,
      hookFailures: 0,
    });
  });

  it('keeps one record when SessionEnd arrives twice', async () => {
    const recorded: string[] = [];
    const tracker = createSessionTracker({
      ledger,
      idleCloseMs: 60_000,
      onRecorded: (r) => void recorded.push(r.sessionId),
    });
    const all = await handoffs();
    for (const h of all) await tracker.onEvent(h);
    const end = all.find((h) => h.event.name === 'SessionEnd' && h.event.sessionId === MAIN_SESSION)!;
    await Promise.all([
      tracker.onEvent(end),
      tracker.onEvent({ ...end, event: { ...end.event, id: 'again' } }),
    ]);
    expect((await ledger.list()).map((r) => r.sessionId).sort()).toEqual([MAIN_SESSION, SUB_SESSION].sort());
    expect(recorded).toHaveLength(2);
    expect(tracker.size).toBe(0);
  });

  it('keeps its counters across a daemon restart (saved state) and still writes once', async () => {
    const statePath = join(dataDir, 'ledger', 'open-sessions.json');
    const all = await handoffs();
    const half = all.findIndex((h) => h.event.name === 'SessionStart' && h.event.sessionId === SUB_SESSION);
    const before = createSessionTracker({ ledger, idleCloseMs: 60_000, statePath, persistDelayMs: 10 });
    for (const h of all.slice(0, half)) await before.onEvent(h);
    await before.close();

    const after = createSessionTracker({ ledger: createLedger({ dataDir }), idleCloseMs: 60_000, statePath });
    after.restore(await loadTrackerSnapshot(statePath));
    expect(after.size).toBe(1);
    for (const h of all.slice(half)) await after.onEvent(h);
    // The SessionEnd is delivered again after another restart: still one record.
    await after.onEvent(all.at(-1)!);
    const records = byId(await ledger.list());
    expect(Object.keys(records).sort()).toEqual([MAIN_SESSION, SUB_SESSION].sort());
    expect(records[MAIN_SESSION]).toMatchObject({
      hookFailures: 2,
      hookTimeouts: 1,
      subagentCount: 1,
      eventCount: 15,
    });
    expect(records[MAIN_SESSION]?.toolCalls).toEqual({ Execute: 1, Create: 1, Task: 1 });
    await after.close();
    expect((await loadTrackerSnapshot(statePath)).sessions).toEqual([]);
  });

  it('closes a session whose end never came after the idle time, once', async () => {
    let nowMs = 0;
    const tracker = createSessionTracker({ ledger, idleCloseMs: 60_000, now: () => nowMs });
    const all = await handoffs();
    const main = all.filter((h) => h.event.sessionId === MAIN_SESSION && h.event.name !== 'SessionEnd');
    for (const h of main.slice(0, 4)) await tracker.onEvent(h);
    const lastSeen = main[3]!.event.receivedAt;
    nowMs = lastSeen + 60_000;
    expect(await tracker.sweepIdle()).toBe(0);
    nowMs = lastSeen + 60_001;
    expect(await tracker.sweepIdle()).toBe(1);
    const [record] = await ledger.list();
    expect(record).toMatchObject({
      sessionId: MAIN_SESSION,
      reason: 'idle-timeout',
      endedAtMs: lastSeen,
      hookFailures: 1,
      eventCount: 4,
    });
    // Its real SessionEnd shows up later: the ledger keeps the one record.
    await tracker.onEvent(all.at(-1)!);
    expect(await ledger.list()).toHaveLength(1);
  });

  it('retries a record the disk refused at the next sweep, with its real reason', async () => {
    const real = ledger;
    let failures = 1;
    const flaky: Pick<Ledger, 'record'> = {
      record: (r) => (failures-- > 0 ? Promise.reject(new Error('ENOSPC: no space left')) : real.record(r)),
    };
    const warnings: string[] = [];
    const tracker = createSessionTracker({
      ledger: flaky,
      idleCloseMs: 3_600_000,
      warn: (m) => warnings.push(m),
    });
    const end: HookEvent = await home.event('13-SessionEnd.json');
    await tracker.onEvent({ v: 1, type: 'event', event: end, results: [] });
    expect(await real.list()).toEqual([]);
    expect(warnings[0]).toMatch(/could not write session .*ENOSPC/);
    expect(await tracker.sweepIdle()).toBe(1);
    const [record] = await real.list();
    expect(record).toMatchObject({ sessionId: SUB_SESSION, reason: 'other', messageCount: 6 });
  });
});

describe('tagging the session on the platform at its end', () => {
  it('PATCHes the session with a hookd tag, keeping existing tags (loopback API)', async () => {
    const bodies: Array<{ url: string; method: string; body: unknown }> = [];
    const server = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => {
        bodies.push({ url: req.url ?? '', method: req.method ?? '', body: JSON.parse(text) });
        res
          .writeHead(req.url?.includes('fail') ? 500 : 200, { 'content-type': 'application/json' })
          .end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const updateSession = async (sessionId: string, update: unknown) => {
      const res = await fetch(`${base}/api/v0/sessions/${sessionId}`, {
        method: 'PATCH',
        body: JSON.stringify(update),
      });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
    };
    try {
      const enricher = createEnricher();
      const tagged: unknown[] = [];
      const tracker = createSessionTracker({
        ledger,
        enrich: (e) => enricher.enrich(e),
        idleCloseMs: 60_000,
        onRecorded: async (record, enrichment) => {
          tagged.push(
            await tagSessionOnEnd(record, updateSession, { existingTags: enrichment?.session.tags }),
          );
        },
      });
      await tracker.onEvent({
        v: 1,
        type: 'event',
        event: await home.event('13-SessionEnd.json'),
        results: [],
      });
      expect(tagged).toHaveLength(1);
      expect(bodies).toHaveLength(1);
      expect(bodies[0]).toMatchObject({ url: `/api/v0/sessions/${SUB_SESSION}`, method: 'PATCH' });
      const tags = (
        bodies[0]!.body as {
          sessionSettings: { tags: Array<{ name: string; metadata?: Record<string, unknown> }> };
        }
      ).sessionSettings.tags;
      expect(tags.map((t) => t.name)).toEqual(['subagent', 'hookd']);
      expect(tags[1]?.metadata).toMatchObject({ reason: 'other', messageCount: 6, hookFailures: 0 });

      const failed = await tagSessionOnEnd((await ledger.list())[0]!, (_id, u) => updateSession('fail', u));
      expect(failed).toEqual({ ok: false, error: `tagging session ${SUB_SESSION} failed: HTTP 500` });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('session tracker: agents recognised without an adapter', () => {
  it("records a Cursor session as Cursor's (documented payloads), at its end and when it goes idle", async () => {
    const fixtures = join(__dirname, '..', '..', 'fixtures', 'cursor-docs');
    const parsed = ['preToolUse-Shell.json', 'stop.json'].map((name) => {
      const result = parseEvent(readFileSync(join(fixtures, name)), {});
      if (!result.ok) throw new Error(result.detail);
      return result.event;
    });
    expect(parsed.map((e) => e.agent)).toEqual(['cursor', 'cursor']);
    const stop = parsed[1]!;
    const ends: HookEvent[] = [];
    const enricher = createEnricher();
    let nowMs = stop.receivedAt;
    const tracker = createSessionTracker({
      ledger,
      idleCloseMs: 60_000,
      now: () => nowMs,
      enrich: (event) => {
        ends.push(event);
        return enricher.enrich(event);
      },
    });
    // No sessionEnd: the session is closed when it goes idle, with a SessionEnd hookd makes up.
    for (const event of parsed) await tracker.onEvent({ v: 1, type: 'event', event, results: [] });
    nowMs += 60_001;
    expect(await tracker.sweepIdle()).toBe(1);
    // Cursor documents a sessionEnd with the same common fields: a second conversation ends with one.
    const other = { ...stop, sessionId: 'c0ffee00-2222-4222-8333-444455556666' };
    for (const event of [other, { ...other, id: 'end', name: 'SessionEnd' }])
      await tracker.onEvent({ v: 1, type: 'event', event, results: [] });
    const records = await ledger.list();
    expect(records.map((r) => r.agent)).toEqual(['cursor', 'cursor']);
    expect(ends.filter((e) => e.name === 'SessionEnd').map((e) => e.agent)).toEqual(['cursor', 'cursor']);
  });
});
