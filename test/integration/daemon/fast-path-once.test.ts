import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_DIR } from '../../helpers/fixtures.js';
import { makeTempDir } from '../../helpers/temp.js';
import { waitFor } from './helpers.js';
import { stopDaemon, useProcessCleanup } from './process-helpers.js';
import {
  handOffEnv,
  startFastDaemon,
  startHook,
  TRANSPORTS,
  writeFastConfig,
} from './fast-client-helpers.js';

// The same event twice, on both transports: same-event-twice.test.ts.
//
// The right agent: hookd's entry in Claude Code's settings (`--agent claude`) fired by Cursor (from
// its documented payload, test/fixtures/cursor-docs/: written from its docs, not recorded) is Cursor's
// event for the command and in the journal, under hookd's event name.

const { pids } = useProcessCleanup();
let tmp: ReturnType<typeof makeTempDir>;
let env: Record<string, string>;
let daemon: Awaited<ReturnType<typeof startFastDaemon>> | undefined;

beforeEach(() => {
  tmp = makeTempDir('hkonce-');
  env = handOffEnv(tmp.dir);
});
afterEach(async () => {
  await stopDaemon(daemon);
  daemon = undefined;
  tmp.cleanup();
});

/** The journal's `in` records: the event each carries. */
function journaled(): { agent: string; name: string; sessionId?: string }[] {
  const file = join(env.HOOKD_STATE_DIR!, 'daemon', 'journal.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map(
      (l) =>
        JSON.parse(l) as { t: string; h?: { event: { agent: string; name: string; sessionId?: string } } },
    )
    .filter((r) => r.t === 'in' && r.h)
    .map((r) => r.h!.event);
}

describe("Cursor running hookd's Claude Code entry", () => {
  it('is recorded as Cursor: the command sees it, the journal keeps it', async () => {
    const seen = join(tmp.dir, 'seen.txt');
    writeFastConfig(env, {
      PreToolUse: [
        {
          hooks: [
            { type: 'command', command: `printf '%s %s\\n' "$HOOKD_AGENT" "$HOOKD_EVENT" >> '${seen}'` },
          ],
        },
      ],
    });
    daemon = await startFastDaemon(env);
    for (const name of ['preToolUse-Shell.json', 'stop.json']) {
      const stdin = readFileSync(join(REPO_DIR, 'test', 'fixtures', 'cursor-docs', name));
      const h = startHook(TRANSPORTS.fast('claude'), { env, cwd: tmp.dir, stdin });
      pids.push(h.child.pid!);
      const ran = await h.done;
      expect(ran.code, ran.stderr.toString()).toBe(0);
    }
    expect(readFileSync(seen, 'utf8')).toBe('cursor PreToolUse\n');
    await waitFor(() => journaled().length === 2, 20_000, 'both events in the journal');
    expect(journaled().map((e) => [e.agent, e.name, e.sessionId])).toEqual([
      ['cursor', 'PreToolUse', 'c0ffee00-1111-4222-8333-444455556666'],
      ['cursor', 'Stop', 'c0ffee00-1111-4222-8333-444455556666'],
    ]);
  });
});
