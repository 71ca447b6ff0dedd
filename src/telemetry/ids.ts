import { randomBytes } from 'node:crypto';

/** A new random trace id (32 hex characters). */
export const newTraceId = (): string => randomBytes(16).toString('hex');
/** A new random span id (16 hex characters). */
export const newSpanId = (): string => randomBytes(8).toString('hex');
