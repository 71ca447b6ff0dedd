import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { buildChannels } from '../../../src/channels/build-channels.js';
import { notifySchema } from '../../../src/config/schemas/notify-schema.js';
import { plainContext, plainNotification, tempEnv } from './helpers.js';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

describe('${VAR} in command strings is never shell text', () => {
  it.each([
    ['a string command', 'cd ${DIR} && cat > out-${TAG}.json'],
    ['sh -c in an argv', ['sh', '-c', 'cd ${DIR} && cat > out-${TAG}.json']],
  ])('%s: a value with ; and a command in it runs nothing', async (_name, command) => {
    const t = tempEnv();
    cleanups.push(t.cleanup);
    const env = { ...t.env, DIR: t.root, TAG: 'x; touch pwned; echo' };
    const config = notifySchema.parse({ channels: { cmd: { type: 'command', command } } });
    const channel = buildChannels(config, { env }).get('cmd')!;
    const result = await channel.send(plainNotification, plainContext);
    expect(existsSync(join(t.root, 'pwned'))).toBe(false);
    expect(result.ok).toBe(true);
    expect(readdirSync(t.root)).toContain('out-x; touch pwned; echo.json');
  });
});
