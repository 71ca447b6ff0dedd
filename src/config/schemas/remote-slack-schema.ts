import * as z from 'zod';

/** Defaults of the Slack answer channel (docs/remote.md). */
export const REMOTE_SLACK_DEFAULTS = {
  apiBaseUrl: 'https://slack.com/api',
  timeoutMs: 10_000,
} as const;

/** A Slack user id as Slack writes it in an interaction: `U0123ABCD` (or `W...` on Enterprise Grid). */
export const SLACK_USER_ID = /^[UW][A-Z0-9]{2,30}$/;

/**
 * Slack as a remote answer channel: the ask is posted with the bot token, the Allow/Deny clicks come back
 * through Socket Mode (an outbound websocket opened with the app-level token), so no port is opened on
 * this machine. Only the user's own config may hold it.
 */
export const remoteSlackSchema = z
  .strictObject({
    appToken: z
      .string()
      .min(1)
      .describe(
        'App-level token (xapp-...) with the connections:write scope, for Socket Mode; use "${SLACK_APP_TOKEN}".',
      ),
    botToken: z
      .string()
      .min(1)
      .describe('Bot token (xoxb-...) with the chat:write scope; use "${SLACK_BOT_TOKEN}".'),
    channel: z
      .string()
      .min(1)
      .max(200)
      .describe('Channel id (C0123ABCD) where each permission prompt is posted with Allow and Deny buttons.'),
    approvers: z
      .array(
        z.string().regex(SLACK_USER_ID, {
          message: 'must be a Slack user id such as U0123ABCD (in Slack: a profile, ⋮, "Copy member ID")',
        }),
      )
      .min(1)
      .max(50)
      .describe('Slack user ids whose clicks count; a click from anyone else changes nothing and is logged.'),
    apiBaseUrl: z
      .string()
      .regex(/^(https:\/\/[^\s/]+|http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?)(\/\S*)?$/, {
        message: 'must be an https URL (http only on 127.0.0.1, for tests): the tokens travel with each call',
      })
      .default(REMOTE_SLACK_DEFAULTS.apiBaseUrl)
      .describe('Slack Web API base URL (tests point it at a loopback server).'),
    timeoutMs: z
      .number()
      .int()
      .positive()
      .max(60_000)
      .default(REMOTE_SLACK_DEFAULTS.timeoutMs)
      .describe('Milliseconds before one Slack Web API call is abandoned.'),
  })
  .describe(
    'Answer permission prompts from Slack: buttons through Socket Mode, no public URL (docs/remote.md).',
  );

export type RemoteSlackConfig = z.infer<typeof remoteSlackSchema>;
