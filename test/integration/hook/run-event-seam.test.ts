import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveConfig, validator } from '../../../src/config/resolve.js';
import type { EventHandoff } from '../../../src/events/types.js';
import type { HandOffOptions } from '../../../src/hook/hand-off.js';
import { runEvent } from '../../../src/hook/process-event.js';
import type { LineLogger } from '../../../src/logging/line-logger.js';

// "Run one event" called in-process, as the daemon will: the request carries env, cwd and umask, the
// config is the caller's, the hand-off is a fake. A real `sh -c` must see the request's world, not ours.

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  delete process.env.SEAM_MARK;
});

const logged: { level: string; fields: Record<string, unknown> }[] = [];
const logger: LineLogger = {
  log: (level, fields) => void logged.push({ level, fields: fields as Record<string, unknown> }),
  close: () => {},
} as LineLogger;

describe('runEvent (the seam)', () => {
  it('runs commands with the request env, cwd and umask, the given config, and hands off once', async () => {
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'hookd-seam-home-')));
    const agentCwd = realpathSync(mkdtempSync(join(tmpdir(), 'hookd-seam-cwd-')));
    dirs.push(home, agentCwd);
    process.env.SEAM_MARK = 'from the test process';
    const config = resolveConfig([
      {
        level: 'user',
        file: join(home, 'config.json'),
        text: JSON.stringify({
          hooks: {
            Stop: [
              {
                hooks: [
                  { type: 'command', command: 'printf "%s|%s|%s" "$SEAM_MARK" "$(pwd -P)" "$(umask)"' },
                ],
              },
            ],
          },
        }),
      },
    ]);
    const handed: { message: EventHandoff; options: HandOffOptions | undefined }[] = [];
    let loads = 0;
    const reply = await runEvent(
      {
        bytes: Buffer.from(
          JSON.stringify({ session_id: 's-seam', hook_event_name: 'Stop', stop_hook_active: false }),
        ),
        env: {
          PATH: process.env.PATH,
          HOME: home,
          HOOKD_STATE_DIR: join(home, 'state'),
          SEAM_MARK: 'from the request',
        },
        cwd: agentCwd,
        umask: 0o027,
        agent: 'droid',
      },
      {
        logger,
        validator: () => validator,
        loadConfig: () => (loads++, config),
        now: () => 1_234,
        handOff: async (message, options) => {
          handed.push({ message, options });
          return { outcome: 'acked' };
        },
      },
    );
    expect(loads).toBe(1);
    expect(reply.exitCode).toBe(0);
    expect(reply.report.ran).toHaveLength(1);
    expect(reply.report.ran[0]!.result.stdout.text()).toBe(`from the request|${agentCwd}|0027`);
    expect(reply.outcomes).toMatchObject([{ exitCode: 0, timedOut: false }]);
    expect(handed).toHaveLength(1);
    expect(handed[0]!.message.event).toMatchObject({
      name: 'Stop',
      sessionId: 's-seam',
      agent: 'droid',
      receivedAt: 1_234,
    });
    expect(handed[0]!.message.results).toEqual(reply.outcomes);
    expect(handed[0]!.options?.env?.SEAM_MARK).toBe('from the request');
    expect(logged.find((l) => l.fields.kind === 'event')?.fields).toMatchObject({
      commands: 1,
      handoff: 'acked',
    });
  });

  it('answers a blocking decision in the reply, and a config that cannot load runs nothing', async () => {
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'hookd-seam-home-')));
    dirs.push(home);
    const config = resolveConfig([
      {
        level: 'user',
        file: join(home, 'config.json'),
        text: JSON.stringify({
          hooks: {
            Stop: [{ hooks: [{ type: 'command', command: 'echo "not yet" >&2; exit 2', blocking: true }] }],
          },
        }),
      },
    ]);
    const request = {
      bytes: Buffer.from(JSON.stringify({ session_id: 's2', hook_event_name: 'Stop' })),
      env: { PATH: process.env.PATH, HOME: home, HOOKD_STATE_DIR: join(home, 'state') },
      cwd: home,
      agent: 'droid' as const,
    };
    const blocked = await runEvent(request, { logger, validator: () => validator, loadConfig: () => config });
    expect(blocked).toMatchObject({ exitCode: 2, stderr: expect.stringContaining('not yet') });

    const broken = await runEvent(request, {
      logger,
      validator: () => validator,
      loadConfig: () => {
        throw new Error('no config today');
      },
    });
    expect(broken).toMatchObject({ exitCode: 0, stdout: '', stderr: '', outcomes: [] });
  });
});
