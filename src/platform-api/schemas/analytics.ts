import * as z from 'zod';

/**
 * Analytics responses (GET {base_url}/api/v1/analytics/...). Objects are loose: fields the platform adds
 * later pass through. Grouped rows (with group_by) and ungrouped rows (one row per day with nested
 * breakdowns) are separate schemas and separate types.
 */

export const isoDaySchema = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'expected a date as YYYY-MM-DD');

export const modelTierSchema = z.enum(['standard', 'thinking']);
export const clientTypeSchema = z.enum(['terminal-ui', 'web', 'non-interactive-cli']);
export const delegationLevelSchema = z.enum(['auto-high', 'auto-medium', 'auto-low', 'spec', 'manual']);

export const analyticsMetaSchema = z.looseObject({
  org_id: z.string(),
  start_date: isoDaySchema,
  end_date: isoDaySchema,
  /** Only on /users. */
  has_more: z.boolean().optional(),
  /** Only on /users: a user ID to pass as `cursor`. */
  next_cursor: z.string().nullish(),
});

export function analyticsEnvelope<Row extends z.ZodType>(row: Row) {
  return z.looseObject({ data: z.array(row), meta: analyticsMetaSchema });
}

const modelUsageSchema = z.looseObject({
  model_id: z.string(),
  model_tier: modelTierSchema,
  billable_tokens: z.number(),
  input_tokens: z.number(),
  output_tokens: z.number(),
});

export const tokenRowSchema = z.looseObject({
  date: isoDaySchema,
  billable_tokens: z.number(),
  input_tokens: z.number(),
  output_tokens: z.number(),
  cache_read_tokens: z.number(),
  cache_write_tokens: z.number(),
  by_model: z.array(modelUsageSchema),
  by_user: z.array(
    z.looseObject({
      user_id: z.string(),
      user_email: z.string().nullable(),
      billable_tokens: z.number(),
      by_model: z.array(modelUsageSchema),
    }),
  ),
});

/** GET /tokens?group_by=model. Cache-token fields are not documented for grouped rows: optional. */
export const groupedTokenRowSchema = z.looseObject({
  date: isoDaySchema,
  group_key: z.string(),
  billable_tokens: z.number(),
  input_tokens: z.number(),
  output_tokens: z.number(),
  cache_read_tokens: z.number().optional(),
  cache_write_tokens: z.number().optional(),
});

const nameCount = z.looseObject({ name: z.string(), count: z.number() });

export const toolRowSchema = z.looseObject({
  date: isoDaySchema,
  tool_calls: z.number(),
  by_tool: z.array(z.looseObject({ tool: z.string(), invocations: z.number() })),
  mcp_users_with_mcp: z.number(),
  mcp_by_server: z.array(z.looseObject({ server: z.string(), invocations: z.number() })),
  skills_invocations: z.number(),
  skills_by_name: z.array(nameCount),
  slash_commands_invocations: z.number(),
  slash_commands_by_name: z.array(nameCount),
  hooks_invocations: z.number(),
  hooks_by_event: z.array(
    z.looseObject({ event: z.string(), matcher: z.string(), command: z.string(), count: z.number() }),
  ),
  web_users: z.number(),
  autonomy_ratio_avg: z.number(),
  autonomy_ratio_p50: z.number(),
  autonomy_ratio_p90: z.number(),
  tool_calls_per_session_avg: z.number(),
  user_turns_per_session_avg: z.number(),
  tool_autonomy_level_ratio: z.looseObject({
    auto_high: z.number(),
    auto_medium: z.number(),
    auto_low: z.number(),
    manual: z.number(),
  }),
});

export const groupedToolRowSchema = z.looseObject({
  date: isoDaySchema,
  group_key: z.string(),
  tool_calls: z.number(),
});

export const activityRowSchema = z.looseObject({
  date: isoDaySchema,
  daily_active_users: z.number(),
  weekly_active_users: z.number(),
  monthly_active_users: z.number(),
  /** Keys are client types; unknown client types are kept. */
  daily_active_users_by_client: z.record(z.string(), z.number()),
  sessions: z.number(),
  messages: z.number(),
  user_messages: z.number(),
});

export const groupedActivityRowSchema = z.looseObject({
  date: isoDaySchema,
  group_key: z.string(),
  daily_active_users: z.number(),
});

const extensionCount = z.looseObject({ extension: z.string(), count: z.number() });
const languageCount = z.looseObject({ language: z.string(), count: z.number() });

export const productivityRowSchema = z.looseObject({
  date: isoDaySchema,
  files_created: z.number(),
  files_edited: z.number(),
  by_extension: z.array(extensionCount),
  by_language: z.array(languageCount),
  git_commits: z.number(),
  git_prs_created: z.number(),
});

export const userRowSchema = z.looseObject({
  user_id: z.string(),
  user_email: z.string().nullable(),
  date: isoDaySchema,
  tool_calls: z.number(),
  billable_tokens: z.number(),
  primary_model: z.string().nullish(),
  primary_model_tier: modelTierSchema.nullish(),
  files_created: z.number(),
  files_edited: z.number(),
  git_commits: z.number(),
  git_prs_created: z.number(),
  mcp_calls: z.number(),
  skill_calls: z.number(),
  slash_commands: z.number(),
  hooks: z.number(),
  sessions: z.number(),
  messages: z.number(),
  user_messages: z.number(),
  assistant_messages: z.number(),
  autonomy_ratio: z.number(),
  delegation_level: delegationLevelSchema.nullish(),
  languages: z.array(z.string()),
});

export const tokensResponseSchema = analyticsEnvelope(tokenRowSchema);
export const groupedTokensResponseSchema = analyticsEnvelope(groupedTokenRowSchema);
export const toolsResponseSchema = analyticsEnvelope(toolRowSchema);
export const groupedToolsResponseSchema = analyticsEnvelope(groupedToolRowSchema);
export const activityResponseSchema = analyticsEnvelope(activityRowSchema);
export const groupedActivityResponseSchema = analyticsEnvelope(groupedActivityRowSchema);
export const productivityResponseSchema = analyticsEnvelope(productivityRowSchema);
export const usersResponseSchema = analyticsEnvelope(userRowSchema);

export type AnalyticsMeta = z.infer<typeof analyticsMetaSchema>;
export interface AnalyticsEnvelope<Row> {
  data: Row[];
  meta: AnalyticsMeta;
}
export type ModelTier = z.infer<typeof modelTierSchema>;
export type ClientType = z.infer<typeof clientTypeSchema>;
export type DelegationLevel = z.infer<typeof delegationLevelSchema>;
export type TokenRow = z.infer<typeof tokenRowSchema>;
export type GroupedTokenRow = z.infer<typeof groupedTokenRowSchema>;
export type ToolRow = z.infer<typeof toolRowSchema>;
export type GroupedToolRow = z.infer<typeof groupedToolRowSchema>;
export type ActivityRow = z.infer<typeof activityRowSchema>;
export type GroupedActivityRow = z.infer<typeof groupedActivityRowSchema>;
export type ProductivityRow = z.infer<typeof productivityRowSchema>;
export type UserRow = z.infer<typeof userRowSchema>;
