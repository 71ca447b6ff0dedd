import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLocalSession } from '../../../src/enrich/session-store.js';
import { useTempDir } from '../../helpers/temp.js';

// The lines below are as Codex CLI 0.171.0 and Gemini CLI 0.61.0 wrote them in a real run (long
// instruction texts left out).

const CODEX_LINES = [
  { type: 'session_meta', payload: { session_id: 's1', cwd: '/w', cli_version: '0.171.0' } },
  { type: 'turn_context', payload: { model: 'gpt-5.5' } },
  {
    type: 'event_msg',
    payload: {
      type: 'token_count',
      info: {
        total_token_usage: {
          input_tokens: 120,
          cached_input_tokens: 0,
          output_tokens: 7,
          reasoning_output_tokens: 0,
          total_tokens: 127,
        },
      },
    },
  },
  {
    type: 'event_msg',
    payload: {
      type: 'token_count',
      info: {
        total_token_usage: {
          input_tokens: 240,
          cached_input_tokens: 40,
          output_tokens: 14,
          reasoning_output_tokens: 3,
          total_tokens: 254,
        },
      },
    },
  },
  {
    timestamp: '2026-11-27T03:27:46.479Z',
    type: 'event_msg',
    payload: { type: 'task_complete', turn_id: 't1', last_agent_message: 'Finished.' },
  },
];

const GEMINI_LINES = [
  { sessionId: 's2', projectHash: 'h', startTime: '2026-11-27T03:27:48.052Z', kind: 'main' },
  { id: 'u1', timestamp: '2026-11-27T03:27:48.070Z', type: 'user', content: [{ text: 'go' }] },
  { $set: { lastUpdated: '2026-11-27T03:27:48.071Z' } },
  {
    id: 'g1',
    type: 'gemini',
    content: '',
    tokens: { input: 120, output: 7, cached: 0, thoughts: 0, tool: 0, total: 127 },
    model: 'gemini-2.5-flash',
  },
  // The same answer again once its tool call completed: counted once
  {
    id: 'g1',
    type: 'gemini',
    content: '',
    tokens: { input: 120, output: 7, cached: 0, thoughts: 0, tool: 0, total: 127 },
    model: 'gemini-2.5-flash',
    toolCalls: [],
  },
  {
    id: 'g2',
    timestamp: '2026-11-27T03:27:48.305Z',
    type: 'gemini',
    content: 'Finished.',
    tokens: { input: 120, output: 7, cached: 20, thoughts: 2, tool: 0, total: 127 },
    model: 'gemini-2.5-flash',
  },
];

const jsonl = (lines: unknown[]) => `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`;

describe('reading Codex and Gemini sessions', () => {
  const tmp = useTempDir('hkrs-');

  function write(path: string, text: string): string {
    const file = join(tmp.dir, path);
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, text);
    return file;
  }

  it("a Codex rollout: its last token total (cached apart), model, cwd and the turn's last message", async () => {
    const file = write('.codex/sessions/2026/11/27/rollout-2026-11-27T03-27-46-s1.jsonl', jsonl(CODEX_LINES));
    const info = await readLocalSession({ sessionId: 's1', transcriptPath: file, agent: 'codex' });
    expect(info).toMatchObject({
      sources: ['transcript'],
      cwd: '/w',
      model: 'gpt-5.5',
      transcriptComplete: true,
      tokens: { input: 200, output: 14, cacheRead: 40, cacheWrite: 0, thinking: 3, total: 257 },
      lastAssistantMessage: { text: 'Finished.', role: 'assistant' },
    });
  });

  it('a Gemini chat: tokens once per answer, messages, the last answer with text', async () => {
    const file = write('.gemini/tmp/work/chats/session-2026-11-27T03-27-s2.jsonl', jsonl(GEMINI_LINES));
    const info = await readLocalSession({ sessionId: 's2', transcriptPath: file, agent: 'gemini' });
    expect(info).toMatchObject({
      model: 'gemini-2.5-flash',
      messageCount: 3,
      tokens: { input: 220, output: 14, cacheRead: 20, thinking: 2, total: 256 },
      lastAssistantMessage: { id: 'g2', text: 'Finished.' },
    });
  });

  it('a chat larger than the read window: no token count rather than a wrong one; a cut line is skipped', async () => {
    const pad = { id: 'pad', type: 'user', content: [{ text: 'x'.repeat(200_000) }] };
    const file = write('.gemini/tmp/work/chats/session-big.jsonl', jsonl([pad, ...GEMINI_LINES.slice(1)]));
    const info = await readLocalSession({ sessionId: 's2', transcriptPath: file, maxReadBytes: 1 });
    expect(info.tokens).toBeUndefined();
    expect(info.lastAssistantMessage?.text).toBe('Finished.');
    expect(info.warnings.join()).toMatch(/larger than maxReadBytes/);
  });

  it('a missing rollout is a warning, never a throw', async () => {
    const missing = join(tmp.dir, '.codex/sessions/2026/11/27/rollout-x.jsonl');
    const info = await readLocalSession({ sessionId: 'x', transcriptPath: missing });
    expect(info.sources).toEqual([]);
    expect(info.warnings.join()).toMatch(/missing/);
  });
});
