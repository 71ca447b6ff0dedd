import { RECORD_VERSION, type SessionRecord } from '../../../src/ledger/types.js';

const DAY = 86_400_000;
/** 2026-11-20T00:00:00Z */
export const BASE_MS = Date.UTC(2026, 10, 20);

/** A complete record with plausible values; override what a test is about. */
export function sampleRecord(over: Partial<SessionRecord> = {}): SessionRecord {
  return {
    v: RECORD_VERSION,
    sessionId: 'aaaa1111-0000-4000-8000-000000000001',
    parentId: null,
    isSubagent: false,
    agent: 'droid',
    project: '/home/ann/projects/demo',
    projectName: 'demo',
    cwd: '/home/ann/projects/demo',
    branch: 'main',
    title: 'Fix the parser',
    reason: 'other',
    startedAtMs: BASE_MS,
    endedAtMs: BASE_MS + 60_000,
    durationMs: 60_000,
    activeTimeMs: 30_000,
    messageCount: 10,
    model: 'model-a',
    tokens: { input: 100, output: 50, cacheRead: 0, cacheWrite: 0, thinking: 0, total: 150 },
    inclusiveTokens: null,
    credits: 1.5,
    toolCalls: { Read: 2 },
    hookFailures: 0,
    hookTimeouts: 0,
    subagentCount: 0,
    eventCount: 12,
    recordedAtMs: BASE_MS + 61_000,
    ...over,
  };
}

export { DAY };
