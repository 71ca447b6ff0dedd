import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config/resolve.js';
import { validateConfigObject } from '../../../src/config/validate.js';

const ntfy = {
  server: 'https://ntfy.example.com',
  topic: 'asks',
  replyTopic: 'answers',
  token: '${NTFY_TOKEN}',
};

const messages = (result: ReturnType<typeof validateConfigObject>) =>
  result.ok ? [] : result.issues.map((i) => `${i.path}: ${i.message}`);

describe('the remote section of the config', () => {
  it('takes an ntfy channel on an access-controlled server with a token', () => {
    const result = validateConfigObject({ remote: { ntfy, approvers: { slack: ['U012ABCDEF'] } } }, 'c.json');
    expect(messages(result)).toEqual([]);
    expect(result.ok && result.config.remote).toMatchObject({
      enabled: true,
      waitSec: 55,
      maxPendingPerSession: 2,
    });
  });

  it('refuses the public ntfy.sh, a server without a token, plain http off this machine, one topic for both', () => {
    expect(
      messages(validateConfigObject({ remote: { ntfy: { ...ntfy, server: 'https://ntfy.sh' } } }, 'c')),
    ).toEqual([expect.stringContaining('ntfy.sh is a public server')]);
    const { token: _token, ...noToken } = ntfy;
    expect(messages(validateConfigObject({ remote: { ntfy: noToken } }, 'c')).join()).toContain(
      'remote.ntfy.token',
    );
    expect(
      messages(
        validateConfigObject({ remote: { ntfy: { ...ntfy, server: 'http://ntfy.example.com' } } }, 'c'),
      ),
    ).toEqual([expect.stringContaining('use https')]);
    expect(
      messages(validateConfigObject({ remote: { ntfy: { ...ntfy, replyTopic: 'asks' } } }, 'c')),
    ).toEqual([expect.stringContaining('a topic of its own')]);
  });

  it('refuses a project file that names an approver or a channel, trusted or not', () => {
    for (const remote of [{ approvers: { slack: ['U0EVIL'] } }, { ntfy }, { enabled: true }]) {
      const result = validateConfigObject({ remote }, '/repo/.hookd/config.json', 'project');
      expect(result.ok).toBe(false);
      expect(messages(result).join()).toMatch(/a project file may only turn remote answers off/);
    }
  });

  it('lets a trusted project file turn remote answers off for its project (the kill switch)', () => {
    const user = JSON.stringify({ remote: { ntfy } });
    const loaded = resolveConfig([
      { level: 'user', file: '/u/config.json', text: user },
      { level: 'project', file: '/p/.hookd/config.json', text: '{"remote": {"enabled": false}}' },
    ]);
    expect(loaded.sources.every((s) => s.ok)).toBe(true);
    expect(loaded.config.remote).toMatchObject({ enabled: false, ntfy: { topic: 'asks' } });
    const alone = resolveConfig([{ level: 'user', file: '/u/config.json', text: user }]);
    expect(alone.config.remote?.enabled).toBe(true);
  });

  it('takes the ntfy example of docs/remote.md as written', () => {
    const doc = readFileSync('docs/remote.md', 'utf8');
    const block = /<!-- example: remote-ntfy -->\s*```json\n([\s\S]*?)```/.exec(doc);
    expect(block).not.toBeNull();
    expect(messages(validateConfigObject(JSON.parse(block![1]!), 'docs/remote.md'))).toEqual([]);
  });
});
