import { SLACK_USER_ID } from '../config/schemas/remote-slack-schema.js';
import { escapeMrkdwn } from '../channels/slack.js';
import { clipText } from '../util/text/clip-text.js';
import type { AskOutcome, PermissionAsk, RemoteChannelName } from './types.js';

/**
 * The Slack message of one permission ask: what would run, shown as data (Slack's mrkdwn escaping of
 * `&`, `<` and `>`, so no text from the event becomes a link, a mention or a broadcast), then Allow and
 * Deny buttons whose values are the broker's single-use tokens. The settled message is the same without
 * the buttons, with one line saying how the ask ended.
 */

/** The `action_id`s of the two buttons; a click on anything else is not an answer. */
export const ACTION_IDS = { allow: 'hookd_allow', deny: 'hookd_deny' } as const;

/** Slack's limit for the text of one section block is 3000 characters; a block keeps under it. */
const SECTION_MAX = 2900;
const TITLE_MAX = 600;

/**
 * Text inside a mrkdwn code block: escaped, cut, and with every run of three backticks broken by a zero
 * width space, so the text cannot close the block early and have the rest read as formatting.
 */
function codeBlock(label: string, text: string): unknown {
  const body = escapeMrkdwn(clipText(text, SECTION_MAX - label.length - 20)).replace(/`(?=``)/g, '`\u200b');
  return { type: 'section', text: { type: 'mrkdwn', text: `*${label}*\n\`\`\`${body}\`\`\`` } };
}

function summaryBlocks(ask: PermissionAsk): unknown[] {
  const { summary } = ask;
  const blocks: unknown[] = [
    {
      type: 'section',
      text: { type: 'mrkdwn', text: `:raised_hand: *${escapeMrkdwn(clipText(summary.title, TITLE_MAX))}*` },
    },
    {
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: clipText(
            [
              `Tool: *${escapeMrkdwn(clipText(summary.tool, 100))}*`,
              `Agent: ${escapeMrkdwn(clipText(ask.agent, 40))}`,
              `Project: ${escapeMrkdwn(clipText(ask.project, 300))}`,
              `Session: ${escapeMrkdwn(clipText(ask.session, 80))}`,
            ].join('  ·  '),
            SECTION_MAX,
          ),
        },
      ],
    },
  ];
  if (summary.command !== undefined) blocks.push(codeBlock('Command', summary.command));
  if (summary.filePath !== undefined) blocks.push(codeBlock('File', summary.filePath));
  if (summary.diff !== undefined) blocks.push(codeBlock('Change', summary.diff));
  return blocks;
}

/** The fallback text of a notification (what a phone's lock screen shows). */
function fallbackText(prefix: string, ask: PermissionAsk): string {
  return clipText(`${prefix}: ${escapeMrkdwn(clipText(ask.summary.title, TITLE_MAX))}`, SECTION_MAX);
}

/** Slack's own date formatting of an epoch time (rendered in the reader's time zone). */
function slackTime(epochMs: number): string {
  const seconds = Math.floor(epochMs / 1000);
  const fallback = new Date(seconds * 1000).toISOString().slice(11, 19);
  return `<!date^${seconds}^{time_secs}|${fallback} UTC>`;
}

/** chat.postMessage's fields of the ask (without the channel). */
export function askMessage(ask: PermissionAsk): { text: string; blocks: unknown[] } {
  const expiry = Number.isFinite(ask.expiresAt) ? slackTime(ask.expiresAt) : 'soon';
  return {
    text: fallbackText('Permission asked', ask),
    blocks: [
      ...summaryBlocks(ask),
      {
        type: 'context',
        elements: [
          {
            type: 'mrkdwn',
            text: `Answer before ${expiry}; then the agent's own prompt takes over. Only configured approvers count.`,
          },
        ],
      },
      {
        type: 'actions',
        block_id: 'hookd_answer',
        elements: [
          {
            type: 'button',
            action_id: ACTION_IDS.allow,
            style: 'primary',
            text: { type: 'plain_text', text: 'Allow' },
            value: ask.tokens.allow,
            confirm: {
              title: { type: 'plain_text', text: 'Allow this?' },
              text: { type: 'plain_text', text: 'It runs exactly as this message shows.' },
              confirm: { type: 'plain_text', text: 'Allow' },
              deny: { type: 'plain_text', text: 'Back' },
            },
          },
          {
            type: 'button',
            action_id: ACTION_IDS.deny,
            style: 'danger',
            text: { type: 'plain_text', text: 'Deny' },
            value: ask.tokens.deny,
          },
        ],
      },
    ],
  };
}

const SURFACES: Record<RemoteChannelName, string> = {
  slack: 'Slack',
  ntfy: 'ntfy',
  desktop: 'the desktop notification',
};

/** Who decided, as Slack shows it: a mention for a Slack user id, else the name as text. */
function who(by: string | undefined): string {
  if (!by) return '';
  return SLACK_USER_ID.test(by) ? ` by <@${by}>` : ` by ${escapeMrkdwn(clipText(by, 80))}`;
}

/** The one line that says how an ask ended. */
export function outcomeLine(outcome: AskOutcome): string {
  switch (outcome.result) {
    case 'allow':
    case 'deny': {
      const verb = outcome.result === 'allow' ? ':white_check_mark: Allowed' : ':no_entry: Denied';
      // Another channel's answerer is that channel itself (ntfy has no identity): only where it is named.
      if (outcome.via && outcome.via !== 'slack')
        return `${verb} from ${SURFACES[outcome.via] ?? 'another channel'}`;
      return `${verb}${who(outcome.by)}${outcome.via ? ' from Slack' : ''}`;
    }
    case 'answered-at-terminal':
      return ':keyboard: Answered at the terminal';
    case 'expired':
      return ":hourglass: Expired: the agent's own prompt took over";
    default:
      return ':heavy_multiplication_x: Cancelled: the agent no longer waits for this answer';
  }
}

/** chat.update's fields of a settled ask: the buttons gone, the outcome in their place. */
export function settledMessage(ask: PermissionAsk, outcome: AskOutcome): { text: string; blocks: unknown[] } {
  const line = outcomeLine(outcome);
  return {
    text: clipText(`${line}: ${escapeMrkdwn(clipText(ask.summary.title, TITLE_MAX))}`, SECTION_MAX),
    blocks: [...summaryBlocks(ask), { type: 'context', elements: [{ type: 'mrkdwn', text: line }] }],
  };
}
