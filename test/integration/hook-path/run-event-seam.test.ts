import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveConfig, validator } from '../../../src/config/resolve.js';
import type { EventHandoff } from '../../../src/events/types.js';
import type { HandOffOptions } from '../../../src/hook-path/hand-off.js';
import { runEvent } from '../../../src/hook-path/process-event.js';
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
  it.each([
    [{}, false],
    [{ daemon: { fsync: true } }, true],
  ])('spools an event it cannot hand over with fsync as daemon.fsync says (%j)', async (file, fsync) => {
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'hookd-seam-home-')));
    dirs.push(home);
    const config = resolveConfig([
      { level: 'user', file: join(home, 'config.json'), text: JSON.stringify(file) },
    ]);
    const handed: (HandOffOptions | undefined)[] = [];
    await runEvent(
      {
        bytes: Buffer.from(JSON.stringify({ session_id: 's-fsync', hook_event_name: 'Stop' })),
        env: { PATH: process.env.PATH, HOME: home, HOOKD_STATE_DIR: join(home, 'state') },
        cwd: home,
        agent: 'droid',
      },
      {
        logger,
        validator: () => validator,
        loadConfig: () => config,
        handOff: async (_message, options) => {
          handed.push(options);
          return { outcome: 'spooled' };
        },
      },
    );
    expect(handed).toHaveLength(1);
    expect(handed[0]!.fsync).toBe(fsync);
    logged.splice(0);
  });

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

  describe('input it cannot read, as the daemon passes the bytes it received', () => {
    const home = () => {
      const dir = realpathSync(mkdtempSync(join(tmpdir(), 'hookd-seam-bad-')));
      dirs.push(dir);
      return dir;
    };
    const failClosed = (dir: string) =>
      resolveConfig([
        {
          level: 'user',
          file: join(dir, 'config.json'),
          text: JSON.stringify({
            hooks: {
              PreToolUse: [
                {
                  matcher: 'Bash',
                  hooks: [{ type: 'command', name: 'g', command: 'exit 0', onError: 'block' }],
                },
              ],
              Stop: [{ hooks: [{ type: 'command', name: 's', command: 'exit 0', onError: 'block' }] }],
            },
          }),
        },
      ]);
    const run = (
      dir: string,
      bytes: string,
      more: { declaredEvent?: string; env?: Record<string, string> } = {},
    ) =>
      runEvent(
        {
          bytes: Buffer.from(bytes),
          env: { PATH: process.env.PATH, HOME: dir, HOOKD_STATE_DIR: join(dir, 'state'), ...more.env },
          cwd: dir,
          agent: 'claude',
          declaredEvent: more.declaredEvent,
        },
        { logger, validator: () => validator, loadConfig: () => failClosed(dir) },
      );

    it.each([
      ['not JSON, the event declared', 'garbage', { declaredEvent: 'PreToolUse' }],
      [
        'cut, the event and tool read from it',
        '{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"comm',
        {},
      ],
      [
        'over the size limit',
        JSON.stringify({
          hook_event_name: 'PreToolUse',
          tool_name: 'Bash',
          tool_input: { command: 'x'.repeat(5000) },
        }),
        { env: { HOOKD_MAX_STDIN_BYTES: '1000' } },
      ],
    ])('%s: exit 2, the guard not run', async (_name, bytes, more) => {
      const reply = await run(home(), bytes, more);
      expect(reply).toMatchObject({ exitCode: 2, stdout: '', outcomes: [] });
      expect(reply.stderr).toMatch(/^hookd: g could not run \(hookd could not read this PreToolUse event: /);
      expect(reply.report.rejected?.guardsNotRun).toEqual(['g']);
    });

    it('a Stop, or another tool: exit 0', async () => {
      const dir = home();
      expect(await run(dir, '{"hook_event_name":"Stop","stop_hook_act')).toMatchObject({
        exitCode: 0,
        stderr: '',
      });
      expect(await run(dir, 'garbage', { declaredEvent: 'Stop' })).toMatchObject({ exitCode: 0, stderr: '' });
      expect(await run(dir, '{"hook_event_name":"PreToolUse","tool_name":"Read","tool_in')).toMatchObject({
        exitCode: 0,
      });
    });

    it('bytes over the in-memory limit are read into a bounded copy, and the guard runs', async () => {
      const dir = home();
      const config = resolveConfig([
        {
          level: 'user',
          file: join(dir, 'config.json'),
          text: JSON.stringify({
            hooks: {
              PreToolUse: [{ hooks: [{ type: 'command', command: 'wc -c >&2; exit 2', onError: 'block' }] }],
            },
          }),
        },
      ]);
      const bytes = Buffer.from(
        JSON.stringify({
          hook_event_name: 'PreToolUse',
          tool_name: 'Write',
          tool_input: { content: 'c'.repeat(300_000) },
        }),
      );
      const handed: EventHandoff[] = [];
      const reply = await runEvent(
        {
          bytes,
          env: {
            PATH: process.env.PATH,
            HOME: dir,
            HOOKD_STATE_DIR: join(dir, 'state'),
            HOOKD_STDIN_MEMORY_BYTES: '100000',
          },
          cwd: dir,
          agent: 'claude',
        },
        {
          logger,
          validator: () => validator,
          loadConfig: () => config,
          handOff: async (message) => (handed.push(message), { outcome: 'acked' }),
        },
      );
      expect(reply.exitCode).toBe(2);
      expect(reply.stderr.trim()).toBe(String(bytes.length));
      const content = (reply.report.event!.payload.tool_input as { content: string }).content;
      expect(content).toBe('c'.repeat(300_000));
      const handedContent = (handed[0]!.event.payload.tool_input as { content: string }).content;
      expect(handedContent).toMatch(/^c{65536}… \(300000 characters, cut\)$/);
    });
  });
});
