import * as z from 'zod';
import { remoteSlackSchema } from './remote-slack-schema.js';

/** Every default of remote answers (docs/remote.md), in one place: the schema, the hook and the daemon read them. */
export const REMOTE_DEFAULTS = {
  /**
   * How long the hook waits for a remote answer. `hookd install` writes 60 s as the timeout of Claude
   * Code's PermissionRequest entry: 55 s ends the wait well before the agent stops the hook.
   */
  waitSec: 55,
  /** Remote asks open at once per session; more prompts get no push and stay at the terminal. */
  maxPendingPerSession: 2,
  /** With presence reporting someone at the keyboard, no ask is sent. */
  whenPresent: 'skip' as 'skip' | 'ask',
  ntfyTimeoutMs: 10_000,
} as const;

/** Hosts of public ntfy servers: anyone may read a topic there, so hookd never sends approvals to them. */
export const PUBLIC_NTFY_HOSTS: readonly string[] = ['ntfy.sh', 'www.ntfy.sh'];

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

const topicName = z.string().regex(/^[-_A-Za-z0-9]{1,64}$/, 'a topic is 1 to 64 letters, digits, "-" or "_"');

/** Why this server cannot carry approvals, or undefined. */
export function ntfyServerProblem(server: string): string | undefined {
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    return `"${server}" is not a URL (e.g. https://ntfy.example.com)`;
  }
  const host = url.hostname.toLowerCase();
  if (PUBLIC_NTFY_HOSTS.includes(host))
    return `${host} is a public server: anyone can read or post to a topic there; run your own ntfy server with access control`;
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(host)) return undefined;
  return 'use https (plain http only to a server on this machine)';
}

export const remoteNtfySchema = z
  .strictObject({
    server: z
      .string()
      .min(1)
      .describe('Your own ntfy server with access control (https; never the public ntfy.sh).'),
    topic: topicName.describe('The topic the phone subscribes to: the asks are published here.'),
    replyTopic: topicName.describe(
      "The topic the Allow/Deny buttons post to; hookd's daemon reads it with an outbound subscription.",
    ),
    token: z
      .string()
      .min(1)
      .describe(
        'Access token (tk_...) that may publish to `topic` and read `replyTopic`; may be "${VAR}". Required.',
      ),
    replyToken: z
      .string()
      .min(1)
      .describe(
        'Token the buttons use to post to `replyTopic`: give it write access to that topic only. It travels inside each notification, so it must not be `token`; may be "${VAR}". Required.',
      ),
    timeoutMs: z
      .number()
      .int()
      .min(100)
      .max(120_000)
      .default(REMOTE_DEFAULTS.ntfyTimeoutMs)
      .describe('Milliseconds before one publish is abandoned.'),
  })
  .superRefine((value, ctx) => {
    if (value.server.includes('${')) return;
    const problem = ntfyServerProblem(value.server);
    if (problem) ctx.addIssue({ code: 'custom', path: ['server'], message: problem });
    if (value.replyToken === value.token)
      ctx.addIssue({
        code: 'custom',
        path: ['replyToken'],
        message:
          'use a token of its own for the buttons (write-only to replyTopic): it travels inside every notification',
      });
    if (value.replyTopic === value.topic)
      ctx.addIssue({
        code: 'custom',
        path: ['replyTopic'],
        message: 'use a topic of its own for the answers, not the topic the asks are published to',
      });
  })
  .describe('Approvals through an access-controlled ntfy server.');

export const remoteConfigSchema = z
  .strictObject({
    enabled: z
      .boolean()
      .default(true)
      .describe('Set false to stop sending permission prompts away (a project file may set it false too).'),
    waitSec: z
      .number()
      .positive()
      .max(3598)
      .default(REMOTE_DEFAULTS.waitSec)
      .describe(
        "Seconds the hook waits for a remote answer; keep it at least 2 s (better 5 s) under the timeout of the agent's PermissionRequest entry (60 s as `hookd install` writes it).",
      ),
    maxPendingPerSession: z
      .number()
      .int()
      .min(1)
      .max(20)
      .default(REMOTE_DEFAULTS.maxPendingPerSession)
      .describe(
        'Remote asks open at once per session; more prompts are not pushed and stay at the terminal.',
      ),
    whenPresent: z
      .enum(['skip', 'ask'])
      .default(REMOTE_DEFAULTS.whenPresent)
      .describe(
        'skip: no remote ask while presence says someone is at the keyboard (notify.presence); ask: always.',
      ),
    ntfy: remoteNtfySchema.optional(),
    slack: remoteSlackSchema.optional(),
    desktop: z
      .strictObject({
        enabled: z
          .boolean()
          .default(true)
          .describe('Show Allow and Deny on the desktop notification (Linux, libnotify actions).'),
      })
      .optional()
      .describe('Allow and Deny on the desktop notification, answered at this machine.'),
  })
  .describe("Answering the agent's permission prompts from elsewhere (docs/remote.md). User config only.");

/**
 * What a project file may say about remote answers: only turn them off. Approvers and channels come from
 * the user's own config, never from a repository, trusted or not.
 */
export const projectRemoteSchema = z
  .strictObject(
    {
      enabled: z.literal(false, {
        error: 'a project file may only turn remote answers off ("remote": {"enabled": false})',
      }),
    },
    {
      error: (issue) =>
        issue.code === 'unrecognized_keys'
          ? `a project file may only turn remote answers off; approvers and channels come from your user config (${issue.keys.join(', ')} refused)`
          : undefined,
    },
  )
  .transform((): RemoteConfig => remoteConfigSchema.parse({ enabled: false }))
  .describe('A project file may only set "enabled": false (the kill switch for this project).');

export type RemoteConfig = z.infer<typeof remoteConfigSchema>;
export type RemoteNtfyConfig = z.infer<typeof remoteNtfySchema>;
