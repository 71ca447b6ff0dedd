import { mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { notifySettings } from '../../../src/config/schemas/notify-schema.js';
import { trustProjectFile } from '../../../src/config/trust.js';
import { ProjectNotifyCache, qualifiedChannelName } from '../../../src/journal/project-notify.js';
import type { Channel } from '../../../src/channels/channel.js';
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

/** A temp user config and state dir, and a cache over them writing its channels to `table`. */
function setup(table = new Map<string, Channel>(), max?: number) {
  const temp = makeTempDir();
  cleanups.push(temp.cleanup);
  const env = {
    HOME: temp.dir,
    HOOKD_CONFIG: join(temp.dir, 'user.json'),
    HOOKD_STATE_DIR: join(temp.dir, 's'),
  };
  writeFileSync(env.HOOKD_CONFIG, '{}');
  const cache = new ProjectNotifyCache({
    env,
    logger: pino({ level: 'silent' }),
    userNotify: () => notifySettings({}),
    userVersion: () => 1,
    build: { env },
    channels: () => table,
    ...(max !== undefined ? { max } : {}),
  });
  return { temp, env, cache };
}

describe('ProjectNotifyCache', () => {
  it('is bounded: the least recently used project is dropped with its channels, and loaded again on its next event', () => {
    const table = new Map<string, Channel>();
    const { temp, env, cache } = setup(table, 1);
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
    const [a, b] = dirs as [string, string];
    expect(cache.notifyFor(eventIn(a))!.rules!.at(-1)!.channels).toEqual([qualifiedChannelName('team', a)]);
    expect([...table.keys()]).toEqual([qualifiedChannelName('team', a)]);
    cache.notifyFor(eventIn(b));
    expect([...table.keys()]).toEqual([qualifiedChannelName('team', b)]);
    expect(cache.notifyFor(eventIn(a))).toBeDefined();
    expect([...table.keys()]).toEqual([qualifiedChannelName('team', a)]);
    expect(cache.notifyFor(eventIn(join(temp.dir, 'none')))).toBeUndefined();
  });

  it("never applies a trusted project's rules in a project whose config links to it, nor once its own became a link", () => {
    const { temp, env, cache } = setup();
    const trusted = join(temp.dir, 'trusted');
    const hostile = join(temp.dir, 'hostile');
    for (const dir of [trusted, hostile]) mkdirSync(join(dir, '.hookd'), { recursive: true });
    writeFileSync(
      projectConfigPath(trusted),
      JSON.stringify({ notify: { rules: [{ name: 'ci', on: 'Stop', channels: ['desktop'] }] } }),
    );
    trustProjectFile(env, projectConfigPath(trusted));
    symlinkSync(projectConfigPath(trusted), projectConfigPath(hostile));
    expect(cache.notifyFor(eventIn(trusted))!.rules!.map((r) => r.name)).toContain('project:ci');
    expect(cache.notifyFor(eventIn(hostile))).toBeUndefined();
    // The trusted project's own config swapped for a link to the same bytes: seen at once, not applied.
    renameSync(projectConfigPath(trusted), join(trusted, 'hookd.json'));
    symlinkSync('../hookd.json', projectConfigPath(trusted));
    expect(cache.notifyFor(eventIn(trusted))).toBeUndefined();
  });
});
