import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { buildChannels } from '../../../src/channels/build-channels.js';
import { notifySchema } from '../../../src/config/notify-schema.js';
import type { RenderedNotification } from '../../../src/daemon/notification.js';
import { tempEnv } from './helpers.js';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

const notification: RenderedNotification = {
  title: 't',
  body: 'b',
  urgency: 'normal',
  rule: 'r',
  event: 'Stop',
  eventIds: ['e1'],
  count: 1,
  at: 0,
  fields: [],
};

describe('${VAR} in command strings is never shell text (issue 9, item 10)', () => {
  it.each([
    ['a string command', 'cd ${DIR} && cat > out-${TAG}.json'],
    ['sh -c in an argv', ['sh', '-c', 'cd ${DIR} && cat > out-${TAG}.json']],
  ])('%s: a value with ; and a command in it runs nothing', async (_name, command) => {
    const t = tempEnv();
    cleanups.push(t.cleanup);
    const env = { ...t.env, DIR: t.root, TAG: 'x; touch pwned; echo' };
    const config = notifySchema.parse({ channels: { cmd: { type: 'command', command } } });
    const channel = buildChannels(config, { env }).get('cmd')!;
    const result = await channel.send(notification, {
      deliveryId: 'e1/0/cmd',
      attempt: 1,
      threads: { get: () => undefined, set: async () => {} },
    });
    expect(existsSync(join(t.root, 'pwned'))).toBe(false);
    expect(result.ok).toBe(true);
    expect(readdirSync(t.root)).toContain('out-x; touch pwned; echo.json');
  });
});
