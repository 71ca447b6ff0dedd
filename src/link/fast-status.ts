import * as z from 'zod';
import { join } from 'node:path';
import { readPrivateFile } from '../util/private-fs.js';
import { FAST_STATUS_FILE } from './wire.js';

/** The fast status file: what doctor shows about the listener besides the listener file. */
export const fastStatusSchema = z.object({
  v: z.literal(1),
  protocol: z.number().int(),
  clientVersions: z.object({ min: z.number().int(), max: z.number().int() }),
  mismatches: z.number().int().min(0),
  lastMismatch: z
    .object({ at: z.number(), protocol: z.string().max(64), client: z.string().max(64) })
    .optional(),
});
export type FastStatus = z.infer<typeof fastStatusSchema>;

/** Reads the fast status file, validated; undefined when missing or bad (doctor says so). */
export function readFastStatus(runtimeDir: string): FastStatus | undefined {
  const read = readPrivateFile(join(runtimeDir, FAST_STATUS_FILE), 64 * 1024);
  if (!read.ok) return undefined;
  try {
    const parsed = fastStatusSchema.safeParse(JSON.parse(read.text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
