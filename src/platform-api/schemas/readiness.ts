import * as z from 'zod';

/** Readiness reports (GET {app_url}/api/organization/maturity-level-reports). */

export const criterionEvaluationSchema = z.looseObject({
  numerator: z.number().min(0),
  denominator: z.number().min(1),
  rationale: z.string(),
});

export const readinessReportSchema = z.looseObject({
  reportId: z.string().min(1),
  createdAt: z.number(),
  repoUrl: z.string(),
  apps: z.record(z.string(), z.looseObject({ description: z.string() })),
  report: z.record(z.string(), criterionEvaluationSchema),
  commitHash: z.string().optional(),
  branch: z.string().optional(),
  hasLocalChanges: z.boolean().optional(),
  hasNonRemoteCommits: z.boolean().optional(),
  modelUsed: z
    .looseObject({
      id: z.string().optional(),
      reasoningEffort: z.enum(['low', 'medium', 'high', 'off']).optional(),
    })
    .optional(),
  agentVersion: z.string().optional(),
});

export const readinessReportsResponseSchema = z.looseObject({ reports: z.array(readinessReportSchema) });

export type CriterionEvaluation = z.infer<typeof criterionEvaluationSchema>;
export type ReadinessReport = z.infer<typeof readinessReportSchema>;
export type ReadinessReportsResponse = z.infer<typeof readinessReportsResponseSchema>;
