import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLocalSession } from '../../../src/enrich/session-store.js';
import { useTempDir } from '../../helpers/temp.js';

// A Copilot CLI 1.0.102 session's event log, as the real binary wrote it (test/fixtures/copilot-1.0.102:
// three shell calls, then "All done."; four model calls of 120 input and 7 output tokens each).

const ID = '0d3a4f40-b441-4fc8-9189-b3d2ebddf85a';
const LOG = join(
  import.meta.dirname,
  '../../fixtures/copilot-1.0.102/copilot-home/session-state',
  ID,
  'events.jsonl',
);

describe("Copilot CLI's session log", () => {
  const tmp = useTempDir('hkcps-');

  function placed(): string {
    const dir = join(tmp.dir, '.copilot', 'session-state', ID);
    mkdirSync(dir, { recursive: true });
    copyFileSync(LOG, join(dir, 'events.jsonl'));
    return join(dir, 'events.jsonl');
  }

  it('gives the final message, the model and the tokens summed over the model calls', async () => {
    const info = await readLocalSession({ sessionId: ID, transcriptPath: placed() });
    expect(info.lastAssistantMessage?.text).toBe('All done.');
    expect(info.model).toBe('gpt-5.5');
    expect(info.tokens).toMatchObject({ input: 480, output: 28, cacheRead: 0, thinking: 0, total: 508 });
    expect(info.cwd).toBe('/home/dev/projects/demo');
    expect(info.warnings).toEqual([]);
  });

  it('leaves tokens out, rather than under-count them, when only the end of a long log is read', async () => {
    const path = placed();
    const filler = JSON.stringify({ type: 'hook.start', data: { pad: 'x'.repeat(1024) } });
    const { appendFileSync } = await import('node:fs');
    appendFileSync(path, `${filler}\n`.repeat(200));
    const info = await readLocalSession({ sessionId: ID, transcriptPath: path, maxReadBytes: 128 * 1024 });
    expect(info.tokens).toBeUndefined();
    expect(info.warnings.join(' ')).toMatch(/not counted/);
  });

  it('skips a line that is not JSON and a message without text', async () => {
    const dir = join(tmp.dir, '.copilot', 'session-state', ID);
    mkdirSync(dir, { recursive: true });
    const path = join(dir, 'events.jsonl');
    writeFileSync(
      path,
      [
        JSON.stringify({ type: 'assistant.message', data: { content: 'First answer.' } }),
        '{not json',
        JSON.stringify({ type: 'assistant.message', data: { content: '' } }),
        '',
      ].join('\n'),
    );
    const info = await readLocalSession({ sessionId: ID, transcriptPath: path });
    expect(info.lastAssistantMessage?.text).toBe('First answer.');
  });
});

describe("Copilot CLI's session log, for an event that names none", () => {
  const tmp = useTempDir('hkcpn-');

  it('is found under the session id in $COPILOT_HOME/session-state', async () => {
    const dir = join(tmp.dir, 'copilot-home', 'session-state', ID);
    mkdirSync(dir, { recursive: true });
    copyFileSync(LOG, join(dir, 'events.jsonl'));
    const saved = process.env.COPILOT_HOME;
    process.env.COPILOT_HOME = join(tmp.dir, 'copilot-home');
    try {
      const info = await readLocalSession({ sessionId: ID, agent: 'copilot' });
      expect(info.tokens).toMatchObject({ input: 480, output: 28 });
      const other = await readLocalSession({ sessionId: '../../etc', agent: 'copilot' });
      expect(other.tokens).toBeUndefined();
    } finally {
      if (saved === undefined) delete process.env.COPILOT_HOME;
      else process.env.COPILOT_HOME = saved;
    }
  });
});
