import type { RemoteSlackConfig } from '../config/schemas/remote-slack-schema.js';
import { SLACK_USER_ID } from '../config/schemas/remote-slack-schema.js';
import { interpolateEnv } from '../config/interpolate.js';
import type { FetchLike } from '../util/fetch-with-timeout.js';
import { ACTION_IDS, askMessage, settledMessage } from './slack-approval-message.js';
import { callSlack, type SlackApiResult, type SlackApiTarget } from './slack-socket-api.js';
import { SlackSocket, type SlackLog, type SlackSocketOptions } from './slack-socket.js';
import type { AskOutcome, PermissionAsk, RemoteAnswer, RemoteChannel } from './types.js';

/**
 * Slack as a remote answer channel (docs/remote.md): each ask is a message posted with the bot
 * token, with Allow and Deny buttons carrying the broker's tokens; a click comes back through Socket Mode
 * as a `block_actions` interaction, and becomes a `RemoteAnswer` with the clicking user's Slack id. The
 * channel decides nothing: the broker checks the token and whether that user is an approver. When the
 * ask ends, its message is edited (`chat.update`): the buttons go, one line says how it ended.
 */

/**
 * Messages remembered for their edit when the ask ends; past this many the oldest is forgotten (its
 * buttons stay, and a click on them is refused by the broker). The broker has at most MAX_OPEN_ASKS
 * open and ends each one, which removes its entry, so this is a guard that is never reached; it stays
 * well above the broker's limit so that it can never push out the message of an ask still open.
 */
export const MESSAGES_KEPT = 256;

/** Where an ask's message is: its channel and timestamp, what `chat.update` needs. */
interface Shown {
  channel: string;
  ts: string;
}

/** A token as the broker makes them: URL-safe characters, bounded. Anything else is not an answer. */
const TOKEN = /^[\w-]{8,256}$/;
/** The actions of one interaction looked at: a click is one action. */
const MAX_ACTIONS = 4;
const CHANNEL_ID = /^[A-Z0-9]{1,40}$/;
const MESSAGE_TS = /^\d{1,20}\.\d{1,20}$/;

export interface SlackApprovalOptions {
  log: SlackLog;
  fetch?: FetchLike;
  /** The Socket Mode client's edges (timers, jitter, bounds), for tests. */
  socket?: Partial<
    Pick<
      SlackSocketOptions,
      'timers' | 'random' | 'maxMessageBytes' | 'initialBackoffMs' | 'maxBackoffMs' | 'heartbeatMs'
    >
  >;
}

export interface SlackApprovalChannel extends RemoteChannel {
  /** The Socket Mode client, once started (its state and connection count). */
  readonly socket: SlackSocket | undefined;
}

/** The answers one `block_actions` payload carries, or why it carries none. */
export function answersOf(payload: unknown): { answers: RemoteAnswer[] } | { ignored: string } {
  if (!payload || typeof payload !== 'object' || Array.isArray(payload)) return { ignored: 'not an object' };
  const { type, user, actions } = payload as Record<string, unknown>;
  if (type !== 'block_actions') return { ignored: 'another type than block_actions' };
  const userId = user && typeof user === 'object' ? (user as Record<string, unknown>).id : undefined;
  if (typeof userId !== 'string' || !SLACK_USER_ID.test(userId)) return { ignored: 'no valid user id' };
  if (!Array.isArray(actions)) return { ignored: 'no actions' };
  const answers: RemoteAnswer[] = [];
  for (const action of actions.slice(0, MAX_ACTIONS)) {
    if (!action || typeof action !== 'object') continue;
    const { action_id: actionId, value } = action as Record<string, unknown>;
    if (actionId !== ACTION_IDS.allow && actionId !== ACTION_IDS.deny) continue;
    if (typeof value !== 'string' || !TOKEN.test(value)) continue;
    answers.push({ token: value, channel: 'slack', approver: userId });
  }
  return answers.length ? { answers } : { ignored: 'no hookd button' };
}

/**
 * The config with every `${VAR}` taken from the daemon's environment, or why it cannot be used: a
 * variable is unset, or a token is of the wrong kind (the two are easy to swap). The error never holds a
 * token's value.
 */
export function resolveSlackConfig(
  config: RemoteSlackConfig,
  env: Record<string, string | undefined>,
): { config: RemoteSlackConfig } | { error: string } {
  const { value, missing } = interpolateEnv(config, env);
  if (missing.length) return { error: `remote slack: set ${missing.join(', ')} in the daemon's environment` };
  if (!value.appToken.startsWith('xapp-'))
    return {
      error:
        'remote slack: appToken is not an app-level token (xapp-...): Socket Mode needs one with connections:write',
    };
  if (!value.botToken.startsWith('xoxb-'))
    return { error: 'remote slack: botToken is not a bot token (xoxb-...) with chat:write' };
  return { config: value };
}

export function createSlackApprovalChannel(
  config: RemoteSlackConfig,
  options: SlackApprovalOptions,
): SlackApprovalChannel {
  const { log } = options;
  const api: SlackApiTarget = {
    apiBaseUrl: config.apiBaseUrl,
    timeoutMs: config.timeoutMs,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  };
  /** Ask id -> where its message is (channel id and ts), oldest first. */
  const shown = new Map<string, Shown>();
  /** Asks whose message is being posted, with how each ended when it ended meanwhile. */
  const posting = new Map<string, AskOutcome | undefined>();
  let socket: SlackSocket | undefined;

  function receive(onAnswer: (answer: RemoteAnswer) => void, payload: unknown): void {
    const result = answersOf(payload);
    if ('ignored' in result) {
      log.warn({ channel: 'slack' }, `slack: ignored an interaction: ${result.ignored}`);
      return;
    }
    for (const answer of result.answers) {
      // The token is not logged: it is a one-time credential, and the broker logs what it decides.
      log.info({ channel: 'slack', approver: answer.approver }, 'slack: a button was clicked');
      onAnswer(answer);
    }
  }

  /** Edits an ask's message into its settled form: the buttons go, one line says how it ended. */
  async function edit(ask: PermissionAsk, where: Shown, outcome: AskOutcome): Promise<void> {
    const out = await callSlack(api, 'chat.update', config.botToken, {
      channel: where.channel,
      ts: where.ts,
      ...settledMessage(ask, outcome),
    });
    if (!out.ok) throw new Error(out.error);
  }

  return {
    name: 'slack',
    get socket() {
      return socket;
    },

    async start(onAnswer) {
      if (socket) return;
      socket = new SlackSocket({
        ...api,
        ...options.socket,
        appToken: config.appToken,
        log,
        onEnvelope: (_type, payload) => receive(onAnswer, payload),
      });
      await socket.start();
    },

    async ask(ask: PermissionAsk) {
      posting.set(ask.id, undefined);
      let out: SlackApiResult;
      let ended: AskOutcome | undefined;
      try {
        out = await callSlack(api, 'chat.postMessage', config.botToken, {
          channel: config.channel,
          ...askMessage(ask),
          unfurl_links: false,
          unfurl_media: false,
          link_names: false,
        });
        ended = posting.get(ask.id);
      } finally {
        posting.delete(ask.id);
      }
      if (!out.ok) throw new Error(out.error);
      const { channel, ts } = out.reply;
      if (
        typeof channel !== 'string' ||
        !CHANNEL_ID.test(channel) ||
        typeof ts !== 'string' ||
        !MESSAGE_TS.test(ts)
      )
        throw new Error('slack chat.postMessage: the reply names no message');
      // The ask ended while its message was being posted: it gets its last form at once.
      if (ended) return edit(ask, { channel, ts }, ended);
      shown.delete(ask.id);
      shown.set(ask.id, { channel, ts });
      while (shown.size > MESSAGES_KEPT) shown.delete(shown.keys().next().value!);
    },

    async settle(ask: PermissionAsk, outcome: AskOutcome) {
      const where = shown.get(ask.id);
      if (!where) {
        if (posting.has(ask.id)) posting.set(ask.id, outcome);
        return;
      }
      shown.delete(ask.id);
      await edit(ask, where, outcome);
    },

    async close() {
      shown.clear();
      const open = socket;
      socket = undefined;
      await open?.close();
    },
  };
}
