import * as z from 'zod';

/** Organization users, enterprise-control history and credit limits (/api/v0/organization/...). */

export const cursorPaginationSchema = z.looseObject({
  hasMore: z.boolean(),
  /** Absent or null on the last page. */
  nextCursor: z.string().nullish(),
});

export const organizationUserSchema = z.looseObject({
  id: z.string().min(1),
  email: z.string(),
  createdAt: z.string(),
  /** Contents not documented. */
  metadata: z.record(z.string(), z.unknown()).nullish(),
  firstName: z.string().nullish(),
  lastName: z.string().nullish(),
  lastSignInAt: z.string().nullish(),
});

export const organizationUsersResponseSchema = z.looseObject({
  users: z.array(organizationUserSchema),
  pagination: cursorPaginationSchema,
});

const stringArray = z.array(z.string());
const looseRecord = z.record(z.string(), z.unknown());

export const customModelSchema = z.looseObject({
  model: z.string().optional(),
  id: z.string().optional(),
  baseUrl: z.string().optional(),
  apiKey: z.string().optional(),
  displayName: z.string().optional(),
  index: z.number().optional(),
  maxContextLimit: z.number().optional(),
  thinkingMaxTokens: z.number().optional(),
  maxOutputTokens: z.number().optional(),
  enableThinking: z.boolean().optional(),
  noImageSupport: z.boolean().optional(),
  extraHeaders: looseRecord.optional(),
  extraArgs: looseRecord.optional(),
  bedrock: z
    .looseObject({
      awsProfile: z.string().optional(),
      awsRegion: z.string().optional(),
      bedrockBaseUrl: z.string().optional(),
      awsAuthRefresh: z.string().optional(),
      awsCredentialExport: z.string().optional(),
    })
    .optional(),
});

export const modelPolicySchema = z.looseObject({
  allowedModelIds: stringArray.optional(),
  blockedModelIds: stringArray.optional(),
  allowedBaseUrls: stringArray.optional(),
  allowCustomModels: z.boolean().optional(),
  /** The platform's exact spelling. */
  allowAllFactoryModels: z.boolean().optional(),
  isFastModelsAllowed: z.boolean().optional(),
});

/** A snapshot of the enterprise settings; every member is optional (a snapshot may be partial). */
export const enterpriseSettingsSchema = z.looseObject({
  sessionDefaultSettings: z
    .looseObject({ model: z.string().optional(), specModeModel: z.string().optional() })
    .optional(),
  mcpAutonomyOverrides: looseRecord.optional(),
  cloudSessionSync: z.boolean().optional(),
  wikiCloudSync: z.boolean().optional(),
  includeCoAuthoredByAgent: z.boolean().optional(),
  enableAgentShield: z.boolean().optional(),
  ideAutoConnect: z.boolean().optional(),
  commandAllowlist: stringArray.optional(),
  commandDenylist: stringArray.optional(),
  customModels: z.array(customModelSchema).optional(),
  modelPolicy: modelPolicySchema.optional(),
  mcpPolicy: z.looseObject({ enabled: z.boolean().optional(), allowlist: stringArray.optional() }).optional(),
  missionPolicy: z
    .looseObject({ restrictedAccess: z.boolean().optional(), allowedUserIds: stringArray.optional() })
    .optional(),
  userModelPolicies: looseRecord.optional(),
  enabledPlugins: looseRecord.optional(),
  extraKnownMarketplaces: looseRecord.optional(),
  strictKnownMarketplaces: z.array(z.looseObject({ repo: z.string().optional() })).optional(),
  networkPolicy: z.looseObject({ allowedIps: stringArray.optional() }).optional(),
  sandbox: z
    .looseObject({
      enabled: z.boolean().optional(),
      filesystem: z
        .looseObject({
          allowWrite: stringArray.optional(),
          allowRead: stringArray.optional(),
          denyWrite: stringArray.optional(),
          denyRead: stringArray.optional(),
        })
        .optional(),
      network: z
        .looseObject({
          allowedDomains: stringArray.optional(),
          allowUnixSockets: stringArray.optional(),
          allowAllUnixSockets: z.boolean().optional(),
          allowLocalBinding: z.boolean().optional(),
          httpProxyPort: z.number().optional(),
          socksProxyPort: z.number().optional(),
        })
        .optional(),
    })
    .optional(),
  restrictMemberVisibility: z.boolean().optional(),
  restrictApiKeyCreationToManagers: z.boolean().optional(),
  managedComputersEnabled: z.boolean().optional(),
  byomComputersEnabled: z.boolean().optional(),
  managedComputersAllowedEmails: stringArray.optional(),
  byomComputersAllowedEmails: stringArray.optional(),
  sessionRetentionDays: z.number().int().optional(),
});

export const enterpriseControlChangeSchema = z.looseObject({
  revision: z.number().int(),
  settings: enterpriseSettingsSchema,
  user: z.looseObject({ id: z.string(), email: z.string().optional(), name: z.string().optional() }),
  updatedAt: z.string(),
});

export const enterpriseHistoryResponseSchema = z.looseObject({
  changes: z.array(enterpriseControlChangeSchema),
  pagination: cursorPaginationSchema,
});

export const creditLimitUpdatedSchema = z.looseObject({ email: z.string(), limit: z.number().int() });
export const creditLimitErrorSchema = z.looseObject({ email: z.string(), error: z.string() });
export const creditLimitsResponseSchema = z.looseObject({
  updated: z.array(creditLimitUpdatedSchema),
  errors: z.array(creditLimitErrorSchema),
});

export type CursorPagination = z.infer<typeof cursorPaginationSchema>;
export type OrganizationUser = z.infer<typeof organizationUserSchema>;
export type OrganizationUsersResponse = z.infer<typeof organizationUsersResponseSchema>;
export type EnterpriseSettings = z.infer<typeof enterpriseSettingsSchema>;
export type EnterpriseControlChange = z.infer<typeof enterpriseControlChangeSchema>;
export type EnterpriseHistoryResponse = z.infer<typeof enterpriseHistoryResponseSchema>;
export type CreditLimitsResponse = z.infer<typeof creditLimitsResponseSchema>;
