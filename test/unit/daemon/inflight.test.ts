import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clearInflight, recordInflight, recoverInflight } from '../../../src/journal/inflight.js';
import type { EventHandoff } from '../../../src/events/types.js';
import { makeTempDir } from '../../helpers/temp.js';

// The fast listener's in-flight records (src/journal/inflight.ts): written in place with one exclusive
// open and one write; a record torn by a daemon that died writing it is moved aside, never journaled.

let tmp: ReturnType<typeof makeTempDir>;
let dir: string;
beforeEach(() => {
  tmp = makeTempDir();
  dir = join(tmp.dir, 'state', 'daemon', 'inflight');
});
afterEach(() => tmp.cleanup());

const handoff = (id: string): EventHandoff => ({
  v: 1,
  type: 'event',
  event: {
    id,
    receivedAt: 1_700_000_000_000,
    agent: 'droid',
    name: 'PostToolUse',
    sessionId: 's1',
    cwd: '/tmp',
    payload: { hook_event_name: 'PostToolUse', session_id: 's1', tag: id },
  },
  results: [],
});

/** A logger edge that keeps what it is told. */
function logSink() {
  const lines: { level: string; msg: string }[] = [];
  const at = (level: string) => (_fields: unknown, msg: string) => lines.push({ level, msg });
  const logger = { warn: at('warn'), error: at('error'), info: at('info') } as unknown as Logger;
  return { logger, lines };
}

async function recover() {
  const received: EventHandoff[] = [];
  const sink = logSink();
  const taken = await recoverInflight(
    dir,
    (h) => {
      received.push(h);
      return Promise.resolve({ duplicate: false });
    },
    sink.logger,
  );
  return { taken, received, lines: sink.lines };
}

describe('in-flight records', () => {
  it('are written whole, 0600 in a 0700 folder, and removed by clearInflight', () => {
    const name = recordInflight(dir, 1_700_000_000_123, handoff('e1'));
    expect(name).toBe('1700000000123-e1.json');
    const file = join(dir, name);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(handoff('e1'));
    expect(readdirSync(dir)).toEqual([name]); // no temp file beside it
    clearInflight(dir, name);
    expect(existsSync(file)).toBe(false);
    clearInflight(dir, name); // gone already: no throw
  });

  it('recreates the folder when it went missing after the first record', () => {
    recordInflight(dir, 1, handoff('e1'));
    tmp.cleanup();
    const name = recordInflight(dir, 2, handoff('e2'));
    expect(existsSync(join(dir, name))).toBe(true);
  });

  it('never writes through a planted symlink, nor over an existing file', () => {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const target = join(tmp.dir, 'target');
    writeFileSync(target, 'precious');
    symlinkSync(target, join(dir, '0000000000005-e5.json'));
    expect(() => recordInflight(dir, 5, handoff('e5'))).toThrow(/EEXIST/);
    expect(readFileSync(target, 'utf8')).toBe('precious');
    writeFileSync(join(dir, '0000000000006-e6.json'), 'other', { mode: 0o600 });
    expect(() => recordInflight(dir, 6, handoff('e6'))).toThrow(/EEXIST/);
    expect(readFileSync(join(dir, '0000000000006-e6.json'), 'utf8')).toBe('other');
  });

  it('recovery journals a whole record once and removes it', async () => {
    recordInflight(dir, 7, handoff('e7'));
    const first = await recover();
    expect(first.taken).toBe(1);
    expect(first.received.map((h) => h.event.id)).toEqual(['e7']);
    expect(readdirSync(dir).filter((n) => n.endsWith('.json'))).toEqual([]);
    expect((await recover()).received).toEqual([]);
  });

  it('recovery moves torn records (empty, cut short) aside, never journals them, and goes on', async () => {
    const whole = JSON.stringify(handoff('e8'));
    recordInflight(dir, 9, handoff('e9'));
    writeFileSync(join(dir, '0000000000001-empty.json'), '', { mode: 0o600 });
    writeFileSync(join(dir, '0000000000002-cut.json'), whole.slice(0, whole.length - 7), { mode: 0o600 });
    writeFileSync(join(dir, '0000000000003-half.json'), whole.slice(0, 40), { mode: 0o600 });
    const { taken, received, lines } = await recover();
    expect(received.map((h) => h.event.id)).toEqual(['e9']);
    expect(taken).toBe(1);
    expect(readdirSync(join(dir, 'rejected')).sort()).toEqual([
      '0000000000001-empty.json',
      '0000000000002-cut.json',
      '0000000000003-half.json',
    ]);
    expect(lines.filter((l) => l.msg.startsWith('torn in-flight record'))).toHaveLength(3);
    expect(readdirSync(dir).filter((n) => n.endsWith('.json'))).toEqual([]);
  });
});
