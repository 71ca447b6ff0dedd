/**
 * Remote answers to an agent's permission prompt: the shapes every remote channel (ntfy, Slack Socket Mode,
 * desktop actions) shares with the broker that owns the pending requests.
 *
 * The broker (daemon side) creates one `PermissionAsk` per prompt it decides to send away from the
 * keyboard, gives every channel the same ask, and takes the first valid `RemoteAnswer` that comes back.
 * A channel only carries tokens: it never decides whether an answer counts. The broker checks the token
 * (single use, bound to this ask and this decision, not expired, the ask still pending) and the approver.
 */

/** The two answers a remote approver can give. Nothing else: no edited input, no wider permissions. */
export type RemoteDecision = 'allow' | 'deny';

/** Where an answer came from. */
export type RemoteChannelName = 'ntfy' | 'slack' | 'desktop';

/** What the approver is shown: exactly what would run, redacted and bounded by the broker. */
export interface AskSummary {
  /** One line, e.g. `Claude Code wants to run Bash in ~/src/app`. */
  title: string;
  /** The agent's tool name as the agent spells it (`Bash`, `Execute`, `Edit`). */
  tool: string;
  /** The command a shell tool would run, secrets redacted, cut to a bound. */
  command?: string;
  /** The file a file tool would touch. */
  filePath?: string;
  /** A short unified diff for an edit, redacted, cut to a bound. */
  diff?: string;
}

/**
 * A hook's permission prompt as the daemon takes it from its socket (the `permission` request of
 * docs/protocol.md, src/link/protocol.ts): the call, and how long the hook waits for an answer.
 */
export interface PermissionRequest {
  agent: string;
  session: string;
  project: string;
  tool: string;
  /** The call's exact `tool_input`: an answer is bound to its hash. */
  input: unknown;
  /** Whether the prompt carried `permission_suggestions`. */
  suggestions: boolean;
  waitMs: number;
}

/** One pending permission prompt, as every channel sees it. */
export interface PermissionAsk {
  /** Random id of this ask (not a secret: it names the ask in messages and logs). */
  id: string;
  /** The agent ('claude', 'droid', ...), the session and the project directory. */
  agent: string;
  session: string;
  project: string;
  summary: AskSummary;
  /** When the broker stops waiting (epoch ms); an answer after it changes nothing. */
  expiresAt: number;
  /**
   * One random single-use token per decision. A channel embeds them in its buttons or replies exactly
   * as given; the broker alone knows which ask and which decision each one stands for.
   */
  tokens: Record<RemoteDecision, string>;
}

/** An answer as a channel received it, before the broker has checked anything. */
export interface RemoteAnswer {
  token: string;
  channel: RemoteChannelName;
  /**
   * Who answered, as the channel can prove it: the Slack user id from the signed Socket Mode envelope,
   * `ntfy` (the topic's access control is the only identity), `desktop` (the local session's user).
   */
  approver: string;
}

/** How an ask ended, for the surfaces that still show it. */
export interface AskOutcome {
  result: RemoteDecision | 'expired' | 'answered-at-terminal' | 'cancelled';
  /** Who decided and where, when a remote answer decided. */
  by?: string;
  via?: RemoteChannelName;
}

/** One remote channel. The broker starts it once, sends it every ask and tells it how each one ended. */
export interface RemoteChannel {
  readonly name: RemoteChannelName;
  /** Opens what the channel listens on (a subscription, a websocket); answers go to `onAnswer`. */
  start(onAnswer: (answer: RemoteAnswer) => void): Promise<void>;
  /** Shows the ask with its Allow and Deny buttons. Rejects when it could not be shown. */
  ask(ask: PermissionAsk): Promise<void>;
  /** The ask ended: edit the message, close the notification, or post a short "resolved" line. */
  settle(ask: PermissionAsk, outcome: AskOutcome): Promise<void>;
  /** Stops listening and forgets every ask. */
  close(): Promise<void>;
}
