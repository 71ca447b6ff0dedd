import type { Column } from '../terminal/output.js';
import type {
  ActivityRow,
  GroupedActivityRow,
  GroupedTokenRow,
  GroupedToolRow,
  ProductivityRow,
  TokenRow,
  ToolRow,
  UserRow,
} from './schemas/analytics.js';
import type { ReadinessReport } from './schemas/readiness.js';
import type { Computer } from './schemas/computers.js';
import type { Message, Session } from './schemas/sessions.js';
import type { EnterpriseControlChange, OrganizationUser } from './schemas/organization.js';

/** Table columns and detail views of every platform resource, for `hookd api` on a terminal. */

const num = (value: number | undefined | null): string =>
  value === undefined || value === null ? '-' : value.toLocaleString('en-US', { maximumFractionDigits: 2 });
const time = (ms: number | undefined): string =>
  ms === undefined ? '-' : new Date(ms).toISOString().replace('.000Z', 'Z');
const right = <T>(header: string, value: (row: T) => string): Column<T> => ({
  header,
  value,
  align: 'right',
});

export const tokenColumns: Column<TokenRow>[] = [
  { header: 'DATE', value: (r) => r.date },
  right('BILLABLE', (r) => num(r.billable_tokens)),
  right('INPUT', (r) => num(r.input_tokens)),
  right('OUTPUT', (r) => num(r.output_tokens)),
  right('CACHE READ', (r) => num(r.cache_read_tokens)),
  right('CACHE WRITE', (r) => num(r.cache_write_tokens)),
  right('MODELS', (r) => String(r.by_model.length)),
  right('USERS', (r) => String(r.by_user.length)),
];

export const groupedTokenColumns: Column<GroupedTokenRow>[] = [
  { header: 'DATE', value: (r) => r.date },
  { header: 'MODEL', value: (r) => r.group_key },
  right('BILLABLE', (r) => num(r.billable_tokens)),
  right('INPUT', (r) => num(r.input_tokens)),
  right('OUTPUT', (r) => num(r.output_tokens)),
];

export const toolColumns: Column<ToolRow>[] = [
  { header: 'DATE', value: (r) => r.date },
  right('TOOL CALLS', (r) => num(r.tool_calls)),
  right('MCP USERS', (r) => num(r.mcp_users_with_mcp)),
  right('SKILLS', (r) => num(r.skills_invocations)),
  right('SLASH', (r) => num(r.slash_commands_invocations)),
  right('HOOKS', (r) => num(r.hooks_invocations)),
  right('WEB USERS', (r) => num(r.web_users)),
  right('AUTONOMY AVG', (r) => num(r.autonomy_ratio_avg)),
  {
    header: 'TOP TOOL',
    value: (r) => [...r.by_tool].sort((a, b) => b.invocations - a.invocations)[0]?.tool ?? '-',
    max: 20,
  },
];

export const groupedToolColumns: Column<GroupedToolRow>[] = [
  { header: 'DATE', value: (r) => r.date },
  { header: 'TOOL', value: (r) => r.group_key, max: 40 },
  right('CALLS', (r) => num(r.tool_calls)),
];

export const activityColumns: Column<ActivityRow>[] = [
  { header: 'DATE', value: (r) => r.date },
  right('DAU', (r) => num(r.daily_active_users)),
  right('WAU', (r) => num(r.weekly_active_users)),
  right('MAU', (r) => num(r.monthly_active_users)),
  right('SESSIONS', (r) => num(r.sessions)),
  right('MESSAGES', (r) => num(r.messages)),
  right('USER MSGS', (r) => num(r.user_messages)),
  {
    header: 'BY CLIENT',
    value: (r) =>
      Object.entries(r.daily_active_users_by_client)
        .map(([k, v]) => `${k}=${v}`)
        .join(' '),
  },
];

export const groupedActivityColumns: Column<GroupedActivityRow>[] = [
  { header: 'DATE', value: (r) => r.date },
  { header: 'CLIENT', value: (r) => r.group_key },
  right('DAU', (r) => num(r.daily_active_users)),
];

export const productivityColumns: Column<ProductivityRow>[] = [
  { header: 'DATE', value: (r) => r.date },
  right('CREATED', (r) => num(r.files_created)),
  right('EDITED', (r) => num(r.files_edited)),
  right('COMMITS', (r) => num(r.git_commits)),
  right('PRS', (r) => num(r.git_prs_created)),
  {
    header: 'LANGUAGES',
    value: (r) => r.by_language.map((l) => `${l.language}=${l.count}`).join(' '),
    max: 50,
  },
];

export const userRowColumns: Column<UserRow>[] = [
  { header: 'DATE', value: (r) => r.date },
  { header: 'USER', value: (r) => r.user_email ?? r.user_id, max: 40 },
  right('BILLABLE', (r) => num(r.billable_tokens)),
  right('TOOL CALLS', (r) => num(r.tool_calls)),
  right('SESSIONS', (r) => num(r.sessions)),
  { header: 'MODEL', value: (r) => r.primary_model ?? '-', max: 30 },
  { header: 'DELEGATION', value: (r) => r.delegation_level ?? '-' },
];

function readinessScore(report: ReadinessReport): string {
  const values = Object.values(report.report);
  const passed = values.reduce((s, c) => s + c.numerator, 0);
  const total = values.reduce((s, c) => s + c.denominator, 0);
  return total ? `${Math.round((passed / total) * 100)}%` : '-';
}

export const readinessColumns: Column<ReadinessReport>[] = [
  { header: 'REPORT', value: (r) => r.reportId },
  { header: 'CREATED', value: (r) => time(r.createdAt) },
  { header: 'REPO', value: (r) => r.repoUrl, max: 50 },
  { header: 'BRANCH', value: (r) => r.branch ?? '-' },
  right('SCORE', readinessScore),
  right('CRITERIA', (r) => String(Object.keys(r.report).length)),
];

export const computerColumns: Column<Computer>[] = [
  { header: 'ID', value: (c) => c.id },
  { header: 'NAME', value: (c) => c.name },
  { header: 'PROVIDER', value: (c) => c.providerType },
  { header: 'STATUS', value: (c) => c.status ?? '-' },
  { header: 'HOST', value: (c) => c.hostname ?? '-', max: 30 },
  { header: 'USER', value: (c) => c.remoteUser ?? '-' },
  { header: 'CREATED', value: (c) => time(c.createdAt) },
];

export const organizationUserColumns: Column<OrganizationUser>[] = [
  { header: 'ID', value: (u) => u.id },
  { header: 'EMAIL', value: (u) => u.email, max: 40 },
  { header: 'NAME', value: (u) => [u.firstName, u.lastName].filter(Boolean).join(' ') || '-' },
  { header: 'LAST SIGN-IN', value: (u) => u.lastSignInAt ?? '-' },
];

/** A change record with the settings that differ from the next (older) record of the same list. */
export type ChangeRow = EnterpriseControlChange & { changed?: string[] | undefined };

export function withChangedKeys(changes: readonly EnterpriseControlChange[]): ChangeRow[] {
  return changes.map((change, i) => {
    const older = changes[i + 1];
    if (!older || older.revision >= change.revision) return { ...change };
    const keys = new Set([...Object.keys(change.settings), ...Object.keys(older.settings)]);
    const changed = [...keys].filter(
      (k) =>
        JSON.stringify((change.settings as Record<string, unknown>)[k]) !==
        JSON.stringify((older.settings as Record<string, unknown>)[k]),
    );
    return { ...change, changed };
  });
}

export const changeColumns: Column<ChangeRow>[] = [
  right('REVISION', (c) => String(c.revision)),
  { header: 'UPDATED', value: (c) => c.updatedAt },
  { header: 'BY', value: (c) => c.user.email ?? c.user.name ?? c.user.id, max: 40 },
  { header: 'CHANGED', value: (c) => (c.changed ? c.changed.join(', ') || '(nothing)' : '-'), max: 60 },
];

/** `key  value` lines for one object. */
export function formatDetails(pairs: [string, string | undefined][]): string {
  const shown = pairs.filter((p): p is [string, string] => p[1] !== undefined && p[1] !== '');
  const width = Math.max(...shown.map(([k]) => k.length));
  return shown.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join('\n') + '\n';
}

export function computerDetails(c: Computer): string {
  const head = formatDetails([
    ['id', c.id],
    ['name', c.name],
    ['provider', c.providerType],
    ['status', c.status],
    ['created', time(c.createdAt)],
    ['host', c.hostname ? `${c.hostname} (${c.hostId ?? '-'})` : c.hostId],
    ['remote user', c.remoteUser],
    ['owner', c.ownerId ? `${c.ownerPrincipalKind ?? ''} ${c.ownerId}`.trim() : undefined],
    ['relay (client)', c.relayClientUrl],
  ]);
  const steps = (c.provisioningSteps ?? []).map(
    (s) => `  ${(s.status ?? '?').padEnd(10)} ${s.name ?? s.id ?? '?'}${s.error ? `: ${s.error}` : ''}`,
  );
  return steps.length ? `${head}steps:\n${steps.join('\n')}\n` : head;
}

export function sessionDetails(s: Session): string {
  const tags = s.sessionSettings?.tags?.map((t) => t.name).join(', ');
  return formatDetails([
    ['session', s.sessionId],
    ['title', s.title],
    ['status', s.status],
    ['messages', String(s.messageCount)],
    ['created', time(s.createdAt)],
    ['updated', time(s.updatedAt)],
    ['computer', s.computerId],
    ['model', s.sessionSettings?.model],
    ['tags', tags || undefined],
    ['archived', s.sessionSettings?.archivedAt],
  ]);
}

export function messageDetails(m: Message): string {
  const text = m.content
    .map((c) => c.text)
    .filter((t): t is string => typeof t === 'string')
    .join('\n');
  return `${formatDetails([
    ['message', m.id],
    ['role', m.role],
    ['source', m.userMessageSource],
    ['created', time(m.createdAt)],
    ['parent', m.parentId],
  ])}\n${text}\n`;
}
