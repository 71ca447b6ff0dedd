import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import yargs from 'yargs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSessionsCommand } from '../../../src/cli/commands/data/sessions.js';
import { CliError, EXIT, UsageError } from '../../../src/errors.js';
import { createLedger } from '../../../src/ledger/ledger.js';
import { CSV_COLUMNS } from '../../../src/ledger/format-sessions.js';
import { BASE_MS, DAY, sampleRecord } from './records.js';

let dataDir: string;
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'hookd-sessions-cli-'));
  const ledger = createLedger({ dataDir });
  await ledger.record(
    sampleRecord({
      sessionId: '48e23316-aaaa',
      endedAtMs: BASE_MS + DAY,
      title: 'Fix, "quoted" parser',
      credits: 2,
    }),
  );
  await ledger.record(
    sampleRecord({
      sessionId: '48e99999-bbbb',
      endedAtMs: BASE_MS,
      project: '/p/other',
      projectName: 'other',
      reason: 'idle-timeout',
      model: 'model-b',
      agent: 'claude',
      hookFailures: 2,
      title: '=cmd()',
    }),
  );
  await ledger.record(
    sampleRecord({
      sessionId: '9414a522-cccc',
      endedAtMs: BASE_MS - 10 * DAY,
      isSubagent: true,
      parentId: '48e23316-aaaa',
    }),
  );
});
afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

async function run(...argv: string[]): Promise<string> {
  let text = '';
  const command = createSessionsCommand({
    env: { HOOKD_DATA_DIR: dataDir },
    now: () => BASE_MS + 2 * DAY,
    out: () => ({ write: (t) => void (text += t), isTTY: false, color: false }),
  });
  await yargs(argv)
    .command(command)
    .strict()
    .exitProcess(false)
    .fail((message, error) => {
      throw error ?? new UsageError(message ?? 'invalid usage');
    })
    .parseAsync();
  return text;
}

describe('hookd sessions', () => {
  it('lists as a table, most recent first', async () => {
    const text = await run('sessions');
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      /^ENDED\s+SESSION\s+PROJECT\s+TITLE\s+REASON\s+DURATION\s+MSGS\s+TOKENS\s+CREDITS\s+HOOK ERR$/,
    );
    expect(lines.slice(1).map((l) => l.split(/\s+/)[2])).toEqual(['48e23316', '48e99999', '9414a522']);
    expect(lines[1]).toContain('2026-11-21 00:00Z');
    expect(lines[3]).toContain('↳ Fix the parser');
    expect(await run('sessions', 'list', '--limit', '1')).toBe(await run('sessions', '--limit', '1'));
  });

  it('filters by --since (relative and ISO), --project and --reason', async () => {
    const ids = async (...args: string[]) =>
      (JSON.parse(await run('sessions', '--json', ...args)) as Array<{ sessionId: string }>).map(
        (r) => r.sessionId,
      );
    expect(await ids('--since', '3d')).toEqual(['48e23316-aaaa', '48e99999-bbbb']);
    expect(await ids('--since', '2026-11-20T12:00:00Z')).toEqual(['48e23316-aaaa']);
    expect(await ids('--project', 'other')).toEqual(['48e99999-bbbb']);
    expect(await ids('--reason', 'idle-timeout')).toEqual(['48e99999-bbbb']);
    await expect(run('sessions', '--since', 'yesterday')).rejects.toThrow(UsageError);
    await expect(run('sessions', '--limit', '-1')).rejects.toThrow(/--limit -1/);
  });

  it('prints CSV with quoting and formula protection', async () => {
    const text = await run('sessions', '--csv');
    const lines = text.split('\r\n');
    expect(lines[0]).toBe(CSV_COLUMNS.join(','));
    expect(lines[1]).toContain('"Fix, ""quoted"" parser"');
    expect(lines[2]).toContain(",'=cmd(),");
    expect(lines[1]).toContain(',Read:2');
    expect(lines).toHaveLength(5);
    await expect(run('sessions', '--csv', '--json')).rejects.toThrow(/mutually exclusive|conflict/i);
  });

  it('shows one session by unique prefix, as text or JSON', async () => {
    const text = await run('sessions', 'show', '9414');
    expect(text).toMatch(/^Session\s+9414a522-cccc$/m);
    expect(text).toMatch(/^Parent\s+48e23316-aaaa \(sub-agent of\)$/m);
    expect(text).toMatch(/^Tool calls\s+Read 2$/m);
    const json = JSON.parse(await run('sessions', 'show', '48e23316-aaaa', '--json')) as { title: string };
    expect(json.title).toBe('Fix, "quoted" parser');
  });

  it('reports an ambiguous or unknown id clearly', async () => {
    const ambiguous = await run('sessions', 'show', '48e').catch((e: unknown) => e);
    expect(ambiguous).toBeInstanceOf(UsageError);
    expect((ambiguous as UsageError).message).toBe('session id prefix "48e" matches 2 sessions');
    const missing = await run('sessions', 'show', 'nope').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(CliError);
    expect((missing as CliError).exitCode).toBe(EXIT.NOT_FOUND);
  });

  it('totals by day, project and model', async () => {
    const byDay = await run('sessions', 'stats');
    expect(byDay).toMatch(/^DAY \(UTC\)\s+SESSIONS/);
    expect(byDay).toMatch(/^2026-11-10\s+1\s/m);
    expect(byDay).toMatch(/^TOTAL\s+3\s/m);
    const byModel = JSON.parse(await run('sessions', 'stats', '--by', 'model', '--json')) as {
      rows: Array<{ key: string; sessions: number }>;
      total: { credits: number };
    };
    expect(byModel.rows.map((r) => [r.key, r.sessions])).toEqual([
      ['model-a', 2],
      ['model-b', 1],
    ]);
    expect(byModel.total.credits).toBe(5);
    const byProject = await run('sessions', 'stats', '--by', 'project', '--since', '3d');
    expect(byProject).toMatch(/^TOTAL\s+2\s/m);
    await expect(run('sessions', 'stats', '--by', 'week')).rejects.toThrow(/Invalid values|choices/i);
  });

  it('totals by agent, under the name totals too', async () => {
    const byAgent = JSON.parse(await run('sessions', 'totals', '--by', 'agent', '--json')) as {
      by: string;
      rows: Array<{ key: string; sessions: number }>;
    };
    expect(byAgent.by).toBe('agent');
    expect(byAgent.rows.map((r) => [r.key, r.sessions]).sort()).toEqual([
      ['claude', 1],
      ['droid', 2],
    ]);
    const text = await run('sessions', 'totals', '--by', 'agent');
    expect(text).toMatch(/^AGENT\s+SESSIONS/);
    expect(text).toMatch(/^claude\s+1\s/m);
    expect(text).toMatch(/^TOTAL\s+3\s/m);
  });

  it('says so when the ledger is empty', async () => {
    await rm(join(dataDir, 'ledger'), { recursive: true });
    expect(await run('sessions')).toMatch(/^No sessions recorded yet/);
    expect(await run('sessions', 'stats')).toMatch(/^No sessions recorded yet/);
    expect(JSON.parse(await run('sessions', '--json'))).toEqual([]);
  });
});

describe("hookd sessions with the agent's own usage (its OpenTelemetry)", () => {
  const model = (input: number, output: number, costUsd: number | null) => ({
    inputTokens: input,
    outputTokens: output,
    cacheReadTokens: 0,
    cacheCreationTokens: 5,
    costUsd,
  });
  beforeEach(async () => {
    const ledger = createLedger({ dataDir });
    const written = await ledger.amend(
      '48e99999-bbbb',
      {
        source: 'agent-telemetry',
        ...model(120, 40, 0.75),
        cacheCreationTokens: 10,
        models: { 'claude-opus': model(100, 30, 0.5), 'claude-haiku\u001b[31m': model(20, 10, 0.25) },
        updatedAtMs: BASE_MS,
      },
      BASE_MS,
    );
    expect(written).toBe('written');
  });

  it('show: tokens per model and cost, from agent telemetry, escaped', async () => {
    const text = await run('sessions', 'show', '48e99999');
    expect(text).toMatch(
      /^Agent usage\s+170 tokens \(input 120, output 40, cache read 0, cache write 10\), \$0\.75, from agent telemetry$/m,
    );
    expect(text).toMatch(
      /^ {2}claude-opus\s+135 tokens \(input 100, output 30, cache read 0, cache write 5\), \$0\.5$/m,
    );
    expect(text).toContain('claude-haiku\\x1b[31m');
    expect(text).not.toContain('\u001b');
    // A session without it says so.
    expect(await run('sessions', 'show', '48e23316')).toMatch(/^Agent usage\s+-$/m);
    const json = JSON.parse(await run('sessions', 'show', '48e99999', '--json')) as {
      agentUsage: { costUsd: number; source: string };
    };
    expect(json.agentUsage).toMatchObject({ source: 'agent-telemetry', costUsd: 0.75 });
  });

  it('totals: the cost the agents reported, per group and in all', async () => {
    const text = await run('sessions', 'totals', '--by', 'agent');
    expect(text).toMatch(/^AGENT\s+SESSIONS.*\sCOST \$$/m);
    expect(text).toMatch(/^claude\s+1\s.*\s0\.75$/m);
    expect(text).toMatch(/^droid\s+2\s.*\s-$/m);
    expect(text).toMatch(/^TOTAL\s+3\s.*\s0\.75$/m);
    const json = JSON.parse(await run('sessions', 'totals', '--by', 'agent', '--json')) as {
      total: { agentCostUsd: number | null };
      rows: { key: string; agentCostUsd: number | null }[];
    };
    expect(json.total.agentCostUsd).toBe(0.75);
    expect(json.rows.find((r) => r.key === 'droid')!.agentCostUsd).toBeNull();
  });
});
