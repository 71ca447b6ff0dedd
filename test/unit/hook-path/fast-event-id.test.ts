import { describe, expect, it } from 'vitest';
import { takeFastEventId } from '../../../src/hook-path/fast-event-id.js';

describe('takeFastEventId: the id a dead daemon acknowledged, from the fast client fallback', () => {
  const ID = '0193a1b2-c3d4-4e5f-8a6b-7c8d9e0f1a2b';

  it('is taken from a client fallback, and always removed from the environment', () => {
    const env: Record<string, string | undefined> = { HOOKD_FAST_EVENT_ID: ID, KEEP: '1' };
    expect(takeFastEventId(env, true)).toBe(ID);
    expect(env).toEqual({ KEEP: '1' });
    const inherited: Record<string, string | undefined> = { HOOKD_FAST_EVENT_ID: ID };
    expect(takeFastEventId(inherited, false)).toBeUndefined();
    expect(inherited).toEqual({});
    expect(takeFastEventId({}, true)).toBeUndefined();
  });

  it.each(['', '../../etc/passwd', 'a b', 'x'.repeat(81), 'id\n', 'é'])('refuses %j', (value) => {
    const env: Record<string, string | undefined> = { HOOKD_FAST_EVENT_ID: value };
    expect(takeFastEventId(env, true)).toBeUndefined();
    expect(env).toEqual({});
  });
});
