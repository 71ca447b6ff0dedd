import { addDays, EARLIEST_ANALYTICS_DAY, utcDay } from '../platform-api/dates.js';
import type { WatchConfig, WatcherName } from '../config/schemas/watch-schema.js';
import { printable } from '../util/text/printable.js';
import { isObject } from '../util/json-values.js';
import type { PollInput, PollResult, WatchMemory, WatchRaise, Watcher } from './types.js';

/**
 * The five watchers on the platform API (docs/watch.md). Each poll asks the API, compares what it sees
 * with what the previous poll remembered, and returns what to remember and what to raise. The first
 * poll of a watcher takes a baseline and raises nothing (credits excepted: a limit already crossed is
 * told once). Everything from the platform is shown through `clean`: one line, no control characters,
 * bounded.
 */

/** What one watcher remembers of a list at most (computers, repositories, members). */
export const MEMORY_MAX_ITEMS = 20_000;
/** Pages read from one paged list in one poll at most. */
const MAX_PAGES = 100;
const PAGE_SIZE = 100;

function clean(text: unknown, max = 120): string {
  return printable(typeof text === 'string' ? text : String(text ?? ''), max);
}

function record(value: unknown): Record<string, unknown> {
  return isObject(value) ? value : {};
}

function numberMap(value: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, v] of Object.entries(record(value))) if (typeof v === 'number') out[key] = v;
  return out;
}

function stringMap(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, v] of Object.entries(record(value))) if (typeof v === 'string') out[key] = v;
  return out;
}

/** The first `max` entries of a map (what a watcher remembers stays bounded). */
function bounded<T>(entries: [string, T][], max = MEMORY_MAX_ITEMS): Record<string, T> {
  return Object.fromEntries(entries.slice(0, max));
}

async function collect<T>(iterator: AsyncGenerator<T, void>, maxItems: number): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterator) {
    items.push(item);
    if (items.length >= maxItems) break;
  }
  return items;
}

// ---- credits -------------------------------------------------------------------------------------

/** The highest threshold `percent` reached, or 0. */
export function crossedLevel(percent: number, thresholds: readonly number[]): number {
  let level = 0;
  for (const t of thresholds) if (percent >= t && t > level) level = t;
  return level;
}

/** The month the analytics data of `now` belongs to (yesterday's: today has no data yet) and its range. */
export function creditRange(now: number): { month: string; startDate: string; endDate: string } | undefined {
  const endDate = addDays(utcDay(new Date(now)), -1);
  const month = endDate.slice(0, 7);
  const first = `${month}-01`;
  const startDate = first < EARLIEST_ANALYTICS_DAY ? EARLIEST_ANALYTICS_DAY : first;
  if (endDate < startDate) return undefined;
  return { month, startDate, endDate };
}

const percentText = (used: number, limit: number) => `${Math.round((used / limit) * 1000) / 10}%`;

export const creditsWatcher: Watcher = {
  name: 'credits',
  describe: (config) => {
    const c = config.credits;
    const users = Object.keys(c.userLimits ?? {}).length;
    return [
      `Sums the standard credits of the month (UTC, from GET /api/v1/analytics/tokens) for the organization and each user.`,
      `Raises credit-usage once per month and limit when usage crosses ${c.thresholds.map((t) => `${t}%`).join(', ')} of it (the highest crossed).`,
      c.orgLimit !== undefined
        ? `Organization limit: ${c.orgLimit} credits a month.`
        : 'Organization: no limit set (watch.credits.orgLimit), not watched.',
      c.userLimit !== undefined || users > 0
        ? `Per user: ${c.userLimit !== undefined ? `${c.userLimit} credits a month` : 'no default'}${users > 0 ? `, ${users} own limit(s)` : ''}.`
        : 'Users: no limit set (watch.credits.userLimit, userLimits), not watched.',
      'Analytics need a Manager or Owner key; data lags a day.',
    ];
  },
  async poll({ client, config, memory, now }: PollInput): Promise<PollResult> {
    const c = config.credits;
    const range = creditRange(now);
    if (!range) return { memory: memory ?? {}, raised: [], summary: 'no analytics data yet this month' };
    const sameMonth = memory?.month === range.month;
    const orgBefore = sameMonth && typeof memory.org === 'number' ? memory.org : 0;
    const usersBefore = sameMonth ? numberMap(memory.users) : {};
    const envelope = await client.getTokens({ startDate: range.startDate, endDate: range.endDate });
    let orgUsed = 0;
    const perUser = new Map<string, number>();
    for (const row of envelope.data) {
      orgUsed += row.billable_tokens;
      for (const u of row.by_user ?? []) {
        const who = u.user_email || u.user_id;
        perUser.set(who, (perUser.get(who) ?? 0) + u.billable_tokens);
      }
    }
    const raised: WatchRaise[] = [];
    let org = orgBefore;
    const parts: string[] = [`${Math.round(orgUsed)} credits used in ${range.month}`];
    if (c.orgLimit !== undefined) {
      const level = crossedLevel((orgUsed / c.orgLimit) * 100, c.thresholds);
      parts.push(`org at ${percentText(orgUsed, c.orgLimit)} of ${c.orgLimit}`);
      if (level > orgBefore) {
        raised.push({
          watcher: 'credits',
          kind: 'credit-usage',
          key: `credits/org/${range.month}/${level}`,
          title: `Organization credits at ${level}% of the monthly limit`,
          message: `${Math.round(orgUsed)} of ${c.orgLimit} standard credits used in ${range.month} (${percentText(orgUsed, c.orgLimit)}).`,
          details: {
            scope: 'org',
            month: range.month,
            threshold: level,
            used: Math.round(orgUsed),
            limit: c.orgLimit,
          },
        });
      }
      org = Math.max(level, orgBefore);
    }
    const users: [string, number][] = [];
    for (const [who, used] of perUser) {
      const limit = c.userLimits?.[who] ?? c.userLimit;
      if (limit === undefined) continue;
      const before = usersBefore[who] ?? 0;
      const level = crossedLevel((used / limit) * 100, c.thresholds);
      if (level > before) {
        raised.push({
          watcher: 'credits',
          kind: 'credit-usage',
          key: `credits/user/${who}/${range.month}/${level}`,
          title: `${clean(who, 80)}: credits at ${level}% of the monthly limit`,
          message: `${Math.round(used)} of ${limit} standard credits used in ${range.month} (${percentText(used, limit)}).`,
          details: {
            scope: 'user',
            user: clean(who, 320),
            month: range.month,
            threshold: level,
            used: Math.round(used),
            limit,
          },
        });
      }
      const kept = Math.max(level, before);
      if (kept > 0) users.push([who, kept]);
    }
    return {
      memory: { month: range.month, org, users: bounded(users) },
      raised,
      summary: parts.join('; '),
    };
  },
};

// ---- computers -----------------------------------------------------------------------------------

export const computersWatcher: Watcher = {
  name: 'computers',
  describe: () => [
    'Lists the computers (GET /api/v0/computers) and remembers the status of each.',
    'Raises computer-state when a known computer changes status (provisioning, active, error); a new computer is remembered, not raised.',
  ],
  async poll({ client, memory, seq }: PollInput): Promise<PollResult> {
    const computers = (await client.listComputers()).slice(0, MEMORY_MAX_ITEMS);
    const before = memory ? record(memory.status) : undefined;
    const raised: WatchRaise[] = [];
    const status: [string, { name: string; status: string }][] = [];
    for (const computer of computers) {
      const now = computer.status ?? 'unknown';
      const name = clean(computer.name, 63);
      status.push([computer.id, { name, status: now }]);
      const was = before ? stringMap(before[computer.id]).status : undefined;
      if (was !== undefined && was !== now) {
        raised.push({
          watcher: 'computers',
          kind: 'computer-state',
          key: `computers/${computer.id}/${was}->${now}@${seq}`,
          title: `Computer ${name} is ${clean(now, 40)}`,
          message: `${name} went from ${clean(was, 40)} to ${clean(now, 40)}.`,
          details: { computerId: clean(computer.id, 100), name, from: clean(was, 40), to: clean(now, 40) },
        });
      }
    }
    const counts = new Map<string, number>();
    for (const [, c] of status) counts.set(c.status, (counts.get(c.status) ?? 0) + 1);
    const summary =
      `${computers.length} computer(s)` +
      (counts.size ? `: ${[...counts].map(([s, n]) => `${n} ${clean(s, 40)}`).join(', ')}` : '');
    return { memory: { status: bounded(status) }, raised, summary };
  },
};

// ---- enterprise controls -------------------------------------------------------------------------

/** The top-level settings that differ between two snapshots. */
function changedSettings(before: unknown, after: unknown): string[] {
  const a = record(before);
  const b = record(after);
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k])).sort();
}

export const controlsWatcher: Watcher = {
  name: 'controls',
  describe: () => [
    'Reads the enterprise-control history (GET /api/v0/organization/enterprise-controls/history) and remembers the highest revision.',
    'Raises control-change for each newer revision: who changed it, when, and which settings differ from the revision before.',
  ],
  async poll({ client, memory }: PollInput): Promise<PollResult> {
    const changes = await collect(
      client.iterateEnterpriseControlHistory({ pageSize: PAGE_SIZE }),
      PAGE_SIZE * MAX_PAGES,
    );
    const byRevision = new Map(changes.map((c) => [c.revision, c]));
    const latest = changes.reduce((max, c) => Math.max(max, c.revision), -Infinity);
    const seen = typeof memory?.revision === 'number' ? memory.revision : undefined;
    const raised: WatchRaise[] = [];
    if (seen !== undefined) {
      const fresh = changes.filter((c) => c.revision > seen).sort((x, y) => x.revision - y.revision);
      for (const change of fresh) {
        const who = clean(change.user.name || change.user.email || change.user.id, 80);
        const previous = byRevision.get(change.revision - 1);
        const changed = previous ? changedSettings(previous.settings, change.settings) : [];
        const what = !previous
          ? 'Changed settings: not known (no earlier revision to compare).'
          : changed.length
            ? `Changed: ${changed
                .slice(0, 8)
                .map((k) => clean(k, 40))
                .join(', ')}${changed.length > 8 ? ` and ${changed.length - 8} more` : ''}.`
            : `No setting differs from revision ${previous.revision}.`;
        raised.push({
          watcher: 'controls',
          kind: 'control-change',
          key: `controls/${change.revision}`,
          title: `Enterprise controls changed by ${who}`,
          message: `Revision ${change.revision} at ${clean(change.updatedAt, 40)}. ${what}`,
          details: {
            revision: change.revision,
            by: who,
            at: clean(change.updatedAt, 40),
            changed: changed.map((k) => clean(k, 40)).join(','),
          },
        });
      }
    }
    const revision = Number.isFinite(latest) ? Math.max(latest, seen ?? latest) : (seen ?? null);
    return {
      memory: { revision },
      raised,
      summary: revision === null ? 'no history' : `latest revision ${revision}`,
    };
  },
};

// ---- readiness reports ---------------------------------------------------------------------------

/** A report's score: criteria passed over criteria evaluated, in percent (one decimal). */
export function readinessScore(report: Record<string, { numerator: number; denominator: number }>): number {
  let passed = 0;
  let total = 0;
  for (const c of Object.values(report)) {
    passed += Math.min(c.numerator, c.denominator);
    total += c.denominator;
  }
  return total > 0 ? Math.round((passed / total) * 1000) / 10 : 0;
}

export const readinessWatcher: Watcher = {
  name: 'readiness',
  describe: (config) => [
    `Lists readiness reports (GET {app_url}/api/organization/maturity-level-reports${config.readiness.repoId ? `, repository ${config.readiness.repoId}` : ''}) and remembers the newest time seen and each repository's score.`,
    "Raises readiness-report for each newer report, with its score (criteria passed over evaluated) and how it moved from the repository's previous report.",
  ],
  async poll({ client, config, memory }: PollInput): Promise<PollResult> {
    const reports = await collect(
      client.iterateReadinessReports({ repoId: config.readiness.repoId, pageSize: PAGE_SIZE }),
      PAGE_SIZE * MAX_PAGES,
    );
    const since = typeof memory?.latestAt === 'number' ? memory.latestAt : undefined;
    const scores = numberMap(memory?.scores);
    const raised: WatchRaise[] = [];
    const ordered = [...reports].sort((a, b) => a.createdAt - b.createdAt);
    let latestAt = since ?? null;
    for (const report of ordered) {
      const score = readinessScore(report.report);
      const repo = clean(report.repoUrl, 200);
      if (since !== undefined && report.createdAt > since) {
        const previous = scores[report.repoUrl];
        const moved =
          previous === undefined
            ? 'first report of this repository'
            : `${score - previous >= 0 ? '+' : ''}${Math.round((score - previous) * 10) / 10} points from ${previous}%`;
        raised.push({
          watcher: 'readiness',
          kind: 'readiness-report',
          key: `readiness/${report.reportId}`,
          title: `Readiness of ${repo}: ${score}%`,
          message: `A new readiness report scores ${score}% (${moved}).`,
          details: {
            reportId: clean(report.reportId, 100),
            repo,
            score,
            previous: previous ?? null,
            branch: report.branch ? clean(report.branch, 100) : null,
          },
        });
      }
      scores[report.repoUrl] = score;
      if (latestAt === null || report.createdAt > latestAt) latestAt = report.createdAt;
    }
    return {
      memory: { latestAt, scores: bounded(Object.entries(scores)) },
      raised,
      summary: `${reports.length} report(s) over ${Object.keys(scores).length} repositor(ies)`,
    };
  },
};

// ---- organization members ------------------------------------------------------------------------

export const membersWatcher: Watcher = {
  name: 'members',
  describe: () => [
    'Lists the organization users (GET /api/v0/organization/users) and remembers who they are.',
    'Raises member-joined for someone new and member-left for someone gone.',
  ],
  async poll({ client, memory, seq }: PollInput): Promise<PollResult> {
    const users = await collect(
      client.iterateOrganizationUsers({ pageSize: PAGE_SIZE }),
      Math.min(PAGE_SIZE * MAX_PAGES, MEMORY_MAX_ITEMS),
    );
    const before = memory ? stringMap(memory.members) : undefined;
    const now = new Map(users.map((u) => [u.id, clean(u.email, 320)]));
    const raised: WatchRaise[] = [];
    if (before) {
      for (const [id, email] of now) {
        if (id in before) continue;
        raised.push({
          watcher: 'members',
          kind: 'member-joined',
          key: `members/joined/${id}@${seq}`,
          title: `${email} joined the organization`,
          message: `${email} is a new member of the organization.`,
          details: { userId: clean(id, 100), email },
        });
      }
      for (const [id, email] of Object.entries(before)) {
        if (now.has(id)) continue;
        raised.push({
          watcher: 'members',
          kind: 'member-left',
          key: `members/left/${id}@${seq}`,
          title: `${email} left the organization`,
          message: `${email} is no longer a member of the organization.`,
          details: { userId: clean(id, 100), email },
        });
      }
    }
    return { memory: { members: bounded([...now]) }, raised, summary: `${now.size} member(s)` };
  },
};

export const WATCHERS: Readonly<Record<WatcherName, Watcher>> = {
  credits: creditsWatcher,
  computers: computersWatcher,
  controls: controlsWatcher,
  readiness: readinessWatcher,
  members: membersWatcher,
};

/** Whether a watcher is turned on in the config. */
export function watcherEnabled(config: WatchConfig, name: WatcherName): boolean {
  return config[name].enabled;
}

export type { WatchMemory };
