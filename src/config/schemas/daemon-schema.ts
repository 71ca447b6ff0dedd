import * as z from 'zod';

/** Every default of the daemon's own settings, in one place (the schema, the daemon and the docs read them). */
export const DAEMON_DEFAULTS = {
  /** Hand events to the daemon at all (false: hooks run commands only; HOOKD_DAEMON=0 does the same). */
  enabled: true,
  /** Start the daemon in the background when `hookd hook` finds it down. */
  autoStart: true,
  /** How long `hookd hook` waits for the daemon's acknowledgement before spooling the event. */
  handoffTimeoutMs: 250,
  /**
   * fsync the journal before acknowledging an event, and an event the hook spools. Off by default: a
   * written event survives a killed daemon or hook (kill -9) either way, since the kernel holds it; fsync
   * adds power-loss safety for ~7 ms per event on the agent's critical path.
   */
  fsync: false,
  /** A delivery still failing after this long is dead-lettered with its last error. */
  outboxMaxAgeMs: 24 * 60 * 60 * 1000,
  /** First retry delay; doubles each attempt (with jitter) up to retryMaxMs. */
  retryBaseMs: 1000,
  retryMaxMs: 5 * 60 * 1000,
  /** How often the spool directory is scanned for events written while the daemon was down. */
  spoolScanIntervalMs: 2000,
  /** Event ids remembered for deduplication of hand-offs (idempotency keys). */
  seenIdsMax: 100_000,
  /** The journal is compacted when it grows past this many bytes. */
  compactBytes: 8 * 1024 * 1024,
  /**
   * Listen on the private unix socket `<runtime dir>/fast.sock` for the native fast client, which runs
   * events in the daemon instead of starting Node per event. Read at start.
   */
  fastListener: true,
  logLevel: 'info' as 'trace' | 'debug' | 'info' | 'warn' | 'error',
} as const;

export const daemonConfigSchema = z
  .strictObject({
    enabled: z
      .boolean()
      .default(DAEMON_DEFAULTS.enabled)
      .describe('Hand events to the daemon at all; false means hooks run their commands only.'),
    autoStart: z
      .boolean()
      .default(DAEMON_DEFAULTS.autoStart)
      .describe('Start the daemon in the background when `hookd hook` finds it down.'),
    fastListener: z
      .boolean()
      .default(DAEMON_DEFAULTS.fastListener)
      .describe(
        'Listen on the private unix socket <runtime dir>/fast.sock for the native fast client, which runs events in the daemon; false: the client always takes the Node path. Read at start.',
      ),
    httpHooks: z
      .looseObject({})
      .optional()
      .describe(
        "No longer used: hookd does not serve Claude Code's http hooks (a loopback port cannot prove who listens on it). Kept so that older configs stay valid; remove it.",
      ),
    handoffTimeoutMs: z
      .number()
      .int()
      .min(1)
      .max(10_000)
      .default(DAEMON_DEFAULTS.handoffTimeoutMs)
      .describe('Milliseconds `hookd hook` waits for the daemon to acknowledge an event before spooling it.'),
    fsync: z
      .boolean()
      .default(DAEMON_DEFAULTS.fsync)
      .describe(
        "fsync the journal before acknowledging, and the hook's spool files: survives power loss too, at ~7 ms per event (a killed process loses nothing either way).",
      ),
    outboxMaxAgeMs: z
      .number()
      .int()
      .min(1000)
      .default(DAEMON_DEFAULTS.outboxMaxAgeMs)
      .describe('A delivery that still fails after this many milliseconds is dead-lettered.'),
    retryBaseMs: z
      .number()
      .int()
      .min(1)
      .default(DAEMON_DEFAULTS.retryBaseMs)
      .describe('First retry delay in milliseconds; doubles per attempt, with jitter.'),
    retryMaxMs: z
      .number()
      .int()
      .min(1)
      .default(DAEMON_DEFAULTS.retryMaxMs)
      .describe('Longest delay between two attempts, in milliseconds.'),
    spoolScanIntervalMs: z
      .number()
      .int()
      .min(50)
      .default(DAEMON_DEFAULTS.spoolScanIntervalMs)
      .describe('How often the daemon looks for spooled events, in milliseconds.'),
    seenIdsMax: z
      .number()
      .int()
      .min(1000)
      .default(DAEMON_DEFAULTS.seenIdsMax)
      .describe('How many event ids the daemon remembers to drop duplicate hand-offs.'),
    compactBytes: z
      .number()
      .int()
      .min(64 * 1024)
      .default(DAEMON_DEFAULTS.compactBytes)
      .describe('Compact the journal when it grows past this many bytes.'),
    logLevel: z
      .enum(['trace', 'debug', 'info', 'warn', 'error'])
      .default(DAEMON_DEFAULTS.logLevel)
      .describe('Level of the daemon log (stateDir/logs/daemon.log).'),
  })
  .describe('The notification daemon.');

export type DaemonConfig = z.infer<typeof daemonConfigSchema>;

/** The daemon settings with every default applied, for a config without a `daemon` key. */
export function daemonSettings(input: unknown): DaemonConfig {
  return daemonConfigSchema.parse(input ?? {});
}
