import { EARLIEST_ANALYTICS_DAY, addDays } from '../dates.js';
import { LANGUAGES, MODELS, type SimUser } from './seed.js';
import { apportion, createRng } from './random.js';
import type {
  ActivityRow,
  ClientType,
  ProductivityRow,
  TokenRow,
  ToolRow,
  UserRow,
} from '../schemas/analytics.js';

/**
 * Analytics days, generated on demand from (seed, day, user): the same day always gives the same numbers,
 * and the totals agree across endpoints (tokens.by_user and /users rows, tools and the grouped rows).
 * Documented data-quality quirks are reproduced: case-variant MCP server names, and tool names with
 * parsing artifacts at a rate of about 0.006% (plus one guaranteed artifact every 64th day).
 */

const TOOLS = [
  'Read',
  'Edit',
  'Create',
  'Execute',
  'Grep',
  'Glob',
  'LS',
  'TodoWrite',
  'WebSearch',
  'FetchUrl',
  'ApplyPatch',
  'Task',
];
const TOOL_WEIGHTS = [30, 22, 6, 18, 12, 5, 4, 6, 2, 2, 3, 1];
/** Case-variant duplicates are a documented quirk of the real data. */
const MCP_SERVERS = ['github', 'GitHub', 'linear', 'Linear', 'sentry', 'notion'];
const MCP_WEIGHTS = [10, 4, 6, 2, 3, 2];
const SKILLS = ['pdf', 'changelog', 'release-notes', 'db-migrate'];
const SLASH = ['/review', '/compact', '/model', '/mcp', '/bug'];
const HOOKS = [
  { event: 'PostToolUse', matcher: 'Edit|Create', command: 'npx prettier --write "$FILE"' },
  { event: 'Notification', matcher: '', command: 'hookd hook' },
  { event: 'Stop', matcher: '', command: 'hookd hook' },
];
const ARTIFACT_RATE = 0.00006;

export interface UserDay {
  row: UserRow;
  clients: ClientType[];
  byModel: {
    model_id: string;
    model_tier: 'standard' | 'thinking';
    billable_tokens: number;
    input_tokens: number;
    output_tokens: number;
    cache_read: number;
    cache_write: number;
  }[];
}

export interface Day {
  tokens: TokenRow;
  tools: ToolRow;
  activity: ActivityRow;
  productivity: ProductivityRow;
  users: UserRow[];
}

function billable(
  tier: string,
  input: number,
  output: number,
  cacheRead: number,
  cacheWrite: number,
): number {
  // Standard credits: fresh input at full price, cache reads at 10%, cache writes at 125%, output at 4x.
  const fresh = input - cacheRead;
  const raw = fresh + cacheRead * 0.1 + cacheWrite * 0.25 + output * 4;
  return Math.round((raw / 1000) * (tier === 'thinking' ? 2 : 1));
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index]!;
}

const round2 = (value: number) => Math.round(value * 100) / 100;

export class AnalyticsData {
  readonly #days = new Map<string, Day>();
  readonly #active = new Map<string, SimUser[]>();

  constructor(
    private readonly seed: string,
    private readonly users: readonly SimUser[],
  ) {}

  /** Users active on a day (none before the earliest day). */
  activeUsers(day: string): SimUser[] {
    let active = this.#active.get(day);
    if (!active) {
      active =
        day < EARLIEST_ANALYTICS_DAY
          ? []
          : this.users.filter((u) => createRng(this.seed, day, u.id, 'active').next() < u.activity);
      this.#active.set(day, active);
    }
    return active;
  }

  #userDay(day: string, user: SimUser): UserDay {
    const rng = createRng(this.seed, day, user.id, 'usage');
    const clients = user.clients.filter((_, i) => i === 0 || rng.chance(0.5));
    const sessions = rng.int(1, 6);
    const userMessages = sessions * rng.int(2, 8);
    const assistantMessages = userMessages * rng.int(1, 3);
    const autonomy = 1.5 + rng.next() * 10;
    const toolCalls = Math.round(userMessages * autonomy);
    const byModel = user.models.map((modelId) => {
      const tier = MODELS.find((m) => m.id === modelId)!.tier;
      const input = rng.int(50_000, 2_000_000);
      const output = rng.int(5_000, 200_000);
      const cacheRead = Math.floor(input * rng.next() * 0.8);
      const cacheWrite = rng.int(0, 100_000);
      return {
        model_id: modelId,
        model_tier: tier,
        billable_tokens: billable(tier, input, output, cacheRead, cacheWrite),
        input_tokens: input,
        output_tokens: output,
        cache_read: cacheRead,
        cache_write: cacheWrite,
      };
    });
    const primary = [...byModel].sort((a, b) => b.billable_tokens - a.billable_tokens)[0]!;
    const languages = user.languages.filter((_, i) => i === 0 || rng.chance(0.6));
    const row: UserRow = {
      user_id: user.id,
      user_email: user.email,
      date: day,
      tool_calls: toolCalls,
      billable_tokens: byModel.reduce((s, m) => s + m.billable_tokens, 0),
      primary_model: primary.model_id,
      primary_model_tier: primary.model_tier,
      files_created: rng.int(0, 12),
      files_edited: rng.int(0, 40),
      git_commits: rng.int(0, 6),
      git_prs_created: rng.chance(0.3) ? rng.int(1, 2) : 0,
      mcp_calls: rng.chance(0.4) ? rng.int(1, 30) : 0,
      skill_calls: rng.chance(0.2) ? rng.int(1, 5) : 0,
      slash_commands: rng.int(0, 6),
      hooks: rng.chance(0.5) ? rng.int(1, 50) : 0,
      sessions,
      messages: userMessages + assistantMessages,
      user_messages: userMessages,
      assistant_messages: assistantMessages,
      autonomy_ratio: round2(toolCalls / userMessages),
      delegation_level: user.delegation,
      languages,
    };
    return { row, clients, byModel };
  }

  day(day: string): Day {
    const cached = this.#days.get(day);
    if (cached) return cached;
    const rng = createRng(this.seed, day, 'day');
    const userDays = this.activeUsers(day).map((u) => this.#userDay(day, u));
    const rows = userDays.map((u) => u.row);
    const sum = (pick: (r: UserRow) => number) => rows.reduce((s, r) => s + pick(r), 0);

    const modelTotals = new Map<
      string,
      {
        model_id: string;
        model_tier: 'standard' | 'thinking';
        billable_tokens: number;
        input_tokens: number;
        output_tokens: number;
      }
    >();
    let cacheRead = 0;
    let cacheWrite = 0;
    for (const ud of userDays) {
      for (const m of ud.byModel) {
        const total = modelTotals.get(m.model_id) ?? {
          model_id: m.model_id,
          model_tier: m.model_tier,
          billable_tokens: 0,
          input_tokens: 0,
          output_tokens: 0,
        };
        total.billable_tokens += m.billable_tokens;
        total.input_tokens += m.input_tokens;
        total.output_tokens += m.output_tokens;
        modelTotals.set(m.model_id, total);
        cacheRead += m.cache_read;
        cacheWrite += m.cache_write;
      }
    }
    const byModel = [...modelTotals.values()].sort((a, b) => (a.model_id < b.model_id ? -1 : 1));
    const tokens: TokenRow = {
      date: day,
      billable_tokens: byModel.reduce((s, m) => s + m.billable_tokens, 0),
      input_tokens: byModel.reduce((s, m) => s + m.input_tokens, 0),
      output_tokens: byModel.reduce((s, m) => s + m.output_tokens, 0),
      cache_read_tokens: cacheRead,
      cache_write_tokens: cacheWrite,
      by_model: byModel,
      by_user: userDays.map((ud) => ({
        user_id: ud.row.user_id,
        user_email: ud.row.user_email,
        billable_tokens: ud.row.billable_tokens,
        by_model: ud.byModel.map(
          ({ model_id, model_tier, billable_tokens, input_tokens, output_tokens }) => ({
            model_id,
            model_tier,
            billable_tokens,
            input_tokens,
            output_tokens,
          }),
        ),
      })),
    };

    const toolCalls = sum((r) => r.tool_calls);
    const byTool = TOOLS.map((tool, i) => ({
      tool,
      invocations: apportion(toolCalls, TOOL_WEIGHTS)[i]!,
    })).filter((t) => t.invocations > 0);
    // Parsing artifacts: rare, but at least one every 64th day so the quirk is always reachable.
    const dayIndex = Math.round(
      (Date.parse(`${day}T00:00:00Z`) - Date.parse(`${EARLIEST_ANALYTICS_DAY}T00:00:00Z`)) / 86_400_000,
    );
    const artifacts = byTool.filter(() => rng.chance(ARTIFACT_RATE)).length + (dayIndex % 64 === 7 ? 1 : 0);
    for (let a = 0; a < artifacts && byTool.length > 0; a++) {
      const victim = byTool[0]!;
      if (victim.invocations < 2) break;
      victim.invocations -= 1;
      byTool.push({ tool: `${victim.tool}"}],"${a}`, invocations: 1 });
    }
    const mcpCalls = sum((r) => r.mcp_calls);
    const ratios = rows.map((r) => r.autonomy_ratio).sort((a, b) => a - b);
    const levelCounts = { auto_high: 0, auto_medium: 0, auto_low: 0, manual: 0 };
    for (const r of rows) {
      if (r.delegation_level === 'auto-high') levelCounts.auto_high++;
      else if (r.delegation_level === 'auto-medium') levelCounts.auto_medium++;
      else if (r.delegation_level === 'auto-low' || r.delegation_level === 'spec') levelCounts.auto_low++;
      else levelCounts.manual++;
    }
    const n = rows.length || 1;
    const sessions = sum((r) => r.sessions);
    const userMessages = sum((r) => r.user_messages);
    const hookCounts = apportion(
      sum((r) => r.hooks),
      [5, 3, 2],
    );
    const tools: ToolRow = {
      date: day,
      tool_calls: toolCalls,
      by_tool: byTool,
      mcp_users_with_mcp: rows.filter((r) => r.mcp_calls > 0).length,
      mcp_by_server: MCP_SERVERS.map((server, i) => ({
        server,
        invocations: apportion(mcpCalls, MCP_WEIGHTS)[i]!,
      })).filter((s) => s.invocations > 0),
      skills_invocations: sum((r) => r.skill_calls),
      skills_by_name: SKILLS.map((name, i) => ({
        name,
        count: apportion(
          sum((r) => r.skill_calls),
          [4, 3, 2, 1],
        )[i]!,
      })).filter((s) => s.count > 0),
      slash_commands_invocations: sum((r) => r.slash_commands),
      slash_commands_by_name: SLASH.map((name, i) => ({
        name,
        count: apportion(
          sum((r) => r.slash_commands),
          [5, 4, 3, 2, 1],
        )[i]!,
      })).filter((s) => s.count > 0),
      hooks_invocations: sum((r) => r.hooks),
      hooks_by_event: HOOKS.map((h, i) => ({ ...h, count: hookCounts[i]! })).filter((h) => h.count > 0),
      web_users: userDays.filter((u) => u.clients.includes('web')).length,
      autonomy_ratio_avg: round2(ratios.reduce((a, b) => a + b, 0) / n),
      autonomy_ratio_p50: quantile(ratios, 0.5),
      autonomy_ratio_p90: quantile(ratios, 0.9),
      tool_calls_per_session_avg: sessions ? round2(toolCalls / sessions) : 0,
      user_turns_per_session_avg: sessions ? round2(userMessages / sessions) : 0,
      tool_autonomy_level_ratio: {
        auto_high: round2(levelCounts.auto_high / n),
        auto_medium: round2(levelCounts.auto_medium / n),
        auto_low: round2(levelCounts.auto_low / n),
        manual: round2(levelCounts.manual / n),
      },
    };

    const byClient: Record<string, number> = { 'terminal-ui': 0, web: 0, 'non-interactive-cli': 0 };
    for (const ud of userDays) for (const c of ud.clients) byClient[c] = (byClient[c] ?? 0) + 1;
    const window = (days: number) => {
      const ids = new Set<string>();
      for (let i = 0; i < days; i++) for (const u of this.activeUsers(addDays(day, -i))) ids.add(u.id);
      return ids.size;
    };
    const activity: ActivityRow = {
      date: day,
      daily_active_users: rows.length,
      weekly_active_users: window(7),
      monthly_active_users: window(30),
      daily_active_users_by_client: byClient,
      sessions,
      messages: sum((r) => r.messages),
      user_messages: userMessages,
    };

    const byLanguage = new Map<string, number>();
    for (const r of rows)
      for (const l of r.languages)
        byLanguage.set(l, (byLanguage.get(l) ?? 0) + r.files_created + r.files_edited);
    const languages = [...byLanguage.entries()].filter(([, c]) => c > 0).sort((a, b) => b[1] - a[1]);
    const productivity: ProductivityRow = {
      date: day,
      files_created: sum((r) => r.files_created),
      files_edited: sum((r) => r.files_edited),
      by_extension: languages.map(([language, count]) => ({
        extension: LANGUAGES[language] ?? '.txt',
        count,
      })),
      by_language: languages.map(([language, count]) => ({ language, count })),
      git_commits: sum((r) => r.git_commits),
      git_prs_created: sum((r) => r.git_prs_created),
    };

    const result: Day = { tokens, tools, activity, productivity, users: rows };
    this.#days.set(day, result);
    return result;
  }
}
