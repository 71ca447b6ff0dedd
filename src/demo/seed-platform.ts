import type { SimSession } from '../platform-api/simulator/seed.js';
import { textOfContent } from '../enrich/transcript.js';

type Json = Record<string, unknown>;

function parseLines(text: string): Json[] {
  const out: Json[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const value: unknown = JSON.parse(line);
      if (typeof value === 'object' && value !== null) out.push(value as Json);
    } catch {}
  }
  return out;
}

function tokenUsage(value: unknown): Json | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const u = value as Record<string, unknown>;
  const n = (key: string) => (typeof u[key] === 'number' ? u[key] : 0);
  return {
    inputTokens: n('inputTokens'),
    outputTokens: n('outputTokens'),
    cacheCreationTokens: n('cacheCreationTokens'),
    cacheReadTokens: n('cacheReadTokens'),
    thinkingTokens: n('thinkingTokens'),
    serviceCredits: n('factoryCredits'),
  };
}

/**
 * A platform Session (as the simulator keeps it) built from a local Droid session: its transcript gives
 * the title, the times and the messages people see (user prompts and the assistant's text), its
 * settings file the model, usage and tags. This is what the platform would hold for the same session.
 */
export function platformSessionFromTranscript(
  sessionId: string,
  transcript: string,
  settings: Json | undefined,
): SimSession {
  const lines = parseLines(transcript);
  const start = lines.find((l) => l.type === 'session_start');
  const messages: Record<string, unknown>[] = [];
  const times: number[] = [];
  let parentId: string | undefined;
  for (const line of lines) {
    const at = typeof line.timestamp === 'string' ? Date.parse(line.timestamp) : NaN;
    if (Number.isFinite(at)) times.push(at);
    const message = line.message as Json | undefined;
    const id = typeof line.id === 'string' ? line.id : undefined;
    if (line.type !== 'message' || !message || !id || id.startsWith('context-')) continue;
    const role = message.role;
    if ((role !== 'user' && role !== 'assistant') || message.visibility === 'user_only') continue;
    const text = textOfContent(message.content);
    if (!text || !Number.isFinite(at)) continue;
    messages.push({
      id,
      role,
      content: [{ type: 'text', text }],
      createdAt: at,
      updatedAt: at,
      ...(parentId ? { parentId } : {}),
      ...(role === 'user' ? { userMessageSource: 'cli_tui' } : { vendorPhase: 'final_answer' }),
      visibility: 'both',
      isUserVisible: true,
      isError: false,
    });
    parentId = id;
  }
  const createdAt = times.length > 0 ? Math.min(...times) : Date.now();
  const updatedAt = times.length > 0 ? Math.max(...times) : createdAt;
  const own = tokenUsage(settings?.tokenUsage);
  const inclusive = tokenUsage(settings?.inclusiveTokenUsage);
  return {
    sessionId,
    status: 'idle',
    title: typeof start?.title === 'string' ? start.title : 'Session',
    createdAt,
    updatedAt,
    completedAt: updatedAt,
    sessionSettings: {
      ...(typeof settings?.model === 'string' ? { model: settings.model } : {}),
      ...(typeof settings?.assistantActiveTimeMs === 'number'
        ? { assistantActiveTimeMs: settings.assistantActiveTimeMs }
        : {}),
      ...(own ? { tokenUsage: own } : {}),
      ...(inclusive ? { inclusiveTokenUsage: inclusive } : {}),
      tags: Array.isArray(settings?.tags) ? settings.tags : [],
      enabledToolIds: [],
      disabledToolIds: [],
    },
    messages,
  };
}
