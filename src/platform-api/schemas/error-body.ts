import * as z from 'zod';

/**
 * The documented analytics error body. hookd assumes the same shape for v0 and readiness errors (not
 * documented) and copes with any other body (see decodeErrorBody in http.ts).
 */
export const errorBodySchema = z.looseObject({
  title: z.string().optional(),
  detail: z.string().optional(),
  status: z.number().optional(),
  requestId: z.string().optional(),
});

export type ErrorBody = z.infer<typeof errorBodySchema>;
