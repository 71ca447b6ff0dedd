import * as z from 'zod';

/** Computers (/api/v0/computers). */

export const providerTypeSchema = z.enum(['byom', 'e2b']);
export const computerStatusSchema = z.enum(['provisioning', 'active', 'error']);

/** Step status values are not documented; the simulator uses pending, running, completed, failed. */
export const provisioningStepSchema = z.looseObject({
  id: z.string().optional(),
  name: z.string().optional(),
  status: z.string().optional(),
  error: z.string().optional(),
  startedAt: z.number().optional(),
  completedAt: z.number().optional(),
  installSessionId: z.string().optional(),
});

export const computerSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string().min(1),
  providerType: providerTypeSchema,
  /** Unix ms (the unit is not documented; the simulator uses ms). */
  createdAt: z.number(),
  hostId: z.string().optional(),
  hostname: z.string().optional(),
  status: computerStatusSchema.optional(),
  provisioningSteps: z.array(provisioningStepSchema).optional(),
  relayClientUrl: z.string().optional(),
  relayAgentUrl: z.string().optional(),
  remoteUser: z.string().optional(),
  ownerPrincipalKind: z.string().optional(),
  ownerId: z.string().optional(),
});

export const computerListResponseSchema = z.looseObject({ computers: z.array(computerSchema) });

export type ProviderType = z.infer<typeof providerTypeSchema>;
export type ComputerStatus = z.infer<typeof computerStatusSchema>;
export type ProvisioningStep = z.infer<typeof provisioningStepSchema>;
export type Computer = z.infer<typeof computerSchema>;
