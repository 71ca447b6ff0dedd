import * as z from 'zod';

/** Every default of the session ledger, in one place (the schema, the daemon and the docs read them). */
export const LEDGER_DEFAULTS = {
  enabled: true,
  /** A session with no event for this long, and no SessionEnd seen, is recorded with reason "idle-timeout". */
  idleCloseMinutes: 240,
  /** Tag the session on the platform at its end (PATCH /api/v0/sessions/{id}, sessionSettings.tags). */
  tagOnPlatform: false,
  /** The name of that tag. */
  tagName: 'hookd',
} as const;

export const ledgerConfigSchema = z
  .strictObject({
    enabled: z
      .boolean()
      .default(LEDGER_DEFAULTS.enabled)
      .describe('Write one record per session to the ledger ($XDG_DATA_HOME/hookd/ledger/sessions.jsonl).'),
    idleCloseMinutes: z
      .number()
      .positive()
      .max(7 * 24 * 60)
      .default(LEDGER_DEFAULTS.idleCloseMinutes)
      .describe(
        'Record a session whose SessionEnd never came after this many minutes without events (reason "idle-timeout").',
      ),
    tagOnPlatform: z
      .boolean()
      .default(LEDGER_DEFAULTS.tagOnPlatform)
      .describe(
        'At session end, add a tag with its totals to the session on the platform (needs an API key).',
      ),
    tagName: z
      .string()
      .min(1)
      .max(64)
      .default(LEDGER_DEFAULTS.tagName)
      .describe('Name of the platform tag written when tagOnPlatform is on.'),
  })
  .describe('Session ledger: one durable record per session, listed by `hookd sessions`.');

export type LedgerConfig = z.infer<typeof ledgerConfigSchema>;
