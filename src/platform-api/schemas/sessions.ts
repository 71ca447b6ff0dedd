import * as z from 'zod';

/** Sessions and messages (/api/v0/sessions/...). */

export const sessionStatusSchema = z.enum(['idle', 'pending', 'running']);

export const tokenUsageSchema = z.looseObject({
  inputTokens: z.number().optional(),
  outputTokens: z.number().optional(),
  cacheCreationTokens: z.number().optional(),
  cacheReadTokens: z.number().optional(),
  thinkingTokens: z.number().optional(),
  serviceCredits: z.number().optional(),
});

export const sessionTagSchema = z.looseObject({
  name: z.string(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

export const sessionSettingsSchema = z.looseObject({
  model: z.string().optional(),
  specModeModel: z.string().optional(),
  providerLockTimestamp: z.string().optional(),
  assistantActiveTimeMs: z.number().optional(),
  tokenUsage: tokenUsageSchema.optional(),
  inclusiveTokenUsage: tokenUsageSchema.optional(),
  childInclusiveTokenUsageBySessionId: z.record(z.string(), z.unknown()).optional(),
  archivedAt: z.string().optional(),
  tags: z.array(sessionTagSchema).optional(),
  enabledToolIds: z.array(z.string()).optional(),
  disabledToolIds: z.array(z.string()).optional(),
});

export const sessionSchema = z.looseObject({
  sessionId: z.string().min(1),
  status: sessionStatusSchema,
  messageCount: z.number().int(),
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
  title: z.string().optional(),
  completedAt: z.number().int().optional(),
  computerId: z.string().optional(),
  sessionSettings: sessionSettingsSchema.optional(),
});

export const messageRoleSchema = z.enum(['user', 'assistant', 'tool', 'system']);
export const userMessageSourceSchema = z.enum([
  'web',
  'desktop',
  'cli_tui',
  'cli_exec',
  'cli_acp',
  'slack',
  'linear',
  'sessions_api',
  'api',
  'automation',
  'readiness-remediation',
  'readiness-evaluation',
  'wiki-generation',
  'wiki-ci-setup',
]);

/** Content items carry text and id; other fields are not documented and pass through. */
export const messageContentItemSchema = z.looseObject({
  text: z.string().optional(),
  id: z.string().optional(),
});

export const messageSchema = z.looseObject({
  id: z.string().min(1),
  role: messageRoleSchema,
  content: z.array(messageContentItemSchema),
  createdAt: z.number(),
  updatedAt: z.number(),
  parentId: z.string().optional(),
  userMessageSource: userMessageSourceSchema.optional(),
  visibility: z.enum(['both', 'llm_only', 'user_only']).optional(),
  vendorMessageId: z.string().optional(),
  vendorPhase: z.enum(['commentary', 'final_answer']).nullable().optional(),
  vendorEncryptedContent: z.string().optional(),
  vendorReasoningId: z.string().optional(),
  vendorReasoningSummary: z.string().optional(),
  /** Deprecated by the platform; kept for old messages. */
  secondVendorThoughtSignature: z.string().optional(),
  chatCompletionReasoningField: z.enum(['reasoning', 'reasoning_content']).optional(),
  chatCompletionReasoningContent: z.string().optional(),
  isUserVisible: z.boolean().optional(),
  isError: z.boolean().optional(),
});

export type SessionStatus = z.infer<typeof sessionStatusSchema>;
export type TokenUsage = z.infer<typeof tokenUsageSchema>;
export type SessionTag = z.infer<typeof sessionTagSchema>;
export type SessionSettings = z.infer<typeof sessionSettingsSchema>;
export type Session = z.infer<typeof sessionSchema>;
export type MessageRole = z.infer<typeof messageRoleSchema>;
export type UserMessageSource = z.infer<typeof userMessageSourceSchema>;
export type Message = z.infer<typeof messageSchema>;
