import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { notifySettings } from '../../../src/config/notify-schema.js';
import { trustProjectFile } from '../../../src/config/trust.js';
import { ProjectNotifyCache, qualifiedChannelName } from '../../../src/daemon/project-notify.js';
import type { Channel } from '../../../src/notify/channels/channel.js';
import type { HookEvent } from '../../../src/events/types.js';
import { projectConfigPath } from '../../../src/paths.js';
import { makeTempDir } from '../../helpers/temp.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function eventIn(cwd: string): HookEvent {
  return { id: 'e', receivedAt: 0, agent: 'droid', name: 'Stop', cwd, payload: {} } as HookEvent;
}

describe('ProjectNotifyCache', () => {
  it('is bounded: the least recently used project is dropped with its channels, and loaded again on its next event', () => {
    const temp = makeTempDir();
    cleanups.push(temp.cleanup);
    const env = {
      HOME: temp.dir,
      HOOKD_CONFIG: join(temp.dir, 'user.json'),
      HOOKD_STATE_DIR: join(temp.dir, 's'),
    };
    writeFileSync(env.HOOKD_CONFIG, '{}');
    const dirs = ['a', 'b'].map((name) => {
      const dir = join(temp.dir, name);
      mkdirSync(join(dir, '.hookd'), { recursive: true });
      writeFileSync(
        projectConfigPath(dir),
        JSON.stringify({
          notify: {
            channels: { team: { type: 'webhook', url: 'http://127.0.0.1:9/x' } },
            rules: [{ on: 'Stop', channels: ['team'] }],
          },
        }),
      );
      trustProjectFile(env, projectConfigPath(dir));
      return dir;
    });
    const table = new Map<string, Channel>();
    const cache = new ProjectNotifyCache({
      env,
      logger: pino({ level: 'silent' }),
      userNotify: () => notifySettings({}),
      userVersion: () => 1,
      build: { env },
      channels: () => table,
      max: 1,
    });
    const [a, b] = dirs as [string, string];
    expect(cache.notifyFor(eventIn(a))!.rules!.at(-1)!.channels).toEqual([qualifiedChannelName('team', a)]);
    expect([...table.keys()]).toEqual([qualifiedChannelName('team', a)]);
    cache.notifyFor(eventIn(b));
    expect([...table.keys()]).toEqual([qualifiedChannelName('team', b)]);
    expect(cache.notifyFor(eventIn(a))).toBeDefined();
    expect([...table.keys()]).toEqual([qualifiedChannelName('team', a)]);
    expect(cache.notifyFor(eventIn(join(temp.dir, 'none')))).toBeUndefined();
  });
});
