import { describe, expect, it } from 'vitest';
import { enrichApiEnabled, enrichConfigSchema } from '../../../src/config/schemas/enrich-schema.js';
import { ledgerConfigSchema } from '../../../src/config/schemas/ledger-schema.js';
import type { Enrichment } from '../../../src/enrich/types.js';
import type { CommandOutcome, HookEvent } from '../../../src/events/types.js';
import { buildSessionRecord } from '../../../src/ledger/build-record.js';
import { csvCell } from '../../../src/ledger/format-sessions.js';
import { decodeRecord, encodeRecord } from '../../../src/ledger/ledger-file.js';
import { parseSince } from '../../../src/ledger/since.js';
import { computeStats } from '../../../src/ledger/stats.js';
import { classifyOutcome, newTrackedSession } from '../../../src/ledger/tracked-session.js';

const NOW = Date.UTC(2026, 10, 22, 12);

describe('parseSince', () => {
  it('reads relative times and ISO dates, rejects the rest', () => {
    expect(parseSince('30m', NOW)).toBe(NOW - 30 * 60_000);
    expect(parseSince('12h', NOW)).toBe(NOW - 12 * 3_600_000);
    expect(parseSince('7d', NOW)).toBe(NOW - 7 * 86_400_000);
    expect(parseSince('2W', NOW)).toBe(NOW - 14 * 86_400_000);
    expect(parseSince('2026-11-01', NOW)).toBe(Date.UTC(2026, 10, 1));
    expect(parseSince('2026-11-01T09:30:00Z', NOW)).toBe(Date.UTC(2026, 10, 1, 9, 30));
    for (const bad of ['', 'yesterday', '7', '7y', '2026-13-45', 'd7'])
      expect(parseSince(bad, NOW)).toBeUndefined();
  });
});

describe('classifyOutcome', () => {
  const o = (over: Partial<CommandOutcome>): CommandOutcome => ({
    name: 'c',
    command: 'x',
    exitCode: 0,
    signal: null,
    timedOut: false,
    durationMs: 1,
    blocking: false,
    ...over,
  });
  it('tells timeouts, failures and fine runs apart', () => {
    expect(classifyOutcome(o({}))).toBe('ok');
    expect(classifyOutcome(o({ timedOut: true, exitCode: null, signal: 'SIGKILL' }))).toBe('timeout');
    expect(classifyOutcome(o({ exitCode: 1 }))).toBe('failure');
    expect(classifyOutcome(o({ exitCode: 2 }))).toBe('failure');
    expect(classifyOutcome(o({ exitCode: 2, blocking: true }))).toBe('ok');
    expect(classifyOutcome(o({ exitCode: null, signal: 'SIGTERM' }))).toBe('failure');
    expect(classifyOutcome(o({ exitCode: null, spawnError: 'ENOENT' }))).toBe('failure');
  });
});

describe('buildSessionRecord', () => {
  const end: HookEvent = {
    id: 'e',
    receivedAt: 10_000,
    agent: 'claude',
    name: 'SessionEnd',
    sessionId: 's',
    cwd: '/w/p',
    payload: { reason: 'logout', message_count: 7 },
  };
  it('fills every field from the tracker alone, null where unknown', () => {
    const session = {
      ...newTrackedSession('s', 'claude', 1000),
      cwd: '/w/p',
      toolCalls: { Bash: 3 },
      subagentStops: 2,
    };
    const r = buildSessionRecord(session, end, 'logout', undefined, 20_000);
    expect(r).toMatchObject({
      sessionId: 's',
      agent: 'claude',
      project: '/w/p',
      projectName: 'p',
      title: null,
      model: null,
      tokens: null,
      credits: null,
      startedAtMs: 1000,
      endedAtMs: 10_000,
      durationMs: 9000,
      messageCount: 7,
      subagentCount: 2,
      toolCalls: { Bash: 3 },
      recordedAtMs: 20_000,
    });
  });
  it('takes enrichment facts and the larger tool count per tool', () => {
    const enrichment: Enrichment = {
      session: {
        id: 's',
        title: 'T',
        project: '/w',
        projectName: 'w',
        isSubagent: true,
        parentId: 'p1',
        model: 'm',
        tokens: { input: 2, output: 2, cacheRead: 0, cacheWrite: 0, thinking: 0, total: 4 },
        ownTokens: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, thinking: 0, total: 2 },
        ownCredits: 0.5,
        toolCalls: { Bash: 1, Read: 4 },
      },
      sources: [],
      warnings: [],
      budgetExceeded: false,
    };
    const session = { ...newTrackedSession('s', 'claude', 1000), toolCalls: { Bash: 3 } };
    const r = buildSessionRecord(session, end, 'logout', enrichment, 0);
    expect(r).toMatchObject({
      title: 'T',
      project: '/w',
      isSubagent: true,
      parentId: 'p1',
      model: 'm',
      credits: 0.5,
    });
    expect(r.tokens?.total).toBe(2);
    expect(r.inclusiveTokens?.total).toBe(4);
    expect(r.toolCalls).toEqual({ Bash: 3, Read: 4 });
  });
  it('round-trips through the line format; torn lines decode to nothing', () => {
    const r = buildSessionRecord(newTrackedSession('s', 'droid', 1), end, 'other', undefined, 0);
    const line = encodeRecord(r);
    expect(line.endsWith('\n')).toBe(true);
    expect(decodeRecord(line)).toEqual(r);
    for (let cut = 1; cut < line.length - 1; cut += 7)
      expect(decodeRecord(line.slice(0, cut))).toBeUndefined();
  });
});

describe('csvCell', () => {
  it('quotes and guards against formulas', () => {
    expect(csvCell(null)).toBe('');
    expect(csvCell(3)).toBe('3');
    expect(csvCell(-3)).toBe('-3');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('=1+1')).toBe("'=1+1");
    expect(csvCell('@x')).toBe("'@x");
  });
});

describe('computeStats', () => {
  it('is empty for no records', () => {
    const s = computeStats([], 'day');
    expect(s.rows).toEqual([]);
    expect(s.total.sessions).toBe(0);
  });
});

describe('config schemas', () => {
  it('ledger: strict with defaults', () => {
    expect(ledgerConfigSchema.parse({})).toEqual({
      enabled: true,
      idleCloseMinutes: 240,
      tagOnPlatform: false,
      tagName: 'hookd',
    });
    expect(ledgerConfigSchema.safeParse({ idleCloseMinute: 5 }).success).toBe(false);
    expect(ledgerConfigSchema.safeParse({ idleCloseMinutes: 0 }).success).toBe(false);
  });
  it('enrich: strict with defaults; the API is on only with a key unless set', () => {
    const config = enrichConfigSchema.parse({});
    expect(config).toMatchObject({
      enabled: true,
      budgetMs: 1500,
      excerptChars: 280,
      redactHomePaths: false,
      gitBranch: true,
    });
    expect(config.api).toBeUndefined();
    expect(enrichConfigSchema.safeParse({ budget: 5 }).success).toBe(false);
    expect(enrichApiEnabled(config, true)).toBe(true);
    expect(enrichApiEnabled(config, false)).toBe(false);
    expect(enrichApiEnabled({ ...config, api: false }, true)).toBe(false);
    expect(enrichApiEnabled({ ...config, api: true }, false)).toBe(false);
    expect(enrichApiEnabled({ ...config, enabled: false }, true)).toBe(false);
  });
});
