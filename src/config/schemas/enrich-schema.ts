import * as z from 'zod';

/** Every default of enrichment, in one place (the schema, the daemon and the docs read them). */
export const ENRICH_DEFAULTS = {
  enabled: true,
  /** Time budget per notification; after it the notification goes out with what is known. */
  budgetMs: 1500,
  /** Bytes of a transcript read per event (head and tail); a message-id scan may read 8x more. */
  maxReadBytes: 4 * 1024 * 1024,
  /** Length of the last-message excerpt in notifications. */
  excerptChars: 280,
  /** Read the git branch from `.git/HEAD`. */
  gitBranch: true,
  /** Replace the home directory with `~` in everything that leaves the machine. */
  redactHomePaths: false,
} as const;

export const enrichConfigSchema = z
  .strictObject({
    enabled: z
      .boolean()
      .default(ENRICH_DEFAULTS.enabled)
      .describe('Add session title, project, last message, duration, tokens and credits to notifications.'),
    budgetMs: z
      .number()
      .int()
      .min(10)
      .max(30_000)
      .default(ENRICH_DEFAULTS.budgetMs)
      .describe(
        'Milliseconds enrichment may take per notification; after that it goes out with what is known.',
      ),
    api: z
      .boolean()
      .optional()
      .describe(
        'Ask the platform API for messages and session data the local store lacks (remote and cloud sessions). Default: on when an API key is configured, off without one.',
      ),
    factoryHome: z
      .string()
      .min(1)
      .optional()
      .describe(
        "The agent's home holding sessions/ (default: from the event's transcript_path, $FACTORY_HOME, ~/.factory).",
      ),
    maxReadBytes: z
      .number()
      .int()
      .min(128 * 1024)
      .max(256 * 1024 * 1024)
      .default(ENRICH_DEFAULTS.maxReadBytes)
      .describe(
        'Bytes of a transcript read per event (its head and tail); a search for a message id may read 8x more.',
      ),
    excerptChars: z
      .number()
      .int()
      .min(20)
      .max(4000)
      .default(ENRICH_DEFAULTS.excerptChars)
      .describe('Characters of the last assistant message shown in a notification.'),
    gitBranch: z
      .boolean()
      .default(ENRICH_DEFAULTS.gitBranch)
      .describe("Show the project's git branch (read from .git/HEAD, no git process)."),
    redactHomePaths: z
      .boolean()
      .default(ENRICH_DEFAULTS.redactHomePaths)
      .describe(
        'Replace your home directory with ~ in everything that leaves the machine (Slack, webhooks, remote commands).',
      ),
  })
  .describe('Enrichment of notifications from the local session store and the platform API.');

export type EnrichConfig = z.infer<typeof enrichConfigSchema>;

/** Whether enrichment asks the API: the explicit setting, else on exactly when an API key is available. */
export function enrichApiEnabled(config: Pick<EnrichConfig, 'api' | 'enabled'>, hasApiKey: boolean): boolean {
  if (!config.enabled || !hasApiKey) return false;
  return config.api ?? true;
}
