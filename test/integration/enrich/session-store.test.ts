import { appendFile, mkdir, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readLocalSession } from '../../../src/enrich/session-store.js';
import {
  COMPACTED_SESSION,
  MAIN_SESSION,
  SESSION_DIR,
  SUB_SESSION,
  makeTempHome,
  type TempHome,
} from './fixture-home.js';

const FINAL_MAIN = '566e7aff-9ec7-42ee-819e-91afc1ce6455';
const FINAL_SUB = 'b73abe42-9177-4f7a-9932-5ff2a01cc296';

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.cleanup();
});

describe('readLocalSession on the real Droid 0.225.2 store', () => {
  it('reads title, project, final message, model, usage, active time and tool calls of a session', async () => {
    const info = await readLocalSession({
      sessionId: MAIN_SESSION,
      transcriptPath: home.transcript(MAIN_SESSION),
      messageId: FINAL_MAIN,
    });
    expect(info.factoryHome).toBe(home.factoryHome);
    expect(info.title).toBe('OK');
    expect(info.cwd).toBe('/home/dev/projects/demo');
    expect(info.message).toMatchObject({ id: FINAL_MAIN, role: 'assistant' });
    expect(info.message?.text).toBe('All done: ran `echo hi`, created hook-demo.txt and ran a sub-agent.');
    expect(info.lastAssistantMessage?.id).toBe(FINAL_MAIN);
    expect(info.model).toBe('custom:fake-chat');
    expect(info.activeTimeMs).toBe(1902);
    expect(info.tokens).toEqual({
      input: 60,
      output: 30,
      cacheRead: 0,
      cacheWrite: 0,
      thinking: 0,
      total: 90,
    });
    expect(info.inclusiveTokens?.total).toBe(105);
    expect(info.credits).toBe(0);
    expect(info.toolCalls).toEqual({ Execute: 1, Create: 1, Task: 1 });
    expect(info.toolCallsComplete).toBe(true);
    expect(info.messageCount).toBe(24);
    expect(info.isSubagent).toBe(false);
    expect(info.parentId).toBeUndefined();
    expect(info.startedAtMs).toBe(Date.parse('2026-11-22T11:32:36.699Z'));
    expect(info.sources).toEqual(['transcript', 'settings']);
    expect(info.warnings).toEqual([]);
  });

  it('knows a sub-agent, its parent and its result', async () => {
    const info = await readLocalSession({
      sessionId: SUB_SESSION,
      transcriptPath: home.transcript(SUB_SESSION),
      messageId: FINAL_SUB,
    });
    expect(info.isSubagent).toBe(true);
    expect(info.parentId).toBe(MAIN_SESSION);
    expect(info.title).toBe('Worker: Tiny sub task');
    expect(info.message?.text).toBe('subagent finished');
    expect(info.tags?.[0]?.name).toBe('subagent');
  });

  it('gives a compaction continuation its parent without calling it a sub-agent', async () => {
    const info = await readLocalSession({
      sessionId: COMPACTED_SESSION,
      transcriptPath: home.transcript(COMPACTED_SESSION),
    });
    expect(info.parentId).toBe(MAIN_SESSION);
    expect(info.isSubagent).toBe(false);
    expect(info.title).toBe('New Session');
  });

  it('finds the transcript by session id alone and adds what the discovery index knows', async () => {
    const info = await readLocalSession({ sessionId: MAIN_SESSION, factoryHome: home.factoryHome });
    expect(info.transcriptPath).toBe(home.transcript(MAIN_SESSION));
    expect(info.title).toBe('OK');
    expect(info.sources).toEqual(['transcript', 'settings', 'index']);
    // The later of the index's modification time and the last transcript timestamp.
    expect(info.updatedAtMs).toBe(Date.parse('2026-11-22T11:32:38.966Z'));
  });

  it('defaults the factory home to $FACTORY_HOME when nothing else says', async () => {
    const saved = process.env.FACTORY_HOME;
    process.env.FACTORY_HOME = home.factoryHome;
    try {
      const info = await readLocalSession({ sessionId: SUB_SESSION });
      expect(info.factoryHome).toBe(home.factoryHome);
      expect(info.title).toBe('Worker: Tiny sub task');
    } finally {
      if (saved === undefined) delete process.env.FACTORY_HOME;
      else process.env.FACTORY_HOME = saved;
    }
  });
});

describe('readLocalSession on damaged stores', () => {
  it('returns warnings, not an error, for an unknown session', async () => {
    const info = await readLocalSession({ sessionId: 'no-such-session', factoryHome: home.factoryHome });
    expect(info.sources).toEqual([]);
    expect(info.title).toBeUndefined();
    expect(info.warnings.join('\n')).toMatch(/no local transcript for session no-such-session/);
  });

  it('still reads the settings when the transcript is missing', async () => {
    await rm(home.transcript(MAIN_SESSION));
    const info = await readLocalSession({
      sessionId: MAIN_SESSION,
      transcriptPath: home.transcript(MAIN_SESSION),
    });
    expect(info.warnings).toContain('transcript missing');
    expect(info.model).toBe('custom:fake-chat');
    // The transcript could not say, so the index does.
    expect(info.title).toBe('OK');
    expect(info.sources).toEqual(['settings', 'index']);
  });

  it('reads a transcript that is being written (last line cut) up to the cut', async () => {
    const path = home.transcript(MAIN_SESSION);
    const text = await readFile(path, 'utf8');
    const finalLine = text.indexOf(`"id": "${FINAL_MAIN}"`);
    await truncate(path, Buffer.byteLength(text.slice(0, finalLine + 60)));
    const info = await readLocalSession({
      sessionId: MAIN_SESSION,
      transcriptPath: path,
      messageId: FINAL_MAIN,
    });
    expect(info.message).toBeUndefined();
    expect(info.title).toBe('OK');
    expect(info.toolCalls).toEqual({ Execute: 1, Create: 1, Task: 1 });
    expect(info.warnings).toContain('transcript ends in a partial line (being written); it was skipped');
  });

  it('skips corrupt lines and unreadable settings and says so once each', async () => {
    const path = home.transcript(SUB_SESSION);
    const lines = (await readFile(path, 'utf8')).split('\n');
    lines.splice(2, 0, '{"type": "message", "id": broken', '\u0000\u0000garbage', '[1,2,3]');
    await writeFile(path, lines.join('\n'));
    await writeFile(
      join(home.factoryHome, SESSION_DIR, `${SUB_SESSION}.settings.json`),
      '{"model": "x", "tok',
    );
    const info = await readLocalSession({
      sessionId: SUB_SESSION,
      transcriptPath: path,
      messageId: FINAL_SUB,
    });
    expect(info.message?.text).toBe('subagent finished');
    expect(info.model).toBe('custom:fake-chat');
    expect(info.warnings).toEqual([
      '3 corrupt transcript line(s) skipped',
      'session settings not valid JSON (partial or corrupt)',
    ]);
  });

  it('reads lines of another version leniently', async () => {
    const dir = join(home.factoryHome, 'sessions', '-tmp-future');
    await mkdir(dir, { recursive: true });
    const path = join(dir, 'future.jsonl');
    await writeFile(
      path,
      [
        JSON.stringify({
          type: 'session_start',
          version: 99,
          title: { nested: true },
          cwd: '/tmp/future',
          extra: [1],
        }),
        JSON.stringify({ type: 'hologram', id: 'h1' }),
        JSON.stringify({
          type: 'message',
          id: 'm1',
          timestamp: 'not a date',
          message: { role: 'assistant', content: 'plain string content' },
        }),
        JSON.stringify({
          type: 'message',
          id: 'm2',
          message: { role: 'assistant', content: [{ type: 'image' }, { type: 'tool_use' }] },
        }),
        JSON.stringify({ type: 'message', id: 'm3', message: 'not an object' }),
        '',
      ].join('\n'),
    );
    const info = await readLocalSession({ sessionId: 'future', transcriptPath: path, messageId: 'm1' });
    expect(info.title).toBeUndefined();
    expect(info.cwd).toBe('/tmp/future');
    expect(info.message?.text).toBe('plain string content');
    expect(info.lastAssistantMessage?.id).toBe('m1');
    expect(info.warnings).toEqual([]);
  });

  it('copes with an empty transcript, a directory in its place and a corrupt index', async () => {
    await writeFile(join(home.factoryHome, 'cache', 'session-discovery-index.json'), '{"entries": {');
    await writeFile(home.transcript(MAIN_SESSION), '');
    const empty = await readLocalSession({
      sessionId: MAIN_SESSION,
      transcriptPath: home.transcript(MAIN_SESSION),
    });
    expect(empty.transcriptComplete).toBe(true);
    expect(empty.model).toBe('custom:fake-chat');
    expect(empty.warnings).toEqual(['session index not valid JSON (partial or corrupt)']);

    const dirPath = join(home.factoryHome, 'sessions', 'odd', 'x.jsonl');
    await mkdir(dirPath, { recursive: true });
    const odd = await readLocalSession({ sessionId: 'x', transcriptPath: dirPath });
    expect(odd.warnings[0]).toMatch(/^transcript (a directory|not readable)/);
  });

  it('returns at once with a warning when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await appendFile(home.transcript(MAIN_SESSION), '');
    const info = await readLocalSession({
      sessionId: MAIN_SESSION,
      transcriptPath: home.transcript(MAIN_SESSION),
      signal: controller.signal,
    });
    expect(info.bytesRead).toBe(0);
    expect(info.sources).not.toContain('transcript');
  });
});
