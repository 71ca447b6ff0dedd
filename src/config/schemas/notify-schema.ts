import * as z from 'zod';
import { checkTemplate } from '../template-syntax.js';

/** Every default of notification rules, noise control and channels, in one place. */
export const NOTIFY_DEFAULTS = {
  /** Identical notifications (same rule, title and body) inside this window are sent once. */
  dedupeWindowMs: 30_000,
  /** Per session and rule: after a notification, the same rule stays silent this long (0 = off). */
  cooldownMs: 0,
  /** Events whose notifications are coalesced when they come in bursts. */
  coalesceEvents: ['SubagentStop'] as string[],
  /** A burst ends when no further event arrives for this long. */
  coalesceWindowMs: 3000,
  /** A burst is flushed at the latest this long after its first event. */
  coalesceMaxHoldMs: 15_000,
  /** Repeated idle prompts of one session are sent once until the session shows activity again. */
  repeatIdlePrompts: false,
  /** A "waiting" notification (Notification, PermissionRequest) is held this long, cancelled if the session moves on (0 = off). */
  waitingDelayMs: 5000,
  /** Presence: idle at this machine at least this long means away (docs/sessions.md#presence). */
  presenceIdleAfterMs: 120_000,
  /** Quiet hours let `critical` notifications through. */
  quietAllowUrgent: true,
  channelTimeoutMs: 10_000,
  slackApiBaseUrl: 'https://slack.com/api',
  ntfyServer: 'https://ntfy.sh',
  /** ntfy priorities (1 min .. 5 max) per urgency. */
  ntfyPriorities: { low: 2, normal: 3, critical: 5 },
  urgency: 'normal' as 'low' | 'normal' | 'critical',
} as const;

const template = z.string().max(4000);
const oneOrMany = z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]);

const timeOfDay = z
  .string()
  .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'use 24-hour HH:MM, e.g. "22:30"')
  .describe('A local time of day, HH:MM (24-hour).');

const channelCommon = {
  enabled: z.boolean().default(true).describe('Set false to keep a channel in the file without using it.'),
  timeoutMs: z
    .number()
    .int()
    .min(100)
    .max(120_000)
    .default(NOTIFY_DEFAULTS.channelTimeoutMs)
    .describe('Milliseconds before one delivery attempt is abandoned (and retried).'),
};

export const desktopChannelSchema = z
  .strictObject({
    type: z.literal('desktop'),
    ...channelCommon,
    icon: z.string().optional().describe('Icon name or absolute path shown with the notification.'),
    sound: z
      .union([z.boolean(), z.string().min(1)])
      .default(false)
      .describe('Play a sound: true for the default, or a sound name (freedesktop sound-name hint).'),
    appName: z
      .string()
      .min(1)
      .default('hookd')
      .describe('Application name shown by the notification server.'),
    expireMs: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('How long the notification stays (server default if unset).'),
  })
  .describe('A desktop notification through node-notifier (notify-send on Linux).');

export const slackChannelSchema = z
  .strictObject({
    type: z.literal('slack'),
    ...channelCommon,
    webhookUrl: z
      .string()
      .min(1)
      .optional()
      .describe('Incoming webhook URL; use "${SLACK_WEBHOOK_URL}" to keep it out of the file.'),
    botToken: z
      .string()
      .min(1)
      .optional()
      .describe('Bot token (xoxb-...) for threads; use "${SLACK_BOT_TOKEN}".'),
    channel: z
      .string()
      .min(1)
      .optional()
      .describe('Channel id or name for chat.postMessage (with botToken).'),
    threads: z
      .boolean()
      .default(true)
      .describe('With botToken: one thread per session (first message starts it, later ones reply in it).'),
    mode: z
      .enum(['thread', 'session-message'])
      .default('thread')
      .describe(
        'With botToken: "thread" (a message per notification, threaded per session) or "session-message" (one message per session, updated in place as its state changes, the summary in its thread). docs/sessions.md.',
      ),
    apiBaseUrl: z
      .string()
      .min(1)
      .default(NOTIFY_DEFAULTS.slackApiBaseUrl)
      .describe('Slack Web API base URL (tests point it at a loopback server).'),
  })
  .superRefine((value, ctx) => {
    if (!value.webhookUrl && !(value.botToken && value.channel)) {
      ctx.addIssue({
        code: 'custom',
        message: 'a slack channel needs webhookUrl, or botToken and channel',
        params: { hint: 'add "webhookUrl": "${SLACK_WEBHOOK_URL}" (or botToken + channel for threads)' },
      });
    }
  })
  .describe('Slack: an incoming webhook, or the Web API with a bot token for one thread per session.');

export const webhookChannelSchema = z
  .strictObject({
    type: z.literal('webhook'),
    ...channelCommon,
    url: z.string().min(1).describe('Where the JSON body is POSTed; may use ${VAR}.'),
    headers: z
      .record(z.string(), z.string())
      .default({})
      .describe('Extra request headers; values may use ${VAR}.'),
    secret: z
      .string()
      .min(1)
      .optional()
      .describe('When set, X-Hookd-Signature carries sha256=HMAC-SHA256(secret, "<timestamp>.<body>").'),
  })
  .describe('A generic webhook: POST of the documented JSON body.');

const ntfyPriority = z.number().int().min(1).max(5);

export const ntfyChannelSchema = z
  .strictObject({
    type: z.literal('ntfy'),
    ...channelCommon,
    server: z
      .string()
      .min(1)
      .default(NOTIFY_DEFAULTS.ntfyServer)
      .describe(
        `The ntfy server: public (${NOTIFY_DEFAULTS.ntfyServer}, the default) or self-hosted; may use \${VAR}.`,
      ),
    topic: z
      .string()
      .regex(
        /^([-_A-Za-z0-9]{1,64}|.*\$\{[A-Za-z_][A-Za-z0-9_]*\}.*)$/,
        'a topic is 1 to 64 letters, digits, "-" or "_"',
      )
      .describe(
        'The topic the phone subscribes to; on a public server, a name nobody can guess (or "${NTFY_TOPIC}").',
      ),
    token: z
      .string()
      .min(1)
      .optional()
      .describe('Access token (Authorization: Bearer); use "${NTFY_TOKEN}".'),
    user: z.string().min(1).optional().describe('User name for basic auth (with password).'),
    password: z.string().min(1).optional().describe('Password for basic auth; use "${NTFY_PASSWORD}".'),
    priorities: z
      .strictObject({
        low: ntfyPriority.optional(),
        normal: ntfyPriority.optional(),
        critical: ntfyPriority.optional(),
      })
      .default({})
      .describe('ntfy priority (1 to 5) per urgency; defaults low 2, normal 3, critical 5.'),
    tags: z
      .array(z.string().min(1).max(64))
      .max(10)
      .default([])
      .describe('ntfy tags (emoji short codes show as icons).'),
    click: z
      .string()
      .min(1)
      .optional()
      .describe(
        'URL opened when the notification is tapped: {sessionId}, {project} and {appUrl} (api.appUrl / HOOKD_APP_URL) are filled in; left out when the notification has no session.',
      ),
  })
  .superRefine((value, ctx) => {
    if (value.token && (value.user || value.password))
      ctx.addIssue({
        code: 'custom',
        message: 'an ntfy channel takes a token or user + password, not both',
        params: { hint: 'keep "token": "${NTFY_TOKEN}" and remove user/password (or the other way round)' },
      });
    if (!value.user !== !value.password)
      ctx.addIssue({
        code: 'custom',
        message: 'ntfy basic auth needs both user and password',
        params: { hint: 'add the missing one, e.g. "password": "${NTFY_PASSWORD}"' },
      });
  })
  .describe('Phone push through an ntfy server (public ntfy.sh or self-hosted).');

export const commandChannelSchema = z
  .strictObject({
    type: z.literal('command'),
    ...channelCommon,
    command: z
      .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
      .describe(
        'An argv array (run directly) or a string (run with sh -c); gets the notification JSON on stdin.',
      ),
    env: z.record(z.string(), z.string()).default({}).describe('Extra environment; values may use ${VAR}.'),
    remote: z
      .boolean()
      .default(false)
      .describe('True when the command sends the notification off this machine: it is redacted first.'),
  })
  .describe('Pipes the rendered notification as JSON to a command. Exit 0 = delivered, 75 = retry later.');

export const consoleChannelSchema = z
  .strictObject({
    type: z.literal('console'),
    ...channelCommon,
  })
  .describe(
    "Prints each notification as a readable block on the daemon's standard output (`hookd daemon run` in a terminal, `hookd demo`).",
  );

export const channelSchema = z.discriminatedUnion('type', [
  desktopChannelSchema,
  slackChannelSchema,
  webhookChannelSchema,
  commandChannelSchema,
  consoleChannelSchema,
  ntfyChannelSchema,
]);

const DURATION_UNITS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/** A duration: milliseconds as a number, or a string such as "30s", "5m", "1h", "1500ms". */
export const durationSchema = z
  .union([
    z.number().int().min(0),
    z
      .string()
      .regex(/^\d{1,9}(ms|s|m|h)$/, 'use milliseconds (300000) or a number with ms, s, m or h ("5m")'),
  ])
  .transform((value) => {
    if (typeof value === 'number') return value;
    const [, amount, unit] = /^(\d+)(ms|s|m|h)$/.exec(value)!;
    return Number(amount) * DURATION_UNITS[unit as keyof typeof DURATION_UNITS];
  });

/** Bounds of escalation ladders (docs/sessions.md#escalation-ladders). */
export const LADDER_LIMITS = { steps: 10, maxRepeats: 100, minRepeatMs: 10_000, defaultMaxRepeats: 3 };

export const escalationStepSchema = z
  .strictObject({
    after: durationSchema.describe(
      'How long after the notification, without an answer, this step fires: ms or "30s", "5m", "1h".',
    ),
    channels: z.array(z.string().min(1)).min(1).describe('Channel names from notify.channels.'),
    repeat: durationSchema
      .refine((ms) => ms >= LADDER_LIMITS.minRepeatMs, {
        message: `repeat at most every ${LADDER_LIMITS.minRepeatMs / 1000}s`,
      })
      .optional()
      .describe('Send this step again this often while nobody answers (at least 10s).'),
    maxRepeats: z
      .number()
      .int()
      .min(1)
      .max(LADDER_LIMITS.maxRepeats)
      .optional()
      .describe(
        `With repeat: how many reminders after the first (default ${LADDER_LIMITS.defaultMaxRepeats}).`,
      ),
  })
  .describe('One step of an escalation ladder: where the notification goes next if nobody answers.');

export const ruleSchema = z
  .strictObject({
    name: z
      .string()
      .min(1)
      .optional()
      .describe('A label for logs and `hookd explain` (default: rule-<index>).'),
    enabled: z.boolean().default(true),
    on: oneOrMany.describe('Event names this rule reacts to, e.g. ["Stop", "Notification"].'),
    notificationType: oneOrMany
      .optional()
      .describe('Notification only: permission_prompt, idle_prompt, elicitation_dialog, auth_success.'),
    tool: z
      .string()
      .min(1)
      .optional()
      .describe('Tool name: exact, else an unanchored RegExp ("Edit|Create").'),
    project: oneOrMany
      .optional()
      .describe(
        'Glob on the project dir / cwd ("~/work/**"); a pattern without "/" matches the folder name.',
      ),
    minDurationMs: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('Only sessions (or turns) that ran at least this long.'),
    session: z
      .enum(['main', 'subagent', 'any'])
      .default('any')
      .describe('main = the top-level session, subagent = a Task sub-agent.'),
    reason: oneOrMany.optional().describe('SessionEnd only: clear, logout, prompt_input_exit, other.'),
    commandsFailed: z.boolean().optional().describe('true: only when one of the hook commands failed.'),
    channels: z.array(z.string().min(1)).min(1).describe('Channel names from notify.channels.'),
    title: template.optional().describe('Title template, e.g. "{{project}}: finished".'),
    body: template.optional().describe('Body template, e.g. "{{lastMessage | truncate:200}}".'),
    urgency: z.enum(['low', 'normal', 'critical']).optional().describe('Default: normal.'),
    sound: z
      .union([z.boolean(), z.string().min(1)])
      .optional()
      .describe('Desktop sound for this rule.'),
    cooldownMs: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('Overrides notify.noise.cooldownMs for this rule.'),
    dedupeWindowMs: z.number().int().min(0).optional().describe('Overrides notify.noise.dedupeWindowMs.'),
    escalate: z
      .array(escalationStepSchema)
      .min(1)
      .max(LADDER_LIMITS.steps)
      .optional()
      .describe(
        'An escalation ladder: later steps while the session is not answered (it moved on, or `hookd ack`). docs/sessions.md.',
      ),
    presence: z
      .enum(['auto', 'ignore'])
      .optional()
      .describe(
        'auto (default for "waiting" notifications): while you are active at this machine only local channels now, remote ones by the ladder; when idle, the first remote step at once. ignore: as written.',
      ),
    breakthrough: z
      .boolean()
      .optional()
      .describe(
        'Quiet hours: true sends this rule (and its ladder) through them, false always holds it; unset: urgent ones (critical, failures) pass when quietHours.allowUrgent.',
      ),
  })
  .superRefine((rule, ctx) => {
    (rule.escalate ?? []).forEach((step, index) => {
      const before = rule.escalate![index - 1];
      if (before && step.after < before.after)
        ctx.addIssue({
          code: 'custom',
          path: ['escalate', index, 'after'],
          message: `steps go in order: this step fires after ${step.after}ms, before the step above it (${before.after}ms)`,
          params: { hint: 'sort the steps by "after"' },
        });
      if (step.maxRepeats !== undefined && step.repeat === undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['escalate', index, 'maxRepeats'],
          message: 'maxRepeats needs repeat',
          params: { hint: 'add "repeat": "10m" (how often), or remove maxRepeats' },
        });
    });
    for (const key of ['title', 'body'] as const) {
      for (const problem of checkTemplate(rule[key] ?? '')) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `template: ${problem}`,
          params: { hint: 'use {{ field.path | filter }}; see docs/daemon.md#templates' },
        });
      }
    }
  })
  .describe('Which events become notifications, where they go, and how they read.');

export const quietHoursSchema = z
  .strictObject({
    windows: z
      .array(
        z.strictObject({
          start: timeOfDay,
          end: timeOfDay,
          days: z
            .array(z.enum(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun']))
            .optional()
            .describe('Days the window starts on (default: every day).'),
        }),
      )
      .min(1)
      .describe('Time windows in the local time zone; a window may cross midnight ("22:00" to "07:00").'),
    allowUrgent: z
      .boolean()
      .default(NOTIFY_DEFAULTS.quietAllowUrgent)
      .describe(
        'Let urgent notifications through: urgency "critical", and failures (StopFailure, a session ended mid-turn). A rule\'s "breakthrough" overrides it.',
      ),
    digest: z.boolean().default(true).describe('Send one digest per channel when the window ends.'),
  })
  .describe('Hold notifications back during these hours.');

export const noiseSchema = z
  .strictObject({
    dedupeWindowMs: z.number().int().min(0).default(NOTIFY_DEFAULTS.dedupeWindowMs),
    cooldownMs: z.number().int().min(0).default(NOTIFY_DEFAULTS.cooldownMs),
    coalesceEvents: z.array(z.string().min(1)).default(() => [...NOTIFY_DEFAULTS.coalesceEvents]),
    coalesceWindowMs: z.number().int().min(0).default(NOTIFY_DEFAULTS.coalesceWindowMs),
    coalesceMaxHoldMs: z.number().int().min(0).default(NOTIFY_DEFAULTS.coalesceMaxHoldMs),
    repeatIdlePrompts: z.boolean().default(NOTIFY_DEFAULTS.repeatIdlePrompts),
  })
  .describe('Deduplication, cooldowns, burst coalescing and idle-prompt repeats.');

/** The OS idle-time sources of presence, in the order `auto` tries them (src/notify/presence-sources.ts). */
export const PRESENCE_SOURCE_NAMES = ['macos', 'xprintidle', 'gnome', 'loginctl'] as const;

export const presenceSchema = z
  .strictObject({
    source: z
      .enum(['auto', 'off', ...PRESENCE_SOURCE_NAMES])
      .default('auto')
      .describe(
        'Where the idle time comes from: auto (detected once: macos, xprintidle, gnome, loginctl), off, or one of them.',
      ),
    idleAfterMs: z
      .number()
      .int()
      .min(0)
      .default(NOTIFY_DEFAULTS.presenceIdleAfterMs)
      .describe('Idle at this machine at least this long counts as away (default 120000).'),
  })
  .describe('Presence: whether you are at this machine, from its idle time. docs/sessions.md#presence.');

/** The notify section without the rule -> channel cross-check (a project file's, checked after the merge). */
export const notifyObjectSchema = z
  .strictObject({
    enabled: z.boolean().default(true).describe('Set false to turn every notification off.'),
    defaults: z
      .boolean()
      .default(true)
      .describe('Without rules: desktop alerts for Notification and for Stop of a main session.'),
    channels: z.record(z.string().min(1), channelSchema).default({}).describe('Named delivery channels.'),
    rules: z.array(ruleSchema).optional().describe('Evaluated for every event; each matching rule fires.'),
    noise: noiseSchema.default(() => noiseSchema.parse({})),
    quietHours: quietHoursSchema.optional(),
    presence: presenceSchema.default(() => presenceSchema.parse({})),
    waitingDelayMs: z
      .number()
      .int()
      .min(0)
      .default(NOTIFY_DEFAULTS.waitingDelayMs)
      .describe(
        'A "waiting" notification (Notification, PermissionRequest) is held this long and cancelled if the session moves on first (the user answered in the terminal); 0 sends at once. docs/sessions.md.',
      ),
  })
  .describe('Notification channels and rules.');

export const notifySchema = notifyObjectSchema
  .superRefine((value, ctx) => {
    (value.rules ?? []).forEach((rule, index) => {
      const named: { name: string; path: PropertyKey[] }[] = [
        ...rule.channels.map((name, at) => ({ name, path: ['channels', at] })),
        ...(rule.escalate ?? []).flatMap((step, i) =>
          step.channels.map((name, at) => ({ name, path: ['escalate', i, 'channels', at] })),
        ),
      ];
      named.forEach(({ name, path }) => {
        if (!(name in value.channels) && !(name === 'desktop')) {
          ctx.addIssue({
            code: 'custom',
            path: ['rules', index, ...path],
            message: `unknown channel "${name}"`,
            params: {
              hint: `define it under notify.channels, or use one of: ${Object.keys(value.channels).join(', ') || '(none defined)'}`,
            },
          });
        }
      });
    });
  })
  .describe('Notification channels and rules.');

export type NotifyConfig = z.infer<typeof notifySchema>;

/** The channel the default rules use: the first desktop channel defined, else the implicit "desktop". */
export function defaultChannel(config: NotifyConfig): string {
  for (const [name, channel] of Object.entries(config.channels)) if (channel.type === 'desktop') return name;
  return 'desktop';
}

/** The rules in force: the configured ones, or the built-in defaults when none are written. */
export function effectiveRules(config: NotifyConfig): { rules: NotifyRule[]; builtIn: boolean } {
  if (config.rules !== undefined) return { rules: config.rules, builtIn: false };
  if (!config.defaults) return { rules: [], builtIn: true };
  const channel = defaultChannel(config);
  return {
    builtIn: true,
    rules: [
      {
        name: 'default: needs you',
        enabled: true,
        on: ['Notification', 'PermissionRequest'],
        session: 'any',
        channels: [channel],
      },
      { name: 'default: finished', enabled: true, on: 'Stop', session: 'main', channels: [channel] },
      {
        name: 'default: failed',
        enabled: true,
        on: 'StopFailure',
        session: 'any',
        urgency: 'critical',
        channels: [channel],
      },
    ],
  };
}
export type NotifyRule = z.infer<typeof ruleSchema>;
export type ChannelConfig = z.infer<typeof channelSchema>;
export type DesktopChannelConfig = z.infer<typeof desktopChannelSchema>;
export type SlackChannelConfig = z.infer<typeof slackChannelSchema>;
export type WebhookChannelConfig = z.infer<typeof webhookChannelSchema>;
export type NtfyChannelConfig = z.infer<typeof ntfyChannelSchema>;
export type CommandChannelConfig = z.infer<typeof commandChannelSchema>;
export type ConsoleChannelConfig = z.infer<typeof consoleChannelSchema>;
export type QuietHours = z.infer<typeof quietHoursSchema>;
export type NoiseConfig = z.infer<typeof noiseSchema>;

/** The notify section with every default applied, for a config without a `notify` key. */
export function notifySettings(input: unknown): NotifyConfig {
  return notifySchema.parse(input ?? {});
}
