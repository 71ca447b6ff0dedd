import { appendFileSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  readCopilotSession,
  type CopilotLogEvent,
  type ReadCopilotSessionOptions,
} from '../../../src/enrich/copilot-session.js';
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

// Copilot writes its log in batches behind the session: when its Stop hook starts, the log often ends
// before the turn's last model call and final message (44 of the 52 lines here). The Stop payload's
// timestamp is the one its own `hook.start` line (line 48) carries.
describe("Copilot CLI's session log, written behind the Stop and SessionEnd hooks", () => {
  const tmp = useTempDir('hkcpw-');
  const lines = readFileSync(LOG, 'utf8').split('\n').filter(Boolean);
  const STOP = { name: 'Stop', timestamp: '2026-11-27T06:51:29.691Z' };
  const SESSION_END = { name: 'SessionEnd', timestamp: 1795762289785 };

  const read = (path: string, event: CopilotLogEvent, more: Partial<ReadCopilotSessionOptions>) =>
    readCopilotSession({ sessionId: ID, transcriptPath: path, maxReadBytes: 1 << 22, event, ...more });

  function logPath(): string {
    const dir = join(tmp.dir, '.copilot', 'session-state', ID);
    mkdirSync(dir, { recursive: true });
    return join(dir, 'events.jsonl');
  }

  /** The log as far as line `n`; the pause (Copilot writing on) appends the rest, once. */
  function behind(n: number) {
    const path = logPath();
    if (n > 0) writeFileSync(path, `${lines.slice(0, n).join('\n')}\n`);
    let pauses = 0;
    const sleep = async () => {
      pauses += 1;
      if (pauses === 1) appendFileSync(path, `${lines.slice(n).join('\n')}\n`);
    };
    return { path, sleep, pauses: () => pauses };
  }

  it("a Stop waits until the log holds its own hook, then has the final message and every model call's tokens", async () => {
    const log = behind(44);
    const info = await read(log.path, STOP, { sleep: log.sleep });
    expect(info.lastAssistantMessage?.text).toBe('All done.');
    expect(info.tokens).toMatchObject({ input: 480, output: 28, total: 508 });
    expect(info.warnings).toEqual([]);
    expect(log.pauses()).toBe(1);
  });

  it("a SessionEnd (Copilot's own numeric timestamp) waits for a log that is not there yet", async () => {
    const log = behind(0);
    const info = await read(log.path, SESSION_END, { sleep: log.sleep });
    expect(info.tokens).toMatchObject({ input: 480, output: 28 });
    expect(info.warnings).toEqual([]);
  });

  it('gives what is there once the wait is over, and says so', async () => {
    const path = logPath();
    writeFileSync(path, `${lines.slice(0, 44).join('\n')}\n`);
    let clock = 0;
    let pauses = 0;
    const info = await read(path, STOP, {
      waitMs: 1000,
      now: () => clock,
      sleep: async (ms) => {
        pauses += 1;
        clock += ms;
      },
    });
    expect(info.lastAssistantMessage).toBeUndefined();
    expect(info.tokens).toMatchObject({ input: 360, output: 21 });
    expect(info.warnings).toEqual(['the session log had not caught up with Stop within 1000 ms']);
    expect(pauses).toBe(40);
  });

  it('an earlier hook of the same kind does not count, and other events never wait', async () => {
    // The log up to the Stop hook's line, but the event is a later Stop (a second turn's).
    const path = logPath();
    writeFileSync(path, `${lines.slice(0, 48).join('\n')}\n`);
    let clock = 0;
    const later = await read(
      path,
      { name: 'Stop', timestamp: '2026-11-27T06:52:00.000Z' },
      { waitMs: 100, now: () => clock, sleep: async (ms) => void (clock += ms) },
    );
    expect(later.warnings.join(' ')).toMatch(/not caught up/);
    const never = async () => expect.fail('waited');
    for (const name of ['PostToolUse', 'UserPromptSubmit']) {
      const info = await read(path, { name, timestamp: STOP.timestamp }, { sleep: never });
      expect(info.lastAssistantMessage?.text).toBe('All done.');
    }
    const untimed = await read(path, { name: 'Stop', timestamp: 'not a time' }, { sleep: never });
    expect(untimed.warnings).toEqual([]);
  });
});
