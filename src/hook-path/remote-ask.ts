import type { HookdConfig } from '../config/schemas/schema.js';
import type { HookEvent } from '../events/types.js';
import type { LineLogger } from '../logging/line-logger.js';
import type { AgentReply } from '../runner/decision.js';
import type { AskRemote } from './hand-off.js';

type Env = Record<string, string | undefined>;

/** The hook stops waiting this long before the wait the user configured ends, to answer in time. */
const REPLY_MARGIN_MS = 250;

/**
 * Claude Code's PermissionRequest with remote answers configured (docs/remote.md): when no hookd guard
 * decided, the daemon sends the prompt away and the hook waits for the first valid answer. An answer is
 * only `allow` or `deny` (never edited input, never wider permissions); no answer in time is no decision,
 * and Claude Code's own prompt decides. Returns the reply to give the agent.
 */
export async function askRemotely(
  event: HookEvent,
  config: HookdConfig,
  reply: AgentReply,
  edges: { env: Env; logger: LineLogger; askRemote?: AskRemote | undefined; elapsedMs: number },
): Promise<AgentReply> {
  const remote = config.remote;
  if (!edges.askRemote || !remote?.enabled || event.name !== 'PermissionRequest' || event.agent !== 'claude')
    return reply;
  // A guard that blocked or decided wins: the remote side never hears of the call.
  if (reply.exitCode !== 0 || reply.stdout.trim() !== '') return reply;
  if (!config.daemon.enabled || edges.env.HOOKD_DAEMON === '0' || !event.sessionId) return reply;
  const tool = typeof event.payload.tool_name === 'string' ? event.payload.tool_name : undefined;
  if (!tool) return reply;
  const waitMs = Math.floor(remote.waitSec * 1000 - edges.elapsedMs - REPLY_MARGIN_MS);
  if (waitMs < 1000) return reply;
  const answer = await edges.askRemote(
    {
      v: 1,
      type: 'permission',
      agent: event.agent,
      session: event.sessionId,
      project: event.projectDir ?? event.cwd ?? '',
      tool,
      input: event.payload.tool_input ?? null,
      suggestions: Array.isArray(event.payload.permission_suggestions),
      waitMs,
    },
    { env: edges.env },
  );
  edges.logger.log(
    'info',
    {
      kind: 'remote',
      eventId: event.id,
      sessionId: event.sessionId,
      tool,
      decision: answer.decision,
      by: answer.by,
      via: answer.via,
      ask: answer.ask,
      reason: answer.reason,
    },
    answer.decision
      ? `PermissionRequest for ${tool}: ${answer.decision} by ${answer.by ?? '?'} via ${answer.via ?? '?'}`
      : `PermissionRequest for ${tool}: no remote decision (${answer.reason ?? 'none'}); the agent's own prompt decides`,
  );
  if (!answer.decision) return reply;
  const via = answer.via ?? 'remote';
  const decision =
    answer.decision === 'allow'
      ? { behavior: 'allow' }
      : { behavior: 'deny', message: `Denied remotely (${via}) by the user.` };
  return {
    ...reply,
    stdout: `${JSON.stringify({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision } })}\n`,
    decidedBy: `remote answer (${via})`,
  };
}
