import {
  formatDuration,
  formatTable,
  paint,
  safeData,
  safeText,
  type Column,
  type Out,
} from '../terminal/output.js';
import type { AgentModelUsage, AgentUsage } from './agent-usage.js';
import type { LedgerStats, SessionRecord, StatsRow } from './types.js';

/** `2026-11-22 11:32Z` (UTC, minutes). */
export function formatWhen(ms: number | null): string {
  if (ms === null || !Number.isFinite(ms)) return '-';
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')}Z`;
}

function formatCount(n: number | null | undefined): string {
  if (n === null || n === undefined) return '-';
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(1)}M`;
  if (n >= 10_000) return `${(n / 1000).toFixed(1)}k`;
  return String(n);
}

function formatCreditsCell(credits: number | null): string {
  return credits === null ? '-' : String(Math.round(credits * 100) / 100);
}

/** The `hookd sessions` table, most recent first. */
export function formatSessionsTable(records: readonly SessionRecord[], out: Pick<Out, 'color'>): string {
  if (records.length === 0) return 'No sessions recorded yet (or none match the filters).\n';
  const columns: Column<SessionRecord>[] = [
    { header: 'ENDED', value: (r) => formatWhen(r.endedAtMs) },
    { header: 'SESSION', value: (r) => r.sessionId.slice(0, 8), color: () => 'cyan' },
    { header: 'PROJECT', value: (r) => r.projectName ?? r.project ?? '-', max: 24 },
    { header: 'TITLE', value: (r) => `${r.isSubagent ? '↳ ' : ''}${r.title ?? '-'}`, max: 40 },
    {
      header: 'REASON',
      value: (r) => r.reason,
      color: (r) => (r.reason === 'idle-timeout' ? 'yellow' : undefined),
    },
    { header: 'DURATION', value: (r) => formatDuration(r.durationMs), align: 'right' },
    { header: 'MSGS', value: (r) => formatCount(r.messageCount), align: 'right' },
    { header: 'TOKENS', value: (r) => formatCount(r.tokens?.total), align: 'right' },
    { header: 'CREDITS', value: (r) => formatCreditsCell(r.credits), align: 'right' },
    {
      header: 'HOOK ERR',
      value: (r) => String(r.hookFailures + r.hookTimeouts),
      color: (r) => (r.hookFailures + r.hookTimeouts > 0 ? 'red' : undefined),
      align: 'right',
    },
  ];
  return formatTable(records, columns, out);
}

/** The columns of `hookd sessions --csv`, in order. */
export const CSV_COLUMNS = [
  'sessionId',
  'parentId',
  'isSubagent',
  'agent',
  'project',
  'projectName',
  'branch',
  'title',
  'reason',
  'startedAt',
  'endedAt',
  'durationMs',
  'activeTimeMs',
  'messageCount',
  'model',
  'inputTokens',
  'outputTokens',
  'cacheReadTokens',
  'cacheWriteTokens',
  'thinkingTokens',
  'totalTokens',
  'credits',
  'hookFailures',
  'hookTimeouts',
  'subagentCount',
  'eventCount',
  'toolCalls',
] as const;

/** One CSV cell (RFC 4180 quoting; text starting with = + - @ is prefixed with ' against formula injection). */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  // Shown on a terminal as often as read by a spreadsheet: no control character goes out raw.
  let text = safeText(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function csvRow(r: SessionRecord): unknown[] {
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  const t = r.tokens;
  return [
    r.sessionId,
    r.parentId,
    r.isSubagent,
    r.agent,
    r.project,
    r.projectName,
    r.branch,
    r.title,
    r.reason,
    iso(r.startedAtMs),
    iso(r.endedAtMs),
    r.durationMs === null ? null : Math.round(r.durationMs),
    r.activeTimeMs,
    r.messageCount,
    r.model,
    t?.input,
    t?.output,
    t?.cacheRead,
    t?.cacheWrite,
    t?.thinking,
    t?.total,
    r.credits,
    r.hookFailures,
    r.hookTimeouts,
    r.subagentCount,
    r.eventCount,
    Object.entries(r.toolCalls)
      .map(([name, n]) => `${name}:${n}`)
      .join(';'),
  ];
}

/** `hookd sessions --csv`: a header line, then one line per record. */
export function formatSessionsCsv(records: readonly SessionRecord[]): string {
  const lines = [CSV_COLUMNS.join(','), ...records.map((r) => csvRow(r).map(csvCell).join(','))];
  return `${lines.join('\r\n')}\r\n`;
}

/** A cost in USD as the agent reported it: cents above a dollar, three significant digits below. */
function formatUsd(usd: number): string {
  return usd >= 1 ? usd.toFixed(2) : String(Number(usd.toPrecision(3)));
}

/** `170 tokens (input 120, output 40, cache read 0, cache write 10), $0.75`. */
function formatAgentShare(u: AgentModelUsage): string {
  const total = u.inputTokens + u.outputTokens + u.cacheReadTokens + u.cacheCreationTokens;
  const tokens = `${total} tokens (input ${u.inputTokens}, output ${u.outputTokens}, cache read ${u.cacheReadTokens}, cache write ${u.cacheCreationTokens})`;
  return u.costUsd === null ? tokens : `${tokens}, $${formatUsd(u.costUsd)}`;
}

/** The agent's own usage (its telemetry): the totals, then one row per model. */
function agentUsageRows(usage: AgentUsage | null | undefined): Array<[string, string]> {
  if (!usage) return [['Agent usage', '-']];
  const models = Object.entries(usage.models).sort((a, b) => a[0].localeCompare(b[0]));
  return [
    ['Agent usage', `${formatAgentShare(usage)}, from agent telemetry`],
    ...models.map(([name, u]): [string, string] => [`  ${name || '(no model)'}`, formatAgentShare(u)]),
  ];
}

/** `hookd sessions show <id>`: every field, one per line. */
export function formatSessionDetail(record: SessionRecord, out: Pick<Out, 'color'>): string {
  // Titles, paths, ids, models and tool names come from events and transcripts: escaped before use.
  const r = safeData(record);
  const tokens = r.tokens
    ? `${r.tokens.total} (input ${r.tokens.input}, output ${r.tokens.output}, cache read ${r.tokens.cacheRead}, cache write ${r.tokens.cacheWrite}, thinking ${r.tokens.thinking})`
    : '-';
  const tools = Object.entries(r.toolCalls)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([name, n]) => `${name} ${n}`)
    .join(', ');
  const rows: Array<[string, string]> = [
    ['Session', r.sessionId],
    ['Title', r.title ?? '-'],
    ['Parent', r.parentId ? `${r.parentId}${r.isSubagent ? ' (sub-agent of)' : ' (continued from)'}` : '-'],
    ['Project', r.project ?? '-'],
    ['Branch', r.branch ?? '-'],
    ['Agent', r.agent],
    ['Model', r.model ?? '-'],
    ['Reason', r.reason],
    ['Started', formatWhen(r.startedAtMs)],
    ['Ended', formatWhen(r.endedAtMs)],
    ['Duration', formatDuration(r.durationMs)],
    ['Active time', formatDuration(r.activeTimeMs)],
    ['Messages', r.messageCount === null ? '-' : String(r.messageCount)],
    ['Prompts', r.promptCount === null || r.promptCount === undefined ? '-' : String(r.promptCount)],
    ['Tokens', tokens],
    ['Incl. sub-agents', r.inclusiveTokens ? String(r.inclusiveTokens.total) : '-'],
    ['Credits', formatCreditsCell(r.credits)],
    ...agentUsageRows(r.agentUsage),
    ['Tool calls', tools || '-'],
    ['Sub-agents', String(r.subagentCount)],
    ['Hook failures', String(r.hookFailures)],
    ['Hook timeouts', String(r.hookTimeouts)],
    ['Events seen', String(r.eventCount)],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  return `${rows.map(([k, v]) => `${paint(out, 'bold', k.padEnd(width))}  ${v}`).join('\n')}\n`;
}

/** `hookd sessions stats`: one row per group and a total line. */
export function formatStatsTable(stats: LedgerStats): string {
  if (stats.rows.length === 0) return 'No sessions recorded yet (or none match the filters).\n';
  const header = stats.by === 'day' ? 'DAY (UTC)' : stats.by.toUpperCase();
  const columns: Column<StatsRow>[] = [
    { header, value: (r) => r.key, max: 48 },
    { header: 'SESSIONS', value: (r) => String(r.sessions), align: 'right' },
    { header: 'DURATION', value: (r) => formatDuration(r.durationMs), align: 'right' },
    { header: 'ACTIVE', value: (r) => formatDuration(r.activeTimeMs), align: 'right' },
    { header: 'MSGS', value: (r) => formatCount(r.messageCount), align: 'right' },
    { header: 'TOKENS', value: (r) => formatCount(r.tokens.total), align: 'right' },
    { header: 'CREDITS', value: (r) => formatCreditsCell(r.credits), align: 'right' },
    {
      header: 'COST $',
      value: (r) => (r.agentCostUsd === null ? '-' : formatUsd(r.agentCostUsd)),
      align: 'right',
    },
  ];
  return formatTable([...stats.rows, { ...stats.total, key: 'TOTAL' }], columns);
}
