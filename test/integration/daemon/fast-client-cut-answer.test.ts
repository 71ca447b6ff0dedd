import type { Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../helpers/temp.js';
import { useProcessCleanup } from './process-helpers.js';
import { fakeListener, handOffEnv, NATIVE_CLIENT, startHook, toolEvent } from './fast-client-helpers.js';

// After GO the native client never falls back: an answer that does not come whole (the daemon went away
// in the middle of the output it announced, or sent a RESULT line it cannot read) ends with the ACK's
// lost code and a message on stderr, as a daemon gone before its RESULT does. A guard marked
// "onError": "block" must not pass on half an answer.

const { pids, cleanups } = useProcessCleanup();
let tmp: ReturnType<typeof makeTempDir>;
let env: Record<string, string>;

beforeEach(() => {
  tmp = makeTempDir('hkfc-');
  env = handOffEnv(tmp.dir);
});
afterEach(() => tmp.cleanup());

/** The end of a request with its stdin inline: the empty entry after the environment, then stdin's NUL. */
function requestEnd(seen: Buffer): boolean {
  const envEnd = seen.indexOf('\0\0');
  return envEnd >= 0 && seen.indexOf(0, envEnd + 2) >= 0;
}

/** A daemon that acknowledges each request with the next ACK line, then, after GO, sends the next answer
 * and closes the connection. */
async function scriptedDaemon(script: { ack: string; answer: Buffer }[]) {
  let n = 0;
  await fakeListener(
    env,
    (s: Socket) => {
      const step = script[n++]!;
      let seen = Buffer.alloc(0);
      let acked = false;
      s.on('data', (c: Buffer) => {
        seen = Buffer.concat([seen, c]);
        if (!acked && requestEnd(seen)) {
          acked = true;
          seen = Buffer.alloc(0);
          s.write(step.ack);
        } else if (acked && seen.toString('latin1') === 'GO\n') s.end(step.answer);
      });
    },
    cleanups,
  );
}

async function run(tag: string) {
  const h = startHook(`'${NATIVE_CLIENT}' --agent claude --event PreToolUse`, {
    env,
    cwd: tmp.dir,
    stdin: toolEvent(tag),
  });
  pids.push(h.child.pid!);
  return h.done;
}

describe('the native client after GO, when the answer does not come whole', () => {
  it('exits with the lost code and says so when the output stops short of its announced length', async () => {
    const out = Buffer.from('{"hookSpecificOutput":{"permissionDecision":"de');
    await scriptedDaemon([
      { ack: 'ACK 2 ev-cut\n', answer: Buffer.concat([Buffer.from('RESULT 0 90 0\n'), out]) },
      { ack: 'ACK 1 ev-err\n', answer: Buffer.from('RESULT 3 2 10\nokabc') },
      { ack: 'ACK 2 ev-whole\n', answer: Buffer.from('RESULT 0 2 3\nokabc') },
    ]);
    const cut = await run('s1-cut');
    expect(cut.code).toBe(2); // the ACK's lost code: a blocking guard fails closed, never allows
    expect(cut.stdout.equals(out)).toBe(true); // what came was written as it streamed
    expect(cut.stderr.toString()).toBe('hookd: the daemon went away while running the event (ev-cut)\n');

    const err = await run('s1-err');
    expect(err.code).toBe(1);
    expect(err.stdout.toString()).toBe('ok');
    expect(err.stderr.toString()).toBe('abchookd: the daemon went away while running the event (ev-err)\n');

    // The same bytes, announced truly: the RESULT's code, nothing more said.
    const whole = await run('s1-whole');
    expect([whole.code, whole.stdout.toString(), whole.stderr.toString()]).toEqual([0, 'ok', 'abc']);
  });

  it('exits with the lost code and says so when the RESULT line cannot be read', async () => {
    await scriptedDaemon([
      { ack: 'ACK 2 ev-x\n', answer: Buffer.from('RESULT 0 x 0\n') },
      { ack: 'ACK 1 ev-neg\n', answer: Buffer.from('RESULT 0 -1 0\nok') },
    ]);
    const bad = await run('s2-x');
    expect(bad.code).toBe(2);
    expect(bad.stdout.length).toBe(0);
    expect(bad.stderr.toString()).toBe('hookd: the daemon went away while running the event (ev-x)\n');
    const negative = await run('s2-neg');
    expect(negative.code).toBe(1);
    expect(negative.stdout.length).toBe(0);
    expect(negative.stderr.toString()).toBe('hookd: the daemon went away while running the event (ev-neg)\n');
  });
});
